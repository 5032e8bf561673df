#pragma once
// UDP packet framing of the rollback transport (docs/rollback.md, "UDP transport").
//
// One datagram carries one session message (rollback/session.h) inside a small frame:
//
//   offset 0   u16 magic 0x534C ("LS" in the byte stream)
//          2   u8  frame version (kPacketVersion)
//          3   u8  sender peer id
//          4   u32 session id
//          8   ... the session message (1..kMaxMessageBytes bytes)
//   n - 8      u64 XXH3-64 (seed 0) of bytes [0, n - 8)
//
// All integers little-endian. The checksum catches corruption a UDP checksum misses (it is
// optional over IPv4) and datagrams of other programs that happen to reach the port;
// the session id drops packets of an earlier or a different match. decode_packet is a pure
// function over the bytes (no state, no allocation), so it is fuzzed on its own
// (tests/fuzz/packet_decoder_fuzz.cpp).
#include <lockstep/rollback/transport.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace lockstep::rollback {

inline constexpr std::uint16_t kPacketMagic = 0x534C;
inline constexpr std::uint8_t kPacketVersion = 1;
inline constexpr std::uint32_t kPacketHeaderBytes = 8;
inline constexpr std::uint32_t kPacketTrailerBytes = 8;
inline constexpr std::uint32_t kMaxPacketBytes = kPacketHeaderBytes + kMaxMessageBytes + kPacketTrailerBytes;

enum class PacketError : std::uint8_t {
  None = 0,
  TooShort,      // shorter than header + 1 byte + checksum
  TooLong,       // longer than kMaxPacketBytes
  BadMagic,
  BadVersion,
  BadChecksum,
  WrongSession,  // a packet of another (or an earlier) match
  BadSender,     // sender id >= peers
};
const char* packet_error_name(PacketError e) noexcept;

struct DecodedPacket {
  PacketError error = PacketError::None;
  std::uint32_t sender = 0;
  std::uint32_t session_id = 0;
  std::span<const std::byte> message;  // points into the decoded bytes
};

// Frames `message` (1..kMaxMessageBytes bytes) into `out`; returns the packet size, or 0 when
// the message is empty or too long.
std::uint32_t encode_packet(std::uint32_t sender, std::uint32_t session_id, std::span<const std::byte> message,
                            std::span<std::byte, kMaxPacketBytes> out) noexcept;

// Validates one received datagram of a session with `peers` peers and id `session_id`.
DecodedPacket decode_packet(std::span<const std::byte> packet, std::uint32_t session_id,
                            std::uint32_t peers) noexcept;

}  // namespace lockstep::rollback
