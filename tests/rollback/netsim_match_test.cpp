// rollback/netsim_match.h: a whole simulated-network match and its desync evidence as one
// library call (what `lockstep netsim` prints), without the tool.
#include "rollback/rollback_support.h"

#include <lockstep/rollback/netsim_match.h>

#include <gtest/gtest.h>

using namespace rollback_test;

TEST(NetsimMatch, DefaultPlayersIsTheMostTheSimAcceptsUpToThePeers) {
  EXPECT_EQ(netsim_default_players(fixtures::duel_sim(), duel_config(), 4), 2u);
  EXPECT_EQ(netsim_default_players(fixtures::duel_sim(), duel_config(), 2), 2u);
  // Duel takes exactly two players: with one peer no count fits, and one player is tried.
  EXPECT_EQ(netsim_default_players(fixtures::duel_sim(), duel_config(), 1), 1u);
}

TEST(NetsimMatch, AGoodMatchFinishesWithItsRecording) {
  const NetsimOptions o = duel_netsim(2, 120, 40, 10, 50000, 5);
  inspect::TimingTrace trace("test");
  const NetsimMatch m = run_netsim_match(o, true, &trace);
  ASSERT_TRUE(m.error.empty()) << m.error;
  EXPECT_TRUE(m.report.ok());
  EXPECT_FALSE(m.unfinished_only);
  EXPECT_EQ(m.report.desync_count, 0u);
  EXPECT_TRUE(m.evidence.text.empty());
  EXPECT_FALSE(m.evidence.bundle.has_value());
  EXPECT_EQ(m.confirmed.frame_count(), 120u);
  ASSERT_EQ(m.confirmed.hashes.size(), 121u);
  EXPECT_EQ(m.confirmed.hashes.back().total, m.report.offline_final_hash);
  EXPECT_FALSE(trace.events().empty());
}

TEST(NetsimMatch, ADesyncComesWithBothStatesAndABundle) {
  NetsimOptions o;
  o.sim = &broken_sim();
  o.config.players = 2;
  o.peers = 2;
  o.ticks = 200;
  o.hash_interval = 1;
  o.network.latency_us = 30000;
  const NetsimMatch m = run_netsim_match(o, true);
  ASSERT_TRUE(m.error.empty()) << m.error;
  EXPECT_FALSE(m.report.ok());
  EXPECT_FALSE(m.unfinished_only);
  ASSERT_GT(m.report.desync_count, 0u);
  ASSERT_TRUE(m.evidence.bundle.has_value());
  const inspect::Bundle& b = *m.evidence.bundle;
  // The states of the first divergent confirmed tick were kept: the bundle holds both.
  const std::string head = "first divergent confirmed tick " + std::to_string(b.tick) + " (peer ";
  EXPECT_EQ(m.evidence.text.rfind(head, 0), 0u) << m.evidence.text;
  EXPECT_NE(m.evidence.text.find("state diff at tick " + std::to_string(b.tick) + " (peer "), std::string::npos);
  EXPECT_NE(m.evidence.text.find("\n  Counter[0:1].value: 1 | 0\n"), std::string::npos) << m.evidence.text;
  EXPECT_EQ(b.source, "netsim");
  EXPECT_EQ(b.report, m.evidence.text);
  ASSERT_EQ(b.sides.size(), 2u);
  EXPECT_TRUE(b.sides[0].has_state);
  EXPECT_TRUE(b.sides[1].has_state);
  EXPECT_NE(b.sides[0].hash.total, b.sides[1].hash.total);
  EXPECT_EQ(b.inputs_from, 0u);
  EXPECT_EQ(b.inputs.size(), b.tick * m.confirmed.header.frame_bytes());

  // Without a bundle the same words.
  const NetsimMatch again = run_netsim_match(o, false);
  EXPECT_EQ(again.evidence.text, m.evidence.text);
  EXPECT_FALSE(again.evidence.bundle.has_value());
}

TEST(NetsimMatch, ASetupErrorIsReported) {
  NetsimOptions o = duel_netsim(2, 10, 0, 0, 0, 1);
  o.config.players = 3;
  const NetsimMatch m = run_netsim_match(o);
  EXPECT_EQ(m.error.rfind("cannot set up the match: ", 0), 0u) << m.error;
}
