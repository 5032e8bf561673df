#pragma once
// The session's wire format (docs/rollback.md, "Wire format"): message layout constants and
// the little-endian field helpers every part of the session reads and writes with. Private
// to the rollback module; the UDP frame around a message is rollback/packet.h.
#include "wire_auth.h"

#include <cstddef>
#include <cstdint>

namespace lockstep::rollback::session_wire {

// ---- Messages ---------------------------------------------------------------------------
// All integers little-endian. Common header (40 bytes):
//   u8 type · u8 version (6) · u8 sender peer · u8 players · u32 session id · u64 sender tick ·
//   u32 sender incarnation · u16 peers the sender declared disconnected · i16 the sender's
//   frame advantage over the receiver (time sync) · u32 sender clock (µs, low bits) ·
//   u32 echo: the receiver's clock from its last message (0xFFFFFFFF: none) · u32 µs the
//   sender held that echo · u8 flags (bit 0: authenticated) · u8 take-backs: how many rejoins
//   the sender has applied (mod 256; its disconnect mask is ignored while it is behind the
//   receiver's, see REJOIN_NOTICE) · u16 0
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
// The three handshake messages have a 32-byte body:
// type 3, SYNC_REQUEST: u64 nonce (fresh, from the OS CSPRNG) · u32 round · u32 flags ·
//   16-byte freshness cookie (kSyncFlagCookie; else zero);
// type 4, SYNC_REPLY: u64 nonce (echoed) · u64 0 · 16 zero bytes;
// type 5, SYNC_REJECT (the sender runs the match with another incarnation of the receiver):
//   u64 nonce (echoed from the rejected request) · u64 reason (kReject*) · 16-byte cookie
//   (kRejectProveFresh; else zero). Replies and rejections are honoured only by a
//   synchronizing peer whose outstanding nonce they echo.
// type 6, REJOIN_ACCEPT (a survivor takes a restarted peer's players back):
//   u64 nonce (echoed) · u64 return tick R · u64 start tick S (echoed) · u16 peers the survivor
//   holds disconnected · u8 take-backs (with this one) · 5 zero bytes · per player: u64 drop
//   tick · u64 return tick (kNoTick: none). Every survivor sends the rejoiner its players'
//   inputs [S, D) (when its history ends before the drop), the default holds on [D, R), the
//   rejoiner's inputs count from R. Every survivor answers with the same R: one of them (the
//   sponsor: the lowest-numbered surviving peer that plays) chooses it and tells the others:
// type 7, REJOIN_NOTICE (sponsor → every other surviving peer, repeated until the receiver's
//   header shows it applied it; any peer that applied it repeats it to one that did not):
//   u8 rejoiner · u8 take-backs (with this one) · u16 0 · u32 the rejoiner's incarnation ·
//   u64 R · u64 S · per player: u64 drop tick. Until every surviving peer applied it, the
//   sponsor holds back its own inputs from tick R on, so no peer can confirm a tick >= R with
//   the default input for the rejoiner's players (docs/rollback.md, "Rejoin").
// A SYNC_REQUEST's flags: bit 0 = rejoin (the header's tick is the rejoiner's S); bit 1 = the
// cookie field holds the cookie the survivor sent with kRejectProveFresh. The survivor takes a
// rejoiner back only on a request that carries the cookie it made for this request: a keyed
// BLAKE2b of a per-session secret over (rejoiner, incarnation, drop tick, S, nonce, cookie
// epoch), so a recorded request — of another match under the same key and session id, of an
// earlier drop, or held back for more than an epoch — cannot put a phantom back
// (docs/rollback.md, "Threat model").
// Version 5 had no take-back count, no REJOIN_NOTICE and a 32-byte REJOIN_ACCEPT (one survivor);
// version 4 had 16-byte handshake bodies and no cookie; version 3 no REJOIN_ACCEPT, no flags
// and no reason.
constexpr std::uint8_t kMsgInput = 1;
constexpr std::uint8_t kMsgHash = 2;
constexpr std::uint8_t kMsgSyncRequest = 3;
constexpr std::uint8_t kMsgSyncReply = 4;
constexpr std::uint8_t kMsgSyncReject = 5;
constexpr std::uint8_t kMsgRejoinAccept = 6;
constexpr std::uint8_t kMsgRejoinNotice = 7;
constexpr std::uint8_t kWireVersion = 6;
constexpr std::uint32_t kSyncFlagRejoin = 1;
constexpr std::uint32_t kSyncFlagCookie = 2;
constexpr std::uint32_t kRejoinBodyBytes = 32;        // REJOIN_ACCEPT, before 16 bytes per player
constexpr std::uint32_t kRejoinNoticeBytes = 24;      // REJOIN_NOTICE, before 8 bytes per player
// SYNC_REJECT reasons.
constexpr std::uint64_t kRejectRestarted = 0;      // a restarted process that did not ask to rejoin
constexpr std::uint64_t kRejectHistoryTooOld = 1;  // the rejoiner's history ends where the survivor keeps no inputs
constexpr std::uint64_t kRejectNotDropped = 2;     // the survivor has not dropped the player yet: ask again
constexpr std::uint64_t kRejectUnsupported = 3;    // no surviving peer that plays can take it back
constexpr std::uint64_t kRejectProveFresh = 4;     // ask again with the cookie this rejection carries
constexpr std::uint32_t kHeaderBytes = 40;
constexpr std::uint32_t kTrailerBytes = 8 + wire::kTagBytes;
constexpr std::uint32_t kSyncBodyBytes = 32;
constexpr std::uint32_t kSyncCookieOffset = 16;  // in the handshake body
// A cookie is accepted in the epoch (of the survivor's clock) it was made in and the next: 2 to
// 4 s, ample for the rejoiner's immediate answer; a later request is challenged again.
constexpr std::uint64_t kCookieEpochUs = 2000000;
constexpr std::uint8_t kFlagAuthenticated = 1;
constexpr std::uint32_t kDefaultReceiveBudget = 256;
constexpr std::uint32_t kNoEcho = 0xFFFFFFFFu;
constexpr std::uint32_t kInputHeadBytes = 16;
constexpr std::uint32_t kHashHeadBytes = 48;
constexpr std::uint8_t kAckOnly = 0xFF;

inline void put_u16(std::byte* p, std::uint16_t v) noexcept {
  for (int i = 0; i < 2; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
inline void put_u32(std::byte* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
inline void put_u64(std::byte* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
inline std::uint16_t get_u16(const std::byte* p) noexcept {
  return static_cast<std::uint16_t>(std::to_integer<std::uint32_t>(p[0]) | (std::to_integer<std::uint32_t>(p[1]) << 8));
}
inline std::uint32_t get_u32(const std::byte* p) noexcept {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint32_t>(p[i]);
  return v;
}
inline std::uint64_t get_u64(const std::byte* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

// The common header (above) with its fields named: encoded once by the sender, decoded once by
// the receiver, which then validates it (session_receive.cpp). The three bytes after `flags`
// are written 0 and not read.
struct MessageHeader {
  std::uint8_t type = 0;
  std::uint8_t version = kWireVersion;
  std::uint8_t sender = 0;            // the sender's peer id
  std::uint8_t players = 0;
  std::uint32_t session_id = 0;
  std::uint64_t tick = 0;             // the sender's current tick
  std::uint32_t incarnation = 0;      // the sender's
  std::uint16_t gone = 0;             // bit q: the sender declared peer q disconnected
  std::int16_t advantage = 0;         // the sender's frame advantage over the receiver (time sync)
  std::uint32_t clock = 0;            // the sender's clock (µs, low bits)
  std::uint32_t echo = kNoEcho;       // the receiver's clock from its last message (kNoEcho: none)
  std::uint32_t echo_held = 0;        // µs the sender held that echo
  std::uint8_t flags = 0;             // kFlagAuthenticated
  std::uint8_t takebacks = 0;         // rejoins the sender applied (mod 256)
};

inline void encode_header(const MessageHeader& h, std::byte* p) noexcept {
  p[0] = std::byte{h.type};
  p[1] = std::byte{h.version};
  p[2] = std::byte{h.sender};
  p[3] = std::byte{h.players};
  put_u32(p + 4, h.session_id);
  put_u64(p + 8, h.tick);
  put_u32(p + 16, h.incarnation);
  put_u16(p + 20, h.gone);
  put_u16(p + 22, static_cast<std::uint16_t>(h.advantage));  // two's complement
  put_u32(p + 24, h.clock);
  put_u32(p + 28, h.echo);
  put_u32(p + 32, h.echo_held);
  p[36] = std::byte{h.flags};
  p[37] = std::byte{h.takebacks};
  p[38] = p[39] = std::byte{0};
}

// `p` holds at least kHeaderBytes bytes.
inline MessageHeader decode_header(const std::byte* p) noexcept {
  MessageHeader h;
  h.type = std::to_integer<std::uint8_t>(p[0]);
  h.version = std::to_integer<std::uint8_t>(p[1]);
  h.sender = std::to_integer<std::uint8_t>(p[2]);
  h.players = std::to_integer<std::uint8_t>(p[3]);
  h.session_id = get_u32(p + 4);
  h.tick = get_u64(p + 8);
  h.incarnation = get_u32(p + 16);
  h.gone = get_u16(p + 20);
  h.advantage = static_cast<std::int16_t>(get_u16(p + 22));
  h.clock = get_u32(p + 24);
  h.echo = get_u32(p + 28);
  h.echo_held = get_u32(p + 32);
  h.flags = std::to_integer<std::uint8_t>(p[36]);
  h.takebacks = std::to_integer<std::uint8_t>(p[37]);
  return h;
}

}  // namespace lockstep::rollback::session_wire
