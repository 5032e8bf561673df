#pragma once
// Message authentication of the session wire (rollback/match_key.h): keyed BLAKE2b-128 from
// libsodium, plus the replay window. Private to the rollback module.
#include <lockstep/rollback/match_key.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace lockstep::rollback::wire {

inline constexpr std::uint32_t kTagBytes = 16;

// tag = BLAKE2b-128(key, personal "lockstep-msg-v3", [receiver u8] || bytes). Binding the
// receiver stops an on-path attacker from redirecting a message meant for another peer.
void compute_tag(const MatchKey& key, std::uint32_t receiver, std::span<const std::byte> bytes,
                 std::byte tag[kTagBytes]) noexcept;
// Constant-time comparison of the recomputed tag with the received one.
bool verify_tag(const MatchKey& key, std::uint32_t receiver, std::span<const std::byte> bytes,
                const std::byte tag[kTagBytes]) noexcept;

// A rejoin's freshness cookie (session_wire.h, kRejectProveFresh): keyed BLAKE2b-128 of
// `bytes` under a secret the survivor's session draws once (random_u64), personal
// "lockstep-cookie". Without libsodium (foreign toolchains: unauthenticated sessions only) the
// secret's first 8 bytes seed XXH3-128: a 64-bit seed, not a MAC, which still proves the round
// trip to the rejoiner's address against an off-path stranger.
inline constexpr std::uint32_t kCookieBytes = 16;
using CookieSecret = std::array<std::uint8_t, 32>;
void compute_cookie(const CookieSecret& secret, std::span<const std::byte> bytes, std::byte out[kCookieBytes]) noexcept;
// Constant-time comparison of two cookies.
bool cookie_equal(const std::byte a[kCookieBytes], const std::byte b[kCookieBytes]) noexcept;

// 0..15 for a hexadecimal digit (either case), else -1.
int hex_digit(char c) noexcept;

// A 32-byte key file: 32 raw bytes, or 64 hexadecimal digits optionally followed by whitespace;
// not all zero. Errors begin with `what` and the path ("key file K: ...", "identity file F: ...").
bool read_key_bytes(const char* what, const std::string& path, std::array<std::uint8_t, 32>& out, std::string& error);

// 64 bits from the OS CSPRNG (handshake nonces: an off-path attacker must not predict them).
std::uint64_t random_u64() noexcept;

// Sliding window of the last 256 sequence numbers seen from one sender (RFC 6479 style,
// as IPsec and WireGuard do): accepts each number once, rejects numbers older than the window.
class ReplayWindow {
 public:
  static constexpr std::uint64_t kSize = 256;
  void reset() noexcept;
  // True (and records it) when `seq` was not seen and is not older than the window.
  bool accept(std::uint64_t seq) noexcept;

 private:
  std::uint64_t highest_ = 0;  // 0: nothing seen yet (sequence numbers start at 1)
  std::uint64_t bits_[kSize / 64] = {};
};

}  // namespace lockstep::rollback::wire
