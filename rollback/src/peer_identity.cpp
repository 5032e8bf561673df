// Per-peer identities and the link keys derived from them (rollback/peer_identity.h). Every
// primitive is libsodium's (crypto_kx, crypto_scalarmult_base, keyed BLAKE2b).
#include <lockstep/rollback/peer_identity.h>

#include "wire_auth.h"

#include <sys/stat.h>
#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#if LOCKSTEP_HAVE_SODIUM
#include <sodium.h>
#endif

namespace lockstep::rollback {

namespace {
#if LOCKSTEP_HAVE_SODIUM
// The BLAKE2b personalization of the link-key derivation (16 bytes).
constexpr unsigned char kPersonalPair[16] = {'l', 'o', 'c', 'k', 's', 't', 'e', 'p', '-', 'p', 'a', 'i', 'r', '-', 'v', '1'};
static_assert(crypto_kx_PUBLICKEYBYTES == 32 && crypto_kx_SECRETKEYBYTES == 32 && crypto_kx_SESSIONKEYBYTES == 32);
#endif

template <class A>
bool all_zero(const A& bytes) noexcept {
  std::uint8_t any = 0;
  for (std::uint8_t b : bytes) any |= b;
  return any == 0;
}

std::string n(std::uint64_t v) { return std::to_string(v); }

constexpr std::size_t kMaxPeerKeysFile = 65536;
}  // namespace

bool PeerPublicKey::empty() const noexcept { return all_zero(bytes); }
bool PeerSecretKey::empty() const noexcept { return all_zero(bytes); }

bool make_peer_identity(PeerIdentity& out) noexcept {
  out = {};
#if LOCKSTEP_HAVE_SODIUM
  if (wire_auth_available() && crypto_kx_keypair(out.public_key.bytes.data(), out.secret_key.bytes.data()) == 0) return true;
#endif
  out = {};
  return false;
}

bool peer_identity_from_secret(const PeerSecretKey& secret, PeerIdentity& out) noexcept {
  out = {};
  if (secret.empty()) return false;
#if LOCKSTEP_HAVE_SODIUM
  // What crypto_kx_keypair does after drawing the secret key.
  if (wire_auth_available() && crypto_scalarmult_base(out.public_key.bytes.data(), secret.bytes.data()) == 0) {
    out.secret_key = secret;
    return true;
  }
#endif
  out = {};
  return false;
}

std::string check_match_identity(const MatchIdentity& m, std::uint32_t peers, std::uint32_t local_peer) {
  if (m.peer_count != peers) return n(m.peer_count) + " public keys for " + n(peers) + " peers (one per peer, in peer-id order)";
  if (peers > kMaxIdentityPeers || local_peer >= peers) return "peer " + n(local_peer) + " is not one of the " + n(peers) + " peers";
  if (m.local.secret_key.empty()) return "this peer's secret key is all zero bytes (not a key)";
  PeerIdentity derived;
  if (!peer_identity_from_secret(m.local.secret_key, derived))
    return "cannot compute this peer's public key (this build has no libsodium)";
  if (!(derived.public_key == m.local.public_key)) return "this peer's public key does not belong to its secret key";
  for (std::uint32_t q = 0; q < peers; ++q) {
    if (m.peers[q].empty()) return "peer " + n(q) + "'s public key is all zero bytes (not a key)";
    for (std::uint32_t r = 0; r < q; ++r)
      if (m.peers[q] == m.peers[r])
        return "peers " + n(r) + " and " + n(q) + " have the same public key (every peer needs its own identity)";
  }
  if (!(m.peers[local_peer] == m.local.public_key)) {
    for (std::uint32_t q = 0; q < peers; ++q)
      if (m.peers[q] == m.local.public_key)
        return "this identity's public key is peer " + n(q) + "'s, not this peer's (peer " + n(local_peer) + ")";
    return "this identity's public key is not among the peers' (peer " + n(local_peer) + " has another key)";
  }
  return {};
}

bool derive_link_keys(const MatchIdentity& m, std::uint32_t session_id, std::uint32_t local_peer, std::uint32_t remote,
                      LinkKeys& out) noexcept {
  out = {};
  if (local_peer == remote || m.peer_count > kMaxIdentityPeers || local_peer >= m.peer_count || remote >= m.peer_count)
    return false;
#if LOCKSTEP_HAVE_SODIUM
  if (!wire_auth_available()) return false;
  // crypto_kx: the lower id is the client; client tx = server rx = the key lower -> higher.
  unsigned char rx[32], tx[32];
  const int rc =
      local_peer < remote
          ? crypto_kx_client_session_keys(rx, tx, m.local.public_key.bytes.data(), m.local.secret_key.bytes.data(),
                                          m.peers[remote].bytes.data())
          : crypto_kx_server_session_keys(rx, tx, m.local.public_key.bytes.data(), m.local.secret_key.bytes.data(),
                                          m.peers[remote].bytes.data());
  if (rc != 0) {
    sodium_memzero(rx, sizeof rx);
    sodium_memzero(tx, sizeof tx);
    return false;
  }
  // Bound to this match: the session id, the peer count, the direction and every public key.
  auto bind = [&](const unsigned char kx[32], std::uint32_t sender, std::uint32_t receiver, MatchKey& key) {
    crypto_generichash_blake2b_state st;
    crypto_generichash_blake2b_init_salt_personal(&st, kx, 32, key.bytes.size(), nullptr, kPersonalPair);
    const unsigned char head[7] = {static_cast<unsigned char>(session_id), static_cast<unsigned char>(session_id >> 8),
                                   static_cast<unsigned char>(session_id >> 16), static_cast<unsigned char>(session_id >> 24),
                                   static_cast<unsigned char>(m.peer_count), static_cast<unsigned char>(sender),
                                   static_cast<unsigned char>(receiver)};
    crypto_generichash_blake2b_update(&st, head, sizeof head);
    for (std::uint32_t q = 0; q < m.peer_count; ++q) crypto_generichash_blake2b_update(&st, m.peers[q].bytes.data(), 32);
    crypto_generichash_blake2b_final(&st, key.bytes.data(), key.bytes.size());
  };
  bind(tx, local_peer, remote, out.send);
  bind(rx, remote, local_peer, out.receive);
  sodium_memzero(rx, sizeof rx);
  sodium_memzero(tx, sizeof tx);
  return true;
#else
  (void)session_id;
  return false;
#endif
}

std::string key_hex(const PeerPublicKey& key) {
  static const char digits[] = "0123456789abcdef";
  std::string s(64, '0');
  for (std::size_t i = 0; i < 32; ++i) {
    s[2 * i] = digits[key.bytes[i] >> 4];
    s[2 * i + 1] = digits[key.bytes[i] & 15];
  }
  return s;
}

bool read_peer_identity_file(const std::string& path, PeerIdentity& out, std::string& error) {
  out = {};
  PeerSecretKey secret;
  if (!wire::read_key_bytes("identity file", path, secret.bytes, error)) return false;
  if (!peer_identity_from_secret(secret, out)) {
    error = "identity file " + path + ": cannot compute its public key (this build has no libsodium)";
    return false;
  }
  return true;
}

bool read_peer_keys_file(const std::string& path, std::vector<PeerPublicKey>& keys, std::vector<std::uint32_t>& lines,
                         std::string& error) {
  keys.clear();
  lines.clear();
  const std::string name = "peer keys file " + path;
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
  std::string text(kMaxPeerKeysFile + 1, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  if (text.size() > kMaxPeerKeysFile) {
    error = name + ": more than " + n(kMaxPeerKeysFile) + " bytes (expected one public key of 64 hexadecimal digits per line)";
    return false;
  }
  std::uint32_t line_no = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + at, end - at);
    at = end + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = name + ": line " + n(line_no);
    std::size_t digits = 0;
    while (digits < line.size() && line[digits] != ' ' && line[digits] != '\t') ++digits;
    if (digits != 64) {
      error = where + ": expected a public key (64 hexadecimal digits), found " + n(digits) + " characters";
      return false;
    }
    PeerPublicKey key;
    for (std::size_t i = 0; i < 64; ++i) {
      if (wire::hex_digit(line[i]) < 0) {
        error = where + ", column " + n(i + 1) + ": not a hexadecimal digit (expected a public key of 64 hexadecimal digits)";
        return false;
      }
    }
    for (std::size_t i = 0; i < 32; ++i)
      key.bytes[i] = static_cast<std::uint8_t>(wire::hex_digit(line[2 * i]) * 16 + wire::hex_digit(line[2 * i + 1]));
    if (key.empty()) {
      error = where + ": the public key is all zero bytes (not a key)";
      return false;
    }
    for (std::size_t k = 0; k < keys.size(); ++k)
      if (keys[k] == key) {
        error = where + ": the same public key as line " + n(lines[k]) + " (every peer needs its own identity)";
        return false;
      }
    if (keys.size() == kMaxIdentityPeers) {
      error = where + ": more than " + n(kMaxIdentityPeers) + " public keys (at most one per peer, 16 peers)";
      return false;
    }
    keys.push_back(key);
    lines.push_back(line_no);
  }
  return true;
}

bool load_match_identity(const std::string& identity_file, const std::string& peer_keys_file, std::uint32_t peers,
                         std::uint32_t local_peer, MatchIdentity& out, std::string& error) {
  out = {};
  std::vector<PeerPublicKey> keys;
  std::vector<std::uint32_t> lines;
  if (!read_peer_identity_file(identity_file, out.local, error)) return false;
  if (!read_peer_keys_file(peer_keys_file, keys, lines, error)) return false;
  if (keys.size() != peers) {
    error = "peer keys file " + peer_keys_file + ": " + n(keys.size()) + (keys.size() == 1 ? " public key" : " public keys") +
            ", expected " + n(peers) +
            " (one per peer, in peer-id order)";
    return false;
  }
  if (local_peer >= peers) {
    error = "peer keys file " + peer_keys_file + ": no line for this peer (peer " + n(local_peer) + " of " + n(peers) + ")";
    return false;
  }
  if (!(keys[local_peer] == out.local.public_key)) {
    for (std::size_t q = 0; q < keys.size(); ++q)
      if (keys[q] == out.local.public_key) {
        error = "identity file " + identity_file + ": its public key is peer " + n(q) + "'s (line " + n(lines[q]) +
                " of peer keys file " + peer_keys_file + "), not this peer's (peer " + n(local_peer) + ")";
        return false;
      }
    error = "identity file " + identity_file + ": its public key is not in peer keys file " + peer_keys_file +
            " (line " + n(lines[local_peer]) + " holds peer " + n(local_peer) + "'s key: " + key_hex(keys[local_peer]) + ")";
    return false;
  }
  for (std::uint32_t q = 0; q < peers; ++q) out.peers[q] = keys[q];
  out.peer_count = peers;
  return true;
}

namespace {
// A new file with `text` (owner-only on POSIX); never replaces an existing one.
bool write_new_secret_file(const std::string& what, const std::string& path, const std::string& text, std::string& error) {
  const std::string name = what + " " + path;
#ifndef _WIN32
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    error = name + (errno == EEXIST ? std::string(": exists (never overwritten)")
                                    : ": cannot create: " + std::string(std::strerror(errno)));
    return false;
  }
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  const bool closed = ::close(fd) == 0;
  if (!ok || !closed) {
    error = name + ": cannot write: " + std::strerror(ok ? errno : saved);
    return false;
  }
  return true;
#else
  std::FILE* f = std::fopen(path.c_str(), "wbx");
  if (f == nullptr) {
    error = name + (errno == EEXIST ? std::string(": exists (never overwritten)")
                                    : ": cannot create: " + std::string(std::strerror(errno)));
    return false;
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) {
    error = name + ": cannot write";
    return false;
  }
  return true;
#endif
}

std::string hex32(const std::array<std::uint8_t, 32>& bytes) {
  PeerPublicKey k;
  k.bytes = bytes;
  return key_hex(k);
}
}  // namespace

bool write_peer_identity_file(const std::string& path, const PeerIdentity& identity, std::string& error) {
  return write_new_secret_file("identity file", path, hex32(identity.secret_key.bytes) + "\n", error);
}

bool write_match_key_file(const std::string& path, const MatchKey& key, std::string& error) {
  return write_new_secret_file("key file", path, hex32(key.bytes) + "\n", error);
}

bool write_watch_key_file(const std::string& path, const MatchKey& watch_key, std::string& error) {
  return write_new_secret_file("watch key file", path, hex32(watch_key.bytes) + "\n", error);
}

}  // namespace lockstep::rollback
