// RollbackSession (rollback/session.h): construction, simulation with predictions, rollback
// and resimulation, confirmation, the frame loop, and the public API. The other concerns are
// in session_send.cpp, session_receive.cpp, session_peers.cpp and session_hash.cpp
// (session_impl.h). Nothing here allocates after the constructor.
#include "session_impl.h"

namespace lockstep::rollback {

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

void RecorderSink::on_checkpoint(std::uint64_t tick, const Snapshot& state) noexcept {
  if (status_.ok() && tick == recorder_.frames()) status_ = recorder_.checkpoint(state.view());
}

// ---- session ----------------------------------------------------------------------------

Status RollbackSession::Impl::init() {
  if (!runner.status().ok()) return runner.status();
  if (world.tick() != 0 && !cfg.rejoin)
    return {ErrorCode::InvalidArgument, "RollbackSession: the runner must be at tick 0 (or the session rejoins)"};
  if (cfg.rejoin && (cfg.peers < 2 || cfg.sync_roundtrips == 0 || cfg.sync_test_distance != 0))
    return {ErrorCode::InvalidArgument,
            "RollbackSession: a rejoining session needs other peers (the survivors) and sync_roundtrips >= 1"};
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
  const bool per_peer = authenticated && !cfg.identity.empty();
  if (authenticated && !per_peer && cfg.match_key.empty())
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
  if (per_peer) {
    if (!check_match_identity(cfg.identity, cfg.peers, cfg.local_peer).empty())
      return {ErrorCode::InvalidArgument,
              "RollbackSession: SessionConfig::identity does not fit this session: it needs one public key per peer in "
              "peer-id order, this peer's own key pair at local_peer, and no two peers with the same key "
              "(check_match_identity names the problem)"};
    for (std::uint32_t q = 0; q < cfg.peers; ++q) {
      if (q == cfg.local_peer) continue;
      LinkKeys keys;
      if (!derive_link_keys(cfg.identity, cfg.session_id, cfg.local_peer, q, keys))
        return {ErrorCode::InvalidArgument,
                "RollbackSession: SessionConfig::identity: a peer's public key is not a usable X25519 key"};
      send_key[q] = keys.send;
      receive_key[q] = keys.receive;
    }
  } else if (authenticated) {
    send_key.fill(cfg.match_key);
    receive_key.fill(cfg.match_key);
  }
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
  if (kept > kMaxReportSlots)
    return {ErrorCode::InvalidArgument, "RollbackSession: kept_checkpoints (and the report slots it implies) must be <= 256"};
  if (cfg.kept_desyncs == 0 || cfg.kept_desyncs > 64)
    return {ErrorCode::InvalidArgument, "RollbackSession: kept_desyncs must be 1..64"};
  report_sends.assign(kept, 0);
  // Reports of ticks we have not confirmed yet wait here: a burst of every kept report.
  pending.assign((std::size_t{kept} + 4) * cfg.peers + 4, Pending{});
  desyncs.reserve(cfg.kept_desyncs);
  desync_snap_valid.assign(cfg.kept_desyncs, 0);
  if (kept != 0)
    for (std::uint32_t i = 0; i < cfg.kept_desyncs; ++i) {
      desync_snaps.emplace_back();
      desync_snaps.back().reserve(world);
    }

  drop_tick.fill(kNoTick);
  return_tick.fill(kNoTick);
  const std::uint64_t start_tick = world.tick();  // 0, or a rejoiner's S
  if (!cfg.rejoin) {
    // Ticks below the input delay: all-zero inputs for everyone, known from the start.
    for (std::uint64_t t = 0; t < delay; ++t) {
      claim(t);
      known[slot(t)] = all_mask;
    }
  } else {
    // Everything before S is history (the game replayed it). The local players stay absent
    // until the survivor names the return tick (on_rejoin_accept).
    for (std::uint32_t p = 0; p < players; ++p)
      if (is_local(p)) {
        dropped_mask |= 1u << p;
        drop_tick[p] = start_tick;
      }
  }
  const std::uint64_t first = cfg.rejoin ? start_tick : delay;
  for (std::uint32_t p = 0; p < players; ++p) frontier[p] = first;
  for (auto& row : acked) row.fill(first);
  for (auto& row : seen) row.fill(first);
  remote_tick.fill(start_tick);
  emitted = start_tick;
  if (cfg.sync_roundtrips != 0 && cfg.peers > 1 && cfg.sync_test_distance == 0) {
    for (std::uint32_t q = 0; q < cfg.peers; ++q) link[q].nonce = wire::random_u64();
  } else {
    is_running = true;
    for (Link& l : link) l.ready = true;
  }

  hash_ring[start_tick % hash_slots] = runner.hash();
  hash_tick[start_tick % hash_slots] = start_tick;
  if (interval != 0 && start_tick % interval == 0) {
    save_checkpoint(start_tick);
    make_report(start_tick);
  }
  return Status::Ok();
}

void RollbackSession::Impl::save_checkpoint(std::uint64_t t) noexcept {
  const std::uint32_t m = static_cast<std::uint32_t>((t / interval) % kept);
  world.save(ckpt[m]);
  ckpt_tick[m] = t;
  if (report_tick[m] != t) report_tick[m] = kNoTick;
}

Status RollbackSession::Impl::simulate(std::uint64_t t, bool saved) noexcept {
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

Status RollbackSession::Impl::rollback() noexcept {
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

Status RollbackSession::Impl::confirm() noexcept {
  const std::uint64_t target = std::min(min_frontier(), current());
  while (emitted < target) {
    const std::uint64_t t = emitted;
    const std::uint32_t h = static_cast<std::uint32_t>((t + 1) % hash_slots);
    if (!has(t) || hash_tick[h] != t + 1)
      return fail({ErrorCode::Internal, "RollbackSession: a confirmed tick left the rings"});
    if (sink != nullptr) {
      replay::Runner::copy_to_canonical(*input_type, std::span<const std::byte>(used_at(t), frame_bytes), canon);
      sink->on_confirmed(t, canon, hash_ring[h]);
    }
    emitted = t + 1;
    if (interval != 0 && emitted % interval == 0) make_report(emitted);
    if (sink != nullptr && interval != 0) {
      const std::uint32_t every = sink->checkpoint_interval();
      if (every != 0 && every % interval == 0 && emitted % every == 0) {
        const std::uint32_t m = static_cast<std::uint32_t>((emitted / interval) % kept);
        if (ckpt_tick[m] == emitted) sink->on_checkpoint(emitted, ckpt[m]);  // the final state of tick `emitted`
      }
    }
  }
  return Status::Ok();
}

StallReason RollbackSession::Impl::can_step() const noexcept {
  const std::uint64_t t = current();
  if (t >= min_frontier() + window) return StallReason::PredictionWindow;
  for (std::uint32_t p = 0; p < players; ++p)
    if (is_local(p) && frontier[p] <= t) return can_claim(frontier[p]) ? StallReason::LocalInput : StallReason::InputRing;
  if (!can_claim(t)) return StallReason::InputRing;
  return StallReason::None;
}

Status RollbackSession::Impl::frame(bool step, bool* advanced) noexcept {
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
  // A rejoining player's inputs before its return tick come from the survivor or are the
  // default (known without being given).
  return t <= m.current() + m.delay && m.can_claim(t) && !m.not_ours_yet(player, t);
}

Status RollbackSession::add_local_input(std::uint32_t player, std::span<const std::byte> in) noexcept {
  Impl& m = *impl_;
  if (!m.status.ok()) return m.status;
  if (!m.is_local(player)) return {ErrorCode::InvalidArgument, "add_local_input: not a local player"};
  if (in.size() != m.input_size) return {ErrorCode::InvalidArgument, "add_local_input: wrong input size"};
  const std::uint64_t t = m.frontier[player];
  if (m.not_ours_yet(player, t))
    return {ErrorCode::InvalidArgument, "add_local_input: this player rejoins later (its inputs until then are known)"};
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
    if (m.cfg.owner[p] == peer && m.dropped(p)) {
      st.disconnect_tick = m.drop_tick[p];
      st.rejoin_tick = m.return_tick[p];
    }
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
std::uint32_t RollbackSession::desync_count() const noexcept { return static_cast<std::uint32_t>(impl_->desyncs.size()); }
const DesyncRecord* RollbackSession::desync_record(std::uint32_t i) const noexcept {
  return i < impl_->desyncs.size() ? &impl_->desyncs[i] : nullptr;
}
const Snapshot* RollbackSession::desync_snapshot(std::uint32_t i) const noexcept {
  return i < impl_->desyncs.size() && i < impl_->desync_snaps.size() && impl_->desync_snap_valid[i] != 0
             ? &impl_->desync_snaps[i]
             : nullptr;
}
bool RollbackSession::has_desync() const noexcept { return !impl_->desyncs.empty(); }
std::uint64_t RollbackSession::desync_tick() const noexcept { return has_desync() ? impl_->desyncs[0].tick : 0; }
std::uint32_t RollbackSession::desync_peer() const noexcept { return has_desync() ? impl_->desyncs[0].peer : 0; }
const StateHash& RollbackSession::desync_local_hash() const noexcept {
  static const StateHash none{};
  return has_desync() ? impl_->desyncs[0].local : none;
}
const StateHash& RollbackSession::desync_remote_hash() const noexcept {
  static const StateHash none{};
  return has_desync() ? impl_->desyncs[0].remote : none;
}
const Snapshot* RollbackSession::desync_snapshot() const noexcept { return desync_snapshot(0); }
const Snapshot* RollbackSession::checkpoint(std::uint64_t tick) const noexcept {
  const Impl& m = *impl_;
  if (m.interval == 0 || tick % m.interval != 0) return nullptr;
  const std::uint32_t s = static_cast<std::uint32_t>((tick / m.interval) % m.kept);
  return m.ckpt_tick[s] == tick && tick <= m.emitted ? &m.ckpt[s] : nullptr;
}

}  // namespace lockstep::rollback
