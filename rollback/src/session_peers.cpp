// RollbackSession: the life cycle of the other peers — handshake, rejection of restarted
// processes, interruption, disconnect and the agreed drop tick, expulsion — and time sync
// (docs/rollback.md, "Life cycle", "Time sync"; session_impl.h).
#include "session_impl.h"

namespace lockstep::rollback {

void RollbackSession::Impl::push_peer_event(SessionEventKind kind, std::uint32_t peer) noexcept {
  SessionEvent e;
  e.kind = kind;
  e.peer = peer;
  e.tick = current();
  push_event(e);
}

void RollbackSession::Impl::declare_gone(std::uint32_t q) noexcept {
  if (q >= cfg.peers || q == cfg.local_peer || link[q].gone) return;
  link[q].gone = true;
  gone_mask |= 1u << q;
  push_peer_event(SessionEventKind::Disconnected, q);
  check_agreement();
}

void RollbackSession::Impl::check_agreement() noexcept {
  for (std::uint32_t p = 0; p < players; ++p) {
    if (!relaying(p)) continue;
    const std::uint32_t o = cfg.owner[p];
    bool agreed = true;
    for (std::uint32_t q = 0; q < cfg.peers && agreed; ++q)
      if (live(q)) agreed = ((link[q].their_gone >> o) & 1u) != 0 && seen[q][p] == frontier[p];
    if (agreed) drop_player(p, frontier[p]);
  }
}

void RollbackSession::Impl::drop_player(std::uint32_t p, std::uint64_t d) noexcept {
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

void RollbackSession::Impl::expel() noexcept {
  if (expelled) return;
  expelled = true;
  push_peer_event(SessionEventKind::Disconnected, cfg.local_peer);
  (void)fail({ErrorCode::Mismatch, "RollbackSession: another peer declared this peer disconnected; it has left the match"});
}

bool RollbackSession::Impl::solicited(std::uint32_t from, std::uint64_t nonce) noexcept {
  const Link& l = link[from];
  if (is_running || l.ready || nonce != l.nonce) {
    ++stats.unsolicited_sync;
    return false;
  }
  return true;
}

void RollbackSession::Impl::on_sync(std::uint32_t from, std::uint8_t type, const std::byte* b, std::uint32_t size) noexcept {
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

void RollbackSession::Impl::check_peers() noexcept {
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

}  // namespace lockstep::rollback
