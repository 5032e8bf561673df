// Session life cycle over the simulated network (simulated clock, so every time is exact):
// handshake, interruption and disconnect with an agreed drop tick, expulsion, restarts,
// time sync under asymmetric latency.
#include "rollback/rollback_support.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/rollback/sim_network.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace rollback_test;

namespace {

constexpr std::uint64_t kFrameUs = 16667;  // 60 Hz

struct Peer {
  std::unique_ptr<Runner> runner;
  std::unique_ptr<RollbackSession> session;
  std::unique_ptr<ReplayLogSink> log;
  std::vector<std::unique_ptr<Bot>> bots;
  std::vector<SessionEvent> events;
  std::vector<std::uint64_t> event_time;
  bool alive = true;
  std::uint64_t skip = 0;  // frames to wait (time sync)
};

struct Match {
  const Sim& sim;
  SimConfig config;
  std::unique_ptr<SimNetwork> net;
  std::vector<Peer> peers;
  std::vector<std::byte> buf;
  std::uint64_t now = 0;
  bool follow_waits = true;

  Match(const Sim& s, const SimConfig& c, std::uint32_t n, const SimNetworkConfig& nc,
        const std::function<void(SessionConfig&, std::uint32_t)>& tweak)
      : sim(s), config(c), peers(n) {
    net = std::make_unique<SimNetwork>(nc);
    for (std::uint32_t i = 0; i < n; ++i) {
      Peer& p = peers[i];
      p.runner = std::make_unique<Runner>(sim, config);
      SessionConfig sc = SessionConfig::one_player_per_peer(n, config.players, i);
      sc.input_delay = 2;
      sc.max_prediction = 8;
      sc.hash_interval = 8;
      sc.session_id = 5;
      sc.incarnation = 1000 + i;
      sc.match_key = insecure_test_key(5);
      tweak(sc, i);
      p.session = std::make_unique<RollbackSession>(*p.runner, sc, &net->endpoint(i));
      p.log = std::make_unique<ReplayLogSink>(*p.runner);
      p.session->set_confirmed_sink(p.log.get());
      p.bots.resize(config.players);
      for (std::uint32_t q = 0; q < config.players; ++q)
        if (p.session->is_local(q)) p.bots[q] = sim.make_bot(config, 9, q);
    }
    buf.resize(sim.input_type().size);
  }

  // One frame of peer i at the current time: inputs, advance (or wait), events.
  void frame(std::uint32_t i, std::uint64_t ticks) {
    Peer& p = peers[i];
    if (!p.alive) return;
    RollbackSession& s = *p.session;
    s.set_time(now);
    Status st;
    if (s.current_tick() < ticks && p.skip == 0) {
      for (std::uint32_t q = 0; q < config.players && st.ok(); ++q) {
        if (p.bots[q] == nullptr || !s.wants_local_input(q) || s.local_input_tick(q) >= ticks) continue;
        p.bots[q]->generate(s.local_input_tick(q), p.runner->world(), buf);
        st = s.add_local_input(q, buf);
      }
      if (st.ok()) st = s.advance();
    } else {
      if (p.skip > 0) --p.skip;
      st = s.poll();
    }
    ASSERT_TRUE(st.ok() || !s.status().ok()) << st.message();
    for (SessionEvent e; s.poll_event(e);) {
      if (e.kind == SessionEventKind::WaitRecommendation && follow_waits) p.skip += e.frames;
      if (e.kind == SessionEventKind::Rollback || e.kind == SessionEventKind::Stall) continue;
      p.events.push_back(e);
      p.event_time.push_back(now);
    }
  }
  void step_all(std::uint64_t ticks) {
    net->advance_to(now);
    for (std::uint32_t i = 0; i < peers.size(); ++i) frame(i, ticks);
  }
  bool finished(std::uint64_t ticks) const {
    for (const Peer& p : peers)
      if (p.alive && p.session->confirmed_tick() < ticks) return false;
    return true;
  }
  const SessionEvent* find(std::uint32_t i, SessionEventKind k, std::uint32_t peer, std::uint64_t* at = nullptr) const {
    const Peer& p = peers[i];
    for (std::size_t n = 0; n < p.events.size(); ++n)
      if (p.events[n].kind == k && p.events[n].peer == peer) {
        if (at != nullptr) *at = p.event_time[n];
        return &p.events[n];
      }
    return nullptr;
  }
};

void expect_same_history(const Replay& a, const Replay& b, std::uint64_t ticks) {
  ASSERT_GE(a.frame_count(), ticks);
  ASSERT_GE(b.frame_count(), ticks);
  for (std::uint64_t t = 0; t < ticks; ++t) {
    const auto x = a.frame(t);
    const auto y = b.frame(t);
    ASSERT_TRUE(std::equal(x.begin(), x.end(), y.begin())) << "confirmed inputs differ at tick " << t;
    ASSERT_EQ(a.hashes[t + 1].total, b.hashes[t + 1].total) << "confirmed hashes differ after tick " << t;
  }
}

// A fresh world replaying the confirmed inputs reproduces every confirmed hash.
void expect_offline_replay(const Sim& sim, const Replay& r, std::uint64_t ticks) {
  Runner offline(sim, r.header.config);
  std::vector<std::byte> frame(r.header.frame_bytes());
  for (std::uint64_t t = 0; t < ticks; ++t) {
    Runner::copy_to_host(sim.input_type(), r.frame(t), frame);
    ASSERT_TRUE(offline.step(frame).ok());
    ASSERT_EQ(offline.hash().total, r.hashes[t + 1].total) << "tick " << t;
  }
}

}  // namespace

TEST(rollback_lifecycle, HandshakeTakesTheConfiguredRoundTripsBeforeTickZero) {
  SimNetworkConfig nc;
  nc.peers = 2;
  nc.conditions.latency_us = 30000;  // 30 ms one way: a round trip is 60 ms, ~4 frames
  Match m(fixtures::duel_sim(), duel_config(), 2, nc, [](SessionConfig& c, std::uint32_t) { c.sync_roundtrips = 5; });
  std::uint64_t frames = 0;
  while (!(m.peers[0].session->running() && m.peers[1].session->running()) && frames < 200) {
    EXPECT_EQ(m.peers[0].session->current_tick(), 0u);
    EXPECT_EQ(m.peers[1].session->current_tick(), 0u);
    m.step_all(100);
    m.now += kFrameUs;
    ++frames;
  }
  ASSERT_LT(frames, 200u);
  for (std::uint32_t i = 0; i < 2; ++i) {
    const std::uint32_t other = 1 - i;
    // Synchronizing 1/5 .. 5/5, then Synchronized, then Running, in that order.
    std::vector<std::uint32_t> counts;
    for (const SessionEvent& e : m.peers[i].events)
      if (e.kind == SessionEventKind::Synchronizing) {
        EXPECT_EQ(e.peer, other);
        EXPECT_EQ(e.total, 5u);
        counts.push_back(e.count);
      }
    EXPECT_EQ(counts, (std::vector<std::uint32_t>{1, 2, 3, 4, 5}));
    std::uint64_t synced_at = 0, running_at = 0;
    ASSERT_NE(m.find(i, SessionEventKind::Synchronized, other, &synced_at), nullptr);
    ASSERT_NE(m.find(i, SessionEventKind::Running, i, &running_at), nullptr);
    EXPECT_EQ(synced_at, running_at);
    // Five sequential round trips of 60 ms cannot finish before 300 ms.
    EXPECT_GE(running_at, 300000u);
    EXPECT_GT(m.peers[i].session->peer_status(other).rtt_us, 0u);
  }
  while (!m.finished(120) && frames < 2000) {
    m.step_all(120);
    m.now += kFrameUs;
    ++frames;
  }
  ASSERT_TRUE(m.finished(120));
  expect_same_history(m.peers[0].log->replay(), m.peers[1].log->replay(), 120);
  // Ping: 60 ms round trip measured to within a frame of holding time.
  const std::uint32_t rtt = m.peers[0].session->peer_status(1).rtt_us;
  EXPECT_GE(rtt, 55000u);
  EXPECT_LE(rtt, 80000u);
}

TEST(rollback_lifecycle, KilledPeerIsDisconnectedAndEveryoneAgreesOnItsDropTick) {
  const std::uint64_t ticks = 600 / kScale;
  const std::uint64_t kill_frame = 200 / kScale;
  SimNetworkConfig nc;
  nc.peers = 3;
  nc.seed = 3;
  nc.conditions.latency_us = 40000;
  nc.conditions.jitter_us = 20000;
  nc.conditions.loss_ppm = 150000;
  nc.extra_latency_us[0][1] = 30000;  // asymmetric
  Match m(fixtures::skirmish_sim(), skirmish_config(3, 50), 3, nc, [](SessionConfig& c, std::uint32_t) {
    c.sync_roundtrips = 3;
    c.disconnect_notify_start_us = 200000;
    c.disconnect_timeout_us = 500000;
  });
  std::uint64_t frame = 0, killed_at = 0;
  for (; frame < 20 * ticks && !m.finished(ticks); ++frame, m.now += kFrameUs) {
    if (frame == kill_frame) {
      m.peers[2].alive = false;  // no more frames, no more messages
      killed_at = m.now;
    }
    m.step_all(ticks);
  }
  ASSERT_TRUE(m.finished(ticks)) << "survivors stuck at " << m.peers[0].session->confirmed_tick();
  std::uint64_t drop = 0;
  for (std::uint32_t i = 0; i < 2; ++i) {
    std::uint64_t interrupted_at = 0, disconnected_at = 0;
    const SessionEvent* in = m.find(i, SessionEventKind::NetworkInterrupted, 2, &interrupted_at);
    const SessionEvent* dc = m.find(i, SessionEventKind::Disconnected, 2, &disconnected_at);
    ASSERT_NE(in, nullptr) << "peer " << i;
    ASSERT_NE(dc, nullptr) << "peer " << i;
    EXPECT_LT(interrupted_at, disconnected_at);
    // Within the timeout of the last message heard (sent at the latest at the kill), plus the
    // longest one-way delay and a frame — or earlier, when the other survivor said so first.
    EXPECT_LE(disconnected_at, killed_at + 500000 + 90000 + kFrameUs) << "peer " << i;
    EXPECT_GE(disconnected_at, killed_at) << "peer " << i;
    const SessionEvent* agreed = m.find(i, SessionEventKind::DisconnectAgreed, 2);
    ASSERT_NE(agreed, nullptr);
    EXPECT_EQ(agreed->player, 2u);
    if (i == 0) drop = agreed->tick;
    EXPECT_EQ(agreed->tick, drop) << "the survivors disagree on the drop tick";
    EXPECT_EQ(m.peers[i].session->peer_status(2).state, PeerState::Disconnected);
    EXPECT_EQ(m.peers[i].session->peer_status(2).disconnect_tick, drop);
    EXPECT_TRUE(m.peers[i].session->status().ok());
  }
  EXPECT_GT(drop, 2u);
  EXPECT_LT(drop, ticks);
  const Replay& a = m.peers[0].log->replay();
  expect_same_history(a, m.peers[1].log->replay(), ticks);
  // From the drop tick on, player 2's input is the default (all zero bytes).
  const std::uint32_t in = fixtures::skirmish_sim().input_type().size;
  for (std::uint64_t t = drop; t < ticks; ++t) {
    const auto f = a.frame(t);
    for (std::uint32_t b = 0; b < in; ++b) ASSERT_EQ(f[2 * in + b], std::byte{0}) << "tick " << t;
  }
  expect_offline_replay(fixtures::skirmish_sim(), a, ticks);
}

TEST(rollback_lifecycle, PeerDeclaredDisconnectedByOthersLeavesWithAnError) {
  SimNetworkConfig nc;
  nc.peers = 2;
  nc.conditions.latency_us = 10000;
  Match m(fixtures::duel_sim(), duel_config(), 2, nc, [](SessionConfig& c, std::uint32_t) {
    c.sync_roundtrips = 2;
    c.disconnect_timeout_us = 300000;
  });
  for (int f = 0; f < 60; ++f, m.now += kFrameUs) m.step_all(1000);
  ASSERT_TRUE(m.peers[1].session->running());
  // Peer 1 freezes for a second (a debugger, a swapped-out laptop), then comes back.
  m.peers[1].alive = false;
  for (int f = 0; f < 60; ++f, m.now += kFrameUs) m.step_all(1000);
  ASSERT_NE(m.find(0, SessionEventKind::Disconnected, 1), nullptr);
  m.peers[1].alive = true;
  for (int f = 0; f < 30 && m.peers[1].session->status().ok(); ++f, m.now += kFrameUs) m.step_all(1000);
  EXPECT_FALSE(m.peers[1].session->status().ok());
  EXPECT_EQ(m.peers[1].session->status().code(), ErrorCode::Mismatch);
  EXPECT_NE(m.find(1, SessionEventKind::Disconnected, 1), nullptr);  // "this peer" was disconnected
  EXPECT_TRUE(m.peers[0].session->status().ok());
  EXPECT_EQ(m.peers[0].session->peer_status(1).state, PeerState::Disconnected);
  EXPECT_EQ(m.peers[0].session->peer_status(1).disconnect_tick, m.find(0, SessionEventKind::DisconnectAgreed, 1)->tick);
}

TEST(rollback_lifecycle, RestartedPeerIsRejectedNotSilentlyResynced) {
  SimNetworkConfig nc;
  nc.peers = 2;
  nc.conditions.latency_us = 10000;
  Match m(fixtures::duel_sim(), duel_config(), 2, nc, [](SessionConfig& c, std::uint32_t) { c.sync_roundtrips = 2; });
  for (int f = 0; f < 60; ++f, m.now += kFrameUs) m.step_all(1000);
  ASSERT_GT(m.peers[0].session->current_tick(), 20u);
  // Peer 1 "restarts": a fresh world and session with a new incarnation on the same endpoint.
  Peer& p = m.peers[1];
  p.runner = std::make_unique<Runner>(fixtures::duel_sim(), duel_config());
  SessionConfig sc = SessionConfig::one_player_per_peer(2, 2, 1);
  sc.input_delay = 2;
  sc.hash_interval = 8;
  sc.session_id = 5;
  sc.sync_roundtrips = 2;
  sc.incarnation = 4242;
  sc.match_key = insecure_test_key(5);
  p.session = std::make_unique<RollbackSession>(*p.runner, sc, &m.net->endpoint(1));
  p.bots[1] = fixtures::duel_sim().make_bot(duel_config(), 9, 1);
  for (int f = 0; f < 30 && p.session->status().ok(); ++f, m.now += kFrameUs) m.step_all(1000);
  EXPECT_FALSE(p.session->status().ok());
  EXPECT_NE(std::string(p.session->status().message()).find("rejected the handshake"), std::string::npos);
  EXPECT_EQ(p.session->current_tick(), 0u);
  EXPECT_GT(m.peers[0].session->stats().stale, 0u);
  EXPECT_GT(m.peers[0].session->stats().sync_rejections_sent, 0u);
  EXPECT_EQ(m.peers[0].session->stats().desyncs, 0u);
}

// Peer 1's clock runs 5 % fast (an extra frame every 20) over an asymmetric link. Without time
// sync it drifts ahead until the prediction window stops it; with it, the gap stays within
//   max_frame_advantage (2)
//   + the bias an asymmetric link puts on any one-way estimate: (70 − 10) / 2 ms = 1.8 → 2
//   + the drift between two estimates: 5 % × (interval 32 + samples 16) frames = 2.4 → 3
//   + 1 for the integer estimate.
namespace {
std::int64_t worst_gap(bool time_sync) {
  SimNetworkConfig nc;
  nc.peers = 2;
  nc.conditions.latency_us = 10000;
  nc.extra_latency_us[1][0] = 60000;  // 1 → 0 takes 70 ms, 0 → 1 takes 10 ms
  Match m(fixtures::duel_sim(), duel_config(), 2, nc, [&](SessionConfig& c, std::uint32_t) {
    c.max_prediction = 16;
    c.sync_roundtrips = 2;
    c.max_frame_advantage = time_sync ? 2 : 0;
  });
  const std::uint64_t ticks = 1500 / kScale;
  std::int64_t worst = 0;
  for (std::uint64_t f = 0; f < 3 * ticks && !m.finished(ticks); ++f, m.now += kFrameUs) {
    m.step_all(ticks);
    if (f % 20 == 0) m.frame(1, ticks);  // the fast clock
    const auto a = static_cast<std::int64_t>(m.peers[1].session->current_tick());
    const auto b = static_cast<std::int64_t>(m.peers[0].session->current_tick());
    if (f > 300 / kScale && a < static_cast<std::int64_t>(ticks) - 1) worst = std::max(worst, a - b < 0 ? b - a : a - b);
  }
  EXPECT_TRUE(m.finished(ticks));
  expect_same_history(m.peers[0].log->replay(), m.peers[1].log->replay(), ticks);
  if (time_sync) {
    EXPECT_GT(m.peers[1].session->stats().wait_recommendations, 0u);
  }
  return worst;
}
}  // namespace

TEST(rollback_lifecycle, TimeSyncKeepsTheFrameAdvantageBoundedUnderAsymmetricLatency) {
  const std::int64_t bound = 2 + 2 + 3 + 1;
  const std::int64_t with = worst_gap(true);
  const std::int64_t without = worst_gap(false);
  std::printf("lockstep-stats time_sync worst_gap_with=%lld without=%lld bound=%lld\n", static_cast<long long>(with),
              static_cast<long long>(without), static_cast<long long>(bound));
  EXPECT_LE(with, bound);
  EXPECT_GT(without, bound);  // the test can fail: without time sync the gap exceeds the bound
}
