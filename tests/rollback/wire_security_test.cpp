// Hostile traffic against the session (docs/rollback.md, "Threat model"), in process over the
// simulated network: an attacker sits in front of peer 0's receive path and injects what an
// off-path stranger (knows the session id, which is no secret, but sees no traffic) or an
// on-path one (sees and copies every message, has no key) can send. Every case runs 10
// matches (10 network seeds) and asserts that nobody is expelled or aborted, both peers
// confirm the whole match with identical histories, and the drops are counted by reason.
#include "rollback/rollback_support.h"

#include <lockstep/rollback/sim_network.h>

#include "../../rollback/src/wire_auth.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <vector>

using namespace rollback_test;

namespace {

constexpr std::uint64_t kFrameUs = 8333;  // 120 Hz
constexpr std::uint64_t kTicks = 240;
constexpr std::uint32_t kSessionId = 77;
// Wire format v3 offsets (rollback/src/session.cpp, "Messages").
constexpr std::size_t kHeader = 40, kTrailer = 24;

using Message = std::vector<std::byte>;

void put_u64(Message& m, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) m[at + i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint8_t type_of(const Message& m) { return std::to_integer<std::uint8_t>(m[0]); }

// A message as an off-path stranger writes it: a plausible unsigned header of "peer 1" with
// an invented incarnation and nonce, a fresh sequence number and no valid MAC.
Message stranger_sync(std::uint8_t type, std::uint32_t incarnation, std::uint64_t nonce, std::uint64_t seq) {
  Message m(kHeader + 32 + kTrailer, std::byte{0});
  m[0] = std::byte{type};
  m[1] = std::byte{6};  // wire version
  m[2] = std::byte{1};  // sender: peer 1 (its address is spoofed)
  m[3] = std::byte{2};  // players
  for (int i = 0; i < 4; ++i) m[4 + i] = static_cast<std::byte>(kSessionId >> (8 * i));
  for (int i = 0; i < 4; ++i) m[16 + i] = static_cast<std::byte>(incarnation >> (8 * i));
  for (std::size_t i = 28; i < 32; ++i) m[i] = std::byte{0xFF};  // no echo
  put_u64(m, kHeader, nonce);
  put_u64(m, m.size() - kTrailer, seq);
  return m;
}

// Sits between the network and peer 0's session. `attack(frame, seen, inject)` runs once per
// receive burst with the messages seen so far (what an on-path observer has) and queues
// messages to deliver as if they came from peer 1 before the real ones.
class Attacker final : public Transport {
 public:
  using Plan = std::function<void(std::uint64_t frame, const std::vector<Message>& seen, std::deque<Message>& inject)>;
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
      from = 1;
      ++injected;
      return static_cast<std::uint32_t>(m.size());
    }
    const std::uint32_t n = inner_.receive(from, out);
    if (n == 0) {
      planned_ = false;  // the burst of this poll is over
      return 0;
    }
    if (seen_.size() < 4096) seen_.emplace_back(out.begin(), out.begin() + n);
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
  std::string failure;  // a peer's status error, if any
  SessionStats stats0{};
  std::uint64_t injected = 0;
  std::uint64_t disconnects = 0;
  bool same_history = false;
};

// One 2-peer duel match with the attacker in front of peer 0.
Outcome play(WireSecurity security, std::uint64_t seed, const Attacker::Plan& plan) {
  SimNetworkConfig nc;
  nc.peers = 2;
  nc.conditions.latency_us = 20000;
  nc.conditions.jitter_us = 8000;
  nc.conditions.loss_ppm = 50000;
  nc.seed = seed;
  SimNetwork net(nc);
  Attacker attacker(net.endpoint(0), plan);
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<std::unique_ptr<RollbackSession>> sessions;
  std::vector<std::unique_ptr<ReplayLogSink>> logs;
  std::vector<std::unique_ptr<Bot>> bots;
  for (std::uint32_t i = 0; i < 2; ++i) {
    runners.push_back(std::make_unique<Runner>(fixtures::duel_sim(), duel_config()));
    SessionConfig sc = SessionConfig::one_player_per_peer(2, 2, i);
    sc.input_delay = 2;
    sc.max_prediction = 8;
    sc.hash_interval = 8;
    sc.session_id = kSessionId;
    sc.sync_roundtrips = 3;
    sc.incarnation = static_cast<std::uint32_t>(seed * 2 + i + 11);
    sc.disconnect_notify_start_us = 300000;
    sc.disconnect_timeout_us = 1000000;
    sc.security = security;
    sc.match_key = insecure_test_key(kSessionId);
    sessions.push_back(std::make_unique<RollbackSession>(*runners[i], sc, i == 0 ? static_cast<Transport*>(&attacker)
                                                                                   : &net.endpoint(1)));
    logs.push_back(std::make_unique<ReplayLogSink>(*runners[i]));
    sessions[i]->set_confirmed_sink(logs[i].get());
    bots.push_back(fixtures::duel_sim().make_bot(duel_config(), seed, i));
  }
  Outcome o;
  std::vector<std::byte> buf(fixtures::duel_sim().input_type().size);
  std::uint64_t now = 0;
  for (std::uint64_t f = 0; f < 4000; ++f, now += kFrameUs) {
    net.advance_to(now);
    attacker.frame = f;
    bool done = true;
    for (std::uint32_t i = 0; i < 2; ++i) {
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
    }
    if (!sessions[0]->status().ok() || !sessions[1]->status().ok()) break;
    if (done) {
      o.finished = true;
      break;
    }
  }
  for (auto& s : sessions)
    if (!s->status().ok()) o.failure += std::string(s->status().message()) + "; ";
  o.stats0 = sessions[0]->stats();
  o.injected = attacker.injected;
  const Replay& a = logs[0]->replay();
  const Replay& b = logs[1]->replay();
  o.same_history = o.finished && a.inputs == b.inputs && a.hashes.size() == b.hashes.size() &&
                   std::equal(a.hashes.begin(), a.hashes.end(), b.hashes.begin()) && a.component_hashes == b.component_hashes;
  return o;
}

// The common verdict: the attack was delivered, changed nothing, and was counted.
void expect_unharmed(const Outcome& o, std::uint64_t seed) {
  EXPECT_TRUE(o.finished) << "seed " << seed << ": " << o.failure;
  EXPECT_TRUE(o.failure.empty()) << "seed " << seed << ": " << o.failure;
  EXPECT_EQ(o.disconnects, 0u) << "seed " << seed;
  EXPECT_TRUE(o.same_history) << "seed " << seed;
  EXPECT_EQ(o.stats0.desyncs, 0u) << "seed " << seed;
  EXPECT_GT(o.injected, 0u) << "seed " << seed << ": the attack never reached the session";
}

// A copy of the newest seen message of `type`, or nothing.
const Message* newest(const std::vector<Message>& seen, std::uint8_t type) {
  for (auto it = seen.rbegin(); it != seen.rend(); ++it)
    if (type_of(*it) == type) return &*it;
  return nullptr;
}

}  // namespace

// The repro: an off-path SYNC_REQUEST with peer 1's address, the (public) session id
// and an invented incarnation — sent before the match, during the handshake and mid-match —
// made peer 0 pin a fake incarnation or answer peer 1 with a real SYNC_REJECT that aborted it.
TEST(wire_security, OffPathSpoofedSyncRequestExpelsNoOne) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Outcome o = play(WireSecurity::Unauthenticated, seed, [seed](std::uint64_t f, const auto&, auto& inject) {
      if (f == 0 || f == 2 || f == 30 || f == 60 || f % 97 == 0)
        inject.push_back(stranger_sync(3, 0xBAD0000u + static_cast<std::uint32_t>(f), seed * 1000 + f, 1000 + f));
    });
    expect_unharmed(o, seed);
    EXPECT_GT(o.stats0.sync_rejections_sent + o.stats0.stale, 0u) << "seed " << seed;
  }
}

// Unsolicited SYNC_REJECTs (a guessed nonce) before and during the match: ignored, counted.
TEST(wire_security, UnsolicitedSyncRejectIsIgnored) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Outcome o = play(WireSecurity::Unauthenticated, seed, [seed](std::uint64_t f, const auto& seen, auto& inject) {
      if (f % 5 != 0 || f > 400) return;
      // With the real incarnation when an on-path observer could know it, else an invented one.
      Message m = stranger_sync(5, 0x5EED0000u + static_cast<std::uint32_t>(seed), seed * 7919 + f, 5000 + f);
      if (const Message* real = newest(seen, 1)) std::memcpy(&m[16], &(*real)[16], 4);
      inject.push_back(m);
    });
    expect_unharmed(o, seed);
    EXPECT_GT(o.stats0.unsolicited_sync + o.stats0.stale, 0u) << "seed " << seed;
  }
}

// Seven SYNC_REQUESTs recorded in an earlier match on the same addresses (other incarnations,
// the same session id), replayed before and during a new match.
TEST(wire_security, ReplayedEarlierMatchHandshakeExpelsNoOne) {
  // Record peer 1's handshake requests of an earlier match.
  std::vector<Message> earlier;
  (void)play(WireSecurity::Unauthenticated, 99, [&earlier](std::uint64_t, const auto& seen, auto&) {
    earlier.clear();
    for (const Message& m : seen)
      if (type_of(m) == 3 && earlier.size() < 7) earlier.push_back(m);
  });
  ASSERT_EQ(earlier.size(), 7u);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Outcome o = play(WireSecurity::Unauthenticated, seed, [&earlier](std::uint64_t f, const auto&, auto& inject) {
      if (f == 0 || f == 50 || f == 150)
        for (const Message& m : earlier) inject.push_back(m);
    });
    expect_unharmed(o, seed);
  }
}

// On-path, authenticated: forged INPUT (an input byte flipped), forged HASH (one component
// hash changed: the "X != X" report), forged disconnect masks naming peer 0, forged
// SYNC_REJECTs, all copied from real traffic without the key: dropped_auth, nothing else.
TEST(wire_security, ForgedFramesChangeNothingWhenAuthenticated) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Outcome o = play(WireSecurity::Authenticated, seed, [](std::uint64_t f, const auto& seen, auto& inject) {
      if (f < 40 || f % 3 != 0) return;
      if (const Message* in = newest(seen, 1); in != nullptr && in->size() > kHeader + 16 + 16 + kTrailer + 1) {
        Message m = *in;
        m[m.size() - kTrailer - 1] ^= std::byte{0x5A};  // an input byte
        put_u64(m, m.size() - kTrailer, 1u << 30);        // a fresh sequence number
        inject.push_back(m);
        Message gone = *in;
        gone[20] = std::byte{1};  // "peer 0 is disconnected": expels peer 0 if believed
        put_u64(gone, gone.size() - kTrailer, (1u << 30) + 1);
        inject.push_back(gone);
        Message reject = *in;
        reject[0] = std::byte{5};
        reject.resize(kHeader + 32 + kTrailer);
        inject.push_back(reject);
      }
      if (const Message* h = newest(seen, 2); h != nullptr && h->size() >= kHeader + 48 + 8 + kTrailer) {
        Message m = *h;
        m[kHeader + 48] ^= std::byte{1};  // component 0's hash only; the total is unchanged
        inject.push_back(m);
      }
    });
    expect_unharmed(o, seed);
    EXPECT_GT(o.stats0.dropped_auth, 30u) << "seed " << seed;
    EXPECT_EQ(o.stats0.malformed, 0u) << "seed " << seed << ": forged bytes reached the parser";
  }
}

// Without the key, the same forged disconnect mask expels peer 0: the threat the MAC removes
// (this is the behaviour documented for WireSecurity::Unauthenticated, and what makes the
// test above meaningful).
TEST(wire_security, WithoutAuthenticationAForgedDisconnectMaskExpels) {
  const Outcome o = play(WireSecurity::Unauthenticated, 3, [](std::uint64_t f, const auto& seen, auto& inject) {
    if (f != 100) return;
    if (const Message* in = newest(seen, 1)) {
      Message gone = *in;
      gone[20] = std::byte{1};
      put_u64(gone, gone.size() - kTrailer, 1u << 30);
      inject.push_back(gone);
    }
  });
  EXPECT_FALSE(o.finished);
  EXPECT_NE(o.failure.find("declared this peer disconnected"), std::string::npos) << o.failure;
}

// A watcher holds the watch key (rollback/relay.h), not the match key: an on-path watcher
// that re-tags a player's message under the watch key (a disconnect mask naming peer 0, a
// fresh sequence number) is dropped as unauthenticated. The same forgery tagged under the match
// key expels peer 0: the injection reaches the session, so only the key stops it (issue 39).
TEST(wire_security, AMessageTaggedWithTheWatchKeyIsNotAPlayersMessage) {
  auto forge_with = [](const MatchKey& key) {
    return [key](std::uint64_t f, const auto& seen, auto& inject) {
      if (f != 100) return;
      if (const Message* in = newest(seen, 1)) {
        Message gone = *in;
        gone[20] = std::byte{1};  // "peer 0 is disconnected"
        put_u64(gone, gone.size() - kTrailer, 1u << 30);
        const std::size_t signed_bytes = gone.size() - wire::kTagBytes;
        wire::compute_tag(key, 0, std::span<const std::byte>(gone.data(), signed_bytes), gone.data() + signed_bytes);
        inject.push_back(gone);
      }
    };
  };
  const MatchKey match = insecure_test_key(kSessionId);  // play()'s match key
  const Outcome watch = play(WireSecurity::Authenticated, 3, forge_with(derive_watch_key(match)));
  expect_unharmed(watch, 3);
  EXPECT_GE(watch.stats0.dropped_auth, 1u);
  const Outcome player = play(WireSecurity::Authenticated, 3, forge_with(match));
  EXPECT_FALSE(player.finished);
  EXPECT_NE(player.failure.find("declared this peer disconnected"), std::string::npos) << player.failure;
}

// On-path re-sending of valid frames (exact copies, including old handshake messages):
// dropped_replay, nothing else.
TEST(wire_security, ResentValidFramesAreDroppedAsReplays) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Outcome o = play(WireSecurity::Authenticated, seed, [](std::uint64_t f, const auto& seen, auto& inject) {
      if (f < 60 || f % 2 != 0) return;
      for (std::size_t k = 0; k < 4 && k < seen.size(); ++k) inject.push_back(seen[(f * 31 + k * 7) % seen.size()]);
    });
    expect_unharmed(o, seed);
    EXPECT_GT(o.stats0.dropped_replay, 50u) << "seed " << seed;
    EXPECT_EQ(o.stats0.dropped_auth, 0u) << "seed " << seed;
  }
}

// A flood from peer 1's address (valid copies and junk): bounded work per poll, the match
// goes on, drops counted.
TEST(wire_security, AFloodFromOneAddressIsBoundedAndCounted) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Outcome o = play(WireSecurity::Authenticated, seed, [seed](std::uint64_t f, const auto& seen, auto& inject) {
      // 50 frames (~420 ms, under the 1 s disconnect timeout): the spoofed address is peer 1's
      // own, so its real messages of those frames are lost in the flood too (volume is denial of
      // service, which no MAC prevents); they are sent again afterwards.
      if (f < 30 || f >= 80 || seen.empty()) return;
      for (int k = 0; k < 600; ++k) {
        Message m = seen[(f + static_cast<std::uint64_t>(k)) % seen.size()];
        if (k % 2 == 0) m[kHeader / 2] ^= static_cast<std::byte>(seed + 1);
        inject.push_back(std::move(m));
      }
    });
    expect_unharmed(o, seed);
    EXPECT_GT(o.stats0.dropped_budget, 0u) << "seed " << seed;
  }
}

// A wire that is authenticated on one side only never carries a message across: the peer in
// the other mode is dropped as dropped_auth and the handshake times out with an error.
TEST(wire_security, MixedModesDoNotTalk) {
  SimNetworkConfig nc;
  nc.peers = 2;
  SimNetwork net(nc);
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<std::unique_ptr<RollbackSession>> s;
  for (std::uint32_t i = 0; i < 2; ++i) {
    runners.push_back(std::make_unique<Runner>(fixtures::duel_sim(), duel_config()));
    SessionConfig sc = SessionConfig::one_player_per_peer(2, 2, i);
    sc.sync_roundtrips = 2;
    sc.sync_timeout_us = 500000;
    sc.security = i == 0 ? WireSecurity::Authenticated : WireSecurity::Unauthenticated;
    sc.match_key = insecure_test_key(1);
    s.push_back(std::make_unique<RollbackSession>(*runners[i], sc, &net.endpoint(i)));
    ASSERT_TRUE(s[i]->status().ok());
  }
  for (std::uint64_t now = 0; now < 600000; now += kFrameUs) {
    net.advance_to(now);
    for (auto& x : s) {
      x->set_time(now);
      (void)x->poll();
    }
  }
  EXPECT_FALSE(s[0]->running());
  EXPECT_GT(s[0]->stats().dropped_auth, 0u);
  EXPECT_GT(s[1]->stats().dropped_auth, 0u);
  EXPECT_FALSE(s[0]->status().ok());
}

TEST(wire_security, KeyFilesAreReadStrictly) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& bytes) {
    const std::string path = dir + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return path;
  };
  MatchKey k;
  std::string why;
  ASSERT_TRUE(read_match_key_file(write("hex.key", std::string(62, 'a') + "0f\n"), k, why)) << why;
  EXPECT_EQ(k.bytes[0], 0xAA);
  EXPECT_EQ(k.bytes[31], 0x0F);
  ASSERT_TRUE(read_match_key_file(write("raw.key", std::string(32, '\x07')), k, why)) << why;
  EXPECT_EQ(k.bytes[5], 7);
  EXPECT_FALSE(read_match_key_file(write("short.key", "abcd\n"), k, why));
  EXPECT_NE(why.find("short.key: expected 32 raw bytes or 64 hexadecimal digits, found 5 bytes"), std::string::npos) << why;
  EXPECT_FALSE(read_match_key_file(write("bad.key", std::string(10, 'a') + "zz" + std::string(52, 'b')), k, why));
  EXPECT_NE(why.find("byte 10: not a hexadecimal digit"), std::string::npos) << why;
  EXPECT_FALSE(read_match_key_file(write("zero.key", std::string(64, '0')), k, why));
  EXPECT_NE(why.find("all zero"), std::string::npos) << why;
  EXPECT_FALSE(read_match_key_file(dir, k, why));
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
  EXPECT_FALSE(read_match_key_file(dir + "/missing.key", k, why));
  EXPECT_NE(why.find("cannot open"), std::string::npos) << why;
  // Two derived test keys differ per session id, and a random key is not empty.
  EXPECT_NE(insecure_test_key(1).bytes, insecure_test_key(2).bytes);
  EXPECT_FALSE(random_match_key().empty());
}
