// RollbackSession: every incoming message passes here first — per-source budget, MAC, header
// validation, incarnation, replay window, liveness — before its body reaches a handler
// (docs/rollback.md, "Threat model"; session_impl.h).
#include "session_impl.h"

namespace lockstep::rollback {

void RollbackSession::Impl::receive() noexcept {
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
    const MessageHeader h = decode_header(msg.data());
    const std::uint8_t flags = h.flags;
    if (((flags & kFlagAuthenticated) != 0) != authenticated) {
      ++stats.dropped_auth;  // the other mode, or a forger who did not bother
      continue;
    }
    // Under the key of the sender the message claims (its header): with per-peer keys, a
    // message one peer made that claims another sender fails here. A claimed sender with no
    // key (out of range, or this peer) cannot verify.
    if (authenticated && (h.sender >= cfg.peers || h.sender == cfg.local_peer ||
                          !wire::verify_tag(receive_key[h.sender], cfg.local_peer,
                                            std::span<const std::byte>(msg.data(), body_end + 8), &msg[body_end + 8]))) {
      ++stats.dropped_auth;
      continue;
    }
    const std::uint8_t type = h.type;
    const std::uint32_t sender = h.sender;
    const std::uint32_t their_gone = h.gone;
    if (h.version != kWireVersion || sender != from || std::uint32_t{h.players} != players ||
        h.session_id != cfg.session_id || (their_gone >> cfg.peers) != 0 || ((their_gone >> from) & 1u) != 0 ||
        type < kMsgInput || type > kMsgRejoinNotice || (flags & ~kFlagAuthenticated) != 0 ||
        (type >= kMsgSyncRequest && type <= kMsgSyncReject && body_end - kHeaderBytes != kSyncBodyBytes) ||
        (type == kMsgRejoinAccept && body_end - kHeaderBytes != kRejoinBodyBytes + 16 * players) ||
        (type == kMsgRejoinNotice && body_end - kHeaderBytes != kRejoinNoticeBytes + 8 * players)) {
      ++stats.malformed;
      continue;
    }
    const std::uint32_t incarnation = h.incarnation;
    const bool sync_message = type >= kMsgSyncRequest;
    const std::byte* body = msg.data() + kHeaderBytes;
    const std::uint32_t body_size = body_end - kHeaderBytes;
    if (!l.incarnation_known) {
      if (cfg.sync_roundtrips == 0) {
        // No handshake (in-process networks up from the start): the first message tells.
        l.incarnation_known = true;
        l.incarnation = incarnation;
        l.window.reset();
      } else if ((type == kMsgSyncReply || (type == kMsgRejoinAccept && cfg.rejoin)) && !l.ready &&
                 get_u64(body) == l.nonce) {
        // Learnt from the answer to our own fresh nonce: the sender received what we sent
        // to that peer's address, which an off-path stranger cannot.
        l.incarnation_known = true;
        l.incarnation = incarnation;
        l.window.reset();
        // A rejoiner ignores what the survivor sent before taking it back (e.g. the header
        // bit that says it is disconnected).
        if (type == kMsgRejoinAccept) l.min_seq = get_u64(&msg[body_end]);
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
      if (type == kMsgSyncRequest && (get_u32(body + 12) & kSyncFlagRejoin) != 0) {
        // A restarted process asks to play again (authenticated above, like everything).
        on_rejoin_request(from, incarnation, h.tick, body);
        continue;
      }
      ++stats.stale;  // an earlier or a restarted run of that peer (or a stranger's guess)
      if (type == kMsgSyncRequest) {
        // Echoes the request's nonce: only the process that sent it acts on the rejection.
        send_sync(from, kMsgSyncReject, get_u64(body), 0, kRejectRestarted);
        ++stats.sync_rejections_sent;
      } else if (type == kMsgSyncReject) {
        on_sync(from, type, body, body_size);
      }
      continue;
    }
    if (get_u64(&msg[body_end]) < l.min_seq) {
      ++stats.stale;  // sent before a rejoin took this peer back
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
    remote_tick[from] = std::max(remote_tick[from], h.tick);
    const std::uint32_t echo = h.echo;
    if (echo != kNoEcho) {
      const std::uint32_t sample = static_cast<std::uint32_t>(now) - echo - h.echo_held;
      if (sample < 60000000u) l.rtt = l.rtt == 0 ? std::max<std::uint32_t>(sample, 1) : (7 * l.rtt + sample) / 8;
    }
    l.echo = h.clock;
    l.echo_at = now;
    l.echo_valid = true;
    if (is_running && !sync_message) {
      const std::int16_t theirs = h.advantage;
      l.adv_sum += local_advantage(from) - theirs;
      ++l.adv_n;
    }
    if (static_cast<std::uint8_t>(h.takebacks - l.takebacks) < 128) l.takebacks = h.takebacks;
    // Disconnects spread: whom the sender declared gone is gone for us too — unless the sender
    // had not applied a take-back we applied when it sent this (its mask may still name the
    // rejoiner: it catches up on the notice we repeat, and its later headers carry whatever it
    // still declares; a message delayed past its catching up is judged by its own count), or
    // we are a rejoiner not yet running (the acceptance says who is gone).
    const std::uint8_t lag = static_cast<std::uint8_t>(takebacks - h.takebacks);
    if (!(lag != 0 && lag < 128) && !(cfg.rejoin && !is_running)) {
      if (((their_gone >> cfg.local_peer) & 1u) != 0) {
        expel();
        return;
      }
      l.their_gone |= their_gone;
      for (std::uint32_t q = 0; q < cfg.peers; ++q)
        if (((their_gone >> q) & 1u) != 0) declare_gone(q);
    }
    if (type == kMsgRejoinNotice) {
      on_rejoin_notice(from, body, body_size);
    } else if (type == kMsgInput) {
      on_input(from, body, body_size);
      if (gone_mask != 0) check_agreement();
    } else if (type == kMsgHash) {
      on_hash(from, body, body_size);
    } else {
      on_sync(from, type, body, body_size);
    }
  }
}

}  // namespace lockstep::rollback
