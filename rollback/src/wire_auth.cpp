// Message authentication and the replay window (wire_auth.h), and the public key helpers
// (rollback/match_key.h). Every cryptographic primitive is libsodium's; nothing here is
// home-made crypto.
#include "wire_auth.h"

#include <sys/stat.h>

#include <cerrno>

#include <cstdio>
#include <cstring>
#include <random>

#if LOCKSTEP_HAVE_SODIUM
#include <sodium.h>
#else
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif

namespace lockstep::rollback {

namespace {
#if LOCKSTEP_HAVE_SODIUM
// libsodium must be initialised once before use (it picks its implementations and opens
// the randomness source); sodium_init is thread-safe and idempotent.
bool sodium_ready() noexcept {
  static const bool ok = sodium_init() >= 0;
  return ok;
}
// 16 bytes: the BLAKE2b "personalization" separating our MACs from any other use of the key.
constexpr unsigned char kPersonalMsg[16] = {'l', 'o', 'c', 'k', 's', 't', 'e', 'p', '-', 'm', 's', 'g', '-', 'v', '3', 0};
constexpr unsigned char kPersonalCookie[16] = {'l', 'o', 'c', 'k', 's', 't', 'e', 'p', '-', 'c', 'o', 'o', 'k', 'i', 'e', 0};
constexpr unsigned char kPersonalTestKey[16] = {'l', 'o', 'c', 'k', 's', 't', 'e', 'p', '-', 'i', 'n', 's', 'e', 'c', 'k', 0};
#endif
}  // namespace

int wire::hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const char* wire_security_name(WireSecurity s) noexcept {
  switch (s) {
    case WireSecurity::Authenticated: return "authenticated";
    case WireSecurity::Unauthenticated: return "unauthenticated";
  }
  return "?";
}

bool MatchKey::empty() const noexcept {
  std::uint8_t any = 0;
  for (std::uint8_t b : bytes) any |= b;
  return any == 0;
}

bool wire_auth_available() noexcept {
#if LOCKSTEP_HAVE_SODIUM
  return sodium_ready();
#else
  return false;
#endif
}

MatchKey random_match_key() noexcept {
  MatchKey k;
#if LOCKSTEP_HAVE_SODIUM
  if (sodium_ready()) {
    randombytes_buf(k.bytes.data(), k.bytes.size());
    return k;
  }
#endif
  // lockstep: allow(rand) a match key from the OS CSPRNG: never simulation state
  std::random_device rd;  // the OS generator (getrandom / BCryptGenRandom)
  for (std::size_t i = 0; i < k.bytes.size(); i += 4) {
    const std::uint32_t v = rd();
    for (std::size_t j = 0; j < 4; ++j) k.bytes[i + j] = static_cast<std::uint8_t>(v >> (8 * j));
  }
  return k;
}

namespace wire {
bool read_key_bytes(const char* what, const std::string& path, std::array<std::uint8_t, 32>& out, std::string& error) {
  const std::string name = std::string(what) + " " + path;
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    error = name + ": cannot open: " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = name + ": not a regular file";
    return false;
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    error = name + ": cannot open: " + std::strerror(errno);
    return false;
  }
  // Enough for 64 hex digits and trailing whitespace; one byte more tells "too long".
  unsigned char buf[161];
  const std::size_t n = std::fread(buf, 1, sizeof buf, f);
  std::fclose(f);
  if (n == 32) {
    std::memcpy(out.data(), buf, 32);
  } else {
    std::size_t end = n;
    while (end > 0 && (buf[end - 1] == '\n' || buf[end - 1] == '\r' || buf[end - 1] == ' ' || buf[end - 1] == '\t')) --end;
    if (end != 64 || n == sizeof buf) {
      error = name + ": expected 32 raw bytes or 64 hexadecimal digits, found " +
              (n == sizeof buf ? std::string("more than 160 bytes") : std::to_string(n) + " bytes");
      return false;
    }
    for (std::size_t i = 0; i < 32; ++i) {
      const int hi = hex_digit(static_cast<char>(buf[2 * i])), lo = hex_digit(static_cast<char>(buf[2 * i + 1]));
      if (hi < 0 || lo < 0) {
        error = name + ": byte " + std::to_string(hi < 0 ? 2 * i : 2 * i + 1) +
                ": not a hexadecimal digit (expected 64 hexadecimal digits or 32 raw bytes)";
        return false;
      }
      out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
  }
  std::uint8_t any = 0;
  for (std::uint8_t b : out) any |= b;
  if (any == 0) {
    error = name + ": the key is all zero bytes (not a key)";
    return false;
  }
  return true;
}
}  // namespace wire

bool read_match_key_file(const std::string& path, MatchKey& out, std::string& error) {
  return wire::read_key_bytes("key file", path, out.bytes, error);
}

bool read_watch_key_file(const std::string& path, MatchKey& out, std::string& error) {
  return wire::read_key_bytes("watch key file", path, out.bytes, error);
}

MatchKey derive_watch_key(const MatchKey& match_key) noexcept {
  MatchKey k;
  if (match_key.empty()) return k;  // no key: no watch key
#if LOCKSTEP_HAVE_SODIUM
  static_assert(crypto_kdf_KEYBYTES == 32 && crypto_kdf_CONTEXTBYTES == 8);
  if (sodium_ready()) {
    crypto_kdf_derive_from_key(k.bytes.data(), k.bytes.size(), 1, "LSwatch1", match_key.bytes.data());
    return k;
  }
#endif
  // Without libsodium nothing authenticates (relays refuse Authenticated): any fixed mapping
  // that differs from the match key will do.
  for (std::size_t i = 0; i < k.bytes.size(); ++i)
    k.bytes[i] = static_cast<std::uint8_t>(match_key.bytes[(i + 1) % k.bytes.size()] ^ (0x5C + i));
  return k;
}

MatchKey insecure_test_key(std::uint32_t session_id) noexcept {
  MatchKey k;
  const unsigned char id[4] = {static_cast<unsigned char>(session_id), static_cast<unsigned char>(session_id >> 8),
                               static_cast<unsigned char>(session_id >> 16), static_cast<unsigned char>(session_id >> 24)};
#if LOCKSTEP_HAVE_SODIUM
  if (sodium_ready()) {
    crypto_generichash_blake2b_salt_personal(k.bytes.data(), k.bytes.size(), id, sizeof id, nullptr, 0, nullptr,
                                             kPersonalTestKey);
    return k;
  }
#endif
  // Without libsodium no session can authenticate anyway; any non-zero constant will do.
  for (std::size_t i = 0; i < k.bytes.size(); ++i) k.bytes[i] = static_cast<std::uint8_t>(id[i % 4] ^ (0xA5 + i));
  return k;
}

namespace wire {

void compute_tag(const MatchKey& key, std::uint32_t receiver, std::span<const std::byte> bytes,
                 std::byte tag[kTagBytes]) noexcept {
#if LOCKSTEP_HAVE_SODIUM
  crypto_generichash_blake2b_state st;
  crypto_generichash_blake2b_init_salt_personal(&st, key.bytes.data(), key.bytes.size(), kTagBytes, nullptr,
                                                kPersonalMsg);
  const unsigned char r = static_cast<unsigned char>(receiver);
  crypto_generichash_blake2b_update(&st, &r, 1);
  crypto_generichash_blake2b_update(&st, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  crypto_generichash_blake2b_final(&st, reinterpret_cast<unsigned char*>(tag), kTagBytes);
#else
  (void)key, (void)receiver, (void)bytes;
  std::memset(tag, 0, kTagBytes);  // unreachable: sessions refuse Authenticated without libsodium
#endif
}

bool verify_tag(const MatchKey& key, std::uint32_t receiver, std::span<const std::byte> bytes,
                const std::byte tag[kTagBytes]) noexcept {
#if LOCKSTEP_HAVE_SODIUM
  std::byte expect[kTagBytes];
  compute_tag(key, receiver, bytes, expect);
  return sodium_memcmp(expect, tag, kTagBytes) == 0;
#else
  (void)key, (void)receiver, (void)bytes, (void)tag;
  return false;
#endif
}

void compute_cookie(const CookieSecret& secret, std::span<const std::byte> bytes, std::byte out[kCookieBytes]) noexcept {
#if LOCKSTEP_HAVE_SODIUM
  (void)sodium_ready();
  crypto_generichash_blake2b_state st;
  crypto_generichash_blake2b_init_salt_personal(&st, secret.data(), secret.size(), kCookieBytes, nullptr,
                                                kPersonalCookie);
  crypto_generichash_blake2b_update(&st, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  crypto_generichash_blake2b_final(&st, reinterpret_cast<unsigned char*>(out), kCookieBytes);
#else
  XXH64_hash_t seed = 0;
  for (std::size_t i = 0; i < 8; ++i) seed = (seed << 8) | secret[i];
  const XXH128_hash_t h = XXH3_128bits_withSeed(bytes.data(), bytes.size(), seed);
  for (std::uint32_t i = 0; i < 8; ++i) {
    out[i] = static_cast<std::byte>((h.low64 >> (8 * i)) & 0xFFu);
    out[8 + i] = static_cast<std::byte>((h.high64 >> (8 * i)) & 0xFFu);
  }
#endif
}

bool cookie_equal(const std::byte a[kCookieBytes], const std::byte b[kCookieBytes]) noexcept {
#if LOCKSTEP_HAVE_SODIUM
  return sodium_memcmp(a, b, kCookieBytes) == 0;
#else
  unsigned diff = 0;  // the same constant-time comparison
  for (std::uint32_t i = 0; i < kCookieBytes; ++i) diff |= std::to_integer<unsigned>(a[i] ^ b[i]);
  return diff == 0;
#endif
}

std::uint64_t random_u64() noexcept {
  std::uint64_t v = 0;
#if LOCKSTEP_HAVE_SODIUM
  if (sodium_ready()) {
    randombytes_buf(&v, sizeof v);
    return v;
  }
#endif
  // lockstep: allow(rand) a handshake nonce must be unpredictable: never simulation state
  std::random_device rd;
  v = (std::uint64_t{rd()} << 32) | rd();
  return v;
}

void ReplayWindow::reset() noexcept {
  highest_ = 0;
  std::memset(bits_, 0, sizeof bits_);
}

bool ReplayWindow::accept(std::uint64_t seq) noexcept {
  if (seq == 0) return false;
  if (seq > highest_) {
    // Slide: clear the bits of the numbers skipped over (at most the whole window).
    const std::uint64_t shift = seq - highest_;
    if (shift >= kSize) {
      std::memset(bits_, 0, sizeof bits_);
    } else {
      for (std::uint64_t s = highest_ + 1; s < seq; ++s) bits_[(s % kSize) / 64] &= ~(std::uint64_t{1} << (s % 64));
    }
    highest_ = seq;
    bits_[(seq % kSize) / 64] |= std::uint64_t{1} << (seq % 64);
    return true;
  }
  if (highest_ - seq >= kSize) return false;  // older than the window
  std::uint64_t& word = bits_[(seq % kSize) / 64];
  const std::uint64_t bit = std::uint64_t{1} << (seq % 64);
  if ((word & bit) != 0) return false;
  word |= bit;
  return true;
}

}  // namespace wire
}  // namespace lockstep::rollback
