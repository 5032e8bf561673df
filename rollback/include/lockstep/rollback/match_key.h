#pragma once
// Wire security of a rollback match (docs/rollback.md, "Threat model").
//
// Every session message carries a sequence number and a 16-byte MAC (keyed BLAKE2b from
// libsodium) over the receiver id, the header (type, sender, session id, incarnation, ...),
// the body and the sequence number, under a per-match secret: the MatchKey. Only holders of
// the key can inject, alter or redirect a message; the per-peer replay window drops a valid
// message that is sent again. The session id and the incarnation are NOT secrets: they are
// in the clear in every header.
//
// The key comes from the game's matchmaker (32 random bytes handed to every peer of the match
// over its own authenticated channel). A session with peers runs authenticated unless the game
// opts out explicitly (WireSecurity::Unauthenticated: tests, a LAN, a transport that already
// authenticates, e.g. a relay with its own TLS/DTLS).
#include <array>
#include <cstdint>
#include <string>

namespace lockstep::rollback {

enum class WireSecurity : std::uint8_t {
  Authenticated = 0,    // default: MAC + replay window under SessionConfig::match_key
  Unauthenticated = 1,  // explicit opt-out: anyone who can send to the port can forge messages
};
const char* wire_security_name(WireSecurity s) noexcept;

struct MatchKey {
  std::array<std::uint8_t, 32> bytes{};
  // An all-zero key is "no key" (a session refuses it in Authenticated mode).
  bool empty() const noexcept;
};

// True when this build has libsodium (every native build made by scripts/bootstrap; foreign
// toolchains of the determinism matrix may not): Authenticated sessions need it.
bool wire_auth_available() noexcept;

// 32 bytes from the operating system's CSPRNG (what a matchmaker hands out per match).
MatchKey random_match_key() noexcept;

// Reads a key file: exactly 32 raw bytes, or 64 hexadecimal digits (optionally followed by
// whitespace). False + `error` naming the file and what was wrong. The file is read with a
// bound: a huge file or a device is refused without reading it whole.
bool read_match_key_file(const std::string& path, MatchKey& out, std::string& error);

// The watch key of a match: what its relays and their watchers authenticate with
// (rollback/relay.h), derived from the match key with libsodium's KDF
// (crypto_kdf_derive_from_key, context "LSwatch1", subkey id 1). A watcher given only the
// watch key can read and relay the match's recording but cannot forge a player's message: the
// players' key is not derivable from it. Every holder of the match key derives the same watch
// key; an all-zero (no) match key gives an all-zero watch key. Without libsodium (no
// authenticated relaying anyway) a fixed non-secret mapping.
MatchKey derive_watch_key(const MatchKey& match_key) noexcept;

// Reads a watch key file (the format of read_match_key_file; errors name "watch key file F").
bool read_watch_key_file(const std::string& path, MatchKey& out, std::string& error);

// INSECURE, for tests and demos only: a key derived from the session id alone, so anyone who
// knows (or guesses) the id — which travels in the clear — can forge messages. It exists so
// that two `lockstep peer` processes started by hand authenticate without a key file; it
// defends against stray packets, not against an attacker.
MatchKey insecure_test_key(std::uint32_t session_id) noexcept;

}  // namespace lockstep::rollback
