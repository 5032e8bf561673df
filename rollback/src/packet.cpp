// UDP packet framing (rollback/packet.h).
#include <lockstep/rollback/packet.h>

#include <lockstep/hash/state_hash.h>

#include "session_wire.h"

#include <cstring>

namespace lockstep::rollback {

namespace {
using session_wire::get_u16;
using session_wire::get_u32;
using session_wire::get_u64;
using session_wire::put_u16;
using session_wire::put_u32;
using session_wire::put_u64;
}  // namespace

const char* packet_error_name(PacketError e) noexcept {
  switch (e) {
    case PacketError::None: return "ok";
    case PacketError::TooShort: return "too short";
    case PacketError::TooLong: return "too long";
    case PacketError::BadMagic: return "bad magic";
    case PacketError::BadVersion: return "unsupported frame version";
    case PacketError::BadChecksum: return "checksum mismatch";
    case PacketError::WrongSession: return "other session";
    case PacketError::BadSender: return "bad sender id";
  }
  return "?";
}

std::uint32_t encode_packet(std::uint32_t sender, std::uint32_t session_id, std::span<const std::byte> message,
                            std::span<std::byte, kMaxPacketBytes> out) noexcept {
  if (message.empty() || message.size() > kMaxMessageBytes || sender > 0xFFu) return 0;
  const auto n = static_cast<std::uint32_t>(kPacketHeaderBytes + message.size() + kPacketTrailerBytes);
  std::byte* p = out.data();
  put_u16(p, kPacketMagic);
  p[2] = std::byte{kPacketVersion};
  p[3] = static_cast<std::byte>(sender);
  put_u32(p + 4, session_id);
  std::memcpy(p + kPacketHeaderBytes, message.data(), message.size());
  put_u64(p + n - kPacketTrailerBytes, xxh3_64(std::span<const std::byte>(p, n - kPacketTrailerBytes)));
  return n;
}

DecodedPacket decode_packet(std::span<const std::byte> packet, std::uint32_t session_id,
                            std::uint32_t peers) noexcept {
  DecodedPacket d;
  const std::size_t n = packet.size();
  if (n < kPacketHeaderBytes + 1 + kPacketTrailerBytes) {
    d.error = PacketError::TooShort;
    return d;
  }
  if (n > kMaxPacketBytes) {
    d.error = PacketError::TooLong;
    return d;
  }
  const std::byte* p = packet.data();
  if (get_u16(p) != kPacketMagic) {
    d.error = PacketError::BadMagic;
    return d;
  }
  if (std::to_integer<std::uint8_t>(p[2]) != kPacketVersion) {
    d.error = PacketError::BadVersion;
    return d;
  }
  if (get_u64(p + n - kPacketTrailerBytes) != xxh3_64(packet.first(n - kPacketTrailerBytes))) {
    d.error = PacketError::BadChecksum;
    return d;
  }
  d.sender = std::to_integer<std::uint32_t>(p[3]);
  d.session_id = get_u32(p + 4);
  if (d.session_id != session_id) {
    d.error = PacketError::WrongSession;
    return d;
  }
  if (d.sender >= peers) {
    d.error = PacketError::BadSender;
    return d;
  }
  d.message = packet.subspan(kPacketHeaderBytes, n - kPacketHeaderBytes - kPacketTrailerBytes);
  return d;
}

}  // namespace lockstep::rollback
