// hostile_proxy: an attacker on the path between `lockstep peer` processes on 127.0.0.1, for
// the hostile-network suite (tests/rollback/hostile_match.sh; docs/rollback.md, "Threat
// model"). Not part of the library: a test program with its own main.
//
//   hostile_proxy --peers N --session ID --ports-file FILE --attack A [--capture FILE]
//                 [--replay FILE] [--seconds S]
//
// It binds one UDP socket X_j per peer on 127.0.0.1 (port 0) and writes "X_0,X_1,..." to
// --ports-file; the peers are started with --peers X_0,X_1,... and --bind 127.0.0.1:0, so every
// datagram between them passes through here: a datagram from peer i (learnt from the frame's
// sender id) arriving at X_j is forwarded to peer j from X_i, exactly as if peer i had sent it.
// The frame layer (magic, sender, session id, XXH3 checksum) is not secret, so whatever the
// attacker sends is framed correctly; what it cannot produce is a session MAC.
//
// Attacks, all aimed at peer 0 as if they came from peer 1:
//   none              forward only
//   offpath-sync      SYNC_REQUESTs with invented incarnations and nonces, from the start
//                     (before peer 1 is even heard of) and every 50 ms: what an off-path
//                     stranger who knows the session id can send
//   replay-handshake  the SYNC_REQUESTs captured from an earlier match (--replay FILE), sent
//                     from the start and every 200 ms
//   forge             on-path, copied from peer 1's real traffic without the key: SYNC_REJECTs,
//                     disconnect masks naming peer 0, INPUTs with a flipped input byte, HASH
//                     reports with one component hash changed; every 20 ms
//   forge-hash        on-path: peer 1's HASH reports altered in flight, one component hash
//                     changed (the total unchanged)
//   resend            on-path: exact copies of peer 1's earlier valid frames, every 10 ms
//   flood             20,000 datagrams (junk and copies) in bursts over 1 s, from peer 1's
//                     address, plus junk from an unknown address
//   forge-as-peer     a cheating PLAYER: with --identity FILE --peer-keys FILE --as Q it holds peer
//                     Q's valid identity (the same files peer Q plays with) and forges, to every
//                     peer other than 1 and Q, messages claiming peer 1 as sender, MAC'd with the
//                     link key Q -> receiver (the best key it has): INPUTs with a flipped input
//                     byte, disconnect masks naming the receiver, HASH reports with one component
//                     hash changed, rejoin requests of a "restarted" peer 1; every 20 ms
// --capture FILE writes peer 1's first 7 SYNC_REQUESTs (for a later replay-handshake run).
// It prints "injected N" on exit: on SIGTERM, after --seconds (default 60), or 3 s after the
// last datagram from the peers once all of them were heard from.
#include <lockstep/rollback/packet.h>
#include <lockstep/rollback/peer_identity.h>

#if LOCKSTEP_TEST_HAVE_SODIUM
#include <sodium.h>
#endif

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace lockstep::rollback;

namespace {

using Bytes = std::vector<std::byte>;
volatile std::sig_atomic_t stop_requested = 0;
extern "C" void on_term(int) { stop_requested = 1; }
using Clock = std::chrono::steady_clock;

struct Args {
  std::uint32_t peers = 2;
  std::uint32_t session = 0;
  std::string ports_file, attack = "none", capture, replay, identity, peer_keys;
  std::uint32_t as = 0;
  double seconds = 60;
};

int bind_any(sockaddr_in& bound) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return -1;
  socklen_t len = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  return fd;
}

std::uint64_t rng_state = 0x9E3779B97F4A7C15ull;
std::uint64_t next_random() {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return rng_state >> 11;
}

void put_u32(Bytes& m, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) m[at + i] = static_cast<std::byte>(v >> (8 * i));
}
void put_u64(Bytes& m, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) m[at + i] = static_cast<std::byte>(v >> (8 * i));
}

// A v5 session message as a stranger writes it (rollback/src/session_wire.h).
Bytes stranger_sync(std::uint8_t type, std::uint32_t session, std::uint32_t incarnation) {
  Bytes m(40 + 32 + 24, std::byte{0});
  m[0] = std::byte{type};
  m[1] = std::byte{6};  // wire version
  m[2] = std::byte{1};
  m[3] = std::byte{2};
  put_u32(m, 4, session);
  put_u32(m, 16, incarnation);
  put_u32(m, 28, 0xFFFFFFFFu);
  put_u64(m, 40, next_random());
  put_u64(m, m.size() - 24, next_random() | 1);
  return m;
}

// The session MAC as documented (docs/rollback.md, "Wire format"): a fresh sequence number,
// then BLAKE2b-128(key, personalization "lockstep-msg-v3", [receiver u8] || all before the MAC).
bool sign(Bytes& m, const MatchKey& key, std::uint32_t receiver, std::uint64_t seq) {
  put_u64(m, m.size() - 24, seq);
#if LOCKSTEP_TEST_HAVE_SODIUM
  static const unsigned char personal[16] = {'l', 'o', 'c', 'k', 's', 't', 'e', 'p', '-', 'm', 's', 'g', '-', 'v', '3', 0};
  crypto_generichash_blake2b_state st;
  crypto_generichash_blake2b_init_salt_personal(&st, key.bytes.data(), key.bytes.size(), 16, nullptr, personal);
  const unsigned char r = static_cast<unsigned char>(receiver);
  crypto_generichash_blake2b_update(&st, &r, 1);
  crypto_generichash_blake2b_update(&st, reinterpret_cast<const unsigned char*>(m.data()), m.size() - 16);
  crypto_generichash_blake2b_final(&st, reinterpret_cast<unsigned char*>(m.data() + m.size() - 16), 16);
  return true;
#else
  (void)key, (void)receiver;
  return false;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--peers") a.peers = static_cast<std::uint32_t>(std::stoul(v));
    else if (k == "--session") a.session = static_cast<std::uint32_t>(std::stoul(v));
    else if (k == "--ports-file") a.ports_file = v;
    else if (k == "--attack") a.attack = v;
    else if (k == "--capture") a.capture = v;
    else if (k == "--replay") a.replay = v;
    else if (k == "--seconds") a.seconds = std::stod(v);
    else if (k == "--identity") a.identity = v;
    else if (k == "--peer-keys") a.peer_keys = v;
    else if (k == "--as") a.as = static_cast<std::uint32_t>(std::stoul(v));
    else {
      std::fprintf(stderr, "hostile_proxy: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (a.peers < 2 || a.peers > 8 || a.ports_file.empty()) {
    std::fprintf(stderr, "hostile_proxy: need --peers 2..8 and --ports-file\n");
    return 2;
  }
  std::vector<int> fd(a.peers);
  std::vector<sockaddr_in> x(a.peers), real(a.peers);
  std::vector<bool> known(a.peers, false);
  std::string ports;
  for (std::uint32_t j = 0; j < a.peers; ++j) {
    fd[j] = bind_any(x[j]);
    if (fd[j] < 0) {
      std::perror("hostile_proxy: bind");
      return 2;
    }
    ports += (j ? "," : "") + std::string("127.0.0.1:") + std::to_string(ntohs(x[j].sin_port));
  }
  sockaddr_in stray_addr{};
  const int stray = bind_any(stray_addr);  // an address no peer knows
  {
    const std::string tmp = a.ports_file + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (f == nullptr) return 2;
    std::fprintf(f, "%s\n", ports.c_str());
    std::fclose(f);
    std::rename(tmp.c_str(), a.ports_file.c_str());
  }
  std::vector<Bytes> replay_msgs;
  if (!a.replay.empty()) {
    std::FILE* f = std::fopen(a.replay.c_str(), "rb");
    if (f == nullptr) {
      std::fprintf(stderr, "hostile_proxy: cannot read %s\n", a.replay.c_str());
      return 2;
    }
    unsigned char len[2];
    while (std::fread(len, 1, 2, f) == 2) {
      Bytes m(len[0] | (len[1] << 8));
      if (m.empty() || std::fread(m.data(), 1, m.size(), f) != m.size()) break;
      replay_msgs.push_back(std::move(m));
    }
    std::fclose(f);
  }
  // The cheater's link keys (forge-as-peer): key(as -> j) for every receiver j.
  std::vector<MatchKey> cheat_key(a.peers);
  Bytes probe(64, std::byte{0});  // sign() reports whether this build can make MACs
  if (a.attack == "forge-as-peer") {
    MatchIdentity cheater;
    std::string why;
    if (!load_match_identity(a.identity, a.peer_keys, a.peers, a.as, cheater, why)) {
      std::fprintf(stderr, "hostile_proxy: %s\n", why.c_str());
      return 2;
    }
    for (std::uint32_t j = 0; j < a.peers; ++j) {
      LinkKeys keys;
      if (j != a.as && derive_link_keys(cheater, a.session, a.as, j, keys)) cheat_key[j] = keys.send;
    }
    if (a.as == 1 || a.as >= a.peers || !sign(probe, MatchKey{}, 0, 0)) {
      std::fprintf(stderr, "hostile_proxy: forge-as-peer needs --as Q (not 1, < --peers) and libsodium\n");
      return 2;
    }
  }
  std::vector<Bytes> captured, history;  // peer 1 → peer 0 session messages
  // forge-as-peer: the newest INPUT and HASH peer 1 sent each peer j.
  std::vector<Bytes> last_input(a.peers), last_hash(a.peers);
  std::uint64_t injected = 0;
  std::array<std::byte, kMaxPacketBytes> framed{};
  // Sends session message `m` to peer j as if from peer 1 (framed, from X_1).
  auto inject_to = [&](std::uint32_t j, const Bytes& m) {
    if (!known[j] || m.empty() || m.size() > kMaxMessageBytes) return;
    const std::uint32_t n = encode_packet(1, a.session, m, framed);
    if (n != 0 && ::sendto(fd[1], framed.data(), n, 0, reinterpret_cast<const sockaddr*>(&real[j]), sizeof real[j]) > 0)
      ++injected;
  };
  auto inject = [&](const Bytes& m) { inject_to(0, m); };
  std::uint64_t forged_seq = 1ull << 40;
  std::signal(SIGTERM, on_term);
  std::signal(SIGINT, on_term);
  const auto start = Clock::now();
  auto last = start;
  std::uint64_t flooded = 0;
  std::vector<pollfd> pfd(a.peers);
  for (std::uint32_t j = 0; j < a.peers; ++j) pfd[j] = {fd[j], POLLIN, 0};
  std::array<std::byte, 2048> buf{};
  // Once every peer has been heard from, the proxy ends by itself after `kIdleSeconds` without a
  // datagram from any of them, so the result line never depends on a signal arriving.
  constexpr double kIdleSeconds = 3.0;
  auto last_from_peer = start;
  const auto same_address = [](const sockaddr_in& p, const sockaddr_in& q) {
    return p.sin_addr.s_addr == q.sin_addr.s_addr && p.sin_port == q.sin_port;
  };
  const auto is_own_socket = [&](const sockaddr_in& src) {
    for (const sockaddr_in& mine : x)
      if (same_address(src, mine)) return true;
    return same_address(src, stray_addr);
  };
  for (;;) {
    const auto now_top = Clock::now();
    const double t = std::chrono::duration<double>(now_top - start).count();
    if (t > a.seconds || stop_requested != 0) break;
    bool all_known = true;
    for (std::uint32_t j = 0; j < a.peers; ++j) all_known = all_known && known[j];
    if (all_known && std::chrono::duration<double>(now_top - last_from_peer).count() > kIdleSeconds) break;
    ::poll(pfd.data(), pfd.size(), 2);
    for (std::uint32_t j = 0; j < a.peers; ++j) {
      // Bounded per pass: the clock and the stop flag are looked at again at least every 512 datagrams.
      for (int drained = 0; drained < 512; ++drained) {
        sockaddr_in src{};
        socklen_t sl = sizeof src;
        const ssize_t n = ::recvfrom(fd[j], buf.data(), buf.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&src), &sl);
        if (n <= 0) break;
        // Datagrams from this proxy's own sockets or from a stranger (e.g. another test's proxy
        // that reuses a freed port and the same session id) are not forwarded: a peer's address is
        // the first one it was heard from, so no two proxies can ever bounce traffic between them.
        if (is_own_socket(src)) continue;
        const DecodedPacket d =
            decode_packet(std::span<const std::byte>(buf.data(), static_cast<std::size_t>(n)), a.session, a.peers);
        if (d.error != PacketError::None || d.sender == j) continue;
        const std::uint32_t i = d.sender;
        if (known[i] && !same_address(real[i], src)) continue;
        real[i] = src;
        known[i] = true;
        last_from_peer = Clock::now();
        if (i == 1 && j == 0) {
          Bytes m(d.message.begin(), d.message.end());
          if (std::to_integer<std::uint8_t>(m[0]) == 3 && captured.size() < 7) captured.push_back(m);
          if (history.size() < 20000) history.push_back(std::move(m));
        }
        if (i == 1 && std::to_integer<std::uint8_t>(d.message[0]) == 1 && d.message.size() > 40 + 16 + 24)
          last_input[j].assign(d.message.begin(), d.message.end());
        if (i == 1 && std::to_integer<std::uint8_t>(d.message[0]) == 2 && d.message.size() >= 40 + 48 + 8 + 24)
          last_hash[j].assign(d.message.begin(), d.message.end());
        if (a.attack == "forge-hash" && i == 1 && j == 0 && known[0] &&
            std::to_integer<std::uint8_t>(d.message[0]) == 2 && d.message.size() >= 40 + 48 + 8 + 24) {
          // Altered in flight, so it arrives before (instead of) the real report of its tick.
          Bytes m(d.message.begin(), d.message.end());
          m[40 + 48] ^= std::byte{1};  // component 0's hash; the total stays
          inject(m);
          continue;
        }
        if (known[j])
          ::sendto(fd[i], buf.data(), static_cast<std::size_t>(n), 0, reinterpret_cast<const sockaddr*>(&real[j]),
                   sizeof real[j]);
      }
    }
    const auto now = Clock::now();
    const double since = std::chrono::duration<double>(now - last).count();
    if (a.attack == "offpath-sync" && since >= 0.05) {
      inject(stranger_sync(3, a.session, static_cast<std::uint32_t>(next_random())));
      inject(stranger_sync(5, a.session, static_cast<std::uint32_t>(next_random())));
      last = now;
    } else if (a.attack == "replay-handshake" && since >= 0.2) {
      for (const Bytes& m : replay_msgs) inject(m);
      last = now;
    } else if (a.attack == "forge" && since >= 0.02 && !history.empty()) {
      const Bytes& seen = history[history.size() - 1 - next_random() % std::min<std::size_t>(history.size(), 16)];
      Bytes m = seen;
      const std::uint8_t type = std::to_integer<std::uint8_t>(m[0]);
      if (type == 1 && m.size() > 40 + 16 + 16 + 24) m[m.size() - 25] ^= std::byte{0x5A};  // an input byte
      if (type == 2 && m.size() >= 40 + 48 + 8 + 24) m[40 + 48] ^= std::byte{1};           // component 0 only
      put_u64(m, m.size() - 24, next_random() | (1ull << 40));
      inject(m);
      Bytes gone = seen;
      gone[20] = std::byte{1};  // "peer 0 is disconnected"
      put_u64(gone, gone.size() - 24, next_random() | (1ull << 40));
      inject(gone);
      Bytes reject = seen;
      reject.resize(40 + 32 + 24);
      reject[0] = std::byte{5};
      put_u64(reject, 40, next_random());
      inject(reject);
      last = now;
    } else if (a.attack == "forge-as-peer" && since >= 0.02) {
      for (std::uint32_t j = 0; j < a.peers; ++j) {
        if (j == 1 || j == a.as) continue;
        // Peer 1's newest INPUT and HASH to j, altered, signed with the cheater's key to j.
        const Bytes* input = last_input[j].empty() ? nullptr : &last_input[j];
        const Bytes* hash = last_hash[j].empty() ? nullptr : &last_hash[j];
        if (input != nullptr) {
          Bytes m = *input;
          m[m.size() - 25] ^= std::byte{0x5A};  // an input (or frontier) byte
          if (sign(m, cheat_key[j], j, ++forged_seq)) inject_to(j, m);
          Bytes gone = *input;
          gone[20] = static_cast<std::byte>(1u << j);  // "peer j is disconnected": expels j if believed
          if (sign(gone, cheat_key[j], j, ++forged_seq)) inject_to(j, gone);
          Bytes rejoin(40 + 32 + 24, std::byte{0});
          std::memcpy(rejoin.data(), input->data(), 40);
          rejoin[0] = std::byte{3};
          put_u32(rejoin, 16, static_cast<std::uint32_t>(next_random()) | 1u);  // a "restarted" peer 1
          put_u64(rejoin, 40, next_random());
          put_u32(rejoin, 52, 1);  // flags: rejoin
          if (sign(rejoin, cheat_key[j], j, ++forged_seq)) inject_to(j, rejoin);
        }
        if (hash != nullptr) {
          Bytes m = *hash;
          m[40 + 48] ^= std::byte{1};  // component 0 only
          if (sign(m, cheat_key[j], j, ++forged_seq)) inject_to(j, m);
        }
      }
      last = now;
    } else if (a.attack == "resend" && since >= 0.01 && history.size() > 8) {
      for (int k = 0; k < 3; ++k) inject(history[next_random() % (history.size() - 4)]);
      last = now;
    } else if (a.attack == "flood" && t > 1.0 && flooded < 20000 && since >= 0.005) {
      for (int k = 0; k < 100 && !history.empty(); ++k, ++flooded) {
        Bytes m = history[next_random() % history.size()];
        if (k % 2 == 0) m[next_random() % m.size()] ^= std::byte{0x10};
        inject(m);
        if (known[0])
          ::sendto(stray, m.data(), m.size(), 0, reinterpret_cast<const sockaddr*>(&real[0]), sizeof real[0]);
      }
      last = now;
    }
  }
  if (!a.capture.empty()) {
    std::FILE* f = std::fopen(a.capture.c_str(), "wb");
    if (f == nullptr) return 2;
    for (const Bytes& m : captured) {
      const unsigned char len[2] = {static_cast<unsigned char>(m.size()), static_cast<unsigned char>(m.size() >> 8)};
      std::fwrite(len, 1, 2, f);
      std::fwrite(m.data(), 1, m.size(), f);
    }
    std::fclose(f);
  }
  std::printf("injected %llu captured %zu\n", static_cast<unsigned long long>(injected), captured.size());
  // On disk now: exit handlers (LeakSanitizer's check in the ASan tree) run before stdio's final
  // flush, and a slow one on a loaded machine met the script's kill, which lost the line.
  std::fflush(stdout);
  return 0;
}
