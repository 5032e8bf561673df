// RollbackSession: outgoing messages (header, trailer with sequence number and MAC, inputs,
// handshake) and incoming INPUT bodies (session_impl.h; wire format in session_wire.h).
#include "session_impl.h"

namespace lockstep::rollback {

std::int32_t RollbackSession::Impl::local_advantage(std::uint32_t q) const noexcept {
  // Unsigned distance first: a remote tick comes from a packet and may be anything up to
  // 2^64 - 1 (the fuzzer sent 2^63, whose signed difference overflowed).
  const std::uint64_t t = current(), r = remote_tick[q];
  const auto d = static_cast<std::int32_t>(std::min<std::uint64_t>(t >= r ? t - r : r - t, 32767));
  return t >= r ? d : -d;
}

void RollbackSession::Impl::write_header(std::uint8_t type, std::uint32_t dest) noexcept {
  const Link& l = link[dest];
  MessageHeader h;
  h.type = type;
  h.sender = static_cast<std::uint8_t>(cfg.local_peer);
  h.players = static_cast<std::uint8_t>(players);
  h.session_id = cfg.session_id;
  h.tick = current();
  h.incarnation = cfg.incarnation;
  h.gone = static_cast<std::uint16_t>(gone_mask);
  h.advantage = static_cast<std::int16_t>(local_advantage(dest));  // within ±32767
  h.clock = static_cast<std::uint32_t>(now);
  h.echo = l.echo_valid ? l.echo : kNoEcho;
  h.echo_held = l.echo_valid ? static_cast<std::uint32_t>(std::min<std::uint64_t>(now - l.echo_at, 0xFFFFFFFEu)) : 0;
  h.flags = authenticated ? kFlagAuthenticated : 0;
  h.takebacks = takebacks;
  encode_header(h, msg.data());
}

void RollbackSession::Impl::transmit(std::uint32_t peer, std::uint32_t size) noexcept {
  put_u64(&msg[size], ++link[peer].send_seq);
  size += 8;
  if (authenticated) {
    wire::compute_tag(send_key[peer], peer, std::span<const std::byte>(msg.data(), size), &msg[size]);
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

void RollbackSession::Impl::send_sync(std::uint32_t peer, std::uint8_t type, std::uint64_t nonce, std::uint32_t round,
                                      std::uint64_t reason, const std::byte* cookie) noexcept {
  write_header(type, peer);
  put_u64(&msg[kHeaderBytes], nonce);
  if (type == kMsgSyncRequest) {
    put_u32(&msg[kHeaderBytes + 8], round);
    put_u32(&msg[kHeaderBytes + 12], (cfg.rejoin ? kSyncFlagRejoin : 0u) | (cookie != nullptr ? kSyncFlagCookie : 0u));
  } else {
    put_u64(&msg[kHeaderBytes + 8], reason);  // SYNC_REJECT's reason; 0 in a SYNC_REPLY
  }
  std::byte* c = &msg[kHeaderBytes + kSyncCookieOffset];
  if (cookie != nullptr) {
    std::memcpy(c, cookie, wire::kCookieBytes);
  } else {
    std::memset(c, 0, wire::kCookieBytes);
  }
  transmit(peer, kHeaderBytes + kSyncBodyBytes);
}

void RollbackSession::Impl::send_rejoin_accept(std::uint32_t peer, std::uint64_t nonce) noexcept {
  write_header(kMsgRejoinAccept, peer);
  std::byte* b = &msg[kHeaderBytes];
  put_u64(b, nonce);
  put_u64(b + 8, link[peer].rejoin_return);
  put_u64(b + 16, link[peer].rejoin_start);
  put_u16(b + 24, static_cast<std::uint16_t>(gone_mask));
  b[26] = std::byte{takebacks};
  std::memset(b + 27, 0, 5);
  b += kRejoinBodyBytes;
  for (std::uint32_t p = 0; p < players; ++p, b += 16) {
    put_u64(b, dropped(p) ? drop_tick[p] : kNoTick);
    put_u64(b + 8, dropped(p) ? return_tick[p] : kNoTick);
  }
  transmit(peer, static_cast<std::uint32_t>(b - msg.data()));
}

void RollbackSession::Impl::send_rejoin_notice(std::uint32_t peer) noexcept {
  const TakeBack& t = last_takeback;
  write_header(kMsgRejoinNotice, peer);
  std::byte* b = &msg[kHeaderBytes];
  b[0] = std::byte{static_cast<std::uint8_t>(t.rejoiner)};
  b[1] = std::byte{takebacks};
  put_u16(b + 2, 0);
  put_u32(b + 4, t.incarnation);
  put_u64(b + 8, t.r);
  put_u64(b + 16, t.history_start);
  b += kRejoinNoticeBytes;
  for (std::uint32_t p = 0; p < players; ++p, b += 8) put_u64(b, t.drop[p]);
  transmit(peer, static_cast<std::uint32_t>(b - msg.data()));
}

void RollbackSession::Impl::send_inputs(std::uint32_t peer, std::uint32_t player, std::uint64_t first, std::uint32_t count) noexcept {
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
    replay::Runner::copy_to_canonical(*input_type, std::span<const std::byte>(input_at(first + i, player), input_size),
                                      std::span<std::byte>(b, input_size));
  }
  transmit(peer, static_cast<std::uint32_t>(b - msg.data()));
}

bool RollbackSession::Impl::send_range(std::uint32_t q, std::uint32_t p, std::uint64_t from, std::uint64_t to) noexcept {
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

void RollbackSession::Impl::send() noexcept {
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
      if (!link[q].ready) {
        send_sync(q, kMsgSyncRequest, link[q].nonce, link[q].sync_done, 0,
                  link[q].has_cookie ? link[q].cookie.data() : nullptr);
      } else if (cfg.rejoin) {
        // A rejoiner accepted by some survivors waits for the others: it keeps those that
        // took it back hearing from it, or they would time it out again.
        send_inputs(q, kAckOnly, 0, 0);
      }
      continue;
    }
    // A peer that has not applied our newest take-back hears of it again, and gets none of
    // our inputs from its return tick on until it has: without them it cannot confirm a tick
    // that would still give the rejoiner the default input.
    const bool lagging = behind(q);
    if (lagging && frames % 2 == 0) send_rejoin_notice(q);
    bool any = false;
    for (std::uint32_t p = 0; p < players; ++p) {
      if (is_local(p)) {
        const std::uint64_t upto = lagging ? std::min(frontier[p], last_takeback.r) : frontier[p];
        any = send_range(q, p, std::min(acked[q][p], upto), upto) || any;
      } else if (relaying(p) && seen[q][p] < frontier[p]) {
        const std::uint64_t before = stats.messages_sent;
        any = send_range(q, p, seen[q][p], frontier[p]) || any;
        stats.relayed_inputs += stats.messages_sent - before;
      } else if (cfg.owner[p] == q && return_tick[p] != kNoTick && seen[q][p] < std::min(drop_tick[p], frontier[p])) {
        // A rejoiner whose history ended before its player's drop: its own last inputs.
        any = send_range(q, p, seen[q][p], std::min(drop_tick[p], frontier[p])) || any;
      }
    }
    if (!any) send_inputs(q, kAckOnly, 0, 0);
    if (interval != 0) send_reports(q);
  }
  for (std::uint32_t& n : report_sends)
    if (n > 0) --n;
}

void RollbackSession::Impl::on_input(std::uint32_t from, const std::byte* b, std::uint32_t size) noexcept {
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
    // The owner sends its player's inputs; once the owner is gone, any peer may relay them. A
    // rejoiner takes its own player's inputs before the drop tick from the survivor.
    const bool history = player < players && is_local(player) && cfg.rejoin && return_tick[player] != kNoTick &&
                         first <= drop_tick[player] && count <= drop_tick[player] - first;
    bad = bad || player >= players || (is_local(player) && !history) ||
          (!history && cfg.owner[player] != from && ((gone_mask >> cfg.owner[player]) & 1u) == 0);
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
  if (player == kAckOnly || absent(player)) return;
  const std::byte* in = b + head;
  for (std::uint32_t i = 0; i < count; ++i, in += input_size) {
    const std::uint64_t t = first + i;
    replay::Runner::copy_to_host(*input_type, std::span<const std::byte>(in, input_size), scratch);
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

}  // namespace lockstep::rollback
