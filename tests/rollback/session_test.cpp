// RollbackSession unit behaviour: input delay, lockstep mode, prediction window and stalls,
// rollback depth, local-input errors, hostile messages, recorded history.
#include "rollback/rollback_support.h"

#include <lockstep/rollback/sim_network.h>

#include <gtest/gtest.h>

#include <array>
#include <vector>

using namespace rollback_test;

namespace {

std::array<std::byte, 2> pad(std::uint16_t buttons) {
  return {std::byte{static_cast<std::uint8_t>(buttons & 0xFF)}, std::byte{static_cast<std::uint8_t>(buttons >> 8)}};
}

// Two duel peers over a SimNetwork, stepped by hand.
struct Pair {
  SimNetwork net;
  Runner r0, r1;
  RollbackSession s0, s1;
  std::uint64_t frame = 0;
  Pair(const NetworkConditions& n, std::uint32_t delay, std::uint32_t window)
      : net(make_net(n)), r0(fixtures::duel_sim(), duel_config()), r1(fixtures::duel_sim(), duel_config()),
        s0(r0, make_cfg(0, delay, window), &net.endpoint(0)), s1(r1, make_cfg(1, delay, window), &net.endpoint(1)) {}
  static SimNetworkConfig make_net(const NetworkConditions& n) {
    SimNetworkConfig c;
    c.peers = 2;
    c.conditions = n;
    return c;
  }
  static SessionConfig make_cfg(std::uint32_t peer, std::uint32_t delay, std::uint32_t window) {
    SessionConfig c = SessionConfig::one_player_per_peer(2, 2, peer);
    c.match_key = insecure_test_key(1);
    c.input_delay = delay;
    c.max_prediction = window;
    c.hash_interval = 8;
    return c;
  }
  // One frame; `run1` false keeps peer 1 silent and frozen. Inputs change every 7 ticks.
  void step(bool run1 = true) {
    net.advance_to(frame * 16667);
    ++frame;
    for (std::uint32_t p = 0; p < 2; ++p) {
      RollbackSession& s = p == 0 ? s0 : s1;
      if (p == 1 && !run1) continue;
      if (s.wants_local_input(p)) {
        const auto in = pad(static_cast<std::uint16_t>(((s.local_input_tick(p) / 7) * (p + 3)) & 0x3F));
        ASSERT_TRUE(s.add_local_input(p, in).ok());
      }
      ASSERT_TRUE(s.advance().ok());
    }
  }
};

std::vector<SessionEvent> drain(RollbackSession& s) {
  std::vector<SessionEvent> v;
  SessionEvent e;
  while (s.poll_event(e)) v.push_back(e);
  return v;
}

}  // namespace

TEST(rollback_session, InputDelayAppliesLocalInputLater) {
  Runner runner(fixtures::duel_sim(), duel_config());
  SessionConfig cfg = SessionConfig::local_only(2);
  cfg.input_delay = 3;
  RollbackSession s(runner, cfg, nullptr);
  ASSERT_TRUE(s.status().ok()) << s.status().message();
  ReplayLogSink log(runner);
  s.set_confirmed_sink(&log);
  for (std::uint16_t f = 0; f < 10; ++f) {
    for (std::uint32_t p = 0; p < 2; ++p) {
      EXPECT_EQ(s.local_input_tick(p), f + 3u);
      ASSERT_TRUE(s.wants_local_input(p));
      ASSERT_TRUE(s.add_local_input(p, pad(static_cast<std::uint16_t>(f + 1))).ok());
      EXPECT_FALSE(s.wants_local_input(p));
    }
    bool advanced = false;
    ASSERT_TRUE(s.advance(&advanced).ok());
    EXPECT_TRUE(advanced);
  }
  EXPECT_EQ(s.current_tick(), 10u);
  EXPECT_EQ(s.confirmed_tick(), 10u);
  const Replay& r = log.replay();
  ASSERT_EQ(r.frame_count(), 10u);
  for (std::uint64_t t = 0; t < 10; ++t) {
    const std::uint16_t expect = t < 3 ? 0 : static_cast<std::uint16_t>(t - 3 + 1);
    const auto f = r.frame(t);
    EXPECT_EQ(std::to_integer<std::uint16_t>(f[0]) | (std::to_integer<std::uint16_t>(f[1]) << 8), expect) << t;
  }
  // Everything local and known: nothing was ever predicted, so nothing was saved.
  EXPECT_EQ(s.stats().snapshots_saved, 0u);
  EXPECT_EQ(s.stats().rollbacks, 0u);
}

TEST(rollback_session, LocalInputErrors) {
  Runner runner(fixtures::duel_sim(), duel_config());
  SessionConfig cfg = SessionConfig::one_player_per_peer(2, 2, 0);
  cfg.match_key = insecure_test_key(1);
  SimNetwork net({});
  RollbackSession s(runner, cfg, &net.endpoint(0));
  ASSERT_TRUE(s.status().ok());
  EXPECT_EQ(s.add_local_input(1, pad(1)).code(), ErrorCode::InvalidArgument);  // remote player
  const std::array<std::byte, 3> wrong{};
  EXPECT_EQ(s.add_local_input(0, wrong).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(s.add_local_input(0, pad(1)).ok());
  EXPECT_EQ(s.add_local_input(0, pad(1)).code(), ErrorCode::InvalidArgument);  // twice for one tick
}

TEST(rollback_session, RejectsBadConfigs) {
  Runner runner(fixtures::duel_sim(), duel_config());
  SessionConfig c = SessionConfig::one_player_per_peer(2, 2, 0);
  c.match_key = insecure_test_key(1);
  EXPECT_FALSE(RollbackSession(runner, c, nullptr).status().ok());  // peers need a transport
  c.max_prediction = 65;
  SimNetwork net({});
  EXPECT_FALSE(RollbackSession(runner, c, &net.endpoint(0)).status().ok());
  c = SessionConfig::one_player_per_peer(2, 2, 0);
  c.match_key = insecure_test_key(1);
  c.owner[1] = 5;
  EXPECT_FALSE(RollbackSession(runner, c, &net.endpoint(0)).status().ok());
  c = SessionConfig::one_player_per_peer(2, 2, 0);
  c.match_key = insecure_test_key(1);
  c.sync_test_distance = 2;  // sync test needs every player local
  EXPECT_FALSE(RollbackSession(runner, c, &net.endpoint(0)).status().ok());
  c = SessionConfig::one_player_per_peer(2, 2, 0);
  c.match_key = insecure_test_key(1);
  c.input_ring = 4;
  EXPECT_FALSE(RollbackSession(runner, c, &net.endpoint(0)).status().ok());
  c = SessionConfig::one_player_per_peer(2, 2, 0);
  c.match_key = insecure_test_key(1);
  EXPECT_TRUE(RollbackSession(runner, c, &net.endpoint(0)).status().ok());  // the valid base of the cases above
}

// 0.3 authenticates by default: a game that configured a multi-peer session without a key
// (correct against 0.2) gets a clear error at construction, never a silent unauthenticated match.
TEST(rollback_session, APeerSessionWithoutAKeyIsRefusedWithAClearError) {
  Runner runner(fixtures::duel_sim(), duel_config());
  SimNetwork net({});
  SessionConfig c = SessionConfig::one_player_per_peer(2, 2, 0);
  const RollbackSession refused(runner, c, &net.endpoint(0));
  EXPECT_EQ(refused.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(refused.status().message()).find("no match key: set SessionConfig::match_key"), std::string::npos)
      << refused.status().message();
  c.security = WireSecurity::Unauthenticated;  // the explicit opt-out
  EXPECT_TRUE(RollbackSession(runner, c, &net.endpoint(0)).status().ok());
  // A session without peers (sync test, single player) needs no key.
  EXPECT_TRUE(RollbackSession(runner, SessionConfig::local_only(2), nullptr).status().ok());
}

TEST(rollback_session, LockstepModeWaitsAndNeverSaves) {
  Pair p({50000, 0, 0, 0, 0, 0}, 1, 0);
  ASSERT_TRUE(p.s0.status().ok());
  for (int i = 0; i < 300; ++i) p.step();
  EXPECT_EQ(p.s0.stats().rollbacks, 0u);
  EXPECT_EQ(p.s0.stats().snapshots_saved, 0u);
  EXPECT_GT(p.s0.stats().stalls, 0u);  // 50 ms one way > 1 tick of delay: it must wait
  EXPECT_GT(p.s0.current_tick(), 50u);
  EXPECT_EQ(p.s0.current_tick(), p.s0.confirmed_tick());  // nothing is ever predicted
}

TEST(rollback_session, PredictionWindowStallsThenRollsBack) {
  Pair p({0, 0, 0, 0, 0, 0}, 0, 6);
  for (int i = 0; i < 20; ++i) p.step();
  const std::uint64_t both = p.s0.current_tick();
  EXPECT_EQ(p.s0.stats().stalls, 0u);
  drain(p.s0);
  // Peer 1 goes silent: peer 0 predicts 6 ticks, then stalls.
  for (int i = 0; i < 10; ++i) p.step(false);
  EXPECT_EQ(p.s0.current_tick(), both + 6);
  EXPECT_EQ(p.s0.stats().stalls, 4u);
  auto ev = drain(p.s0);
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.back().kind, SessionEventKind::Stall);
  EXPECT_EQ(ev.back().stall, StallReason::PredictionWindow);
  EXPECT_EQ(ev.back().tick, both + 6);
  // Peer 1 comes back; its inputs change at multiples of 7, so some prediction was wrong.
  for (int i = 0; i < 30; ++i) p.step();
  EXPECT_GE(p.s0.stats().rollbacks, 1u);
  EXPECT_LE(p.s0.stats().max_rollback_depth, 6u);
  EXPECT_EQ(p.s0.stats().desyncs, 0u);
  EXPECT_EQ(p.s1.stats().desyncs, 0u);
  EXPECT_GT(p.s0.stats().hash_checks, 0u);
  // Both agree on every confirmed tick still in the hash rings.
  const std::uint64_t c = std::min(p.s0.confirmed_tick(), p.s1.confirmed_tick());
  ASSERT_NE(p.s0.hash_at(c), nullptr);
  ASSERT_NE(p.s1.hash_at(c), nullptr);
  EXPECT_EQ(*p.s0.hash_at(c), *p.s1.hash_at(c));
}

namespace {
// A transport that feeds a session hand-made bytes.
class Injector final : public Transport {
 public:
  std::vector<std::vector<std::byte>> inbox;
  std::uint32_t sent = 0;
  std::vector<std::byte> last;  // the last message sent
  bool send(std::uint32_t, std::span<const std::byte> m) noexcept override {
    ++sent;
    last.assign(m.begin(), m.end());
    return true;
  }
  std::uint32_t receive(std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept override {
    if (inbox.empty()) return 0;
    const auto m = inbox.front();
    inbox.erase(inbox.begin());
    from = 1;
    std::copy(m.begin(), m.end(), out.begin());
    return static_cast<std::uint32_t>(m.size());
  }
};
}  // namespace

TEST(rollback_session, HostileMessagesAreDroppedAndCounted) {
  Runner runner(fixtures::duel_sim(), duel_config());
  Injector net;
  SessionConfig c = SessionConfig::one_player_per_peer(2, 2, 0);
  c.security = WireSecurity::Unauthenticated;  // the bytes below reach the parser unsigned
  c.receive_budget_per_peer = 4096;  // all 2000 in one poll: this test is about the parser
  RollbackSession s(runner, c, &net);
  ASSERT_TRUE(s.status().ok());
  std::uint64_t x = 12345;
  std::uint64_t n = 0;
  for (int i = 0; i < 2000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    std::vector<std::byte> m((x >> 40) % 200 + 1);
    for (auto& b : m) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      b = static_cast<std::byte>(x >> 56);
    }
    // Half of them with a plausible header, to reach the body checks.
    // (version 6, sender 1, 2 players, session 0, nobody declared disconnected, unauthenticated,
    // a fresh sequence number).
    if (i % 2 == 0 && m.size() >= 64) {
      m[0] = std::byte{static_cast<std::uint8_t>(1 + i % 5)};
      m[1] = std::byte{6};
      m[2] = std::byte{1};
      m[3] = std::byte{2};
      for (int k = 4; k < 8; ++k) m[k] = std::byte{0};
      m[20] = m[21] = std::byte{0};
      for (int k = 36; k < 40; ++k) m[k] = std::byte{0};
      const std::size_t seq = m.size() - 24;
      for (int k = 0; k < 8; ++k) m[seq + k] = std::byte{static_cast<std::uint8_t>(k == 0 ? i % 251 + 1 : 0)};
    }
    net.inbox.push_back(std::move(m));
    ++n;
  }
  ASSERT_TRUE(s.poll().ok());
  EXPECT_EQ(s.stats().messages_received, n);
  EXPECT_GT(s.stats().malformed, 1000u);
  EXPECT_EQ(s.stats().desyncs, 0u);
  EXPECT_TRUE(s.status().ok());
}

// Found by the packet fuzzer: a SYNC_REQUEST whose header claims tick 2^63. The reply's frame
// advantage (our tick minus theirs) was computed as a signed difference that overflowed
// (undefined behaviour; UBSan stopped the fuzzer). It saturates at -32767 now.
TEST(rollback_session, AHugeRemoteTickSaturatesTheFrameAdvantage) {
  Runner runner(fixtures::duel_sim(), duel_config());
  Injector net;
  SessionConfig c = SessionConfig::one_player_per_peer(2, 2, 0);
  c.security = WireSecurity::Unauthenticated;  // a hand-made, unsigned message
  RollbackSession s(runner, c, &net);
  ASSERT_TRUE(s.status().ok());
  std::vector<std::byte> m(40 + 32 + 24, std::byte{0});
  m[0] = std::byte{3};  // SYNC_REQUEST
  m[1] = std::byte{6};  // wire version
  m[72] = std::byte{1};  // sequence number 1
  m[2] = std::byte{1};  // sender
  m[3] = std::byte{2};  // players
  m[15] = std::byte{0x80};  // tick = 2^63
  net.inbox.push_back(m);
  ASSERT_TRUE(s.poll().ok());
  EXPECT_TRUE(s.status().ok());
  ASSERT_GE(net.sent, 1u);
  ASSERT_GE(net.last.size(), 24u);
  const auto advantage = static_cast<std::int16_t>(std::to_integer<std::uint16_t>(net.last[22]) |
                                                   std::to_integer<std::uint16_t>(net.last[23]) << 8);
  EXPECT_EQ(advantage, -32767);
}

TEST(rollback_session, ConfirmedHistoryIsAReplayThatVerifies) {
  NetsimOptions o = duel_netsim(2, 300 / kScale, 100, 40, 150000, 11);
  Netsim net(o);
  ASSERT_TRUE(net.run().ok());
  const Replay& r = net.confirmed(1);
  std::vector<std::byte> bytes;
  ASSERT_TRUE(encode_replay(r, bytes).ok());
  Replay back;
  ASSERT_TRUE(decode_replay(bytes, back).ok());
  EXPECT_EQ(back.frame_count(), o.ticks);
  EXPECT_EQ(back.hashes.size(), o.ticks + 1);
  ASSERT_TRUE(check_replay_sim(back, fixtures::duel_sim()).ok());
  // Offline: a fresh world reproduces every recorded hash.
  Runner offline(fixtures::duel_sim(), back.header.config);
  std::vector<std::byte> frame(back.header.frame_bytes());
  for (std::uint64_t t = 0; t < back.frame_count(); ++t) {
    Runner::copy_to_host(fixtures::duel_sim().input_type(), back.frame(t), frame);
    ASSERT_TRUE(offline.step(frame).ok());
    ASSERT_EQ(offline.hash().total, back.hashes[t + 1].total) << t;
  }
}
