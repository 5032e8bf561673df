// Netsim end to end: whole matches over the simulated network agree with each other and
// with an offline replay; the same seed gives the same run.
#include "rollback/rollback_support.h"

#include <lockstep/replay/trace.h>

#include <gtest/gtest.h>

#include <cstdio>

using namespace rollback_test;

namespace {
std::string describe(const NetsimReport& r) {
  std::string s = "finished=" + std::to_string(r.finished) + " frames=" + std::to_string(r.frames) +
                  " desyncs=" + std::to_string(r.desync_count) + " rollbacks=" + std::to_string(r.rollbacks) +
                  " resim=" + std::to_string(r.resimulated_ticks) + " stalls=" + std::to_string(r.stalls) +
                  " maxdepth=" + std::to_string(r.max_rollback_depth) + " " + r.disagreement + " " + r.offline_mismatch;
  for (std::size_t i = 0; i < r.peers.size(); ++i)
    s += "\n peer " + std::to_string(i) + ": cur=" + std::to_string(r.peers[i].current_tick) +
         " conf=" + std::to_string(r.peers[i].confirmed_tick) + " malformed=" + std::to_string(r.peers[i].stats.malformed) +
         " conflicts=" + std::to_string(r.peers[i].stats.input_conflicts) +
         " checks=" + std::to_string(r.peers[i].stats.hash_checks) + " unchecked=" + std::to_string(r.peers[i].stats.hash_unchecked);
  return s;
}
}  // namespace

TEST(netsim, PerfectNetworkNeverRollsBack) {
  NetsimOptions o = duel_netsim(2, 300 / kScale, 0, 0, 0, 3);
  Netsim sim(o);
  ASSERT_TRUE(sim.status().ok()) << sim.status().message();
  const NetsimReport& r = sim.run();
  EXPECT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(r.rollbacks, 0u) << describe(r);
  EXPECT_EQ(r.stalls, 0u) << describe(r);
  EXPECT_EQ(sim.confirmed(0).frame_count(), o.ticks);
}

TEST(netsim, DuelFourPeersBadNetworkAgrees) {
  NetsimOptions o = duel_netsim(4, 1200 / kScale, 150, 50, 200000, 1);
  Netsim sim(o);
  ASSERT_TRUE(sim.status().ok()) << sim.status().message();
  const NetsimReport& r = sim.run();
  std::printf("lockstep-stats netsim duel peers=4 %s\n", describe(r).c_str());
  EXPECT_TRUE(r.ok()) << describe(r);
  EXPECT_GT(r.rollbacks, 0u) << describe(r);
  EXPECT_EQ(r.desync_count, 0u);
  for (const auto& p : r.peers) {
    EXPECT_GT(p.stats.hash_checks, 0u) << describe(r);
    EXPECT_EQ(p.stats.malformed, 0u);
    EXPECT_EQ(p.stats.input_conflicts, 0u);
  }
}

TEST(netsim, SameSeedSameRun) {
  NetsimOptions o = duel_netsim(3, 400 / kScale, 60, 30, 100000, 9);
  o.network.duplicate_ppm = 50000;
  o.network.reorder_ppm = 50000;
  Netsim a(o), b(o);
  const NetsimReport& ra = a.run();
  const NetsimReport& rb = b.run();
  ASSERT_TRUE(ra.ok()) << describe(ra);
  EXPECT_EQ(ra.frames, rb.frames);
  EXPECT_EQ(ra.rollbacks, rb.rollbacks);
  EXPECT_EQ(ra.resimulated_ticks, rb.resimulated_ticks);
  EXPECT_EQ(ra.stalls, rb.stalls);
  EXPECT_EQ(ra.network.delivered, rb.network.delivered);
  EXPECT_EQ(ra.network.lost, rb.network.lost);
  for (std::uint32_t i = 0; i < o.peers; ++i) EXPECT_EQ(a.confirmed(i), b.confirmed(i));
}

TEST(netsim, SkirmishFourPlayers) {
  NetsimOptions o;
  o.sim = &fixtures::skirmish_sim();
  o.config = skirmish_config(4, 200, 5);
  o.peers = 4;
  o.ticks = 300 / kScale;
  o.network.latency_us = 80000;
  o.network.jitter_us = 30000;
  o.network.loss_ppm = 100000;
  o.network_seed = 5;
  Netsim sim(o);
  ASSERT_TRUE(sim.status().ok()) << sim.status().message();
  const NetsimReport& r = sim.run();
  EXPECT_TRUE(r.ok()) << describe(r);
}

TEST(netsim, Skirmish8EightPlayers) {
  NetsimOptions o;
  o.sim = &fixtures::skirmish8_sim();
  o.config = skirmish_config(8, 400, 5);
  o.peers = 8;
  o.ticks = 200 / kScale;
  o.network.latency_us = 30000;
  o.network.jitter_us = 10000;
  o.network.loss_ppm = 50000;
  o.network_seed = 5;
  Netsim sim(o);
  ASSERT_TRUE(sim.status().ok()) << sim.status().message();
  const NetsimReport& r = sim.run();
  EXPECT_TRUE(r.ok()) << describe(r);
  for (std::uint32_t i = 1; i < o.peers; ++i) EXPECT_EQ(sim.confirmed(i), sim.confirmed(0)) << "peer " << i;
}

TEST(netsim, BrokenSimDesyncsAndKeepsEvidence) {
  NetsimOptions o;
  o.sim = &broken_sim();
  o.config.players = 2;
  o.peers = 2;
  o.ticks = 200;
  o.network.latency_us = 30000;
  Netsim sim(o);
  ASSERT_TRUE(sim.status().ok());
  const NetsimReport& r = sim.run();
  EXPECT_FALSE(r.ok());
  ASSERT_GT(r.desync_count, 0u) << describe(r);
  const NetsimDesync& d = r.desyncs.front();
  EXPECT_EQ(d.event.kind, SessionEventKind::Desync);
  EXPECT_NE(d.event.local_total, d.event.remote_total);
  EXPECT_EQ(d.event.tick % o.hash_interval, 0u);
  ASSERT_GT(d.event.diff.component_count, 0u);
  EXPECT_EQ(d.event.diff.components[0], 0u);  // Counter
  RollbackSession& s = sim.session(d.peer);
  ASSERT_TRUE(s.has_desync());
  EXPECT_EQ(s.desync_tick(), d.event.tick);
  ASSERT_NE(s.desync_snapshot(), nullptr);
  EXPECT_EQ(s.desync_snapshot()->tick(), d.event.tick);
  EXPECT_EQ(lockstep::hash_storage(s.desync_snapshot()->view()).total, d.event.local_total);
}
