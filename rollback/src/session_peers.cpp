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
  return_tick[p] = kNoTick;  // a rejoined player can be dropped again
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
    // A rejoiner that missed our acceptance asks again: the same answer.
    if ((get_u32(b + 12) & kSyncFlagRejoin) != 0 && l.rejoin_return != kNoTick) {
      send_rejoin_accept(from, nonce);
    } else {
      send_sync(from, kMsgSyncReply, nonce, 0);
    }
  } else if (type == kMsgRejoinAccept) {
    on_rejoin_accept(from, b, get_u64(b + size));
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
      l.has_cookie = false;
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
    const std::uint64_t reason = get_u64(b + 8);
    if (cfg.rejoin && reason == kRejectNotDropped) {
      l.nonce = wire::random_u64();  // the survivor has not dropped us yet: ask again
      l.has_cookie = false;
      return;
    }
    if (cfg.rejoin && reason == kRejectProveFresh) {
      // Ask again at once, same nonce, with the cookie: proof that this process received the
      // survivor's answer, which a recorded request cannot give.
      l.has_cookie = true;
      std::memcpy(l.cookie.data(), b + kSyncCookieOffset, wire::kCookieBytes);
      send_sync(from, kMsgSyncRequest, l.nonce, l.sync_done, 0, l.cookie.data());
      return;
    }
    (void)fail({ErrorCode::Mismatch,
                !cfg.rejoin ? "RollbackSession: a peer rejected the handshake: it already runs this match with an "
                              "earlier run of this peer (restart with SessionConfig::rejoin to take the player back)"
                : reason == kRejectHistoryTooOld
                    ? "RollbackSession: the survivor refused the rejoin: it no longer keeps the inputs right after "
                      "this peer's history (fetch its recording again and retry)"
                : reason == kRejectUnsupported
                    ? "RollbackSession: the survivor refused the rejoin: rejoining needs exactly one surviving peer"
                    : "RollbackSession: the survivor refused the rejoin"});
  }
}

void RollbackSession::Impl::push_rejoined(std::uint32_t peer, std::uint64_t tick) noexcept {
  for (std::uint32_t p = 0; p < players; ++p) {
    if (cfg.owner[p] != peer) continue;
    SessionEvent e;
    e.kind = SessionEventKind::Rejoined;
    e.peer = peer;
    e.player = p;
    e.tick = tick;
    push_event(e);
  }
}

void RollbackSession::Impl::rejoin_cookie(std::uint32_t from, std::uint32_t incarnation, std::uint64_t drop,
                                          std::uint64_t history_end, std::uint64_t nonce, std::uint64_t epoch,
                                          std::byte out[wire::kCookieBytes]) noexcept {
  if (!cookie_secret_drawn) {
    for (std::size_t i = 0; i < cookie_secret.size(); i += 8) {
      const std::uint64_t r = wire::random_u64();
      for (std::size_t k = 0; k < 8; ++k) cookie_secret[i + k] = static_cast<std::uint8_t>(r >> (8 * k));
    }
    cookie_secret_drawn = true;
  }
  std::byte in[1 + 4 + 4 * 8];
  in[0] = std::byte{static_cast<std::uint8_t>(from)};
  put_u32(in + 1, incarnation);
  put_u64(in + 5, drop);
  put_u64(in + 13, history_end);
  put_u64(in + 21, nonce);
  put_u64(in + 29, epoch);
  wire::compute_cookie(cookie_secret, std::span<const std::byte>(in, sizeof in), out);
}

void RollbackSession::Impl::on_rejoin_request(std::uint32_t from, std::uint32_t incarnation, std::uint64_t history_end,
                                              const std::byte* body) noexcept {
  Link& l = link[from];
  const std::uint64_t nonce = get_u64(body);
  auto refuse = [&](std::uint64_t reason) {
    send_sync(from, kMsgSyncReject, nonce, 0, reason);
    ++stats.sync_rejections_sent;
  };
  if (l.rejoin_return != kNoTick && l.incarnation == incarnation) {
    send_rejoin_accept(from, nonce);
    return;
  }
  // Only once every player of `from` is dropped (the agreed tick exists), and only while the
  // match runs: before that the restart is answered "ask again".
  bool all_dropped = is_running && l.gone;
  for (std::uint32_t p = 0; p < players; ++p)
    if (cfg.owner[p] == from) all_dropped = all_dropped && absent(p);
  if (!all_dropped) return refuse(kRejectNotDropped);
  for (std::uint32_t q = 0; q < cfg.peers; ++q)
    if (q != from && live(q)) return refuse(kRejectUnsupported);
  // The rejoiner's history must reach the drop tick (later ticks of its players are the
  // default) and must not go past what we confirmed; from `start` on we must still hold every
  // input of ours it needs.
  std::uint64_t ours = 0, drop = kNoTick;
  for (std::uint32_t p = 0; p < players; ++p) {
    if (cfg.owner[p] == from) {
      if (drop != kNoTick && drop_tick[p] != drop) return refuse(kRejectUnsupported);  // one drop tick per peer
      drop = drop_tick[p];
      // Its history may end before the drop: we send it those inputs of its player.
      for (std::uint64_t t = history_end; t < drop; ++t)
        if (!has(t) || ((known[slot(t)] >> p) & 1u) == 0) return refuse(kRejectHistoryTooOld);
    }
    if (is_local(p)) ours = std::max(ours, frontier[p]);
  }
  if (history_end > emitted) return refuse(kRejectHistoryTooOld);
  for (std::uint64_t t = history_end; t < ours; ++t)
    if (!has(t)) return refuse(kRejectHistoryTooOld);
  // Fresh, not recorded: the request must carry the cookie made for exactly this request (this
  // session's secret, this drop, this history and nonce) in this cookie epoch or the one before;
  // else it gets one to return.
  const std::uint64_t epoch = now / kCookieEpochUs;
  std::byte cookie[wire::kCookieBytes];
  rejoin_cookie(from, incarnation, drop, history_end, nonce, epoch, cookie);
  const bool carries = (get_u32(body + 12) & kSyncFlagCookie) != 0;
  bool fresh = carries && wire::cookie_equal(cookie, body + kSyncCookieOffset);
  if (carries && !fresh && epoch > 0) {
    std::byte previous[wire::kCookieBytes];
    rejoin_cookie(from, incarnation, drop, history_end, nonce, epoch - 1, previous);
    fresh = wire::cookie_equal(previous, body + kSyncCookieOffset);
  }
  if (!fresh) {
    send_sync(from, kMsgSyncReject, nonce, 0, kRejectProveFresh, cookie);
    ++stats.rejoin_challenges;
    return;
  }
  // The return tick: past every tick we claimed (our local inputs reach `ours`), so nothing we
  // simulated or confirmed took the default for a tick from R on; plus the input delay, so the
  // rejoiner's first input can still arrive in time.
  const std::uint64_t r = std::max(ours, current()) + delay + 2;
  l.incarnation = incarnation;
  l.incarnation_known = true;
  l.window.reset();
  l.min_seq = 0;
  l.ready = true;
  l.gone = false;
  l.interrupted = false;
  l.last_heard = now;
  l.echo_valid = false;
  l.rtt = 0;
  l.adv_sum = 0;
  l.adv_n = 0;
  l.advantage = 0;
  l.their_gone = 0;
  l.rejoin_return = r;
  l.rejoin_start = history_end;
  l.rejoin_drop = drop;
  gone_mask &= ~(1u << from);
  remote_tick[from] = history_end;
  seen_reports[from].reset();
  for (std::uint32_t p = 0; p < players; ++p) {
    acked[from][p] = history_end;
    seen[from][p] = history_end;
    if (cfg.owner[p] == from) return_tick[p] = r;
  }
  push_rejoined(from, r);
  send_rejoin_accept(from, nonce);
}

void RollbackSession::Impl::on_rejoin_accept(std::uint32_t from, const std::byte* b, std::uint64_t seq) noexcept {
  Link& l = link[from];
  const std::uint64_t nonce = get_u64(b), r = get_u64(b + 8), history_end = get_u64(b + 16), drop = get_u64(b + 24);
  if (!cfg.rejoin || is_running || l.ready || nonce != l.nonce || history_end != emitted || r < history_end ||
      drop > r || r - history_end > ring_ticks) {
    ++stats.unsolicited_sync;
    return;
  }
  l.min_seq = std::max(l.min_seq, seq);
  for (std::uint32_t p = 0; p < players; ++p) {
    if (!is_local(p)) continue;
    // Inputs [history_end, drop) come from the survivor, the default holds on [drop, r), ours
    // count from r.
    drop_tick[p] = std::max(drop, history_end);
    return_tick[p] = r;
    acked[from][p] = r;
  }
  l.ready = true;
  push_peer_event(SessionEventKind::Synchronized, from);
  is_running = true;
  push_peer_event(SessionEventKind::Running, cfg.local_peer);
  push_rejoined(cfg.local_peer, r);
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
                              cfg.identity.empty()
                                  ? "RollbackSession: the handshake did not complete within the sync timeout; messages "
                                    "were dropped as unauthentic (does every peer use the same match key and security mode?)"
                                  : "RollbackSession: the handshake did not complete within the sync timeout; messages "
                                    "were dropped as unauthentic (does every peer use the same session id and the same "
                                    "public keys in peer-id order, each its own identity?)"}
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
