#pragma once
// `lockstep netsim` as library calls, for a game's own tool or CI job: the request (in human
// units, inspect/netsim_report.h) checked and turned into NetsimOptions, and the match's
// reports — text, one JSON object, and the failure lines for stderr — as strings. The
// conditions' floating-point values stay in inspect/ (parsing and display); this file handles
// integers and strings only.
#include <lockstep/inspect/netsim_report.h>
#include <lockstep/rollback/netsim_match.h>

#include <cstdint>
#include <string>

namespace lockstep::rollback {

// Checks `request` and fills `options` (sim by name, hidden test sims included; players by
// default netsim_default_players; the conditions through inspect::netsim_units_from; the bots'
// seed `bot` when given, else `seed`; the network's seed `seed`). Returns "" or what is wrong,
// e.g. "unknown sim 'x' (known: skirmish, duel)", "--peers must be 1..16", "--param takes at
// most 4 values", "--players must be <= --peers".
std::string netsim_options_from(const inspect::NetsimRequest& request, NetsimOptions& options);

// What the caller did with the match, for the reports.
struct NetsimOutcome {
  int exit = 0;               // the exit code the caller returns (JSON field "exit")
  std::uint64_t wall_ns = 0;  // wall time of the match
  std::string recorded;       // where the confirmed recording was written ("" : not written)
  std::string evidence;       // the desync evidence (NetsimMatch::evidence.text, plus any bundle line)
};

// The text report: the request line, netsim_peer_table, "network:" and "frames:" lines, then
// "OK: every peer confirmed all N ticks ... (final hash H)" or "DESYNC: <why>" / "UNFINISHED:
// <why>", and "recorded the confirmed inputs and hashes to P (re-check: lockstep verify P)"
// when recorded; every line ends in '\n'.
std::string netsim_report_text(const inspect::NetsimRequest& request, const NetsimOptions& options,
                               const NetsimMatch& match, const NetsimOutcome& outcome);
// One JSON object and '\n': ok, exit, the request's fields, append_netsim_figures, seconds,
// record, disagreement, offline_mismatch, desync (when set), network and per_peer.
std::string netsim_report_json(const inspect::NetsimRequest& request, const NetsimOptions& options,
                               const NetsimMatch& match, const NetsimOutcome& outcome);
// A failed match's lines for stderr ("lockstep: netsim did not finish: ...", "lockstep: DESYNC
// ..."), each ending in '\n' (the evidence's own lines included); "" when the match is ok.
std::string netsim_failure_text(const inspect::NetsimRequest& request, const NetsimReport& report,
                                const std::string& evidence);

}  // namespace lockstep::rollback
