// Per-peer authentication (rollback/peer_identity.h; docs/rollback.md, "Threat model"): a
// player holding a valid identity cannot forge messages that claim another peer as sender.
// In process over the simulated network: three skirmish players, and an attacker in front of
// peer 0's receive path that holds peer 2's identity (a cheating player) and injects messages
// claiming to come from peer 1, MAC'd with every key peer 2 can compute. The controls show
// the same forgeries succeeding where the forger does hold the right key (one match key for
// everybody, or peer 1's own secret), so the drops are the keys' doing. The MAC and the link
// keys are computed here with libsodium directly, from the construction as documented.
#if LOCKSTEP_TEST_HAVE_SODIUM
#include "rollback/rollback_support.h"

#include <lockstep/rollback/peer_identity.h>
#include <lockstep/rollback/sim_network.h>

#include <gtest/gtest.h>
#include <sodium.h>

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <vector>

using namespace rollback_test;

namespace {

constexpr std::uint64_t kFrameUs = 8333;  // 120 Hz
constexpr std::uint64_t kTicks = 200;
constexpr std::uint32_t kSessionId = 4242;
constexpr std::uint32_t kPeers = 3;
constexpr std::size_t kHeader = 40, kTrailer = 24, kTag = 16;

using Message = std::vector<std::byte>;

void put_u32(Message& m, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) m[at + i] = static_cast<std::byte>(v >> (8 * i));
}
void put_u64(Message& m, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) m[at + i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint8_t type_of(const Message& m) { return std::to_integer<std::uint8_t>(m[0]); }
std::uint8_t sender_of(const Message& m) { return std::to_integer<std::uint8_t>(m[2]); }

// The session MAC as documented: BLAKE2b-128(key, personalization "lockstep-msg-v3",
// [receiver u8] || every byte before the MAC), with a fresh sequence number first.
void sign(Message& m, const MatchKey& key, std::uint8_t receiver, std::uint64_t seq) {
  put_u64(m, m.size() - kTrailer, seq);
  static const unsigned char personal[16] = {'l', 'o', 'c', 'k', 's', 't', 'e', 'p', '-', 'm', 's', 'g', '-', 'v', '3', 0};
  crypto_generichash_blake2b_state st;
  crypto_generichash_blake2b_init_salt_personal(&st, key.bytes.data(), key.bytes.size(), kTag, nullptr, personal);
  crypto_generichash_blake2b_update(&st, &receiver, 1);
  crypto_generichash_blake2b_update(&st, reinterpret_cast<const unsigned char*>(m.data()), m.size() - kTag);
  crypto_generichash_blake2b_final(&st, reinterpret_cast<unsigned char*>(m.data() + m.size() - kTag), kTag);
}

// The link key sender -> receiver as documented: crypto_kx (lower id = client), then keyed
// BLAKE2b-256 with personalization "lockstep-pair-v1" over the match's identity.
MatchKey documented_key(const PeerIdentity& sender, std::uint32_t s, const PeerPublicKey& receiver_pk, std::uint32_t r,
                        std::uint32_t session_id, const std::vector<PeerPublicKey>& peers) {
  unsigned char rx[32], tx[32];
  if (s < r)
    EXPECT_EQ(crypto_kx_client_session_keys(rx, tx, sender.public_key.bytes.data(), sender.secret_key.bytes.data(),
                                            receiver_pk.bytes.data()), 0);
  else
    EXPECT_EQ(crypto_kx_server_session_keys(rx, tx, sender.public_key.bytes.data(), sender.secret_key.bytes.data(),
                                            receiver_pk.bytes.data()), 0);
  static const unsigned char personal[16] = {'l', 'o', 'c', 'k', 's', 't', 'e', 'p', '-', 'p', 'a', 'i', 'r', '-', 'v', '1'};
  MatchKey k;
  crypto_generichash_blake2b_state st;
  crypto_generichash_blake2b_init_salt_personal(&st, tx, 32, 32, nullptr, personal);
  const unsigned char head[7] = {static_cast<unsigned char>(session_id), static_cast<unsigned char>(session_id >> 8),
                                 static_cast<unsigned char>(session_id >> 16), static_cast<unsigned char>(session_id >> 24),
                                 static_cast<unsigned char>(peers.size()), static_cast<unsigned char>(s),
                                 static_cast<unsigned char>(r)};
  crypto_generichash_blake2b_update(&st, head, sizeof head);
  for (const PeerPublicKey& pk : peers) crypto_generichash_blake2b_update(&st, pk.bytes.data(), 32);
  crypto_generichash_blake2b_final(&st, k.bytes.data(), 32);
  return k;
}

// Three fixed identities (made once per test program: key pairs from the OS CSPRNG).
const std::vector<PeerIdentity>& identities(std::size_t count = 5) {
  static const std::vector<PeerIdentity> ids = [count] {
    std::vector<PeerIdentity> v(count);
    for (PeerIdentity& id : v) EXPECT_TRUE(make_peer_identity(id));
    return v;
  }();
  return ids;
}

MatchIdentity match_of(const std::vector<std::uint32_t>& who, std::uint32_t local) {
  MatchIdentity m;
  m.local = identities()[who[local]];
  m.peer_count = static_cast<std::uint32_t>(who.size());
  for (std::size_t q = 0; q < who.size(); ++q) m.peers[q] = identities()[who[q]].public_key;
  return m;
}

// Sits between the network and peer 0's session; queues forged messages "from peer 1".
class Attacker final : public Transport {
 public:
  using Plan = std::function<void(std::uint64_t frame, const std::vector<Message>& from1, std::deque<Message>& inject)>;
  Attacker(Transport& inner, Plan plan) : inner_(inner), plan_(std::move(plan)) {}
  std::uint64_t frame = 0;
  std::uint64_t injected = 0;

  bool send(std::uint32_t peer, std::span<const std::byte> m) noexcept override { return inner_.send(peer, m); }
  std::uint32_t receive(std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept override {
    if (!planned_) {
      planned_ = true;
      plan_(frame, seen_, inject_);
    }
    if (!inject_.empty()) {
      const Message m = std::move(inject_.front());
      inject_.pop_front();
      std::memcpy(out.data(), m.data(), m.size());
      from = 1;  // the claimed sender's address (spoofed, or an on-path cheater's relay)
      ++injected;
      return static_cast<std::uint32_t>(m.size());
    }
    const std::uint32_t n = inner_.receive(from, out);
    if (n == 0) {
      planned_ = false;
      return 0;
    }
    if (from == 1 && seen_.size() < 4096) seen_.emplace_back(out.begin(), out.begin() + n);
    return n;
  }

 private:
  Transport& inner_;
  Plan plan_;
  bool planned_ = false;
  std::vector<Message> seen_;
  std::deque<Message> inject_;
};

struct Outcome {
  bool finished = false;
  std::string failure;
  SessionStats stats0{};
  std::uint64_t injected = 0;
  std::uint64_t disconnects = 0;
  bool same_history = false;
};

enum class Keys { MatchKey, Identities };

// One 3-player skirmish match (peers 0, 1, 2 are identities 0, 1, 2) with the attacker in
// front of peer 0.
Outcome play(Keys keys, std::uint64_t seed, const Attacker::Plan& plan) {
  SimNetworkConfig nc;
  nc.peers = kPeers;
  nc.conditions.latency_us = 20000;
  nc.conditions.jitter_us = 8000;
  nc.conditions.loss_ppm = 30000;
  nc.seed = seed;
  SimNetwork net(nc);
  Attacker attacker(net.endpoint(0), plan);
  const SimConfig world = skirmish_config(kPeers, 40, seed);
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<std::unique_ptr<RollbackSession>> sessions;
  std::vector<std::unique_ptr<ReplayLogSink>> logs;
  std::vector<std::unique_ptr<Bot>> bots;
  Outcome o;
  for (std::uint32_t i = 0; i < kPeers; ++i) {
    runners.push_back(std::make_unique<Runner>(fixtures::skirmish_sim(), world));
    SessionConfig sc = SessionConfig::one_player_per_peer(kPeers, kPeers, i);
    sc.input_delay = 2;
    sc.max_prediction = 8;
    sc.hash_interval = 8;
    sc.session_id = kSessionId;
    sc.sync_roundtrips = 3;
    sc.incarnation = static_cast<std::uint32_t>(seed * 4 + i + 11);
    sc.disconnect_notify_start_us = 300000;
    sc.disconnect_timeout_us = 1000000;
    if (keys == Keys::MatchKey) sc.match_key = insecure_test_key(kSessionId);
    else sc.identity = match_of({0, 1, 2}, i);
    sessions.push_back(std::make_unique<RollbackSession>(*runners[i], sc, i == 0 ? static_cast<Transport*>(&attacker)
                                                                                   : &net.endpoint(i)));
    if (!sessions[i]->status().ok()) {
      o.failure = sessions[i]->status().message();
      return o;
    }
    logs.push_back(std::make_unique<ReplayLogSink>(*runners[i]));
    sessions[i]->set_confirmed_sink(logs[i].get());
    bots.push_back(fixtures::skirmish_sim().make_bot(world, seed, i));
  }
  std::vector<std::byte> buf(fixtures::skirmish_sim().input_type().size);
  std::uint64_t now = 0;
  for (std::uint64_t f = 0; f < 4000; ++f, now += kFrameUs) {
    net.advance_to(now);
    attacker.frame = f;
    bool done = true, failed = false;
    for (std::uint32_t i = 0; i < kPeers; ++i) {
      RollbackSession& s = *sessions[i];
      if (!s.status().ok()) continue;
      s.set_time(now);
      Status st;
      if (s.running() && s.wants_local_input(i) && s.local_input_tick(i) < kTicks) {
        bots[i]->generate(s.local_input_tick(i), runners[i]->world(), buf);
        st = s.add_local_input(i, buf);
      }
      if (st.ok()) st = s.current_tick() < kTicks ? s.advance() : s.poll();
      for (SessionEvent e; s.poll_event(e);)
        if (e.kind == SessionEventKind::Disconnected) ++o.disconnects;
      done = done && s.confirmed_tick() >= kTicks && s.inputs_acknowledged(kTicks);
      failed = failed || !s.status().ok();
    }
    if (failed) break;
    if (done) {
      o.finished = true;
      break;
    }
  }
  for (auto& s : sessions)
    if (!s->status().ok()) o.failure += std::string(s->status().message()) + "; ";
  o.stats0 = sessions[0]->stats();
  o.injected = attacker.injected;
  o.same_history = o.finished;
  for (std::uint32_t i = 1; i < kPeers; ++i) {
    const Replay& a = logs[0]->replay();
    const Replay& b = logs[i]->replay();
    o.same_history = o.same_history && a.inputs == b.inputs && a.hashes.size() == b.hashes.size() &&
                     std::equal(a.hashes.begin(), a.hashes.end(), b.hashes.begin()) &&
                     a.component_hashes == b.component_hashes;
  }
  return o;
}

void expect_unharmed(const Outcome& o, std::uint64_t seed) {
  EXPECT_TRUE(o.finished) << "seed " << seed << ": " << o.failure;
  EXPECT_TRUE(o.failure.empty()) << "seed " << seed << ": " << o.failure;
  EXPECT_EQ(o.disconnects, 0u) << "seed " << seed;
  EXPECT_TRUE(o.same_history) << "seed " << seed;
  EXPECT_EQ(o.stats0.desyncs, 0u) << "seed " << seed;
  EXPECT_GT(o.injected, 0u) << "seed " << seed << ": the attack never reached the session";
}

const Message* newest(const std::vector<Message>& seen, std::uint8_t type) {
  for (auto it = seen.rbegin(); it != seen.rend(); ++it)
    if (type_of(*it) == type && sender_of(*it) == 1) return &*it;
  return nullptr;
}

// Every forgery of the hostile-player case, each claiming peer 1 as sender and signed with
// `key` for receiver 0: an INPUT with an input byte flipped, a disconnect mask naming peer 0,
// a HASH report with one component hash changed, a rejoin request of a "restarted" peer 1,
// a SYNC_REJECT.
void forge_all(const std::vector<Message>& seen, std::deque<Message>& inject, const MatchKey& key, std::uint64_t& seq) {
  if (const Message* in = newest(seen, 1); in != nullptr && in->size() > kHeader + 16 + 24 + kTrailer + 1) {
    Message m = *in;
    m[m.size() - kTrailer - 1] ^= std::byte{0x5A};
    sign(m, key, 0, ++seq);
    inject.push_back(m);
    Message gone = *in;
    gone[20] = std::byte{1};  // "peer 0 is disconnected": expels peer 0 if believed
    sign(gone, key, 0, ++seq);
    inject.push_back(gone);
    Message rejoin(kHeader + 32 + kTrailer, std::byte{0});
    std::memcpy(rejoin.data(), in->data(), kHeader);
    rejoin[0] = std::byte{3};
    put_u32(rejoin, 16, 0xC0FFEE01u);  // another incarnation: a restart of peer 1
    put_u64(rejoin, kHeader, seq * 7919);
    put_u32(rejoin, kHeader + 12, 1);  // flags: rejoin
    sign(rejoin, key, 0, ++seq);
    inject.push_back(rejoin);
    Message reject = *in;
    reject.resize(kHeader + 32 + kTrailer);
    reject[0] = std::byte{5};
    sign(reject, key, 0, ++seq);
    inject.push_back(reject);
  }
  if (const Message* h = newest(seen, 2); h != nullptr && h->size() >= kHeader + 48 + 8 + kTrailer) {
    Message m = *h;
    m[kHeader + 48] ^= std::byte{1};
    sign(m, key, 0, ++seq);
    inject.push_back(m);
  }
}

}  // namespace

// The threat: peer 2 (a player with its own valid identity) forges INPUT, disconnect
// masks, HASH reports and rejoin requests claiming peer 1, MAC'd with the key it shares with
// peer 0 (key(2 -> 0)): every one fails the MAC of the claimed sender, nobody is expelled.
TEST(peer_auth, ForgeriesClaimingAnotherPeerFailItsKey) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    LinkKeys cheater;
    ASSERT_TRUE(derive_link_keys(match_of({0, 1, 2}, 2), kSessionId, 2, 0, cheater));
    std::uint64_t seq = 1u << 30;
    const Outcome o = play(Keys::Identities, seed, [&](std::uint64_t f, const auto& seen, auto& inject) {
      if (f >= 40 && f % 3 == 0) forge_all(seen, inject, cheater.send, seq);
    });
    expect_unharmed(o, seed);
    EXPECT_GT(o.stats0.dropped_auth, 30u) << "seed " << seed;
    EXPECT_EQ(o.stats0.malformed, 0u) << "seed " << seed << ": forged bytes reached the parser";
    EXPECT_EQ(o.stats0.sync_rejections_sent, 0u) << "seed " << seed << ": a forged rejoin request was answered";
  }
}

// Keys of another match never verify: peer 1's real key to peer 0 in a match with another
// session id, and in a match of the same session id with another third peer.
TEST(peer_auth, KeysOfAnotherMatchAreRejected) {
  LinkKeys other_session, other_peers;
  ASSERT_TRUE(derive_link_keys(match_of({0, 1, 2}, 1), kSessionId + 1, 1, 0, other_session));
  ASSERT_TRUE(derive_link_keys(match_of({0, 1, 3}, 1), kSessionId, 1, 0, other_peers));
  std::uint64_t seq = 1u << 30;
  const Outcome o = play(Keys::Identities, 5, [&](std::uint64_t f, const auto& seen, auto& inject) {
    if (f < 40 || f % 3 != 0) return;
    forge_all(seen, inject, other_session.send, seq);
    forge_all(seen, inject, other_peers.send, seq);
  });
  expect_unharmed(o, 5);
  EXPECT_GT(o.stats0.dropped_auth, 60u);
  EXPECT_EQ(o.stats0.malformed, 0u);
}

// The controls. With one match key, the same forged disconnect mask (claiming peer 1, made by
// anyone holding the key) expels peer 0: what per-peer keys remove. With peer 1's own link
// key, it expels peer 0 too: the forgeries above are well formed and fail only on the key.
TEST(peer_auth, TheSameForgeryWithTheRightKeyIsBelieved) {
  for (const Keys keys : {Keys::MatchKey, Keys::Identities}) {
    LinkKeys peer1;
    ASSERT_TRUE(derive_link_keys(match_of({0, 1, 2}, 1), kSessionId, 1, 0, peer1));
    const MatchKey key = keys == Keys::MatchKey ? insecure_test_key(kSessionId) : peer1.send;
    const Outcome o = play(keys, 3, [&](std::uint64_t f, const auto& seen, auto& inject) {
      if (f != 100) return;
      if (const Message* in = newest(seen, 1)) {
        Message gone = *in;
        gone[20] = std::byte{1};
        sign(gone, key, 0, 1u << 30);
        inject.push_back(gone);
      }
    });
    EXPECT_FALSE(o.finished);
    EXPECT_NE(o.failure.find("another peer declared this peer disconnected"), std::string::npos) << o.failure;
  }
}

// derive_link_keys is the documented construction, both ends agree on each direction, and
// every input of the binding changes the key.
TEST(peer_auth, LinkKeysAreTheDocumentedConstruction) {
  const std::vector<PeerPublicKey> pks = {identities()[0].public_key, identities()[1].public_key, identities()[2].public_key};
  for (std::uint32_t a = 0; a < 3; ++a)
    for (std::uint32_t b = 0; b < 3; ++b) {
      if (a == b) continue;
      LinkKeys ka, kb;
      ASSERT_TRUE(derive_link_keys(match_of({0, 1, 2}, a), kSessionId, a, b, ka));
      ASSERT_TRUE(derive_link_keys(match_of({0, 1, 2}, b), kSessionId, b, a, kb));
      EXPECT_EQ(ka.send.bytes, kb.receive.bytes) << a << " -> " << b;
      EXPECT_EQ(ka.receive.bytes, kb.send.bytes) << a << " -> " << b;
      EXPECT_NE(ka.send.bytes, ka.receive.bytes);
      EXPECT_EQ(ka.send.bytes, documented_key(identities()[a], a, pks[b], b, kSessionId, pks).bytes) << a << " -> " << b;
    }
  LinkKeys base, other;
  ASSERT_TRUE(derive_link_keys(match_of({0, 1, 2}, 0), kSessionId, 0, 1, base));
  ASSERT_TRUE(derive_link_keys(match_of({0, 1, 2}, 0), kSessionId + 1, 0, 1, other));
  EXPECT_NE(base.send.bytes, other.send.bytes);  // the session id
  ASSERT_TRUE(derive_link_keys(match_of({0, 1, 2, 3}, 0), kSessionId, 0, 1, other));
  EXPECT_NE(base.send.bytes, other.send.bytes);  // the peers
  ASSERT_TRUE(derive_link_keys(match_of({0, 1, 3}, 0), kSessionId, 0, 1, other));
  EXPECT_NE(base.send.bytes, other.send.bytes);  // another third peer
  LinkKeys none;
  EXPECT_FALSE(derive_link_keys(match_of({0, 1, 2}, 0), kSessionId, 0, 0, none));
  EXPECT_FALSE(derive_link_keys(match_of({0, 1, 2}, 0), kSessionId, 0, 3, none));
  EXPECT_TRUE(none.send.empty());
}

// check_match_identity, and the session refusing an identity that does not fit.
TEST(peer_auth, AnIdentityThatDoesNotFitIsRefused) {
  EXPECT_EQ(check_match_identity(match_of({0, 1, 2}, 1), 3, 1), "");
  EXPECT_EQ(check_match_identity(match_of({0, 1, 2}, 1), 4, 1), "3 public keys for 4 peers (one per peer, in peer-id order)");
  EXPECT_EQ(check_match_identity(match_of({0, 1, 2}, 1), 3, 2), "this identity's public key is peer 1's, not this peer's (peer 2)");
  MatchIdentity dup = match_of({0, 1, 2}, 0);
  dup.peers[2] = dup.peers[1];
  EXPECT_EQ(check_match_identity(dup, 3, 0), "peers 1 and 2 have the same public key (every peer needs its own identity)");
  MatchIdentity stranger = match_of({0, 1, 2}, 0);
  stranger.local = identities()[4];
  EXPECT_EQ(check_match_identity(stranger, 3, 0),
            "this identity's public key is not among the peers' (peer 0 has another key)");
  MatchIdentity torn = match_of({0, 1, 2}, 0);
  torn.local.public_key = identities()[1].public_key;
  EXPECT_EQ(check_match_identity(torn, 3, 0), "this peer's public key does not belong to its secret key");

  Runner runner(fixtures::skirmish_sim(), skirmish_config(3, 40));
  SimNetworkConfig nc;
  nc.peers = 3;
  SimNetwork net(nc);
  SessionConfig sc = SessionConfig::one_player_per_peer(3, 3, 2);
  sc.identity = match_of({0, 1, 2}, 1);  // peer 1's identity given to peer 2
  RollbackSession s(runner, sc, &net.endpoint(2));
  EXPECT_EQ(std::string(s.status().message()),
            "RollbackSession: SessionConfig::identity does not fit this session: it needs one public key per peer in "
            "peer-id order, this peer's own key pair at local_peer, and no two peers with the same key "
            "(check_match_identity names the problem)");
}

// The loaders' errors name the file, the line and what was expected.
TEST(peer_auth, IdentityAndPeerKeysFilesAreReadStrictly) {
  const std::string dir = ::testing::TempDir() + "/peer_auth_files";
  (void)::mkdir(dir.c_str(), 0700);
  auto write = [&](const std::string& name, const std::string& bytes) {
    const std::string path = dir + "/" + name;
    std::remove(path.c_str());
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return path;
  };
  std::string why;
  // Identities: written new (owner only), read back with the same public key, never overwritten.
  const std::string id1 = dir + "/p1.id";
  std::remove(id1.c_str());
  ASSERT_TRUE(write_peer_identity_file(id1, identities()[1], why)) << why;
  struct stat st{};
  ASSERT_EQ(::stat(id1.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  PeerIdentity back;
  ASSERT_TRUE(read_peer_identity_file(id1, back, why)) << why;
  EXPECT_TRUE(back.public_key == identities()[1].public_key);
  EXPECT_FALSE(write_peer_identity_file(id1, identities()[2], why));
  EXPECT_EQ(why, "identity file " + id1 + ": exists (never overwritten)");
  EXPECT_FALSE(read_peer_identity_file(dir + "/none.id", back, why));
  EXPECT_EQ(why, "identity file " + dir + "/none.id: cannot open: No such file or directory");
  const std::string short_id = write("short.id", "0123456789\n");
  EXPECT_FALSE(read_peer_identity_file(short_id, back, why));
  EXPECT_EQ(why, "identity file " + short_id + ": expected 32 raw bytes or 64 hexadecimal digits, found 11 bytes");

  // Peer keys: comments, labels, blank lines and CRLF are fine; line k is peer k.
  const std::string k0 = key_hex(identities()[0].public_key), k1 = key_hex(identities()[1].public_key),
                    k2 = key_hex(identities()[2].public_key);
  const std::string good = write("good.keys", "# match 4242\n" + k0 + "  alice\r\n\n" + k1 + "\n" + k2 + "\tcarol\n");
  std::vector<PeerPublicKey> keys;
  std::vector<std::uint32_t> lines;
  ASSERT_TRUE(read_peer_keys_file(good, keys, lines, why)) << why;
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_TRUE(keys[2] == identities()[2].public_key);
  EXPECT_EQ(lines, (std::vector<std::uint32_t>{2, 4, 5}));
  MatchIdentity m;
  ASSERT_TRUE(load_match_identity(id1, good, 3, 1, m, why)) << why;
  EXPECT_EQ(m.peer_count, 3u);
  EXPECT_EQ(check_match_identity(m, 3, 1), "");

  EXPECT_FALSE(load_match_identity(id1, good, 3, 2, m, why));
  EXPECT_EQ(why, "identity file " + id1 + ": its public key is peer 1's (line 4 of peer keys file " + good +
                     "), not this peer's (peer 2)");
  EXPECT_FALSE(load_match_identity(id1, good, 4, 1, m, why));
  EXPECT_EQ(why, "peer keys file " + good + ": 3 public keys, expected 4 (one per peer, in peer-id order)");
  const std::string others = write("others.keys", k0 + "\n" + k2 + "\n");
  EXPECT_FALSE(load_match_identity(id1, others, 2, 1, m, why));
  EXPECT_EQ(why, "identity file " + id1 + ": its public key is not in peer keys file " + others + " (line 2 holds peer 1's key: " +
                     k2 + ")");

  const std::string cut = write("cut.keys", k0 + "\n" + k1.substr(1) + "\n");
  EXPECT_FALSE(read_peer_keys_file(cut, keys, lines, why));
  EXPECT_EQ(why, "peer keys file " + cut + ": line 2: expected a public key (64 hexadecimal digits), found 63 characters");
  const std::string bad = write("bad.keys", "abcdxf" + k0.substr(6) + "\n");
  EXPECT_FALSE(read_peer_keys_file(bad, keys, lines, why));
  EXPECT_EQ(why, "peer keys file " + bad +
                     ": line 1, column 5: not a hexadecimal digit (expected a public key of 64 hexadecimal digits)");
  const std::string dup = write("dup.keys", k0 + "\n" + k1 + "\n" + k0 + " again\n");
  EXPECT_FALSE(read_peer_keys_file(dup, keys, lines, why));
  EXPECT_EQ(why, "peer keys file " + dup + ": line 3: the same public key as line 1 (every peer needs its own identity)");
  const std::string zero = write("zero.keys", std::string(64, '0') + "\n");
  EXPECT_FALSE(read_peer_keys_file(zero, keys, lines, why));
  EXPECT_EQ(why, "peer keys file " + zero + ": line 1: the public key is all zero bytes (not a key)");
  const std::string huge = write("huge.keys", std::string(70000, '#'));
  EXPECT_FALSE(read_peer_keys_file(huge, keys, lines, why));
  EXPECT_EQ(why, "peer keys file " + huge +
                     ": more than 65536 bytes (expected one public key of 64 hexadecimal digits per line)");
  EXPECT_FALSE(read_peer_keys_file(dir, keys, lines, why));
  EXPECT_EQ(why, "peer keys file " + dir + ": not a regular file");
  EXPECT_FALSE(read_peer_keys_file(dir + "/none.keys", keys, lines, why));
  EXPECT_EQ(why, "peer keys file " + dir + "/none.keys: cannot open: No such file or directory");

  // A match key written by the same means reads back as a key file.
  const std::string mk = dir + "/match.key";
  std::remove(mk.c_str());
  const MatchKey key = random_match_key();
  ASSERT_TRUE(write_match_key_file(mk, key, why)) << why;
  MatchKey read;
  ASSERT_TRUE(read_match_key_file(mk, read, why)) << why;
  EXPECT_EQ(read.bytes, key.bytes);
  EXPECT_FALSE(write_match_key_file(mk, key, why));
  EXPECT_EQ(why, "key file " + mk + ": exists (never overwritten)");
}

#endif  // LOCKSTEP_TEST_HAVE_SODIUM
