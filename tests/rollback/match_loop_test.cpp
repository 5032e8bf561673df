// The frame loop as a library (rollback/match_loop.h): what a game calls once per frame. Peers
// over the deterministic in-process network, each driven by its own MatchLoop and host; the
// test checks what the hosts were asked for, what the recordings hold, and how the loop ends.
#include "rollback/rollback_support.h"

#include <lockstep/rollback/match_loop.h>
#include <lockstep/rollback/sim_network.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>
#include <memory>
#include <utility>
#include <vector>

using namespace rollback_test;

namespace {

// Plays the sim's bot for its local player and remembers every input it was asked for.
class RecordingHost final : public MatchHost {
 public:
  RecordingHost(const Sim& sim, const SimConfig& config, std::uint32_t player, const World& world)
      : bot_(sim.make_bot(config, 7, player)), world_(world) {}
  void local_input(std::uint32_t player, std::uint64_t tick, std::span<std::byte> out) override {
    bot_->generate(tick, world_, out);
    given[{player, tick}] = std::vector<std::byte>(out.begin(), out.end());
  }
  void on_event(const SessionEvent& e) override { events.push_back(e.kind); }
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<std::byte>> given;
  std::vector<SessionEventKind> events;

 private:
  std::unique_ptr<Bot> bot_;
  const World& world_;
};

struct Peer {
  std::unique_ptr<Runner> runner;
  std::unique_ptr<RollbackSession> session;
  std::unique_ptr<ReplayLogSink> log;
  std::unique_ptr<MatchLoop> loop;
  std::unique_ptr<RecordingHost> host;
};

struct Match {
  SimNetwork net;
  std::vector<Peer> peers;
  explicit Match(std::uint32_t n) : net([n] {
      SimNetworkConfig nc;
      nc.peers = n;
      nc.conditions.latency_us = 25000;
      nc.conditions.jitter_us = 10000;
      nc.seed = 3;
      return nc;
    }()) {}
};

// `players` players, peers beyond them spectate `delay` ticks behind.
void build(Match& m, const Sim& sim, const SimConfig& config, std::uint32_t n, std::uint64_t end, std::uint32_t delay = 0) {
  m.peers.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    Peer& p = m.peers[i];
    p.runner = std::make_unique<Runner>(sim, config);
    SessionConfig sc = SessionConfig::one_player_per_peer(n, config.players, i);
    sc.input_delay = 2;
    sc.max_prediction = i < config.players ? 8 : 0;
    sc.hash_interval = 4;
    sc.sync_roundtrips = 2;
    sc.incarnation = 100 + i;
    sc.match_key = insecure_test_key(9);
    p.session = std::make_unique<RollbackSession>(*p.runner, sc, &m.net.endpoint(i));
    ASSERT_TRUE(p.session->status().ok()) << p.session->status().message();
    p.log = std::make_unique<ReplayLogSink>(*p.runner);
    p.session->set_confirmed_sink(p.log.get());
    MatchLoopConfig mc;
    mc.end_tick = end;
    mc.linger_us = 100000;
    mc.spectator = i >= config.players;
    mc.spectator_delay_ticks = delay;
    p.loop = std::make_unique<MatchLoop>(*p.session, mc);
    p.host = std::make_unique<RecordingHost>(sim, config, i, p.runner->world());
  }
}

// Frames at 60 Hz on the simulated clock until every loop is finished; false on a loop error.
bool run(Match& m, int max_frames = 4000) {
  std::uint64_t now = 0;
  for (int f = 0; f < max_frames; ++f, now += 16667) {
    m.net.advance_to(now);
    bool all = true;
    for (Peer& p : m.peers) {
      if (p.loop->finished()) continue;
      all = false;
      if (!p.loop->frame(now, *p.host).ok()) return false;
    }
    if (all) return true;
  }
  return false;
}

TEST(MatchLoop, TwoPeersPlayTheHostsInputsToTheEndAndStop) {
  Match m(2);
  const SimConfig config = duel_config(4);
  constexpr std::uint64_t kEnd = 240;
  build(m, fixtures::duel_sim(), config, 2, kEnd);
  ASSERT_TRUE(run(m));
  const std::uint32_t input_bytes = fixtures::duel_sim().input_type().size;
  for (std::uint32_t i = 0; i < 2; ++i) {
    const Peer& p = m.peers[i];
    EXPECT_TRUE(p.loop->finished());
    EXPECT_TRUE(p.loop->confirmed_to_end());
    EXPECT_EQ(p.session->confirmed_tick(), kEnd);
    EXPECT_EQ(p.loop->stats().desyncs, 0u);
    EXPECT_TRUE(p.loop->first_desync().empty());
    // Asked once per tick from the input delay up to the last tick, for its own player only.
    ASSERT_EQ(p.host->given.size(), kEnd - 2);
    EXPECT_EQ(p.host->given.begin()->first, std::make_pair(i, std::uint64_t{2}));
    EXPECT_EQ(p.host->given.rbegin()->first, std::make_pair(i, kEnd - 1));
    // Both recordings hold exactly what each host gave, at the tick it was given for.
    for (const Peer& q : m.peers) {
      const Replay& r = q.log->replay();
      ASSERT_GE(r.frame_count(), kEnd);
      for (const auto& [key, bytes] : p.host->given) {
        const std::span<const std::byte> frame = r.frame(key.second);
        ASSERT_EQ(std::vector<std::byte>(frame.begin() + key.first * input_bytes, frame.begin() + (key.first + 1) * input_bytes),
                  bytes)
            << "player " << key.first << " tick " << key.second;
      }
    }
    EXPECT_NE(std::find(p.host->events.begin(), p.host->events.end(), SessionEventKind::Running), p.host->events.end());
  }
  EXPECT_EQ(m.peers[0].log->replay().inputs, m.peers[1].log->replay().inputs);
  EXPECT_EQ(m.peers[0].runner->hash().total, m.peers[1].runner->hash().total);
  // Open past the end: the loop stops feeding inputs, frames only poll.
  const std::uint64_t at = m.peers[0].session->current_tick();
  ASSERT_TRUE(m.peers[0].loop->frame(99000000, *m.peers[0].host).ok());
  EXPECT_EQ(m.peers[0].session->current_tick(), at);
}

TEST(MatchLoop, SpectatorFollowsBehindAndEndsOnThePlayersState) {
  Match m(3);
  const SimConfig config = duel_config(5);
  constexpr std::uint64_t kEnd = 300;
  build(m, fixtures::duel_sim(), config, 3, kEnd, /*delay=*/20);
  // While the players run, the spectator stays at least the delay behind the furthest of them
  // (it only knows their reported ticks, which lag behind) and, caught up, not much more.
  std::uint64_t min_gap = ~std::uint64_t{0}, max_gap = 0;
  std::uint64_t now = 0;
  bool all = false;
  for (int f = 0; f < 4000 && !all; ++f, now += 16667) {
    m.net.advance_to(now);
    all = true;
    for (Peer& p : m.peers) {
      if (p.loop->finished()) continue;
      all = false;
      ASSERT_TRUE(p.loop->frame(now, *p.host).ok());
    }
    const std::uint64_t lead = std::max(m.peers[0].session->current_tick(), m.peers[1].session->current_tick());
    const std::uint64_t watcher = m.peers[2].session->current_tick();
    if (lead >= 100 && lead < 200) {
      min_gap = std::min(min_gap, lead - std::min(lead, watcher));
      max_gap = std::max(max_gap, lead - std::min(lead, watcher));
    }
  }
  ASSERT_TRUE(all);
  EXPECT_GE(min_gap, 20u);
  EXPECT_LE(max_gap, 40u);
  EXPECT_TRUE(m.peers[2].host->given.empty()) << "a spectator has no local player";
  EXPECT_EQ(m.peers[2].session->current_tick(), kEnd);
  EXPECT_EQ(m.peers[2].runner->hash().total, m.peers[0].runner->hash().total);
  EXPECT_EQ(m.peers[2].log->replay().inputs, m.peers[0].log->replay().inputs);
}

// Two peers of the broken sim (state outside the world): they desync within a few ticks.
void build_broken(Match& m) {
  hidden_counter() = 0;
  SimConfig config;
  config.players = 2;
  build(m, broken_sim(), config, 2, 200);
}

TEST(MatchLoop, FirstDesyncIsNamedAndItsBundlesAreBuilt) {
  Match m(2);
  build_broken(m);
  for (Peer& p : m.peers) ASSERT_TRUE(p.session->status().ok());
  (void)run(m, 2000);
  const Peer& p = m.peers[0];
  ASSERT_TRUE(p.session->has_desync());
  ASSERT_GE(p.loop->stats().desyncs, 1u);
  const std::string prefix = "tick " + std::to_string(p.session->desync_tick()) + " vs peer 1: ours ";
  EXPECT_EQ(p.loop->first_desync().rfind(prefix, 0), 0u) << p.loop->first_desync();
  EXPECT_NE(p.loop->first_desync().find("Counter"), std::string::npos) << p.loop->first_desync();
  const DesyncBundles d = m.peers[0].loop->desync_bundles("peer0");
  ASSERT_EQ(d.bundles.size(), p.session->desync_count());
  EXPECT_EQ(d.bundles[0].tick, p.session->desync_tick());
  EXPECT_FALSE(d.remote_state);
  EXPECT_EQ(d.note, "no state exchange: its hashes only");
}

TEST(MatchLoop, ADesyncBundleHoldsBothSidesThroughTheStateExchange) {
  Match m(2);
  build_broken(m);
  SimNetworkConfig side_config;  // the exchanges' own channel beside the sessions'
  side_config.conditions.latency_us = 20000;
  side_config.seed = 11;
  SimNetwork side(side_config);
  StateExchange x0(side.endpoint(0)), x1(side.endpoint(1));
  m.peers[0].loop->attach_state_exchange(x0);
  m.peers[1].loop->attach_state_exchange(x1);
  std::uint64_t now = 0;
  for (int f = 0; f < 4000 && !(m.peers[0].loop->finished() && m.peers[1].loop->finished()); ++f, now += 16667) {
    m.net.advance_to(now);
    side.advance_to(now);
    for (Peer& p : m.peers) ASSERT_TRUE(p.loop->frame(now, *p.host).ok());  // finished peers still serve
  }
  ASSERT_TRUE(m.peers[0].loop->finished());
  ASSERT_TRUE(m.peers[0].session->has_desync());
  const DesyncBundles d = m.peers[0].loop->desync_bundles("peer0");
  ASSERT_FALSE(d.bundles.empty());
  EXPECT_TRUE(d.remote_state);
  EXPECT_EQ(d.note, "with peer 1's state");
  const inspect::Bundle& b = d.bundles[0];
  EXPECT_EQ(b.tick, m.peers[0].session->desync_tick());
  ASSERT_TRUE(b.sides[0].has_state);
  ASSERT_TRUE(b.sides[1].has_state);
  EXPECT_EQ(b.sides[1].state.tick, b.tick);
  EXPECT_NE(b.sides[0].hash.total, b.sides[1].hash.total);
  EXPECT_GE(x1.requests_served(), 1u);
}

TEST(FramePacer, SleepsToTheNextFrameAndDoesNotBurstAfterAStall) {
  FramePacer pacer(100);  // 10 ms frames
  const std::uint64_t t0 = pacer.now_us();
  pacer.wait_next_frame();
  pacer.wait_next_frame();
  EXPECT_GE(pacer.now_us() - t0, 19000u);
  std::this_thread::sleep_for(std::chrono::milliseconds(80));  // a stall of 8 frames
  const std::uint64_t t1 = pacer.now_us();
  pacer.wait_next_frame();  // restarts from now: returns at once, no catch-up burst later
  pacer.wait_next_frame();
  EXPECT_GE(pacer.now_us() - t1, 9000u);
}

TEST(PeerStateName, NamesEveryState) {
  EXPECT_STREQ(peer_state_name(PeerState::Local), "local");
  EXPECT_STREQ(peer_state_name(PeerState::Synchronizing), "syncing");
  EXPECT_STREQ(peer_state_name(PeerState::Running), "running");
  EXPECT_STREQ(peer_state_name(PeerState::Interrupted), "interrupted");
  EXPECT_STREQ(peer_state_name(PeerState::Disconnected), "disconnected");
}

}  // namespace
