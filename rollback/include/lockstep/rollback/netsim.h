#pragma once
// Netsim: a whole networked match in one process (docs/rollback.md, "Netsim").
//
// Every peer has its own Runner (its own world) and RollbackSession; they talk through a
// SimNetwork. Player p is owned by peer p and driven by the sim's bot; peers beyond the
// player count are spectators. Time is simulated: frame f happens at f × 10^6 / tick_hz µs,
// and in every frame each peer (in peer order) adds its bots' inputs and advances once.
// The run is a pure function of the options: no wall clock, and the same result on any
// thread count (threads only run the sim's parallel loops; docs/systems.md).
//
// After the match, run() checks that
//   * every peer confirmed all `ticks` ticks (finished),
//   * no session raised a Desync (the hash exchange between peers),
//   * every peer's confirmed history (inputs + per-tick hashes with the component
//     breakdown) is identical (peers_agree), and
//   * an offline replay of those confirmed inputs in a fresh world reproduces every recorded
//     hash and every peer's final state (offline_agrees).
// confirmed(0) is peer 0's history as a replay (write it with write_replay_file and
// `lockstep verify` re-checks the match).
#include <lockstep/inspect/state.h>
#include <lockstep/inspect/systems.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/rollback/session.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/rollback/sim_network.h>
#include <lockstep/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lockstep::rollback {

struct NetsimOptions {
  const replay::Sim* sim = nullptr;
  replay::SimConfig config{};  // config.players: players in the match (<= peers)
  std::uint64_t bot_seed = 1;
  std::uint32_t peers = 2;
  std::uint64_t ticks = 600;
  NetworkConditions network{};
  std::uint64_t network_seed = 1;
  std::uint32_t input_delay = 2;
  std::uint32_t max_prediction = 8;
  std::uint32_t hash_interval = 16;
  std::uint32_t tick_hz = 60;
  std::uint64_t max_frames = 0;  // give up after this many frames; 0: 40 × ticks + 3600
  // Every peer's runner runs the sim's parallel loops on this many threads (its own pool;
  // 0 = serial). The offline re-check stays serial, so offline_agrees also proves that the
  // threaded peers computed the serial run's states.
  std::uint32_t threads = 0;
  // The peers authenticate their messages (a key derived from network_seed: the network is
  // in-process, so the key protects nothing here, but the code path is the one a game runs)
  // wherever the build has libsodium; Unauthenticated measures the difference.
  WireSecurity security = wire_auth_available() ? WireSecurity::Authenticated : WireSecurity::Unauthenticated;
};

struct NetsimPeerReport {
  bool spectator = false;
  SessionStats stats{};
  std::uint64_t current_tick = 0;
  std::uint64_t confirmed_tick = 0;
  std::uint64_t final_hash = 0;  // hash of the peer's world at the end
};

struct NetsimDesync {
  std::uint32_t peer = 0;  // the peer that detected it
  SessionEvent event{};
};

struct NetsimReport {
  bool finished = false;
  std::uint64_t frames = 0;
  std::vector<NetsimPeerReport> peers;
  SimNetworkStats network{};
  std::vector<NetsimDesync> desyncs;  // first 64 Desync events, in detection order
  std::uint64_t desync_count = 0;
  bool peers_agree = true;
  std::uint64_t disagreement_tick = 0;
  std::uint32_t disagreement_peer = 0;
  std::string disagreement;
  bool offline_agrees = true;
  std::uint64_t offline_tick = 0;
  std::string offline_mismatch;
  std::uint64_t offline_final_hash = 0;
  // Totals over peers.
  std::uint64_t rollbacks = 0, resimulated_ticks = 0, stalls = 0;
  std::uint32_t max_rollback_depth = 0;

  bool ok() const noexcept { return finished && desync_count == 0 && peers_agree && offline_agrees; }
};

// The first confirmed tick whose state hash differs between peer 0 and another peer, found
// during the match as soon as both have confirmed it, with both peers' states of exactly that
// tick when their sessions still keep them (kept checkpoints are hash_interval multiples, so
// every tick with hash_interval 1). A session's Desync event can come later: a peer sends its
// hash report only for the newest confirmed multiple, so a tick confirmed together with later
// ones is never reported.
struct NetsimDivergence {
  bool found = false;
  std::uint64_t tick = 0;
  std::uint32_t peer_a = 0, peer_b = 0;
  bool states_kept = false;
  inspect::State a, b;   // captured at the moment the second peer confirmed `tick`
  StateHash hash_a{}, hash_b{};
  // Both peers' (agreeing) states of tick - 1 were still kept too and are held by the Netsim:
  // Netsim::rerun_by_system can run that tick again on both peers, stage by stage.
  bool previous_kept = false;
};

class Netsim {
 public:
  explicit Netsim(const NetsimOptions& options);
  ~Netsim();
  Netsim(const Netsim&) = delete;
  Netsim& operator=(const Netsim&) = delete;

  Status status() const noexcept { return status_; }
  const NetsimOptions& options() const noexcept { return options_; }
  // Plays the match and runs the checks. Call once.
  const NetsimReport& run();
  const NetsimReport& report() const noexcept { return report_; }

  std::uint32_t peers() const noexcept { return options_.peers; }
  RollbackSession& session(std::uint32_t peer) { return *peers_[peer]->session; }
  replay::Runner& runner(std::uint32_t peer) { return *peers_[peer]->runner; }
  const replay::Replay& confirmed(std::uint32_t peer) const { return peers_[peer]->log->replay(); }
  const NetsimDivergence& first_divergence() const noexcept { return divergence_; }
  // After run(), when first_divergence().previous_kept: the tick that produced the first
  // divergent confirmed state (first_divergence().tick - 1) run again on both peers of the
  // divergence, each in its own world from its kept state of that tick with the confirmed
  // inputs, stage by stage (inspect::compare_tick_by_system, peer_a's world first): names
  // the system whose output differs between the peers. As in every frame of the match, a
  // peer's bots are asked for their input just before its tick, so what its systems read of
  // its input layer ("the local player") is as it was in the match; their answer is unused.
  // The peers' worlds are left at that tick's end: call it once, after the match. status
  // InvalidArgument when the states were not kept.
  inspect::SystemSyncResult rerun_by_system(const inspect::DiffOptions& options = {});
  SimNetwork& network() { return *network_; }

 private:
  struct Peer {
    std::unique_ptr<replay::Runner> runner;
    std::unique_ptr<RollbackSession> session;
    std::unique_ptr<ReplayLogSink> log;
    std::vector<std::unique_ptr<replay::Bot>> bots;  // indexed by player; null for remote players
  };
  void watch_divergence();
  void keep_previous(std::uint64_t tick, std::uint32_t other);
  void check_agreement();
  void check_offline();

  NetsimOptions options_;
  Status status_;
  std::unique_ptr<SimNetwork> network_;
  std::vector<std::unique_ptr<Peer>> peers_;
  NetsimReport report_;
  NetsimDivergence divergence_;
  std::unique_ptr<Snapshot> previous_a_, previous_b_;  // of divergence_.tick - 1 (previous_kept)
  std::vector<std::uint64_t> divergence_checked_;  // per peer: confirmed ticks compared so far
};

}  // namespace lockstep::rollback
