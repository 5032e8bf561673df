// arena's own test suite: the checks a game runs on itself with lockstep::testing
// (lockstep/testing.h; docs/embedding.md, "Your game's tests"). No tool is spawned.
#include "arena.h"

#include <lockstep/replay/record.h>
#include <lockstep/replay/sim.h>
#include <lockstep/rollback/netsim.h>
#include <lockstep/testing.h>

#include <gtest/gtest.h>

namespace lt = lockstep::testing;
using lockstep::replay::Replay;
using lockstep::replay::SimConfig;

namespace {
const lockstep::replay::Sim& arena_sim() {
  arena::register_sims();
  return *lockstep::replay::find_sim("arena");
}
SimConfig config(std::uint32_t players, std::uint32_t units, std::uint64_t seed) {
  SimConfig c;
  c.players = players;
  c.units = units;
  c.seed = seed;
  return c;
}
}  // namespace

TEST(Arena, ARecordedMatchVerifies) {
  Replay rec;
  ASSERT_TRUE(lockstep::replay::record_bots(arena_sim(), config(4, 30, 5), 5, 300, 50, rec).ok());
  EXPECT_TRUE(lt::ReplayVerifies(rec, &arena_sim(), nullptr, "arena.replay"));
}

TEST(Arena, PassesSynctestAtDistance8) {
  EXPECT_TRUE(lt::PassesSynctest(arena_sim(), config(3, 20, 9), 9, 200, 8));
}

TEST(Arena, TwoRecordingsOfTheSameMatchAgree) {
  Replay a, b;
  ASSERT_TRUE(lockstep::replay::record_bots(arena_sim(), config(2, 20, 3), 3, 200, 0, a).ok());
  ASSERT_TRUE(lockstep::replay::record_bots(arena_sim(), config(2, 20, 3), 3, 200, 0, b).ok());
  EXPECT_TRUE(lt::RecordingsAgree(a, b, "first", "second"));
}

TEST(Arena, ANetsimMatchOverALossyNetworkStaysInSync) {
  lockstep::rollback::NetsimOptions o;
  o.sim = &arena_sim();
  o.config = config(2, 20, 4);
  o.peers = 3;  // two players and a spectator
  o.ticks = 300;
  o.network.loss_ppm = 100000;
  o.network.latency_us = 60000;
  EXPECT_TRUE(lt::NetsimStaysInSync(o));
}

// What arena-play shows a player: the score line, labelled, and the result at the end.
TEST(Arena, TheScoreLineNamesTeamsAndKills) {
  arena::Score s{};
  s.kills[0] = 3;
  s.kills[1] = 1;
  EXPECT_EQ(arena::score_text(s, 2), "score (kills): red 3, blue 1");
  s.kills[2] = 7;
  EXPECT_EQ(arena::score_text(s, 3), "score (kills): red 3, blue 1, green 7");
}

TEST(Arena, TheResultNamesTheWinnerOrADraw) {
  arena::Score s{};
  EXPECT_EQ(arena::result_text(s, 2), "no winner: no kills");
  s.kills[1] = 4;
  EXPECT_EQ(arena::result_text(s, 2), "blue wins, 4 kills to 0");
  s.kills[0] = 4;
  EXPECT_EQ(arena::result_text(s, 2), "draw: 4 kills each");
  s.kills[2] = 9;
  EXPECT_EQ(arena::result_text(s, 3), "green wins, 9 kills to 4 (red)");
}
