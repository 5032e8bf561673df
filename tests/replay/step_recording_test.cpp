// replay/step_recording.h: the loop behind `lockstep run`, `trace` and `snapshot` as a library
// call: every tick's hash is the recorded one, a callback can stop it, steps are timed.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/step_recording.h>

#include <gtest/gtest.h>

namespace lockstep::replay {
namespace {

TEST(StepRecording, SeesEveryTicksRecordedHashAndTimesEveryStep) {
  SimConfig c;
  c.players = 2;
  c.seed = 3;
  Replay rec;
  ASSERT_TRUE(record_bots(fixtures::duel_sim(), c, 5, 50, 0, rec).ok());
  Runner runner(fixtures::duel_sim(), c);
  std::vector<std::uint64_t> seen, step_ns;
  const SteppedRecording r = step_recording(
      runner, fixtures::duel_sim(), rec, "d.replay",
      [&](std::uint64_t tick, const StateHash& h) {
        seen.push_back(tick);
        EXPECT_EQ(h.total, rec.hashes[tick].total) << "tick " << tick;
        return true;
      },
      &step_ns);
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.stopped);
  ASSERT_EQ(seen.size(), 51u);
  EXPECT_EQ(seen.front(), 0u);
  EXPECT_EQ(seen.back(), 50u);
  EXPECT_EQ(step_ns.size(), 50u);
  EXPECT_EQ(runner.world().tick(), 50u);
  EXPECT_EQ(runner.hash().total, rec.hashes.back().total);
}

TEST(StepRecording, TheCallbackStopsTheRun) {
  SimConfig c;
  c.players = 2;
  c.seed = 3;
  Replay rec;
  ASSERT_TRUE(record_bots(fixtures::duel_sim(), c, 5, 50, 0, rec).ok());
  Runner runner(fixtures::duel_sim(), c);
  const SteppedRecording r =
      step_recording(runner, fixtures::duel_sim(), rec, "d.replay", [](std::uint64_t tick, const StateHash&) { return tick < 20; });
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.run_ns, 0u);
  EXPECT_EQ(runner.world().tick(), 20u);
  Runner fresh(fixtures::duel_sim(), c);
  EXPECT_TRUE(step_recording(fresh, fixtures::duel_sim(), rec, "d.replay", [](std::uint64_t, const StateHash&) { return false; })
                  .stopped);
  EXPECT_EQ(fresh.world().tick(), 0u);
}

}  // namespace
}  // namespace lockstep::replay
