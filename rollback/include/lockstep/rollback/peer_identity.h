#pragma once
// Per-peer authentication of a rollback match (docs/rollback.md, "Threat model").
//
// With one MatchKey (match_key.h) every player holds the key every message is authenticated
// with, so a player can forge messages that claim another peer as their sender. With
// identities, each peer has its own long-term key pair (X25519, libsodium's crypto_kx); the
// match's set-up (the game's matchmaker) hands every peer the public keys of all peers of the
// match, in peer-id order. Each ORDERED pair of peers (sender s -> receiver r) then has its own
// MAC key, which only s and r can compute:
//
//   kx(s -> r)   crypto_kx session keys of the pair, the lower peer id as the "client"
//                (the client's tx = the server's rx is the key lower -> higher)
//   key(s -> r)  BLAKE2b-256(key = kx(s -> r), personalization "lockstep-pair-v1",
//                u32 session id (LE) · u8 peer count · u8 s · u8 r · public key of peer 0 ·
//                ... · public key of peer count - 1)
//
// so a key of another match (another session id, other peers, another order) never verifies.
// The receiver checks every message with the key of the sender the message claims: a message
// made by peer C that claims to come from peer B fails its MAC at every receiver.
// Every primitive is libsodium's; nothing here is home-made crypto.
#include <lockstep/rollback/match_key.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::rollback {

inline constexpr std::uint32_t kMaxIdentityPeers = 16;  // = kMaxSessionPeers (session.h)

struct PeerPublicKey {
  std::array<std::uint8_t, 32> bytes{};
  bool empty() const noexcept;  // all zero: no key
  friend bool operator==(const PeerPublicKey&, const PeerPublicKey&) = default;
};

struct PeerSecretKey {
  std::array<std::uint8_t, 32> bytes{};
  bool empty() const noexcept;  // all zero: no key
};

// One peer's long-term key pair. Only `public_key` leaves the peer (to the matchmaker).
struct PeerIdentity {
  PeerSecretKey secret_key;
  PeerPublicKey public_key;
};

// Who plays the match, as the matchmaker hands it to one peer: that peer's own identity and
// every peer's public key in peer-id order (spectator peers included). peer_count 0: no
// identities (the session then authenticates with its MatchKey).
struct MatchIdentity {
  PeerIdentity local;
  std::array<PeerPublicKey, kMaxIdentityPeers> peers{};
  std::uint32_t peer_count = 0;
  bool empty() const noexcept { return peer_count == 0; }
};

// The two MAC keys of one link, seen from the local peer.
struct LinkKeys {
  MatchKey send;     // key(local -> remote)
  MatchKey receive;  // key(remote -> local)
};

// A fresh key pair from the OS CSPRNG (crypto_kx_keypair). False without libsodium.
bool make_peer_identity(PeerIdentity& out) noexcept;
// The key pair of a secret key (what an identity file holds). False without libsodium or
// for an all-zero key.
bool peer_identity_from_secret(const PeerSecretKey& secret, PeerIdentity& out) noexcept;

// Why `match` cannot be this session's identity ("" when it can): not one public key per
// peer, this peer's entry not its own public key, a public key that does not belong to the
// secret key, two peers with the same key. E.g. "3 public keys for 4 peers".
std::string check_match_identity(const MatchIdentity& match, std::uint32_t peers, std::uint32_t local_peer);

// key(local -> remote) and key(remote -> local) of the construction above. False (and `out`
// zeroed) without libsodium, for remote == local, out of range ids, or when the remote's
// public key is not a usable X25519 key (a low-order point: crypto_kx refuses it).
bool derive_link_keys(const MatchIdentity& match, std::uint32_t session_id, std::uint32_t local_peer,
                      std::uint32_t remote, LinkKeys& out) noexcept;

// 64 lower-case hexadecimal digits.
std::string key_hex(const PeerPublicKey& key);

// Reads an identity file: the secret key as 64 hexadecimal digits (optionally followed by
// whitespace) or 32 raw bytes, and computes its public key. False + `error` naming the file
// and what was expected, e.g. "identity file p0.id: expected 32 raw bytes or 64 hexadecimal
// digits, found 12 bytes". Read with a bound (a huge file or a device is refused unread).
bool read_peer_identity_file(const std::string& path, PeerIdentity& out, std::string& error);

// Reads a peer keys file: one public key per line in peer-id order (line k: peer k), each 64
// hexadecimal digits, optionally followed by whitespace and a label; empty lines and lines
// starting with '#' are skipped. `lines[k]` is the line of peer k's key. False + `error`
// naming the file, the line and what was expected, e.g. "peer keys file match.keys: line 3:
// expected a public key (64 hexadecimal digits), found 63 characters". At most 64 KiB.
bool read_peer_keys_file(const std::string& path, std::vector<PeerPublicKey>& keys, std::vector<std::uint32_t>& lines,
                         std::string& error);

// Both files of one peer, checked against the match: one key per peer (`peers`), and this
// peer's line holding the identity's public key. E.g. "identity file p1.id: its public key is
// peer 2's (line 3 of peer keys file match.keys), not this peer's (peer 1)".
bool load_match_identity(const std::string& identity_file, const std::string& peer_keys_file, std::uint32_t peers,
                         std::uint32_t local_peer, MatchIdentity& out, std::string& error);

// Writes `identity`'s secret key as 64 hexadecimal digits and a newline to a NEW file
// (readable by its owner only on POSIX); an existing file is never overwritten. False +
// `error` ("identity file p0.id: exists (never overwritten)").
bool write_peer_identity_file(const std::string& path, const PeerIdentity& identity, std::string& error);
// The same for a match key (match_key.h): "key file K: exists (never overwritten)".
bool write_match_key_file(const std::string& path, const MatchKey& key, std::string& error);
// The same for a watch key (derive_watch_key): "watch key file W: exists (never overwritten)".
bool write_watch_key_file(const std::string& path, const MatchKey& watch_key, std::string& error);

}  // namespace lockstep::rollback
