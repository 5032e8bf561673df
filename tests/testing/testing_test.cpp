// lockstep::testing (lockstep/testing.h): each check passes on a correct sim or recording and
// fails with the tool's report — exact tick, system, entity, field and both values — on the
// planted-bug sims (fixtures/planted/) and on tampered recordings.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/fixtures/planted.h>
#include <lockstep/replay/record.h>
#include <lockstep/testing.h>

#include <gtest/gtest.h>

#include <string>

namespace lt = lockstep::testing;
using namespace lockstep;

namespace {
struct Registered : ::testing::Test {
  static void SetUpTestSuite() {
    fixtures::register_builtin_sims();
    fixtures::register_planted_sims();
  }
};
std::string message(const ::testing::AssertionResult& r) { return r.message(); }
replay::SimConfig two_players() {
  replay::SimConfig c;
  c.players = 2;
  c.seed = 7;
  return c;
}
}  // namespace

TEST_F(Registered, TheSkirmishFixtureVerifiesAgainstItsGoldenTrace) {
  const auto r = lt::ReplayFileVerifies(LOCKSTEP_SOURCE_DIR "/fixtures/skirmish/skirmish.replay",
                                        LOCKSTEP_SOURCE_DIR "/fixtures/skirmish/skirmish.trace");
  EXPECT_TRUE(r) << message(r);
}

TEST_F(Registered, ATamperedRecordedHashFailsWithTickAndParts) {
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), two_players(), 3, 40, 0, rec).ok());
  EXPECT_TRUE(lt::ReplayVerifies(rec, nullptr, nullptr, "duel.replay"));
  rec.hashes[17].entities ^= 1;
  const auto r = lt::ReplayVerifies(rec, nullptr, nullptr, "duel.replay");
  ASSERT_FALSE(r);
  EXPECT_EQ(message(r), "DESYNC duel.replay at tick 17 (vs recorded hashes): differs: entities\n");
}

TEST_F(Registered, ASimThatKeepsStateOutsideTheWorldFailsSynctestNamingSystemEntityAndField) {
  EXPECT_TRUE(lt::PassesSynctest(fixtures::duel_sim(), two_players(), 7, 120, 8));
  const auto r = lt::PassesSynctest(*fixtures::find_planted_sim("broken-static"), two_players(), 7, 60, 8);
  ASSERT_FALSE(r);
  const std::string m = message(r);
  EXPECT_EQ(m.substr(0, m.find('\n')),
            "DESYNC broken-static (bot 7) at tick 1 (check distance 8): tick 1: total differs; components: Counter");
  EXPECT_NE(m.find("\nDESYNC tick 0, system broken, Counter[0:1].value 3 | 2 (+3 more)\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\n  Counter[3:1].value: 6 | 5\n"), std::string::npos) << m;
}

TEST_F(Registered, TwoRecordingsOfTheSameInputsAgreeOrNameTheFirstDivergentTick) {
  replay::Replay a, b;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), two_players(), 3, 60, 1, a).ok());
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), two_players(), 3, 60, 1, b).ok());
  EXPECT_TRUE(lt::RecordingsAgree(a, b));
  b.hashes[25].total ^= 1;
  const auto r = lt::RecordingsAgree(a, b);
  ASSERT_FALSE(r);
  const std::string m = message(r);
  EXPECT_EQ(m.substr(0, m.find('\n')), "DESYNC A against B: first divergent tick 25: differs: total; tick 25: equal");
}

TEST_F(Registered, ANetsimMatchStaysInSyncOrNamesTickSystemEntityAndFieldWithBothValues) {
  rollback::NetsimOptions o;
  o.sim = &fixtures::duel_sim();
  o.config = two_players();
  o.ticks = 240;
  EXPECT_TRUE(lt::NetsimStaysInSync(o));
  // Movement reads "the local player" (set by each peer's input layer): each peer simulates
  // differently. A hash interval of 1 keeps the states that name the tick and the system.
  o.sim = fixtures::find_planted_sim("broken-peer");
  o.hash_interval = 1;
  o.network.latency_us = 80000;
  const auto r = lt::NetsimStaysInSync(o);
  ASSERT_FALSE(r);
  const std::string m = message(r);
  EXPECT_NE(m.find("\nfirst divergent confirmed tick 1 (peer 0 vs peer 1: confirmed state hashes differ); states of that "
                   "tick kept\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("\ntick 0 run again on peer 0 and peer 1, stage by stage: DESYNC tick 0, system movement, "
                   "Body[0:1].pos 0.0009765625 | 0 (+15 more)\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("\n  Body[0:1].boost: 1 | 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\n  Body[1:1].boost: 0 | 1\n"), std::string::npos) << m;
}

TEST_F(Registered, AStalePointerIntoTheFirstWorldIsNamedBySystemWithoutNetworkDelay) {
  // broken-stale's scoring writes through a pointer cached from the first world that ran it
  // (peer 0's): peer 1's Score never moves. Once per process: a second match would find the
  // pointer aimed at a world that is gone.
  rollback::NetsimOptions o;
  o.sim = fixtures::find_planted_sim("broken-stale");
  o.config = two_players();
  o.ticks = 240;
  o.hash_interval = 1;
  const auto r = lt::NetsimStaysInSync(o);
  ASSERT_FALSE(r);
  EXPECT_EQ(message(r),
            "netsim broken-stale: 479 desync event(s); peers disagree at confirmed tick 1 (peer 1 vs peer 0 at tick 1: "
            "confirmed state hashes differ); the offline replay differs at tick 1 (offline replay differs from the "
            "confirmed hash at tick 1);\n"
            "peer 1 vs peer 0 at confirmed tick 1: tick 1: total differs; resources\n"
            "tick 0 run again on peer 0 and peer 1, stage by stage: DESYNC tick 0, system scoring, Score.points[0] 120 | 0 "
            "(+2 more)\n"
            "state diff (peer 1 | peer 0):\n"
            "peer 1 tick 1 | peer 0 tick 1\n"
            "differs: Score (3 differences)\n"
            "  Score.points[0]: 0 | 120\n"
            "  Score.points[1]: 0 | 160\n"
            "  Score.ticks: 0 | 1\n"
            "(3 differences; all shown)\n");
}
