// inspect/state_source.h: one call reads a state from a snapshot file, a bundle side or a
// replay at a tick, and each agrees with the state it was made from.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/forensics.h>
#include <lockstep/inspect/state_source.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/verify.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace lockstep;

namespace {

namespace fs = std::filesystem;

replay::SimConfig duel_config() {
  replay::SimConfig c;
  c.players = 2;
  c.seed = 3;
  return c;
}

// One directory per test: ctest runs this file's tests side by side.
fs::path scratch() {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const fs::path d = fs::temp_directory_path() / ("lockstep-state-source-test-" + test);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(StateSource, ReadsAReplayAtATickASnapshotAndABundleSide) {
  fixtures::register_builtin_sims();
  const fs::path dir = scratch();
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 40, 10, rec).ok());
  const std::string replay_path = (dir / "d.replay").string();
  ASSERT_TRUE(replay::write_replay_file(replay_path, rec).ok());

  inspect::StateSource at25;
  replay::OpenFailure why;
  ASSERT_TRUE(inspect::load_state_source(replay_path, 25, 0, at25, why)) << why.message;
  EXPECT_EQ(at25.label, replay_path + "@25");
  EXPECT_EQ(at25.state.tick, 25u);
  EXPECT_FALSE(at25.is_bundle);

  // The same tick's world written as a snapshot file reads back as the same state.
  replay::Runner runner(fixtures::duel_sim(), duel_config());
  std::vector<std::byte> frame(runner.frame_bytes());
  for (std::uint64_t t = 0; t < 25; ++t) {
    replay::Runner::copy_to_host(fixtures::duel_sim().input_type(), rec.frame(t), frame);
    ASSERT_TRUE(runner.step(frame).ok());
  }
  const std::string snap_path = (dir / "s.snap").string();
  ASSERT_TRUE(write_snapshot_file(snap_path, runner.world()).ok());
  inspect::StateSource snap;
  ASSERT_TRUE(inspect::load_state_source(snap_path, std::nullopt, 0, snap, why)) << why.message;
  EXPECT_EQ(snap.label, snap_path);
  EXPECT_EQ(snap.state.tick, 25u);
  EXPECT_EQ(snap.state.live_entities(), at25.state.live_entities());

  // The last tick by default.
  inspect::StateSource last;
  ASSERT_TRUE(inspect::load_state_source(replay_path, std::nullopt, 0, last, why)) << why.message;
  EXPECT_EQ(last.label, replay_path + "@40");
  EXPECT_EQ(last.state.tick, 40u);
  fs::remove_all(dir);
}

TEST(StateSource, RefusesAMissingBundleSideWithTheReason) {
  fixtures::register_builtin_sims();
  const fs::path dir = scratch();
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 40, 1, rec).ok());
  rec.hashes[20].total ^= 1;
  replay::Runner runner(fixtures::duel_sim(), rec.header.config);
  replay::VerifyOptions opt;
  const replay::VerifyResult v = replay::verify(runner, rec, opt);
  ASSERT_FALSE(v.ok);
  const inspect::Bundle b = inspect::verify_bundle(fixtures::duel_sim(), rec, "d.replay", runner, nullptr, v.tick, "test");
  std::string path;
  ASSERT_TRUE(inspect::write_bundle(dir.string(), b, path).ok());

  std::uint32_t with_state = 0;
  while (with_state < b.sides.size() && !b.sides[with_state].has_state) ++with_state;
  ASSERT_LT(with_state, b.sides.size());
  inspect::StateSource side;
  replay::OpenFailure why;
  ASSERT_TRUE(inspect::load_state_source(path, std::nullopt, with_state, side, why)) << why.message;
  EXPECT_TRUE(side.is_bundle);
  EXPECT_EQ(side.label, path + " (" + b.sides[with_state].label + ")");
  EXPECT_EQ(side.state.tick, v.tick);
  inspect::StateSource none;
  EXPECT_FALSE(inspect::load_state_source(path, std::nullopt, 7, none, why));
  EXPECT_EQ(why.message, path + ": side 7: the bundle has " + std::to_string(b.sides.size()) + " side(s)");
  EXPECT_EQ(none.problem, inspect::StateSourceProblem::NoSuchSide);
  EXPECT_EQ(side.problem, inspect::StateSourceProblem::None);
  // A side with hashes only (a remote peer that sent no state).
  inspect::Bundle hashes_only = b;
  hashes_only.sides[0].has_state = false;
  const fs::path only_dir = dir / "hashes-only";
  fs::create_directories(only_dir);
  std::string only_path;
  ASSERT_TRUE(inspect::write_bundle(only_dir.string(), hashes_only, only_path).ok());
  inspect::StateSource no_state;
  EXPECT_FALSE(inspect::load_state_source(only_path, std::nullopt, 0, no_state, why));
  EXPECT_EQ(why.message, only_path + ": side '" + b.sides[0].label +
                             "' has hashes only, no state (another side may hold one)");
  EXPECT_EQ(no_state.problem, inspect::StateSourceProblem::SideWithoutState);
  fs::remove_all(dir);
}

}  // namespace
