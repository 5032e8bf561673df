#pragma once
// RollbackSession: GGPO-style rollback netcode over a Runner (docs/rollback.md).
//
// Unlike GGPO/GGRS there are no save/load/advance callbacks: the kernel owns the complete
// simulation state, so the session snapshots, restores, steps and hashes the world itself.
//
// Timeline (one session per peer; every peer runs the same sim with the same config):
//   * current_tick()    the world's tick: the next tick to simulate.
//   * Local input added now is for tick current + input_delay (ticks below input_delay are
//     all-zero inputs for every player, known to everyone from the start).
//   * frontier(p)       first tick whose input for player p has not arrived; inputs below it
//     are known. input_frontier() = min over players.
//   * A tick whose input for some remote player is missing is simulated with a PREDICTION:
//     that player's input at frontier(p) − 1, i.e. its last confirmed input (all zero before
//     any arrived). Fighting and RTS inputs are "held" far more often than they change.
//   * At most max_prediction ticks are simulated ahead of input_frontier(); when the window
//     is full the session STALLS (does not advance) and reports it. max_prediction = 0 is
//     plain lockstep: a tick is simulated only once all of its inputs are known.
//   * When an input arrives for an already simulated tick and differs from what was used,
//     the session ROLLS BACK: at the start of the next advance()/poll() it loads the snapshot
//     of the first mispredicted tick and resimulates to the present with the corrected (and
//     re-predicted) inputs. Snapshots live in a SnapshotRing of max_prediction + 1 slots;
//     a tick whose inputs are all known when it is simulated is never saved (it cannot be
//     rolled back to), so a session that predicts nothing saves nothing.
//   * confirmed_tick(): states up to it are final (all inputs known and simulated with them).
//     Each confirmed frame is handed to the ConfirmedSink (e.g. a replay recorder) with the
//     hash of the state it produced.
//   * Desync detection: every hash_interval ticks the confirmed state hash, with its
//     per-component breakdown, is sent to every peer and compared with theirs. A mismatch
//     raises a Desync event (tick, both totals, differing parts) and the session keeps its
//     snapshot of that tick (desync_snapshot()) for a field-level diff.
//
// Frame loop of a game (once per rendered frame, at the tick rate):
//   for each local player p: if (session.wants_local_input(p)) session.add_local_input(p, pad);
//   session.advance(&advanced);            // network in, rollback, one tick, network out
//   while (session.poll_event(e)) ...;     // rollbacks, stalls, desyncs
//
// Allocation: the constructor allocates everything (snapshot ring, input ring, hash ring,
// checkpoints, message buffers). add_local_input, advance, poll and poll_event allocate
// nothing (tests/rollback_alloc proves it); a ConfirmedSink may allocate (file layer).
#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/rollback/match_key.h>
#include <lockstep/rollback/peer_identity.h>
#include <lockstep/rollback/transport.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/status.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace lockstep::rollback {

inline constexpr std::uint32_t kMaxSessionPlayers = 16;
inline constexpr std::uint32_t kMaxSessionPeers = 16;
static_assert(kMaxIdentityPeers == kMaxSessionPeers, "a MatchIdentity holds one public key per session peer");
inline constexpr std::uint32_t kMaxPredictionWindow = 64;
// Per-component hashes a hash report can carry (sims with more components are rejected).
inline constexpr std::uint32_t kMaxReportComponents = 128;
// The `peer` of a Desync event raised by the sync test (the session against itself).
inline constexpr std::uint32_t kSyncTestPeer = 0xFFFFFFFEu;

struct SessionConfig {
  std::uint32_t local_peer = 0;  // this session's transport id
  std::uint32_t peers = 1;       // peers in the session (transport ids 0..peers-1)
  // owner[p]: the peer that sends player p's input (players = the runner's config.players).
  // A peer that owns no player is a spectator: it simulates, confirms and checks hashes.
  std::uint8_t owner[kMaxSessionPlayers] = {};
  std::uint32_t input_delay = 0;     // ticks between adding a local input and its tick
  std::uint32_t max_prediction = 8;  // 0 = plain lockstep (waits for every input)
  std::uint32_t hash_interval = 16;  // K: exchange confirmed hashes every K ticks; 0 = off
  std::uint32_t kept_checkpoints = 8;  // confirmed-tick snapshots kept for desync diffs
  // Desyncs whose evidence (tick, both hashes, this peer's state) is kept: the earliest
  // divergent tick and the next kept_desyncs − 1 (1..64; each keeps one snapshot, reserved
  // by the constructor). Every desync still raises its event.
  std::uint32_t kept_desyncs = 1;
  // Each hash report is sent this many frames in a row. Every report is sent (not only the
  // newest), so the first divergent tick is compared even when several confirm in one frame.
  std::uint32_t report_repeats = 3;
  std::uint32_t input_ring = 0;      // ticks of inputs kept; 0 = 2·window + 4·delay + 96
  // Tags every message; messages of other sessions are dropped. NOT a secret: it travels in the
  // clear (integrity comes from match_key; docs/rollback.md, "Threat model").
  std::uint32_t session_id = 0;
  // Sync-test mode (no transport, every player local): after every tick, roll back this many
  // ticks, resimulate and compare the hashes with the first simulation (Desync on mismatch).
  std::uint32_t sync_test_distance = 0;

  // ---- wire security (rollback/match_key.h; docs/rollback.md, "Threat model") ----
  // A session with peers authenticates every message with match_key (MAC + replay window) and
  // refuses to start without a key, unless the game opts out with Unauthenticated.
  WireSecurity security = WireSecurity::Authenticated;
  MatchKey match_key{};  // the per-match secret from the game's matchmaker (all zero: none)
  // Per-peer authentication (rollback/peer_identity.h): this peer's key pair and every peer's
  // public key, from the matchmaker. When set (identity.peer_count != 0), every ordered pair of
  // peers authenticates with its own key (derive_link_keys) and match_key is not used by the
  // session: no player can forge a message that claims another peer as its sender. Without it,
  // every player holds match_key and can impersonate every other.
  MatchIdentity identity{};
  // Messages from one peer processed per advance()/poll() (0: 256); the rest are dropped
  // unread and counted (dropped_budget), so a flood from one address cannot starve the others.
  std::uint32_t receive_budget_per_peer = 0;

  // ---- life cycle (docs/rollback.md, "Life cycle"); times are those passed to set_time() ----
  // Handshake round trips with every peer before tick 0 (GGPO uses 5). 0: none, the session
  // runs at once (in-process networks that are up from the start).
  std::uint32_t sync_roundtrips = 0;
  // This process's random id for the match. Peers learn it in the handshake, from the reply to
  // a request whose random nonce round-tripped (never from a datagram that merely claims it); a
  // message with another one (a restarted process) is dropped, and its handshake request is
  // answered with a rejection that echoes the request's nonce, so a restart is a clear error on
  // the restarted side, never a silent desync — and a stranger cannot cause that error for a
  // peer that did not ask. 0 is allowed but weak.
  std::uint32_t incarnation = 0;
  // Rejoin (docs/rollback.md, "Rejoin"): this process is a restart of peer local_peer of a
  // running match whose players were dropped. The runner is at tick S: the game replayed the
  // confirmed history 0..S from a survivor's recording (and checked its hashes). The handshake
  // asks every surviving peer to take the players back; they answer with one return tick R
  // (the players' input is the default until R on every peer) or refuse with a clear error.
  // Needs sync_roundtrips >= 1 and peers >= 2.
  bool rejoin = false;
  std::uint64_t sync_timeout_us = 0;             // handshake not done by then: status error (0: never)
  std::uint64_t disconnect_notify_start_us = 0;  // silence before NetworkInterrupted (0: never)
  std::uint64_t disconnect_timeout_us = 0;       // silence before Disconnected (0: never)

  // ---- time sync (docs/rollback.md, "Time sync") ----
  // Recommend a wait (WaitRecommendation) when this peer is estimated more than this many
  // frames ahead of a peer. 0: off.
  std::uint32_t max_frame_advantage = 0;
  std::uint32_t time_sync_samples = 16;   // advantage samples averaged per estimate
  std::uint32_t time_sync_interval = 32;  // frames between two recommendations

  // Player p owned by peer p (p < players); peers beyond the players are spectators.
  static SessionConfig one_player_per_peer(std::uint32_t peers, std::uint32_t players, std::uint32_t local_peer);
  // Every player local, no peers (sync tests, single-player rollback).
  static SessionConfig local_only(std::uint32_t players);
};

// Desync is GGPO/GGRS's "desync detected". The life-cycle events carry `peer`.
enum class SessionEventKind : std::uint8_t {
  Rollback = 1,
  Stall = 2,
  Desync = 3,
  Synchronizing = 4,       // handshake progress with `peer`: count of total round trips done
  Synchronized = 5,        // handshake with `peer` done
  Running = 6,             // every peer synchronized: tick 0 may be simulated
  NetworkInterrupted = 7,  // nothing heard from `peer` for notify-start; timeout_us left
  NetworkResumed = 8,      // `peer` was heard again
  Disconnected = 9,        // `peer` timed out (or another peer said so): its players will be dropped
  DisconnectAgreed = 10,   // `player` of `peer` uses the default input from `tick` on, on every peer
  WaitRecommendation = 11, // this peer runs `frames` ahead of `peer`: skip that many frames
  Rejoined = 12,           // `player` of `peer` (a restarted process) plays again from `tick`, on both peers
};
enum class StallReason : std::uint8_t {
  None = 0,
  PredictionWindow = 1,  // max_prediction ticks are already predicted
  LocalInput = 2,        // a local player's input for the current tick was not added
  InputRing = 3,         // the input ring still holds unacknowledged or unconfirmed ticks
};

struct SessionEvent {
  SessionEventKind kind = SessionEventKind::Rollback;
  StallReason stall = StallReason::None;  // Stall only
  std::uint32_t depth = 0;                // Rollback: ticks resimulated
  std::uint32_t peer = 0;                 // Desync: the remote peer (kSyncTestPeer in sync tests)
  // Rollback: the tick rolled back to; Stall: the tick that could not be simulated; Desync:
  // the tick whose confirmed state differs.
  std::uint64_t tick = 0;
  std::uint64_t local_total = 0;   // Desync: our hash (sync test: the first simulation)
  std::uint64_t remote_total = 0;  // Desync: theirs (sync test: the resimulation)
  HashDiff diff{};                 // Desync: which parts and components differ
  std::uint32_t count = 0, total = 0;  // Synchronizing: round trips done / needed
  std::uint32_t frames = 0;            // WaitRecommendation
  std::uint32_t player = 0;            // DisconnectAgreed
  std::uint64_t timeout_us = 0;        // NetworkInterrupted: time left before Disconnected
};

struct SessionStats {
  std::uint64_t ticks = 0;              // ticks simulated for the first time
  std::uint64_t rollbacks = 0;
  std::uint64_t resimulated_ticks = 0;  // ticks simulated again by rollbacks
  std::uint32_t max_rollback_depth = 0;
  std::uint64_t stalls = 0;             // advance() calls that could not simulate a tick
  std::uint64_t snapshots_saved = 0;    // rollback-ring saves (predicted ticks only)
  std::uint64_t desyncs = 0;
  std::uint64_t hash_checks = 0;        // remote hash reports compared
  std::uint64_t hash_unchecked = 0;     // reports that came too late (or too early) to compare
  std::uint64_t messages_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t send_failures = 0;
  std::uint64_t messages_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t malformed = 0;          // messages dropped by validation
  std::uint64_t input_conflicts = 0;    // a known input arrived again with other bytes (ignored)
  std::uint64_t events_dropped = 0;     // events lost because the queue was full
  std::uint64_t stale = 0;              // messages of another incarnation (a restarted peer)
  std::uint64_t from_disconnected = 0;  // messages of a peer already declared disconnected
  std::uint64_t sync_rejections_sent = 0;
  std::uint64_t relayed_inputs = 0;     // a disconnected peer's inputs forwarded to the others
  std::uint64_t wait_recommendations = 0;
  // Wire security (docs/rollback.md, "Threat model"): messages dropped before they were read.
  std::uint64_t dropped_auth = 0;    // missing or wrong MAC, or the other security mode
  std::uint64_t dropped_replay = 0;  // a valid message seen before (or older than the window)
  std::uint64_t dropped_budget = 0;  // over the per-peer receive budget of one poll
  std::uint64_t unsolicited_sync = 0;  // handshake replies/rejections answering no request of ours
  // Rejoin requests answered with a freshness cookie instead of an acceptance (one per honest
  // rejoin; more: recorded requests replayed at this survivor).
  std::uint64_t rejoin_challenges = 0;
};

enum class PeerState : std::uint8_t { Local = 0, Synchronizing = 1, Running = 2, Interrupted = 3, Disconnected = 4 };

struct PeerStatus {
  PeerState state = PeerState::Local;
  std::uint32_t sync_done = 0;        // handshake round trips completed
  std::uint32_t rtt_us = 0;           // smoothed round-trip time (0 until measured)
  std::int32_t frame_advantage = 0;   // last estimate: frames this peer is ahead of that one
  std::uint64_t remote_tick = 0;      // highest tick that peer reported
  std::uint64_t last_heard_us = 0;
  std::uint64_t disconnect_tick = ~std::uint64_t{0};  // agreed tick its players were dropped from
  std::uint64_t rejoin_tick = ~std::uint64_t{0};      // tick its players play again from (Rejoined)
};

// One kept desync (RollbackSession::desync_record).
struct DesyncRecord {
  std::uint64_t tick = 0;  // the confirmed tick whose state differs
  std::uint32_t peer = 0;  // the remote peer (kSyncTestPeer in sync tests)
  StateHash local{}, remote{};
};

// Receives every confirmed frame, in tick order, exactly once.
class ConfirmedSink {
 public:
  virtual ~ConfirmedSink() = default;
  // Frame `tick` is final: its canonical (little-endian) input bytes, players × input size,
  // and the hash of the state it produced (the state at tick + 1).
  virtual void on_confirmed(std::uint64_t tick, std::span<const std::byte> canonical_frame,
                            const StateHash& after) noexcept = 0;
  // Optional: checkpoints of the confirmed state every checkpoint_interval() ticks (a multiple
  // of SessionConfig::hash_interval; 0: none). on_checkpoint(t, state) follows the
  // on_confirmed call that completed tick t, so a recorder can write the state of t in order.
  virtual std::uint32_t checkpoint_interval() const noexcept { return 0; }
  virtual void on_checkpoint(std::uint64_t tick, const Snapshot& state) noexcept {
    (void)tick;
    (void)state;
  }
};

// Collects the confirmed history into an in-memory Replay (inputs, per-tick hashes with
// the component breakdown); write it with write_replay_file → `lockstep verify` re-checks
// the match offline. Allocates (file layer).
class ReplayLogSink final : public ConfirmedSink {
 public:
  // `runner` must be at tick 0 (its hash is recorded as the initial state).
  explicit ReplayLogSink(const replay::Runner& runner,
                         std::uint32_t flags = replay::kReplayHasHashes | replay::kReplayHasComponentHashes);
  void on_confirmed(std::uint64_t tick, std::span<const std::byte> canonical_frame,
                    const StateHash& after) noexcept override;
  replay::Replay& replay() noexcept { return replay_; }
  const replay::Replay& replay() const noexcept { return replay_; }

 private:
  replay::Replay replay_;
};

// Streams the confirmed history through a ReplayRecorder (crash-safe: a killed process
// leaves FILE.partial, loadable up to its last block). The recorder must be open and
// initial() written; the first error is kept in status().
class RecorderSink final : public ConfirmedSink {
 public:
  // `checkpoint_interval` (0: none): write a CKPT block every that many ticks — the header
  // must say so (make_header(..., checkpoint_interval)) — so that watchers can start late
  // (replay/replay_follow.h).
  explicit RecorderSink(replay::ReplayRecorder& recorder, std::uint32_t checkpoint_interval = 0) noexcept
      : recorder_(recorder), checkpoint_interval_(checkpoint_interval) {}
  void on_confirmed(std::uint64_t tick, std::span<const std::byte> canonical_frame,
                    const StateHash& after) noexcept override;
  std::uint32_t checkpoint_interval() const noexcept override { return checkpoint_interval_; }
  void on_checkpoint(std::uint64_t tick, const Snapshot& state) noexcept override;
  const replay::ReplayStatus& status() const noexcept { return status_; }

 private:
  replay::ReplayRecorder& recorder_;
  std::uint32_t checkpoint_interval_ = 0;
  replay::ReplayStatus status_;
};

class RollbackSession {
 public:
  // `runner` must be at tick 0 and outlive the session; `transport` may be null for a
  // session without peers (sync test). Check status() before use.
  RollbackSession(replay::Runner& runner, const SessionConfig& config, Transport* transport);
  ~RollbackSession();
  RollbackSession(const RollbackSession&) = delete;
  RollbackSession& operator=(const RollbackSession&) = delete;

  Status status() const noexcept;
  const SessionConfig& config() const noexcept;
  replay::Runner& runner() noexcept;

  // ---- local input ----------------------------------------------------------------------
  bool is_local(std::uint32_t player) const noexcept;
  // The tick the next add_local_input(player) is for.
  std::uint64_t local_input_tick(std::uint32_t player) const noexcept;
  // True when add_local_input(player) would be accepted now (the input for
  // current_tick() + input_delay has not been added yet and the ring has room).
  bool wants_local_input(std::uint32_t player) const noexcept;
  // One host-order input struct (sim.input_type().size bytes) for local_input_tick(player).
  // InvalidArgument: not a local player / wrong size / already added; CapacityExceeded:
  // the input ring is full (wait: advance() keeps polling the network).
  Status add_local_input(std::uint32_t player, std::span<const std::byte> input) noexcept;

  // ---- frames ---------------------------------------------------------------------------
  // Receive → roll back if needed → confirm → simulate one tick if the window allows (else
  // a Stall event) → send. `advanced` (optional) tells whether a tick was simulated.
  // Errors: a failing sim step (the world is then unusable) or an internal inconsistency.
  Status advance(bool* advanced = nullptr) noexcept;
  // The same without simulating a new tick (idle frames, end of match).
  Status poll() noexcept;
  bool poll_event(SessionEvent& out) noexcept;
  // The clock for handshake timeouts, disconnect detection and ping (µs, never going back):
  // a game passes its steady clock once per frame, tests a simulated one. Without it the
  // clock stays at 0 and nothing times out.
  void set_time(std::uint64_t now_us) noexcept;

  // ---- life cycle -----------------------------------------------------------------------
  bool running() const noexcept;  // the handshake is done (always, with sync_roundtrips = 0)
  PeerStatus peer_status(std::uint32_t peer) const noexcept;
  // Largest frame-advantage estimate over the connected peers (time sync).
  std::int32_t frame_advantage() const noexcept;
  // True when every connected peer has acknowledged this peer's inputs below `tick` (a peer
  // may leave a finished match then without leaving the others waiting).
  bool inputs_acknowledged(std::uint64_t tick) const noexcept;

  // ---- state ----------------------------------------------------------------------------
  std::uint64_t current_tick() const noexcept;
  std::uint64_t confirmed_tick() const noexcept;
  std::uint64_t input_frontier() const noexcept;
  std::uint64_t frontier(std::uint32_t player) const noexcept;
  // Hash of the state at `tick` while it is still in the hash ring (the last window + 2
  // ticks), else null. Final only for tick <= confirmed_tick().
  const StateHash* hash_at(std::uint64_t tick) const noexcept;
  const SessionStats& stats() const noexcept;
  void set_confirmed_sink(ConfirmedSink* sink) noexcept;

  // ---- desync evidence ------------------------------------------------------------------------
  // Kept desyncs in ascending tick order (at most kept_desyncs): record 0 is the earliest
  // divergent tick seen, even when reports arrived out of order. The unindexed accessors
  // below are record 0's.
  std::uint32_t desync_count() const noexcept;
  const DesyncRecord* desync_record(std::uint32_t i) const noexcept;  // null when i >= desync_count()
  const Snapshot* desync_snapshot(std::uint32_t i) const noexcept;    // null: no state kept for it
  bool has_desync() const noexcept;
  std::uint64_t desync_tick() const noexcept;
  std::uint32_t desync_peer() const noexcept;
  const StateHash& desync_local_hash() const noexcept;
  const StateHash& desync_remote_hash() const noexcept;
  // This peer's state at desync_tick(), or null (sync tests; tick no longer kept).
  const Snapshot* desync_snapshot() const noexcept;
  // This peer's kept snapshot of confirmed tick `tick` (a hash_interval multiple), or null.
  const Snapshot* checkpoint(std::uint64_t tick) const noexcept;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace lockstep::rollback
