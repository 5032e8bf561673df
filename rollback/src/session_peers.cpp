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
    // A rejoiner asks (again, or for the first time after the sponsor's notice reached us): the
    // same answer — unless we no longer hold what it needs from us (a survivor that took it
    // back by notice and had let go of those ticks): it fails clearly and is dropped again,
    // instead of waiting for inputs that never come.
    if ((get_u32(b + 12) & kSyncFlagRejoin) != 0 && l.rejoin_return != kNoTick) {
      if (serves_history(from)) {
        send_rejoin_accept(from, nonce);
      } else {
        send_sync(from, kMsgSyncReject, nonce, 0, kRejectHistoryTooOld);
        ++stats.sync_rejections_sent;
      }
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
                    ? "RollbackSession: the survivor refused the rejoin: no surviving peer plays, so none can choose the "
                      "return tick (a match of spectators alone cannot take a player back)"
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

bool RollbackSession::Impl::serves_history(std::uint32_t rejoiner) const noexcept {
  // The rejoiner's own players' inputs before their drop come from the sponsor (which checked
  // it held them); any other survivor that still holds them sends them too.
  const Link& l = link[rejoiner];
  for (std::uint32_t p = 0; p < players; ++p) {
    if (!is_local(p)) continue;
    for (std::uint64_t t = l.rejoin_start; t < std::min(frontier[p], l.rejoin_return); ++t)
      if (!has(t)) return false;
  }
  return true;
}

std::uint32_t RollbackSession::Impl::sponsor_of(std::uint32_t rejoiner) const noexcept {
  for (std::uint32_t q = 0; q < cfg.peers; ++q)
    if (q != rejoiner && (q == cfg.local_peer || live(q)) && plays(q)) return q;
  return cfg.peers;
}

void RollbackSession::Impl::on_rejoin_request(std::uint32_t from, std::uint32_t incarnation, std::uint64_t history_end,
                                              const std::byte* body) noexcept {
  const std::uint64_t nonce = get_u64(body);
  auto refuse = [&](std::uint64_t reason) {
    send_sync(from, kMsgSyncReject, nonce, 0, reason);
    ++stats.sync_rejections_sent;
  };
  // Only once every player of `from` is dropped (the agreed tick exists), and only while the
  // match runs: before that the restart is answered "ask again".
  bool all_dropped = is_running && link[from].gone;
  for (std::uint32_t p = 0; p < players; ++p)
    if (cfg.owner[p] == from) all_dropped = all_dropped && absent(p);
  if (!all_dropped) return refuse(kRejectNotDropped);
  // One survivor decides (the sponsor); the others take the rejoiner back when its
  // REJOIN_NOTICE reaches them, and until then answer "ask again".
  const std::uint32_t sponsor = sponsor_of(from);
  if (sponsor == cfg.peers) return refuse(kRejectUnsupported);
  if (sponsor != cfg.local_peer) return refuse(kRejectNotDropped);
  // One take-back at a time, and none while another disconnect is still being agreed: every
  // surviving peer must hold the same drop ticks the acceptance lists.
  for (std::uint32_t q = 0; q < cfg.peers; ++q)
    if (live(q) && q != from && behind(q)) return refuse(kRejectNotDropped);
  for (std::uint32_t p = 0; p < players; ++p)
    if (relaying(p)) return refuse(kRejectNotDropped);
  // The rejoiner's history must reach each of its players' drop ticks (later ticks of its
  // players are the default) and must not go past what we confirmed; from `start` on we must
  // still hold every input of ours it needs, with room to spare for the other survivors (who
  // run within the prediction window of us) to hold theirs.
  std::uint64_t ours = 0, newest = 0;
  std::array<std::uint64_t, kMaxSessionPlayers> drop{};
  drop.fill(kNoTick);
  for (std::uint32_t p = 0; p < players; ++p) {
    if (cfg.owner[p] == from) {
      drop[p] = drop_tick[p];
      // Its history may end before the drop: the survivors send it those inputs of its player.
      for (std::uint64_t t = history_end; t < drop[p]; ++t)
        if (!has(t) || ((known[slot(t)] >> p) & 1u) == 0) return refuse(kRejectHistoryTooOld);
    } else if (absent(p) && drop_tick[p] > history_end) {
      return refuse(kRejectHistoryTooOld);  // another absent player's last inputs are no longer relayed
    }
    if (is_local(p)) ours = std::max(ours, frontier[p]);
  }
  if (history_end > emitted) return refuse(kRejectHistoryTooOld);
  for (std::uint64_t t = history_end; t < ours; ++t)
    if (!has(t)) return refuse(kRejectHistoryTooOld);
  // Another survivor may have claimed up to max_prediction + input_delay ticks past our newest
  // (it cannot run further ahead of the confirmed tick), so its ring may have let go of that
  // many ticks more than ours: keep that margin, or it could not serve the rejoiner.
  bool others = false;
  for (std::uint32_t q = 0; q < cfg.peers; ++q) others = others || (q != from && live(q));
  for (std::uint64_t t : slot_tick)
    if (t != kNoTick) newest = std::max(newest, t);
  if (others && newest > history_end && newest - history_end + window + delay + 8 > ring_ticks)
    return refuse(kRejectHistoryTooOld);
  // Fresh, not recorded: the request must carry the cookie made for exactly this request (this
  // session's secret, this drop, this history and nonce) in this cookie epoch or the one before;
  // else it gets one to return.
  std::uint64_t first_drop = kNoTick;
  for (std::uint64_t d : drop) first_drop = std::min(first_drop, d);
  const std::uint64_t epoch = now / kCookieEpochUs;
  std::byte cookie[wire::kCookieBytes];
  rejoin_cookie(from, incarnation, first_drop, history_end, nonce, epoch, cookie);
  const bool carries = (get_u32(body + 12) & kSyncFlagCookie) != 0;
  bool fresh = carries && wire::cookie_equal(cookie, body + kSyncCookieOffset);
  if (carries && !fresh && epoch > 0) {
    std::byte previous[wire::kCookieBytes];
    rejoin_cookie(from, incarnation, first_drop, history_end, nonce, epoch - 1, previous);
    fresh = wire::cookie_equal(previous, body + kSyncCookieOffset);
  }
  if (!fresh) {
    send_sync(from, kMsgSyncReject, nonce, 0, kRejectProveFresh, cookie);
    ++stats.rejoin_challenges;
    return;
  }
  // The return tick: past every tick we claimed or hold an input for, so nothing we simulated
  // or confirmed took the default for a tick from R on; plus the input delay, so the
  // rejoiner's first input can still arrive in time. Another survivor may have simulated
  // further (it takes the default back then and rolls back); none can have confirmed a tick
  // >= R, because that needs our inputs there, which no survivor gets before it applied the
  // take-back (send()).
  std::uint64_t r = std::max(ours, current());
  for (std::uint32_t p = 0; p < players; ++p)
    if (!absent(p)) r = std::max(r, frontier[p]);
  r += delay + 2;
  take_back(from, incarnation, r, history_end, drop);
  if (!status.ok()) return;
  send_rejoin_accept(from, nonce);
}

void RollbackSession::Impl::take_back(std::uint32_t rejoiner, std::uint32_t incarnation, std::uint64_t r,
                                      std::uint64_t history_start, const std::array<std::uint64_t, kMaxSessionPlayers>& drop) noexcept {
  if (emitted > r) {
    (void)fail({ErrorCode::Mismatch, "RollbackSession: a rejoin's return tick is already confirmed here with the default "
                                     "input (the survivors' take-back protocol was broken; docs/rollback.md, \"Rejoin\")"});
    return;
  }
  Link& l = link[rejoiner];
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
  l.rejoin_start = history_start;
  gone_mask &= ~(1u << rejoiner);
  // Nobody holds the rejoiner disconnected any more: a later disconnect of it is declared anew.
  for (Link& other : link) other.their_gone &= ~(1u << rejoiner);
  remote_tick[rejoiner] = history_start;
  seen_reports[rejoiner].reset();
  for (std::uint32_t p = 0; p < players; ++p) {
    acked[rejoiner][p] = history_start;
    seen[rejoiner][p] = history_start;
    if (cfg.owner[p] != rejoiner) continue;
    return_tick[p] = r;
    // Ticks from R on that we already hold took the default as known: from R on the
    // rejoiner's own inputs count (a tick simulated with the default is rolled back when they
    // differ).
    for (std::uint32_t s = 0; s < ring_ticks; ++s)
      if (slot_tick[s] != kNoTick && slot_tick[s] >= r) known[s] &= ~(1u << p);
    frontier[p] = std::min(frontier[p], r);
  }
  ++takebacks;
  l.takebacks = takebacks;
  last_takeback.rejoiner = rejoiner;
  last_takeback.incarnation = incarnation;
  last_takeback.r = r;
  last_takeback.history_start = history_start;
  last_takeback.drop = drop;
  push_rejoined(rejoiner, r);
}

void RollbackSession::Impl::on_rejoin_notice(std::uint32_t from, const std::byte* b, std::uint32_t size) noexcept {
  (void)size;
  if (!is_running) return;  // a rejoiner learns everything from its acceptances
  const std::uint32_t rejoiner = std::to_integer<std::uint8_t>(b[0]);
  const std::uint8_t k = std::to_integer<std::uint8_t>(b[1]);
  const std::uint32_t incarnation = get_u32(b + 4);
  const std::uint64_t r = get_u64(b + 8), history_start = get_u64(b + 16);
  if (k != static_cast<std::uint8_t>(takebacks + 1)) return;  // applied already, or not the next one
  std::array<std::uint64_t, kMaxSessionPlayers> drop{};
  drop.fill(kNoTick);
  bool bad = rejoiner >= cfg.peers || rejoiner == cfg.local_peer || rejoiner == from || get_u16(b + 2) != 0 ||
             r < history_start;
  for (std::uint32_t p = 0; p < players && !bad; ++p) {
    const std::uint64_t d = get_u64(b + kRejoinNoticeBytes + 8 * p);
    if (cfg.owner[p] == rejoiner) {
      bad = d > r;
      drop[p] = d;
    } else {
      bad = d != kNoTick;
    }
  }
  // From the sponsor, or — when the sponsor is gone — from any survivor that applied it.
  const std::uint32_t sponsor = sponsor_of(rejoiner);
  if (bad || (from != sponsor && sponsor < cfg.peers && sponsor != cfg.local_peer && live(sponsor))) {
    ++stats.malformed;
    return;
  }
  // Its players must be dropped here at the same ticks: a peer that has not concluded the
  // agreement yet holds exactly the inputs up to the agreed tick (the sponsor saw its
  // frontier), so it drops them there now; one that cannot waits for the next notice.
  if (!link[rejoiner].gone) declare_gone(rejoiner);
  for (std::uint32_t p = 0; p < players; ++p) {
    if (cfg.owner[p] != rejoiner) continue;
    if (dropped(p) && return_tick[p] == kNoTick) {
      if (drop_tick[p] != drop[p]) {
            ++stats.malformed;
        return;
      }
    } else if (frontier[p] == drop[p] && !dropped(p)) {
      drop_player(p, drop[p]);
    } else {
      return;
    }
  }
  take_back(rejoiner, incarnation, r, history_start, drop);
}

void RollbackSession::Impl::on_rejoin_accept(std::uint32_t from, const std::byte* b, std::uint64_t seq) noexcept {
  Link& l = link[from];
  const std::uint64_t nonce = get_u64(b), r = get_u64(b + 8), history_end = get_u64(b + 16);
  const std::uint32_t gone = get_u16(b + 24);
  const std::uint8_t k = std::to_integer<std::uint8_t>(b[26]);
  if (!cfg.rejoin || is_running || l.ready || nonce != l.nonce || history_end != emitted || r < history_end ||
      r - history_end > ring_ticks || ((gone >> cfg.local_peer) & 1u) != 0 || ((gone >> from) & 1u) != 0 ||
      (gone >> cfg.peers) != 0) {
    ++stats.unsolicited_sync;
    return;
  }
  const std::byte* table = b + kRejoinBodyBytes;
  for (std::uint32_t p = 0; p < players; ++p) {
    const std::uint64_t d = get_u64(table + 16 * p), back = get_u64(table + 16 * p + 8);
    if (is_local(p) ? (d == kNoTick || d > r || back != r) : (d != kNoTick && back != kNoTick && back < d)) {
      ++stats.malformed;
      return;
    }
  }
  if (!rejoin_accepted) {
    // The first survivor's answer sets the match as the survivors hold it: who is gone, which
    // players are dropped (the default from their drop tick until their return, if any).
    rejoin_accepted = true;
    takebacks = k;
    for (std::uint32_t p = 0; p < players; ++p) {
      const std::uint64_t d = get_u64(table + 16 * p), back = get_u64(table + 16 * p + 8);
      if (is_local(p)) {
        // Inputs [S, D) come from the survivors, the default holds on [D, R), ours count from R.
        drop_tick[p] = std::max(d, history_end);
        return_tick[p] = r;
      } else if (d != kNoTick) {
        dropped_mask |= 1u << p;
        drop_tick[p] = d;
        return_tick[p] = back;
      }
    }
    for (std::uint32_t q = 0; q < cfg.peers; ++q)
      if (((gone >> q) & 1u) != 0 && !link[q].gone) {
        link[q].gone = true;
        gone_mask |= 1u << q;
        push_peer_event(SessionEventKind::Disconnected, q);
      }
  } else {
    for (std::uint32_t p = 0; p < players; ++p)
      if (is_local(p) && return_tick[p] != r) {
        (void)fail({ErrorCode::Mismatch, "RollbackSession: two survivors answered the rejoin with different return ticks "
                                         "(the survivors' take-back protocol was broken; docs/rollback.md, \"Rejoin\")"});
        return;
      }
  }
  l.min_seq = std::max(l.min_seq, seq);
  l.takebacks = k;
  for (std::uint32_t p = 0; p < players; ++p)
    if (is_local(p)) acked[from][p] = r;
  l.ready = true;
  push_peer_event(SessionEventKind::Synchronized, from);
  for (std::uint32_t q = 0; q < cfg.peers; ++q)
    if (q != cfg.local_peer && !link[q].ready && !link[q].gone) return;  // more survivors to hear from
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
