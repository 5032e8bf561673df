// RollbackSession (replay/rollback.h): input ring, prediction, rollback + resimulation,
// confirmation, hash exchange, sync test. Wire format: see "Messages" below and
// docs/rollback.md. Nothing here allocates after the constructor.
#include <lockstep/rollback/session.h>

#include "wire_auth.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace lockstep::rollback {

namespace {

constexpr std::uint64_t kNoTick = ~std::uint64_t{0};
constexpr std::uint32_t kEventCapacity = 64;
constexpr std::uint32_t kMaxReceivePerPoll = 4096;
constexpr std::uint32_t kMaxChunksPerSend = 4;

// ---- Messages ---------------------------------------------------------------------------
// All integers little-endian. Common header (40 bytes):
//   u8 type · u8 version (3) · u8 sender peer · u8 players · u32 session id · u64 sender tick ·
//   u32 sender incarnation · u16 peers the sender declared disconnected · i16 the sender's
//   frame advantage over the receiver (time sync) · u32 sender clock (µs, low bits) ·
//   u32 echo: the receiver's clock from its last message (0xFFFFFFFF: none) · u32 µs the
//   sender held that echo · u8 flags (bit 0: authenticated) · u8 0 · u16 0
// Common trailer (24 bytes), after the body: u64 sequence number (per sender and receiver,
// from 1) · 16-byte MAC: keyed BLAKE2b over [receiver u8] and every byte before the MAC
// (all zero when unauthenticated). Version 2 had no trailer and a 4-byte nonce.
// type 1, INPUT (player's inputs for ticks [first, first + count) plus the sender's input
// frontier of every player, which doubles as the acknowledgement of what it has received):
//   u8 player (0xFF: acknowledgement only) · u8 0 · u16 count · u32 0 · u64 first tick ·
//   u64 frontier[players] · count × canonical input struct
// type 2, HASH (the sender's confirmed state hash at `tick`):
//   u64 tick · u64 total · u64 entities · u64 archetypes · u64 resources ·
//   u32 component count · u32 0 · u64 component[count]
// type 3, SYNC_REQUEST: u64 nonce (fresh, from the OS CSPRNG) · u32 round · u32 0;
// type 4, SYNC_REPLY: u64 nonce (echoed) · u64 0;
// type 5, SYNC_REJECT (the sender runs the match with another incarnation of the receiver):
//   u64 nonce (echoed from the rejected request) · u64 0. Replies and rejections are honoured
//   only by a synchronizing peer whose outstanding nonce they echo.
constexpr std::uint8_t kMsgInput = 1;
constexpr std::uint8_t kMsgHash = 2;
constexpr std::uint8_t kMsgSyncRequest = 3;
constexpr std::uint8_t kMsgSyncReply = 4;
constexpr std::uint8_t kMsgSyncReject = 5;
constexpr std::uint8_t kWireVersion = 3;
constexpr std::uint32_t kHeaderBytes = 40;
constexpr std::uint32_t kTrailerBytes = 8 + wire::kTagBytes;
constexpr std::uint32_t kSyncBodyBytes = 16;
constexpr std::uint8_t kFlagAuthenticated = 1;
constexpr std::uint32_t kDefaultReceiveBudget = 256;
constexpr std::uint32_t kNoEcho = 0xFFFFFFFFu;
constexpr std::uint32_t kInputHeadBytes = 16;
constexpr std::uint32_t kHashHeadBytes = 48;
constexpr std::uint8_t kAckOnly = 0xFF;

void put_u16(std::byte* p, std::uint16_t v) noexcept {
  for (int i = 0; i < 2; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
void put_u32(std::byte* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
void put_u64(std::byte* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
std::uint16_t get_u16(const std::byte* p) noexcept {
  return static_cast<std::uint16_t>(std::to_integer<std::uint32_t>(p[0]) | (std::to_integer<std::uint32_t>(p[1]) << 8));
}
std::uint32_t get_u32(const std::byte* p) noexcept {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint32_t>(p[i]);
  return v;
}
std::uint64_t get_u64(const std::byte* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

}  // namespace

SessionConfig SessionConfig::one_player_per_peer(std::uint32_t peers, std::uint32_t players, std::uint32_t local_peer) {
  SessionConfig c;
  c.peers = peers;
  c.local_peer = local_peer;
  for (std::uint32_t p = 0; p < kMaxSessionPlayers; ++p) c.owner[p] = static_cast<std::uint8_t>(p < players ? p : 0);
  return c;
}

SessionConfig SessionConfig::local_only(std::uint32_t) {
  SessionConfig c;
  c.peers = 1;
  c.local_peer = 0;
  return c;
}

// ---- sinks ------------------------------------------------------------------------------

ReplayLogSink::ReplayLogSink(const replay::Runner& runner, std::uint32_t flags) {
  replay_.header = replay::make_header(runner.sim(), runner.config(), runner.world().storage(), flags);
  if (replay_.header.has_hashes()) replay_.add_hash(runner.hash());
  replay_.complete = true;
}

void ReplayLogSink::on_confirmed(std::uint64_t, std::span<const std::byte> canonical_frame, const StateHash& after) noexcept {
  replay_.inputs.insert(replay_.inputs.end(), canonical_frame.begin(), canonical_frame.end());
  if (replay_.header.has_hashes()) replay_.add_hash(after);
}

void RecorderSink::on_confirmed(std::uint64_t, std::span<const std::byte> canonical_frame, const StateHash& after) noexcept {
  if (status_.ok()) status_ = recorder_.tick(canonical_frame, &after);
}

// ---- session ----------------------------------------------------------------------------

struct RollbackSession::Impl {
  struct Pending {
    bool valid = false;
    std::uint32_t peer = 0;
    StateHash hash{};
  };

  replay::Runner& runner;
  World& world;
  SessionConfig cfg;
  Transport* transport;
  Status status;
  const TypeDescriptor* input_type = nullptr;

  std::uint32_t players = 0, input_size = 0, frame_bytes = 0;
  std::uint32_t window = 0;      // W: max predicted ticks
  std::uint32_t delay = 0;       // D
  std::uint32_t interval = 0;    // K
  std::uint32_t kept = 0;        // M
  std::uint32_t ring_ticks = 0;  // Q
  std::uint32_t hash_slots = 0;  // H
  std::uint32_t all_mask = 0, local_mask = 0;
  std::uint32_t max_chunk = 0;   // inputs per message

  // Input ring: slot = tick % Q.
  std::vector<std::uint64_t> slot_tick;
  std::vector<std::uint32_t> known;
  std::vector<std::byte> input;  // real inputs (host order), Q × frame_bytes
  std::vector<std::byte> used;   // the frame each simulated tick used
  std::vector<std::byte> last_confirmed;  // per player: input at frontier − 1 (the prediction)
  std::array<std::uint64_t, kMaxSessionPlayers> frontier{};
  std::array<std::array<std::uint64_t, kMaxSessionPlayers>, kMaxSessionPeers> acked{};
  std::array<std::uint64_t, kMaxSessionPeers> remote_tick{};

  std::uint64_t emitted = 0;  // confirmed_tick()
  std::uint64_t first_incorrect = kNoTick;

  std::unique_ptr<SnapshotRing> ring;
  std::vector<StateHash> hash_ring;
  std::vector<std::uint64_t> hash_tick;

  // Confirmed-tick checkpoints and our hash reports, slot = (tick / K) % M.
  std::vector<Snapshot> ckpt;
  std::vector<std::uint64_t> ckpt_tick;
  std::vector<StateHash> report;
  std::vector<std::uint64_t> report_tick;
  std::vector<Pending> pending;
  std::array<std::uint64_t, kMaxSessionPeers> last_remote_report{};
  std::uint64_t out_report_tick = kNoTick;
  std::uint32_t out_report_repeats = 0;

  std::array<SessionEvent, kEventCapacity> events{};
  std::uint32_t event_head = 0, event_count = 0;
  SessionStats stats{};
  ConfirmedSink* sink = nullptr;

  bool desync = false;
  std::uint64_t desync_tick = 0;
  std::uint32_t desync_peer = 0;
  StateHash desync_local{}, desync_remote{};
  Snapshot desync_snap;
  bool desync_snap_valid = false;

  // ---- life cycle and time sync (per remote peer) ----
  struct Link {
    bool ready = false;  // handshake done
    bool gone = false;   // declared disconnected (by us or by another peer)
    bool interrupted = false;
    bool incarnation_known = false;
    std::uint32_t incarnation = 0;
    std::uint32_t sync_done = 0;
    std::uint64_t nonce = 0;         // our outstanding handshake nonce to that peer
    std::uint64_t send_seq = 0;      // last sequence number we sent it
    wire::ReplayWindow window;       // its sequence numbers (of its known incarnation)
    std::uint32_t received = 0;      // messages from it in this poll (receive budget)
    std::uint64_t last_heard = 0;
    bool echo_valid = false;
    std::uint32_t echo = 0;  // its clock in its last message
    std::uint64_t echo_at = 0;
    std::uint32_t rtt = 0;
    std::int64_t adv_sum = 0;
    std::uint32_t adv_n = 0;
    std::int32_t advantage = 0;
    std::uint32_t their_gone = 0;  // peers it declared disconnected
  };
  std::array<Link, kMaxSessionPeers> link{};
  // seen[q][p]: the highest frontier of player p that peer q reported (what it has of p).
  std::array<std::array<std::uint64_t, kMaxSessionPlayers>, kMaxSessionPeers> seen{};
  std::uint32_t gone_mask = 0;     // peers declared disconnected
  std::uint32_t dropped_mask = 0;  // players whose disconnect tick is agreed
  std::array<std::uint64_t, kMaxSessionPlayers> drop_tick{};
  bool is_running = false;
  bool expelled = false;
  bool clock_started = false;
  std::uint64_t now = 0, start = 0;
  std::uint32_t wait_cooldown = 0;
  std::uint64_t frames = 0;  // advance()/poll() calls
  bool authenticated = false;
  std::uint32_t budget = kDefaultReceiveBudget;

  std::vector<StateHash> sync_expected;
  std::array<std::byte, kMaxMessageBytes> msg{};
  std::vector<std::byte> canon;    // one frame, canonical
  std::vector<std::byte> scratch;  // one input struct

  Impl(replay::Runner& r, const SessionConfig& c, Transport* t) : runner(r), world(r.world()), cfg(c), transport(t) {}

  // ---- helpers --------------------------------------------------------------------------
  std::uint32_t slot(std::uint64_t t) const noexcept { return static_cast<std::uint32_t>(t % ring_ticks); }
  bool has(std::uint64_t t) const noexcept { return slot_tick[slot(t)] == t; }
  std::byte* input_at(std::uint64_t t, std::uint32_t p) noexcept {
    return input.data() + std::size_t{slot(t)} * frame_bytes + std::size_t{p} * input_size;
  }
  std::byte* used_at(std::uint64_t t) noexcept { return used.data() + std::size_t{slot(t)} * frame_bytes; }
  bool is_local(std::uint32_t p) const noexcept { return p < players && ((local_mask >> p) & 1u) != 0; }
  std::uint64_t current() const noexcept { return world.tick(); }
  bool dropped(std::uint32_t p) const noexcept { return ((dropped_mask >> p) & 1u) != 0; }
  bool live(std::uint32_t q) const noexcept { return q != cfg.local_peer && !link[q].gone; }
  // Time sync only paces us against peers that play: a spectator may run as far behind as
  // it likes, nobody waits for it.
  bool plays(std::uint32_t q) const noexcept {
    for (std::uint32_t p = 0; p < players; ++p)
      if (cfg.owner[p] == q) return true;
    return false;
  }
  // A player whose owner is gone but whose disconnect tick is not agreed yet: its inputs are
  // relayed between the remaining peers until they all hold the same ones.
  bool relaying(std::uint32_t p) const noexcept {
    return !dropped(p) && !is_local(p) && ((gone_mask >> cfg.owner[p]) & 1u) != 0;
  }
  // A dropped player's inputs are known (the default) for every tick from its drop tick on.
  std::uint64_t min_frontier() const noexcept {
    std::uint64_t c = kNoTick;
    for (std::uint32_t p = 0; p < players; ++p)
      if (!dropped(p)) c = std::min(c, frontier[p]);
    return c;
  }
  // The frontier of `p` as reported to other peers.
  std::uint64_t reported_frontier(std::uint32_t p) const noexcept {
    return dropped(p) ? std::min(frontier[p], drop_tick[p]) : frontier[p];
  }
  // Oldest input some connected peer may still need from us: its acknowledgement of our
  // players, and what it reported of the other players.
  std::uint64_t min_ack() const noexcept {
    std::uint64_t m = kNoTick;
    for (std::uint32_t q = 0; q < cfg.peers; ++q) {
      if (!live(q)) continue;
      for (std::uint32_t p = 0; p < players; ++p) {
        if (is_local(p)) {
          m = std::min(m, acked[q][p]);
        } else if (!dropped(p)) {
          // Kept until every connected peer has them too: if p's owner disconnects, the
          // others relay them (see check_agreement).
          m = std::min(m, std::min(seen[q][p], frontier[p]));
        }
      }
    }
    return m;
  }
  // True when tick t has (or may take) its ring slot without losing anything still needed:
  // the slot's old tick must be confirmed and acknowledged by every peer.
  bool can_claim(std::uint64_t t) const noexcept {
    const std::uint64_t old = slot_tick[slot(t)];
    if (old == t || old == kNoTick) return true;
    if (old > t) return false;  // t is older than the ring
    return old < emitted && old < min_ack();
  }
  void claim(std::uint64_t t) noexcept {
    const std::uint32_t s = slot(t);
    if (slot_tick[s] == t) return;
    slot_tick[s] = t;
    known[s] = 0;
    std::memset(input.data() + std::size_t{s} * frame_bytes, 0, frame_bytes);
    std::memset(used.data() + std::size_t{s} * frame_bytes, 0, frame_bytes);
    if (dropped_mask == 0) return;
    for (std::uint32_t p = 0; p < players; ++p) {
      if (!dropped(p) || t < drop_tick[p]) continue;
      known[s] |= 1u << p;  // the default input: all zero bytes, already in place
      advance_frontier(p);
    }
  }
  void advance_frontier(std::uint32_t p) noexcept {
    while (has(frontier[p]) && ((known[slot(frontier[p])] >> p) & 1u) != 0) {
      std::memcpy(last_confirmed.data() + std::size_t{p} * input_size, input_at(frontier[p], p), input_size);
      ++frontier[p];
    }
  }
  void push_event(const SessionEvent& e) noexcept {
    if (event_count == kEventCapacity) {
      event_head = (event_head + 1) % kEventCapacity;
      --event_count;
      ++stats.events_dropped;
    }
    events[(event_head + event_count) % kEventCapacity] = e;
    ++event_count;
  }
  Status fail(Status s) noexcept {
    if (status.ok()) status = s;
    return s;
  }

  // ---- construction -----------------------------------------------------------------------
  Status init() {
    if (!runner.status().ok()) return runner.status();
    if (world.tick() != 0) return {ErrorCode::InvalidArgument, "RollbackSession: the runner must be at tick 0"};
    input_type = &runner.sim().input_type();
    players = runner.config().players;
    input_size = input_type->size;
    frame_bytes = runner.frame_bytes();
    if (players == 0 || players > kMaxSessionPlayers)
      return {ErrorCode::InvalidArgument, "RollbackSession: 1..16 players"};
    if (cfg.peers == 0 || cfg.peers > kMaxSessionPeers || cfg.local_peer >= cfg.peers)
      return {ErrorCode::InvalidArgument, "RollbackSession: peers must be 1..16 and local_peer < peers"};
    if (cfg.peers > 1 && transport == nullptr)
      return {ErrorCode::InvalidArgument, "RollbackSession: a session with peers needs a transport"};
    if (cfg.max_prediction > kMaxPredictionWindow || cfg.sync_test_distance > kMaxPredictionWindow)
      return {ErrorCode::InvalidArgument, "RollbackSession: max_prediction and sync_test_distance must be <= 64"};
    if (cfg.input_delay > 64) return {ErrorCode::InvalidArgument, "RollbackSession: input_delay must be <= 64"};
    all_mask = (1u << players) - 1u;
    for (std::uint32_t p = 0; p < players; ++p) {
      if (cfg.owner[p] >= cfg.peers) return {ErrorCode::InvalidArgument, "RollbackSession: owner[p] must be < peers"};
      if (cfg.owner[p] == cfg.local_peer) local_mask |= 1u << p;
    }
    if (cfg.sync_test_distance != 0 && (cfg.peers != 1 || local_mask != all_mask))
      return {ErrorCode::InvalidArgument, "RollbackSession: the sync test runs without peers, every player local"};
    if (world.componentCount() > kMaxReportComponents)
      return {ErrorCode::InvalidArgument, "RollbackSession: more than 128 components do not fit a hash report"};
    authenticated = cfg.peers > 1 && cfg.security == WireSecurity::Authenticated;
    if (authenticated && cfg.match_key.empty())
      return {ErrorCode::InvalidArgument,
              "RollbackSession: no match key: set SessionConfig::match_key to the match's 32-byte secret from your "
              "matchmaker, or opt out with security = WireSecurity::Unauthenticated (tests, LAN; see docs/rollback.md, "
              "\"Threat model\")"};
    if (authenticated && !wire_auth_available())
      return {ErrorCode::InvalidArgument,
              "RollbackSession: this build has no libsodium, so it cannot authenticate messages (rebuild with "
              "libsodium-dev, or opt out with security = WireSecurity::Unauthenticated)"};
    if (cfg.security != WireSecurity::Authenticated && cfg.security != WireSecurity::Unauthenticated)
      return {ErrorCode::InvalidArgument, "RollbackSession: unknown SessionConfig::security"};
    if (cfg.receive_budget_per_peer != 0) budget = cfg.receive_budget_per_peer;
    const std::uint32_t input_head = kHeaderBytes + kInputHeadBytes + 8 * players + kTrailerBytes;
    if (input_head + input_size > kMaxMessageBytes)
      return {ErrorCode::InvalidArgument, "RollbackSession: the input struct does not fit a message"};
    max_chunk = std::min<std::uint32_t>((kMaxMessageBytes - input_head) / input_size, 0xFFFF);

    window = std::max(cfg.max_prediction, cfg.sync_test_distance);
    delay = cfg.input_delay;
    interval = cfg.hash_interval;
    ring_ticks = cfg.input_ring != 0 ? cfg.input_ring : 2 * window + 4 * delay + 96;
    if (ring_ticks < 2 * window + 2 * delay + 8)
      return {ErrorCode::InvalidArgument, "RollbackSession: input_ring must be >= 2 * max_prediction + 2 * input_delay + 8"};
    hash_slots = window + 2;
    kept = interval == 0 ? 0 : std::max<std::uint32_t>(std::max<std::uint32_t>(cfg.kept_checkpoints, 1), (window + 2) / interval + 2);

    slot_tick.assign(ring_ticks, kNoTick);
    known.assign(ring_ticks, 0);
    input.assign(std::size_t{ring_ticks} * frame_bytes, std::byte{0});
    used.assign(std::size_t{ring_ticks} * frame_bytes, std::byte{0});
    last_confirmed.assign(frame_bytes, std::byte{0});
    canon.assign(frame_bytes, std::byte{0});
    scratch.assign(input_size, std::byte{0});
    ring = std::make_unique<SnapshotRing>(world, window + 1);
    hash_ring.assign(hash_slots, StateHash{});
    hash_tick.assign(hash_slots, kNoTick);
    sync_expected.assign(std::max<std::uint32_t>(cfg.sync_test_distance, 1), StateHash{});
    for (std::uint32_t m = 0; m < kept; ++m) ckpt.emplace_back(world);
    ckpt_tick.assign(kept, kNoTick);
    report.assign(kept, StateHash{});
    report_tick.assign(kept, kNoTick);
    pending.assign(std::size_t{4} * cfg.peers + 4, Pending{});
    if (kept != 0) desync_snap.reserve(world);
    last_remote_report.fill(kNoTick);

    // Ticks below the input delay: all-zero inputs for everyone, known from the start.
    for (std::uint64_t t = 0; t < delay; ++t) {
      claim(t);
      known[slot(t)] = all_mask;
    }
    for (std::uint32_t p = 0; p < players; ++p) frontier[p] = delay;
    for (auto& row : acked) row.fill(delay);
    for (auto& row : seen) row.fill(delay);
    drop_tick.fill(kNoTick);
    if (cfg.sync_roundtrips != 0 && cfg.peers > 1 && cfg.sync_test_distance == 0) {
      for (std::uint32_t q = 0; q < cfg.peers; ++q) link[q].nonce = wire::random_u64();
    } else {
      is_running = true;
      for (Link& l : link) l.ready = true;
    }

    hash_ring[0] = runner.hash();
    hash_tick[0] = 0;
    if (interval != 0) {
      save_checkpoint(0);
      make_report(0);
    }
    return Status::Ok();
  }

  // ---- simulation -----------------------------------------------------------------------
  void save_checkpoint(std::uint64_t t) noexcept {
    const std::uint32_t m = static_cast<std::uint32_t>((t / interval) % kept);
    world.save(ckpt[m]);
    ckpt_tick[m] = t;
    if (report_tick[m] != t) report_tick[m] = kNoTick;
  }

  // Simulates tick `t` (== current()) with known inputs and predictions for the rest.
  // `saved`: the ring already holds this state (the first tick after a load).
  Status simulate(std::uint64_t t, bool saved = false) noexcept {
    claim(t);
    const std::uint32_t s = slot(t);
    std::byte* u = used_at(t);
    for (std::uint32_t p = 0; p < players; ++p) {
      const std::byte* src = ((known[s] >> p) & 1u) != 0 ? input_at(t, p) : last_confirmed.data() + std::size_t{p} * input_size;
      std::memcpy(u + std::size_t{p} * input_size, src, input_size);
    }
    // Only a tick simulated with a prediction can be rolled back to.
    if (!saved && (cfg.sync_test_distance != 0 || t >= min_frontier())) {
      const replay::ProbeScope slice(runner.probe(), replay::Slice::Snapshot, t);
      ring->save(world);
      ++stats.snapshots_saved;
    }
    const Status st = runner.step(std::span<const std::byte>(u, frame_bytes));
    if (!st.ok()) return fail(st);
    const std::uint32_t h = static_cast<std::uint32_t>((t + 1) % hash_slots);
    hash_ring[h] = runner.hash();
    hash_tick[h] = t + 1;
    if (interval != 0 && (t + 1) % interval == 0) save_checkpoint(t + 1);
    return Status::Ok();
  }

  Status rollback() noexcept {
    const std::uint64_t from = first_incorrect;
    first_incorrect = kNoTick;
    const std::uint64_t target = current();
    if (from == kNoTick || from >= target) return Status::Ok();
    const Snapshot* snap = ring->find(from);
    if (snap == nullptr) return fail({ErrorCode::Internal, "RollbackSession: the snapshot to roll back to is gone"});
    Status loaded;
    {
      const replay::ProbeScope slice(runner.probe(), replay::Slice::Rollback, target);
      loaded = world.load(*snap);
    }
    if (!loaded.ok()) return fail(loaded);
    {
      const replay::ProbeScope slice(runner.probe(), replay::Slice::Resimulate, from);
      while (world.tick() < target) {
        const Status s = simulate(world.tick(), world.tick() == from);
        if (!s.ok()) return s;
      }
    }
    const std::uint32_t depth = static_cast<std::uint32_t>(target - from);
    ++stats.rollbacks;
    stats.resimulated_ticks += depth;
    stats.max_rollback_depth = std::max(stats.max_rollback_depth, depth);
    SessionEvent e;
    e.kind = SessionEventKind::Rollback;
    e.tick = from;
    e.depth = depth;
    push_event(e);
    return Status::Ok();
  }

  // Hands newly final frames to the sink and makes hash reports.
  Status confirm() noexcept {
    const std::uint64_t target = std::min(min_frontier(), current());
    while (emitted < target) {
      const std::uint64_t t = emitted;
      const std::uint32_t h = static_cast<std::uint32_t>((t + 1) % hash_slots);
      if (!has(t) || hash_tick[h] != t + 1)
        return fail({ErrorCode::Internal, "RollbackSession: a confirmed tick left the rings"});
      if (sink != nullptr) {
        std::memcpy(canon.data(), used_at(t), frame_bytes);
        replay::Runner::host_to_canonical(*input_type, canon);
        sink->on_confirmed(t, canon, hash_ring[h]);
      }
      emitted = t + 1;
      if (interval != 0 && emitted % interval == 0) make_report(emitted);
    }
    return Status::Ok();
  }

  void make_report(std::uint64_t t) noexcept {
    const std::uint32_t m = static_cast<std::uint32_t>((t / interval) % kept);
    report[m] = hash_ring[t % hash_slots];
    report_tick[m] = t;
    out_report_tick = t;
    out_report_repeats = cfg.report_repeats;
    for (Pending& pe : pending) {
      if (pe.valid && pe.hash.tick == t) {
        compare(pe.peer, pe.hash, m);
        pe.valid = false;
      }
    }
  }

  void record_desync(std::uint32_t peer, std::uint64_t tick, const StateHash& mine, const StateHash& theirs,
                     const HashDiff& d) noexcept {
    ++stats.desyncs;
    SessionEvent e;
    e.kind = SessionEventKind::Desync;
    e.peer = peer;
    e.tick = tick;
    e.local_total = mine.total;
    e.remote_total = theirs.total;
    e.diff = d;
    push_event(e);
    if (desync) return;
    desync = true;
    desync_tick = tick;
    desync_peer = peer;
    desync_local = mine;
    desync_remote = theirs;
  }

  void compare(std::uint32_t peer, const StateHash& theirs, std::uint32_t m) noexcept {
    ++stats.hash_checks;
    const HashDiff d = diff_hashes(report[m], theirs);
    if (d.empty()) return;
    const bool first = !desync;
    record_desync(peer, theirs.tick, report[m], theirs, d);
    if (first && ckpt_tick[m] == theirs.tick) {
      std::swap(ckpt[m], desync_snap);  // both reserved: no allocation
      ckpt_tick[m] = kNoTick;
      desync_snap_valid = true;
    }
  }

  // Sync test: roll back `distance` ticks, resimulate, compare with the first simulation.
  void sync_check() noexcept {
    const std::uint64_t n = current();
    const std::uint64_t depth = std::min<std::uint64_t>(n, cfg.sync_test_distance);
    if (depth == 0) return;
    const std::uint64_t from = n - depth;
    for (std::uint64_t i = 0; i < depth; ++i) sync_expected[i] = hash_ring[(from + 1 + i) % hash_slots];
    first_incorrect = from;
    if (!rollback().ok()) return;
    for (std::uint64_t i = 0; i < depth; ++i) {
      const StateHash& again = hash_ring[(from + 1 + i) % hash_slots];
      const HashDiff d = diff_hashes(sync_expected[i], again);
      if (!d.empty()) {
        record_desync(kSyncTestPeer, from + 1 + i, sync_expected[i], again, d);
        break;
      }
    }
  }

  StallReason can_step() const noexcept {
    const std::uint64_t t = current();
    if (t >= min_frontier() + window) return StallReason::PredictionWindow;
    for (std::uint32_t p = 0; p < players; ++p)
      if (is_local(p) && frontier[p] <= t) return can_claim(frontier[p]) ? StallReason::LocalInput : StallReason::InputRing;
    if (!can_claim(t)) return StallReason::InputRing;
    return StallReason::None;
  }

  // ---- network ----------------------------------------------------------------------------
  std::int32_t local_advantage(std::uint32_t q) const noexcept {
    // Unsigned distance first: a remote tick comes from a packet and may be anything up to
    // 2^64 - 1 (the fuzzer sent 2^63, whose signed difference overflowed).
    const std::uint64_t t = current(), r = remote_tick[q];
    const auto d = static_cast<std::int32_t>(std::min<std::uint64_t>(t >= r ? t - r : r - t, 32767));
    return t >= r ? d : -d;
  }
  void write_header(std::uint8_t type, std::uint32_t dest) noexcept {
    msg[0] = std::byte{type};
    msg[1] = std::byte{kWireVersion};
    msg[2] = static_cast<std::byte>(cfg.local_peer);
    msg[3] = static_cast<std::byte>(players);
    put_u32(&msg[4], cfg.session_id);
    put_u64(&msg[8], current());
    put_u32(&msg[16], cfg.incarnation);
    put_u16(&msg[20], static_cast<std::uint16_t>(gone_mask));
    put_u16(&msg[22], static_cast<std::uint16_t>(local_advantage(dest)));  // two's complement
    put_u32(&msg[24], static_cast<std::uint32_t>(now));
    const Link& l = link[dest];
    put_u32(&msg[28], l.echo_valid ? l.echo : kNoEcho);
    put_u32(&msg[32], l.echo_valid ? static_cast<std::uint32_t>(std::min<std::uint64_t>(now - l.echo_at, 0xFFFFFFFEu)) : 0);
    put_u32(&msg[36], authenticated ? kFlagAuthenticated : 0u);
  }
  // Appends the trailer (sequence number, MAC) to the `size` bytes built in msg and sends.
  void transmit(std::uint32_t peer, std::uint32_t size) noexcept {
    put_u64(&msg[size], ++link[peer].send_seq);
    size += 8;
    if (authenticated) {
      wire::compute_tag(cfg.match_key, peer, std::span<const std::byte>(msg.data(), size), &msg[size]);
    } else {
      std::memset(&msg[size], 0, wire::kTagBytes);
    }
    size += wire::kTagBytes;
    if (transport->send(peer, std::span<const std::byte>(msg.data(), size))) {
      ++stats.messages_sent;
      stats.bytes_sent += size;
    } else {
      ++stats.send_failures;
    }
  }
  void send_sync(std::uint32_t peer, std::uint8_t type, std::uint64_t nonce, std::uint32_t round) noexcept {
    write_header(type, peer);
    put_u64(&msg[kHeaderBytes], nonce);
    put_u32(&msg[kHeaderBytes + 8], round);
    put_u32(&msg[kHeaderBytes + 12], 0);
    transmit(peer, kHeaderBytes + kSyncBodyBytes);
  }
  void send_inputs(std::uint32_t peer, std::uint32_t player, std::uint64_t first, std::uint32_t count) noexcept {
    write_header(kMsgInput, peer);
    std::byte* b = msg.data() + kHeaderBytes;
    b[0] = std::byte{static_cast<std::uint8_t>(player == kAckOnly ? kAckOnly : player)};
    b[1] = std::byte{0};
    put_u16(b + 2, static_cast<std::uint16_t>(count));
    put_u32(b + 4, 0);
    put_u64(b + 8, first);
    b += kInputHeadBytes;
    for (std::uint32_t p = 0; p < players; ++p, b += 8) put_u64(b, reported_frontier(p));
    for (std::uint32_t i = 0; i < count; ++i, b += input_size) {
      std::memcpy(b, input_at(first + i, player), input_size);
      replay::Runner::host_to_canonical(*input_type, std::span<std::byte>(b, input_size));
    }
    transmit(peer, static_cast<std::uint32_t>(b - msg.data()));
  }
  void send_report(std::uint32_t peer) noexcept {
    const std::uint32_t m = static_cast<std::uint32_t>((out_report_tick / interval) % kept);
    if (report_tick[m] != out_report_tick) return;
    const StateHash& h = report[m];
    write_header(kMsgHash, peer);
    std::byte* b = msg.data() + kHeaderBytes;
    put_u64(b, out_report_tick);
    put_u64(b + 8, h.total);
    put_u64(b + 16, h.entities);
    put_u64(b + 24, h.archetypes);
    put_u64(b + 32, h.resources);
    put_u32(b + 40, h.component_count);
    put_u32(b + 44, 0);
    b += kHashHeadBytes;
    for (std::uint32_t c = 0; c < h.component_count; ++c, b += 8) put_u64(b, h.components[c]);
    transmit(peer, static_cast<std::uint32_t>(b - msg.data()));
  }
  // Sends player p's inputs [from, to) to `peer` in at most kMaxChunksPerSend messages.
  bool send_range(std::uint32_t q, std::uint32_t p, std::uint64_t from, std::uint64_t to) noexcept {
    bool any = false;
    std::uint32_t chunks = 0;
    do {
      const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(to > from ? to - from : 0, max_chunk));
      bool in_ring = true;
      for (std::uint32_t i = 0; i < n && in_ring; ++i) in_ring = has(from + i);
      if (!in_ring) break;  // cannot happen: unacknowledged inputs are never evicted
      if (n == 0 && !is_local(p)) break;
      send_inputs(q, p, from, n);
      any = true;
      from += n;
    } while (from < to && ++chunks < kMaxChunksPerSend);
    return any;
  }
  void send() noexcept {
    if (transport == nullptr) return;
    ++frames;
    for (std::uint32_t q = 0; q < cfg.peers; ++q) {
      if (q == cfg.local_peer) continue;
      if (link[q].gone) {
        // Tell a disconnected peer now and then (the header's mask), so that one that was
        // only frozen learns it was voted out instead of carrying on with a split match.
        if (frames % 8 == 0) send_inputs(q, kAckOnly, 0, 0);
        continue;
      }
      if (!is_running) {
        if (!link[q].ready) send_sync(q, kMsgSyncRequest, link[q].nonce, link[q].sync_done);
        continue;
      }
      bool any = false;
      for (std::uint32_t p = 0; p < players; ++p) {
        if (is_local(p)) {
          any = send_range(q, p, acked[q][p], frontier[p]) || any;
        } else if (relaying(p) && seen[q][p] < frontier[p]) {
          const std::uint64_t before = stats.messages_sent;
          any = send_range(q, p, seen[q][p], frontier[p]) || any;
          stats.relayed_inputs += stats.messages_sent - before;
        }
      }
      if (!any) send_inputs(q, kAckOnly, 0, 0);
      if (out_report_repeats > 0 && interval != 0) send_report(q);
    }
    if (out_report_repeats > 0) --out_report_repeats;
  }

  void on_input(std::uint32_t from, const std::byte* b, std::uint32_t size) noexcept {
    const std::uint32_t head = kInputHeadBytes + 8 * players;
    if (size < head) {
      ++stats.malformed;
      return;
    }
    const std::uint8_t player = std::to_integer<std::uint8_t>(b[0]);
    const std::uint32_t count = get_u16(b + 2);
    const std::uint64_t first = get_u64(b + 8);
    bool bad = size != head + std::uint64_t{count} * input_size || first > kNoTick - count;
    if (player == kAckOnly) {
      bad = bad || count != 0;
    } else {
      // The owner sends its player's inputs; once the owner is gone, any peer may relay them.
      bad = bad || player >= players || is_local(player) ||
            (cfg.owner[player] != from && ((gone_mask >> cfg.owner[player]) & 1u) == 0);
    }
    if (bad) {
      ++stats.malformed;
      return;
    }
    // Acknowledgements: the sender's frontier of every player.
    const std::byte* fv = b + kInputHeadBytes;
    for (std::uint32_t p = 0; p < players; ++p) {
      const std::uint64_t f = get_u64(fv + 8 * p);
      seen[from][p] = std::max(seen[from][p], f);
      if (is_local(p)) acked[from][p] = std::max(acked[from][p], std::min(f, frontier[p]));
    }
    if (player == kAckOnly || dropped(player)) return;
    const std::byte* in = b + head;
    for (std::uint32_t i = 0; i < count; ++i, in += input_size) {
      const std::uint64_t t = first + i;
      std::memcpy(scratch.data(), in, input_size);
      replay::Runner::canonical_to_host(*input_type, scratch);
      if (has(t) && ((known[slot(t)] >> player) & 1u) != 0) {
        if (std::memcmp(input_at(t, player), scratch.data(), input_size) != 0) ++stats.input_conflicts;
        continue;
      }
      if (t < frontier[player]) continue;  // known and already evicted
      if (!can_claim(t)) continue;         // no room yet: the sender repeats it
      claim(t);
      std::memcpy(input_at(t, player), scratch.data(), input_size);
      known[slot(t)] |= 1u << player;
      if (t < current() &&
          std::memcmp(used_at(t) + std::size_t{player} * input_size, scratch.data(), input_size) != 0)
        first_incorrect = std::min(first_incorrect, t);
    }
    advance_frontier(player);
  }

  // ---- life cycle ---------------------------------------------------------------------------
  void push_peer_event(SessionEventKind kind, std::uint32_t peer) noexcept {
    SessionEvent e;
    e.kind = kind;
    e.peer = peer;
    e.tick = current();
    push_event(e);
  }
  void declare_gone(std::uint32_t q) noexcept {
    if (q >= cfg.peers || q == cfg.local_peer || link[q].gone) return;
    link[q].gone = true;
    gone_mask |= 1u << q;
    push_peer_event(SessionEventKind::Disconnected, q);
    check_agreement();
  }
  // The disconnect tick of a gone peer's player p is agreed when every connected peer has
  // declared the owner gone and reports the same frontier of p as ours: from then on no peer
  // can learn more of p's inputs (direct messages from a gone peer are ignored, relays only
  // spread what connected peers hold), so every peer settles on the same tick — the highest
  // frontier any connected peer had — and uses the default input from there on.
  void check_agreement() noexcept {
    for (std::uint32_t p = 0; p < players; ++p) {
      if (!relaying(p)) continue;
      const std::uint32_t o = cfg.owner[p];
      bool agreed = true;
      for (std::uint32_t q = 0; q < cfg.peers && agreed; ++q)
        if (live(q)) agreed = ((link[q].their_gone >> o) & 1u) != 0 && seen[q][p] == frontier[p];
      if (agreed) drop_player(p, frontier[p]);
    }
  }
  void drop_player(std::uint32_t p, std::uint64_t d) noexcept {
    drop_tick[p] = d;
    dropped_mask |= 1u << p;
    // Inputs of p already held at or after d (out of order) give way to the default too.
    for (std::uint32_t s = 0; s < ring_ticks; ++s) {
      const std::uint64_t t = slot_tick[s];
      if (t == kNoTick || t < d) continue;
      std::byte* in = input.data() + std::size_t{s} * frame_bytes + std::size_t{p} * input_size;
      std::memset(in, 0, input_size);
      known[s] |= 1u << p;
      const std::byte* u = used.data() + std::size_t{s} * frame_bytes + std::size_t{p} * input_size;
      if (t < current() && std::memcmp(u, in, input_size) != 0) first_incorrect = std::min(first_incorrect, t);
    }
    advance_frontier(p);
    SessionEvent e;
    e.kind = SessionEventKind::DisconnectAgreed;
    e.peer = cfg.owner[p];
    e.player = p;
    e.tick = d;
    push_event(e);
  }
  void expel() noexcept {
    if (expelled) return;
    expelled = true;
    push_peer_event(SessionEventKind::Disconnected, cfg.local_peer);
    (void)fail({ErrorCode::Mismatch, "RollbackSession: another peer declared this peer disconnected; it has left the match"});
  }

  // True when a handshake reply or rejection answers the request we have outstanding to
  // `from`: we are still synchronizing with it and it echoes that request's nonce. Anything
  // else (late, duplicated, replayed, or forged by someone who never saw our request) is
  // counted and ignored: a running session never aborts on an unsolicited rejection.
  bool solicited(std::uint32_t from, std::uint64_t nonce) noexcept {
    const Link& l = link[from];
    if (is_running || l.ready || nonce != l.nonce) {
      ++stats.unsolicited_sync;
      return false;
    }
    return true;
  }

  void on_sync(std::uint32_t from, std::uint8_t type, const std::byte* b, std::uint32_t size) noexcept {
    Link& l = link[from];
    const std::uint64_t nonce = get_u64(b);
    if (type == kMsgSyncRequest) {
      send_sync(from, kMsgSyncReply, nonce, 0);
    } else if (type == kMsgSyncReply) {
      (void)size;
      if (l.ready || nonce != l.nonce) return;  // late, duplicated or from an older round
      ++l.sync_done;
      SessionEvent e;
      e.kind = SessionEventKind::Synchronizing;
      e.peer = from;
      e.count = l.sync_done;
      e.total = cfg.sync_roundtrips;
      push_event(e);
      if (l.sync_done < cfg.sync_roundtrips) {
        l.nonce = wire::random_u64();
        return;
      }
      l.ready = true;
      push_peer_event(SessionEventKind::Synchronized, from);
      bool all = true;
      for (std::uint32_t q = 0; q < cfg.peers; ++q) all = all && (q == cfg.local_peer || link[q].ready || link[q].gone);
      if (all && !is_running) {
        is_running = true;
        push_peer_event(SessionEventKind::Running, cfg.local_peer);
      }
    } else {  // kMsgSyncReject
      if (!solicited(from, nonce)) return;
      (void)fail({ErrorCode::Mismatch,
            "RollbackSession: a peer rejected the handshake: it already runs this match with an earlier run of this "
            "peer (a restarted process cannot rejoin)"});
    }
  }

  void on_hash(std::uint32_t from, const std::byte* b, std::uint32_t size) noexcept {
    if (size < kHashHeadBytes) {
      ++stats.malformed;
      return;
    }
    StateHash h{};
    h.tick = get_u64(b);
    h.total = get_u64(b + 8);
    h.entities = get_u64(b + 16);
    h.archetypes = get_u64(b + 24);
    h.resources = get_u64(b + 32);
    h.component_count = get_u32(b + 40);
    if (h.component_count > kMaxReportComponents || size != kHashHeadBytes + 8 * h.component_count ||
        interval == 0 || h.tick % interval != 0) {
      ++stats.malformed;
      return;
    }
    for (std::uint32_t c = 0; c < h.component_count; ++c) h.components[c] = get_u64(b + kHashHeadBytes + 8 * c);
    std::uint64_t& last = last_remote_report[from];
    if (last != kNoTick && h.tick <= last) return;  // repeat or overtaken
    last = h.tick;
    if (h.tick <= emitted) {
      const std::uint32_t m = static_cast<std::uint32_t>((h.tick / interval) % kept);
      if (report_tick[m] == h.tick) {
        compare(from, h, m);
      } else {
        ++stats.hash_unchecked;
      }
      return;
    }
    Pending* free_entry = nullptr;
    Pending* oldest = nullptr;
    for (Pending& pe : pending) {
      if (!pe.valid) {
        if (free_entry == nullptr) free_entry = &pe;
      } else if (oldest == nullptr || pe.hash.tick < oldest->hash.tick) {
        oldest = &pe;
      }
    }
    if (free_entry == nullptr) {
      free_entry = oldest;
      ++stats.hash_unchecked;
    }
    free_entry->valid = true;
    free_entry->peer = from;
    free_entry->hash = h;
  }

  void receive() noexcept {
    if (transport == nullptr) return;
    for (Link& l : link) l.received = 0;
    for (std::uint32_t i = 0; i < kMaxReceivePerPoll && status.ok(); ++i) {
      std::uint32_t from = 0;
      const std::uint32_t size = transport->receive(from, msg);
      if (size == 0) break;
      ++stats.messages_received;
      stats.bytes_received += size;
      if (size < kHeaderBytes + kTrailerBytes || size > kMaxMessageBytes || from >= cfg.peers || from == cfg.local_peer) {
        ++stats.malformed;
        continue;
      }
      Link& l = link[from];
      // Bounded work per source and poll: past its budget a peer's messages are dropped
      // before the MAC is computed (a flood costs a transport read each, nothing more).
      if (++l.received > budget) {
        ++stats.dropped_budget;
        continue;
      }
      // Authenticity before anything else is read: a forged message must change nothing.
      const std::uint32_t body_end = size - kTrailerBytes;
      const std::uint8_t flags = std::to_integer<std::uint8_t>(msg[36]);
      if (((flags & kFlagAuthenticated) != 0) != authenticated) {
        ++stats.dropped_auth;  // the other mode, or a forger who did not bother
        continue;
      }
      if (authenticated && !wire::verify_tag(cfg.match_key, cfg.local_peer,
                                             std::span<const std::byte>(msg.data(), body_end + 8), &msg[body_end + 8])) {
        ++stats.dropped_auth;
        continue;
      }
      const std::uint8_t type = std::to_integer<std::uint8_t>(msg[0]);
      const std::uint32_t sender = std::to_integer<std::uint32_t>(msg[2]);
      const std::uint32_t their_gone = get_u16(&msg[20]);
      if (std::to_integer<std::uint8_t>(msg[1]) != kWireVersion || sender != from ||
          std::to_integer<std::uint32_t>(msg[3]) != players ||
          get_u32(&msg[4]) != cfg.session_id || (their_gone >> cfg.peers) != 0 || ((their_gone >> from) & 1u) != 0 ||
          type < kMsgInput || type > kMsgSyncReject || (flags & ~kFlagAuthenticated) != 0 ||
          (type >= kMsgSyncRequest && body_end - kHeaderBytes != kSyncBodyBytes)) {
        ++stats.malformed;
        continue;
      }
      const std::uint32_t incarnation = get_u32(&msg[16]);
      const bool sync_message = type >= kMsgSyncRequest;
      const std::byte* body = msg.data() + kHeaderBytes;
      const std::uint32_t body_size = body_end - kHeaderBytes;
      if (!l.incarnation_known) {
        if (cfg.sync_roundtrips == 0) {
          // No handshake (in-process networks up from the start): the first message tells.
          l.incarnation_known = true;
          l.incarnation = incarnation;
          l.window.reset();
        } else if (type == kMsgSyncReply && !l.ready && get_u64(body) == l.nonce) {
          // Learnt from the answer to our own fresh nonce: the sender received what we sent
          // to that peer's address, which an off-path stranger cannot.
          l.incarnation_known = true;
          l.incarnation = incarnation;
          l.window.reset();
        } else if (type == kMsgSyncRequest) {
          send_sync(from, kMsgSyncReply, get_u64(body), 0);  // stateless echo; pins nothing
          continue;
        } else if (type == kMsgSyncReject) {
          on_sync(from, type, body, body_size);  // honoured only if it echoes our nonce
          continue;
        } else {
          ++stats.stale;
          continue;
        }
      } else if (incarnation != l.incarnation) {
        ++stats.stale;  // an earlier or a restarted run of that peer (or a stranger's guess)
        if (type == kMsgSyncRequest) {
          // Echoes the request's nonce: only the process that sent it acts on the rejection.
          send_sync(from, kMsgSyncReject, get_u64(body), 0);
          ++stats.sync_rejections_sent;
        } else if (type == kMsgSyncReject) {
          on_sync(from, type, body, body_size);
        }
        continue;
      }
      // The replay window (per peer incarnation): a message seen before changes nothing.
      // Only under the MAC: unsigned sequence numbers can be forged, and a forged high one
      // would make every real message look old.
      if (authenticated && !l.window.accept(get_u64(&msg[body_end]))) {
        ++stats.dropped_replay;
        continue;
      }
      if (l.gone) {
        ++stats.from_disconnected;
        continue;
      }
      // Liveness, ping and frame advantage.
      l.last_heard = now;
      if (l.interrupted) {
        l.interrupted = false;
        push_peer_event(SessionEventKind::NetworkResumed, from);
      }
      remote_tick[from] = std::max(remote_tick[from], get_u64(&msg[8]));
      const std::uint32_t echo = get_u32(&msg[28]);
      if (echo != kNoEcho) {
        const std::uint32_t sample = static_cast<std::uint32_t>(now) - echo - get_u32(&msg[32]);
        if (sample < 60000000u) l.rtt = l.rtt == 0 ? std::max<std::uint32_t>(sample, 1) : (7 * l.rtt + sample) / 8;
      }
      l.echo = get_u32(&msg[24]);
      l.echo_at = now;
      l.echo_valid = true;
      if (is_running && !sync_message) {
        const auto theirs = static_cast<std::int16_t>(get_u16(&msg[22]));
        l.adv_sum += local_advantage(from) - theirs;
        ++l.adv_n;
      }
      // Disconnects spread: whom the sender declared gone is gone for us too.
      if (((their_gone >> cfg.local_peer) & 1u) != 0) {
        expel();
        return;
      }
      l.their_gone |= their_gone;
      for (std::uint32_t q = 0; q < cfg.peers; ++q)
        if (((their_gone >> q) & 1u) != 0) declare_gone(q);
      if (type == kMsgInput) {
        on_input(from, body, body_size);
        if (gone_mask != 0) check_agreement();
      } else if (type == kMsgHash) {
        on_hash(from, body, body_size);
      } else {
        on_sync(from, type, body, body_size);
      }
    }
  }

  // Handshake timeout, interruption / disconnect detection, time sync: once per frame.
  void check_peers() noexcept {
    if (!clock_started) {
      clock_started = true;
      start = now;
      for (Link& l : link) l.last_heard = now;
    }
    if (!is_running) {
      if (cfg.sync_timeout_us != 0 && now - start > cfg.sync_timeout_us)
        (void)fail(stats.dropped_auth != 0
                       ? Status{ErrorCode::IoError,
                                "RollbackSession: the handshake did not complete within the sync timeout; messages were "
                                "dropped as unauthentic (does every peer use the same match key and security mode?)"}
                       : Status{ErrorCode::IoError, "RollbackSession: the handshake did not complete within the sync timeout"});
      return;
    }
    for (std::uint32_t q = 0; q < cfg.peers; ++q) {
      if (!live(q)) continue;
      Link& l = link[q];
      const std::uint64_t silence = now - l.last_heard;
      if (cfg.disconnect_timeout_us != 0 && silence >= cfg.disconnect_timeout_us) {
        declare_gone(q);
        continue;
      }
      if (cfg.disconnect_notify_start_us != 0 && silence >= cfg.disconnect_notify_start_us && !l.interrupted) {
        l.interrupted = true;
        SessionEvent e;
        e.kind = SessionEventKind::NetworkInterrupted;
        e.peer = q;
        e.tick = current();
        e.timeout_us = cfg.disconnect_timeout_us > silence ? cfg.disconnect_timeout_us - silence : 0;
        push_event(e);
      }
    }
    // Time sync: each sample is (our advantage over q) − (q's advantage over us) = twice the
    // frame gap plus the difference of the one-way latencies in ticks; the average over
    // time_sync_samples messages, halved, estimates how many frames we run ahead of q.
    const std::uint32_t samples = std::max<std::uint32_t>(cfg.time_sync_samples, 1);
    for (std::uint32_t q = 0; q < cfg.peers; ++q) {
      Link& l = link[q];
      if (!live(q) || l.adv_n < samples) continue;
      l.advantage = static_cast<std::int32_t>(l.adv_sum / (2 * static_cast<std::int64_t>(l.adv_n)));
      l.adv_sum = 0;
      l.adv_n = 0;
    }
    if (wait_cooldown > 0) --wait_cooldown;
    if (cfg.max_frame_advantage == 0 || wait_cooldown > 0) return;
    std::int32_t best = 0;
    std::uint32_t who = 0;
    for (std::uint32_t q = 0; q < cfg.peers; ++q)
      if (live(q) && plays(q) && link[q].advantage > best) {
        best = link[q].advantage;
        who = q;
      }
    if (best <= static_cast<std::int32_t>(cfg.max_frame_advantage)) return;
    SessionEvent e;
    e.kind = SessionEventKind::WaitRecommendation;
    e.peer = who;
    e.tick = current();
    e.frames = static_cast<std::uint32_t>(best);
    push_event(e);
    ++stats.wait_recommendations;
    wait_cooldown = std::max<std::uint32_t>(cfg.time_sync_interval, 1) + e.frames;
    for (Link& l : link) {  // estimates from before the wait are stale
      l.advantage = 0;
      l.adv_sum = 0;
      l.adv_n = 0;
    }
  }

  Status frame(bool step, bool* advanced) noexcept {
    if (advanced != nullptr) *advanced = false;
    if (!status.ok()) return status;
    receive();
    if (!status.ok()) return status;
    check_peers();
    if (!status.ok()) return status;
    if (!is_running) {
      send();
      return Status::Ok();
    }
    Status s = rollback();
    if (s.ok()) s = confirm();
    if (!s.ok()) return s;
    if (step) {
      const StallReason why = can_step();
      if (why == StallReason::None) {
        s = simulate(current());
        if (!s.ok()) return s;
        ++stats.ticks;
        if (advanced != nullptr) *advanced = true;
        if (cfg.sync_test_distance != 0) sync_check();
        if (!status.ok()) return status;
        s = confirm();
        if (!s.ok()) return s;
      } else {
        ++stats.stalls;
        SessionEvent e;
        e.kind = SessionEventKind::Stall;
        e.stall = why;
        e.tick = current();
        push_event(e);
      }
    }
    send();
    return Status::Ok();
  }
};

RollbackSession::RollbackSession(replay::Runner& runner, const SessionConfig& config, Transport* transport)
    : impl_(std::make_unique<Impl>(runner, config, transport)) {
  impl_->status = impl_->init();
}

RollbackSession::~RollbackSession() = default;

Status RollbackSession::status() const noexcept { return impl_->status; }
const SessionConfig& RollbackSession::config() const noexcept { return impl_->cfg; }
replay::Runner& RollbackSession::runner() noexcept { return impl_->runner; }
bool RollbackSession::is_local(std::uint32_t player) const noexcept { return impl_->is_local(player); }

std::uint64_t RollbackSession::local_input_tick(std::uint32_t player) const noexcept {
  return player < kMaxSessionPlayers ? impl_->frontier[player] : 0;
}

bool RollbackSession::wants_local_input(std::uint32_t player) const noexcept {
  const Impl& m = *impl_;
  if (!m.status.ok() || !m.is_local(player)) return false;
  const std::uint64_t t = m.frontier[player];
  return t <= m.current() + m.delay && m.can_claim(t);
}

Status RollbackSession::add_local_input(std::uint32_t player, std::span<const std::byte> in) noexcept {
  Impl& m = *impl_;
  if (!m.status.ok()) return m.status;
  if (!m.is_local(player)) return {ErrorCode::InvalidArgument, "add_local_input: not a local player"};
  if (in.size() != m.input_size) return {ErrorCode::InvalidArgument, "add_local_input: wrong input size"};
  const std::uint64_t t = m.frontier[player];
  if (t > m.current() + m.delay)
    return {ErrorCode::InvalidArgument, "add_local_input: the input for this tick was already added"};
  if (!m.can_claim(t)) return {ErrorCode::CapacityExceeded, "add_local_input: the input ring is full (stalled)"};
  m.claim(t);
  std::memcpy(m.input_at(t, player), in.data(), m.input_size);
  m.known[m.slot(t)] |= 1u << player;
  m.advance_frontier(player);
  return Status::Ok();
}

Status RollbackSession::advance(bool* advanced) noexcept { return impl_->frame(true, advanced); }
Status RollbackSession::poll() noexcept { return impl_->frame(false, nullptr); }

bool RollbackSession::poll_event(SessionEvent& out) noexcept {
  Impl& m = *impl_;
  if (m.event_count == 0) return false;
  out = m.events[m.event_head];
  m.event_head = (m.event_head + 1) % kEventCapacity;
  --m.event_count;
  return true;
}

std::uint64_t RollbackSession::current_tick() const noexcept { return impl_->current(); }
std::uint64_t RollbackSession::confirmed_tick() const noexcept { return impl_->emitted; }
std::uint64_t RollbackSession::input_frontier() const noexcept { return impl_->min_frontier(); }
std::uint64_t RollbackSession::frontier(std::uint32_t player) const noexcept {
  return player < impl_->players ? impl_->frontier[player] : 0;
}

const StateHash* RollbackSession::hash_at(std::uint64_t tick) const noexcept {
  const Impl& m = *impl_;
  if (m.hash_slots == 0) return nullptr;
  const std::uint32_t h = static_cast<std::uint32_t>(tick % m.hash_slots);
  return m.hash_tick[h] == tick && tick <= m.current() ? &m.hash_ring[h] : nullptr;
}

const SessionStats& RollbackSession::stats() const noexcept { return impl_->stats; }
void RollbackSession::set_confirmed_sink(ConfirmedSink* sink) noexcept { impl_->sink = sink; }

void RollbackSession::set_time(std::uint64_t now_us) noexcept {
  if (now_us > impl_->now) impl_->now = now_us;
}
bool RollbackSession::running() const noexcept { return impl_->is_running; }

PeerStatus RollbackSession::peer_status(std::uint32_t peer) const noexcept {
  const Impl& m = *impl_;
  PeerStatus st;
  if (peer >= m.cfg.peers || peer == m.cfg.local_peer) return st;
  const Impl::Link& l = m.link[peer];
  st.state = l.gone ? PeerState::Disconnected
             : !l.ready ? PeerState::Synchronizing
             : l.interrupted ? PeerState::Interrupted
                             : PeerState::Running;
  st.sync_done = l.sync_done;
  st.rtt_us = l.rtt;
  st.frame_advantage = l.advantage;
  st.remote_tick = m.remote_tick[peer];
  st.last_heard_us = l.last_heard;
  for (std::uint32_t p = 0; p < m.players; ++p)
    if (m.cfg.owner[p] == peer && m.dropped(p)) st.disconnect_tick = m.drop_tick[p];
  return st;
}

std::int32_t RollbackSession::frame_advantage() const noexcept {
  const Impl& m = *impl_;
  std::int32_t best = 0;
  bool any = false;
  for (std::uint32_t q = 0; q < m.cfg.peers; ++q) {
    if (!m.live(q) || !m.plays(q)) continue;
    best = any ? std::max(best, m.link[q].advantage) : m.link[q].advantage;
    any = true;
  }
  return best;
}

bool RollbackSession::inputs_acknowledged(std::uint64_t tick) const noexcept {
  const Impl& m = *impl_;
  for (std::uint32_t q = 0; q < m.cfg.peers; ++q) {
    if (!m.live(q)) continue;
    for (std::uint32_t p = 0; p < m.players; ++p)
      if (m.is_local(p) && m.acked[q][p] < tick) return false;
  }
  return true;
}
bool RollbackSession::has_desync() const noexcept { return impl_->desync; }
std::uint64_t RollbackSession::desync_tick() const noexcept { return impl_->desync_tick; }
std::uint32_t RollbackSession::desync_peer() const noexcept { return impl_->desync_peer; }
const StateHash& RollbackSession::desync_local_hash() const noexcept { return impl_->desync_local; }
const StateHash& RollbackSession::desync_remote_hash() const noexcept { return impl_->desync_remote; }
const Snapshot* RollbackSession::desync_snapshot() const noexcept {
  return impl_->desync_snap_valid ? &impl_->desync_snap : nullptr;
}
const Snapshot* RollbackSession::checkpoint(std::uint64_t tick) const noexcept {
  const Impl& m = *impl_;
  if (m.interval == 0 || tick % m.interval != 0) return nullptr;
  const std::uint32_t s = static_cast<std::uint32_t>((tick / m.interval) % m.kept);
  return m.ckpt_tick[s] == tick && tick <= m.emitted ? &m.ckpt[s] : nullptr;
}

}  // namespace lockstep::rollback
