#pragma once
// A whole simulated-network match as one library call (what `lockstep netsim` runs): a game's
// CI or test suite plays its sim between in-process peers over a deterministic lossy network
// and gets the result, the confirmed recording and, on a desync, the evidence — the states of
// the first divergent confirmed tick field by field and a desync bundle ready to write.
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/timing_trace.h>
#include <lockstep/inspect/json_writer.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/rollback/netsim.h>

#include <cstdint>
#include <optional>
#include <string>

namespace lockstep::rollback {

// As many players as `sim` accepts with `config`, one per peer, at most `peers` (the other
// peers spectate); 1 when it accepts none of those counts.
std::uint32_t netsim_default_players(const replay::Sim& sim, const replay::SimConfig& config, std::uint32_t peers);

struct NetsimEvidence {
  // Which peers disagree at which confirmed tick, the hash breakdown and a field-level diff
  // of both states (one line per statement, each ending in '\n').
  std::string text;
  // Both peers' states and the confirmed inputs leading to them (with_bundle only).
  std::optional<inspect::Bundle> bundle;
};

// The evidence of the first desync `net` detected (net.report().desync_count != 0).
NetsimEvidence netsim_desync_evidence(Netsim& net, bool with_bundle);

struct NetsimMatch {
  std::string error;  // non-empty: the match could not be set up or a peer failed; nothing else is set
  NetsimReport report;
  replay::Replay confirmed;  // peer 0's confirmed inputs and hashes, as a replay
  // Not finishing (peers starved of inputs) with no desync or disagreement seen: not evidence
  // of a desync, so `lockstep netsim` gives it its own exit code.
  bool unfinished_only = false;
  NetsimEvidence evidence;  // when report.desync_count != 0
};

// Plays the match. With `trace`, each peer's ticks, snapshot saves, rollbacks and
// resimulations are recorded as lane p ("peer p").
NetsimMatch run_netsim_match(const NetsimOptions& options, bool with_bundle = false,
                             inspect::TimingTrace* trace = nullptr);

// Peer i's role in the report: "player i" or "spectator".
std::string netsim_role(const NetsimReport& report, std::uint32_t peer);

// The per-peer table of `lockstep netsim`: a header line, one line per peer (role, rollbacks,
// resimulated, max-depth, stalls, hash-checks, msgs-sent, msgs-recv) and a "total" line; every
// line ends in '\n'.
std::string netsim_peer_table(const NetsimReport& report);

// The report's figures as fields of an open JSON object: finished, frames, desyncs,
// peers_agree, offline_agrees, final_hash (16 hex digits), rollbacks, resimulated_ticks,
// max_rollback_depth, stalls.
void append_netsim_figures(inspect::JsonWriter& j, const NetsimReport& report);
// The network's figures as object "network" (sent, delivered, lost, duplicated, reordered,
// overflowed) and every peer's as array "per_peer" (peer, role, rollbacks, resimulated_ticks,
// max_rollback_depth, stalls, hash_checks, confirmed_tick, messages_sent, messages_received).
void append_netsim_network_and_peers(inspect::JsonWriter& j, const NetsimReport& report);

}  // namespace lockstep::rollback
