// inspect/describe_file.h: what `lockstep info` knows about a file, as library calls.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/describe_file.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/runner.h>

#include <gtest/gtest.h>

#include <filesystem>

using namespace lockstep;

namespace {

namespace fs = std::filesystem;

replay::SimConfig duel_config() {
  replay::SimConfig c;
  c.players = 2;
  c.seed = 3;
  return c;
}

TEST(DescribeFile, TellsTheKindsApartAndSummarisesASnapshot) {
  const fs::path dir = fs::temp_directory_path() / "lockstep-describe-file-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 10, 0, rec).ok());
  const std::string replay_path = (dir / "d.replay").string();
  ASSERT_TRUE(replay::write_replay_file(replay_path, rec).ok());
  replay::Runner runner(fixtures::duel_sim(), duel_config());
  const std::string snap_path = (dir / "s.snap").string();
  ASSERT_TRUE(write_snapshot_file(snap_path, runner.world()).ok());
  inspect::Bundle b;
  b.source = "test";
  inspect::set_sim(b, fixtures::duel_sim(), duel_config());
  std::string bundle_path;
  ASSERT_TRUE(inspect::write_bundle(dir.string(), b, bundle_path).ok());

  EXPECT_EQ(inspect::peek_file_kind(replay_path), inspect::FileKind::Replay);
  EXPECT_EQ(inspect::peek_file_kind(snap_path), inspect::FileKind::Snapshot);
  EXPECT_EQ(inspect::peek_file_kind(bundle_path), inspect::FileKind::Bundle);
  EXPECT_EQ(inspect::peek_file_kind(dir.string()), inspect::FileKind::Replay);
  EXPECT_EQ(inspect::peek_file_kind((dir / "missing").string()), inspect::FileKind::Replay);

  inspect::SnapshotSummary sum;
  ASSERT_TRUE(inspect::describe_snapshot_file(snap_path, sum).ok());
  EXPECT_EQ(sum.state.tick, 0u);
  ASSERT_EQ(sum.components.size(), sum.state.components.size());
  ASSERT_FALSE(sum.components.empty());
  EXPECT_EQ(sum.components[0], sum.state.components[0].name);
  std::uint64_t in_use = 0;
  for (const inspect::Archetype& at : sum.state.archetypes) in_use += at.slots.empty() ? 0 : 1;
  EXPECT_EQ(sum.archetypes_in_use, in_use);
  EXPECT_GT(sum.archetypes_in_use, 0u);
  fs::remove_all(dir);
}

TEST(DescribeFile, SaysWhetherThisBuildCanReplayARecording) {
  fixtures::register_builtin_sims();
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 10, 0, rec).ok());
  EXPECT_EQ(inspect::replay_sim_status(rec, "d.replay"), "matches this build");
  replay::Replay older = rec;
  older.header.sim_version += 1;
  EXPECT_EQ(inspect::replay_sim_status(older, "d.replay").rfind("MISMATCH: d.replay", 0), 0u)
      << inspect::replay_sim_status(older, "d.replay");
  replay::Replay other = rec;
  other.header.sim_name = "nosuchsim";
  EXPECT_EQ(inspect::replay_sim_status(other, "d.replay"), "unknown to this build");
}

}  // namespace
