#pragma once
// `lockstep netsim`'s request and reports, in one place (the tool owns its formats): the request
// as a person gives it on the command line — network conditions in milliseconds and
// probabilities — checked in the terms of its flags and turned into rollback::NetsimOptions
// (integer microseconds and parts per million), and the match's reports: the text, one JSON
// object, and the failure lines for stderr. The match itself is rollback::run_netsim_match
// (rollback/netsim_match.h), with its report pieces (netsim_peer_table, append_netsim_figures,
// append_netsim_network_and_peers). Floating point: display and argument parsing only.
#include <lockstep/inspect/json_writer.h>
#include <lockstep/rollback/netsim_match.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::cli {

struct NetsimRequest {
  std::string sim;
  std::uint32_t peers = 2;
  std::uint32_t players = 0;  // 0: as many as the sim accepts, up to peers
  std::uint32_t units = 0;
  std::vector<std::uint32_t> params;  // at most 4
  std::uint64_t ticks = 3600;
  std::uint64_t seed = 1;  // of the network, the world and (by default) the bots
  std::uint64_t bot = 0;
  bool bot_given = false;  // false: the bots' seed is `seed`
  double latency_ms = 80;  // one-way, 0..10000
  double jitter_ms = 30;   // 0..10000
  double loss = 0.1;       // probabilities, 0..1
  double duplicate = 0;
  double reorder = 0;
  std::uint32_t input_delay = 2;
  std::uint32_t max_prediction = 8;
  std::uint32_t hash_interval = 16;
  std::uint32_t tick_hz = 60;
  std::uint32_t threads = 0;
};

// Checks `request` and fills `options` (sim by name, hidden test sims included; players by
// default rollback::netsim_default_players; the conditions rounded to the nearest µs / ppm; the
// bots' seed `bot` when given, else `seed`; the network's seed `seed`). Returns "" or what is
// wrong, naming the flags: "unknown sim 'x' (known: skirmish, duel)", "--peers must be 1..16",
// "--param takes at most 4 values", "--latency-ms and --jitter-ms must be 0..10000", "--loss,
// --duplicate and --reorder are probabilities in 0..1", "--loss 1 would never deliver anything"
// (more than one peer), "--players must be <= --peers".
std::string netsim_options_from(const NetsimRequest& request, rollback::NetsimOptions& options);

// What the command did with the match, for the reports.
struct NetsimOutcome {
  int exit = 0;               // the exit code (JSON field "exit")
  std::uint64_t wall_ns = 0;  // wall time of the match
  std::string recorded;       // where the confirmed recording was written ("" : not written)
  std::string evidence;       // the desync evidence (NetsimMatch::evidence.text, plus any bundle line)
};

// The text report: "netsim SIM: P peers (N players), T ticks at H Hz; one-way latency L ms ± J
// ms, loss X%, duplicate D%, reorder R%; input delay I, prediction window W, hash every K ticks,
// seed S", netsim_peer_table, "network:" and "frames: F (S s of simulated time for T s of ticks;
// W s wall)" lines, then "OK: every peer confirmed all N ticks ... (final hash H)" or "DESYNC:
// <why>" / "UNFINISHED: <why>", and "recorded the confirmed inputs and hashes to P (re-check:
// TOOL verify P)" when recorded; every line ends in '\n'. TOOL: the tool's name (tool_name()).
std::string netsim_report_text(const NetsimRequest& request, const rollback::NetsimOptions& options,
                               const rollback::NetsimMatch& match, const NetsimOutcome& outcome);
// One JSON object and '\n': ok, exit, sim, peers, players, ticks, latency_ms, jitter_ms, loss,
// duplicate, reorder, seed, input_delay, max_prediction, hash_interval, threads,
// append_netsim_figures, seconds, record, disagreement, offline_mismatch, desync (when set),
// network and per_peer.
std::string netsim_report_json(const NetsimRequest& request, const rollback::NetsimOptions& options,
                               const rollback::NetsimMatch& match, const NetsimOutcome& outcome);
// A failed match's lines for stderr ("TOOL: netsim did not finish: ...", "TOOL: DESYNC
// ..."), each ending in '\n' (the evidence's own lines included); "" when the match is ok.
std::string netsim_failure_text(const NetsimRequest& request, const rollback::NetsimReport& report,
                                const std::string& evidence);

}  // namespace lockstep::cli
