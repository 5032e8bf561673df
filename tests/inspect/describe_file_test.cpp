// inspect/describe_file.h: what `lockstep info` knows about a file, as library calls.
#include "inspect_support.h"

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

using inspect_test::duel_config;

TEST(DescribeFile, TellsTheKindsApartAndSummarisesASnapshot) {
  inspect_test::DuelFiles files;
  ASSERT_NO_FATAL_FAILURE(inspect_test::write_duel_files("lockstep-describe-file-test", files));
  const fs::path& dir = files.dir;
  const std::string& replay_path = files.replay_path;
  const std::string& snap_path = files.snap_path;
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

TEST(DescribeFile, ReportsAScheduleAsTextAndJson) {
  replay::Schedule s;
  s.systems.push_back({"move", {"Vel"}, {"Pos"}});
  s.systems.push_back({"spawn", {}, {"Pos", "<commands>"}});
  s.conflicts.push_back({0, 1, replay::ConflictKind::WriteWrite, "Pos", 0});
  s.systems[1].stage = 1;
  s.stages = 2;
  EXPECT_EQ(inspect::describe_schedule("toy", s),
            "schedule of toy (2 systems in 2 stages; run in this order, or stage by stage with concurrent stages; "
            "declared access is enforced while each runs)\n"
            "   1 move  (stage 0)\n       reads  Vel\n       writes Pos\n"
            "   2 spawn  (stage 1)\n       reads  -\n       writes Pos, <commands>\n"
            "conflicts (pairs that may not run concurrently: they keep declared order, in different stages): 1\n"
            "  move x spawn  write-write on Pos (written by move)\n");
  inspect::JsonWriter j;
  j.begin();
  inspect::append_schedule_fields(j, s);
  j.end();
  EXPECT_EQ(j.str(),
            "{\"systems\":[{\"name\":\"move\",\"stage\":0,\"reads\":[\"Vel\"],\"writes\":[\"Pos\"]},{\"name\":\"spawn\","
            "\"stage\":1,\"reads\":[],\"writes\":[\"Pos\",\"<commands>\"]}],\"stages\":2,\"conflicts\":[{\"first\":\"move\",\"second\":\"spawn\","
            "\"kind\":\"write-write\",\"type\":\"Pos\",\"writer\":\"move\"}]}");
}

TEST(DescribeFile, ReportsAReplayAsTextAndJson) {
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 10, 0, rec).ok());
  rec.header.components = {"Pos", "Vel"};
  const replay::ReplayHeader& h = rec.header;
  const std::string v = std::to_string(replay::kReplayFormatVersion);
  EXPECT_EQ(inspect::describe_replay(rec, "d.replay", "matches this build"),
            "replay        d.replay (format v" + v + ")\n"
            "sim           duel v" + std::to_string(h.sim_version) + " (matches this build)\n"
            "input         " + std::to_string(h.input_size) + " bytes/player, schema " + to_hex(h.input_schema) + "\n"
            "config        players 2  units 0  seed 3  params 0,0,0,0\n"
            "ticks         10 (" + std::to_string(h.block_ticks) + " frames per block)\n"
            "hashes        11" + (h.has_component_hashes() ? " (with per-component hashes)" : "") + "\n"
            "final hash    " + to_hex(rec.hashes.back().total) + " (tick 10)\n"
            "components    Pos, Vel\n"
            "complete      yes\n");
  inspect::JsonWriter j;
  j.begin();
  inspect::append_replay_fields(j, rec, "d.replay", "ok");
  j.end();
  EXPECT_EQ(j.str(), "{\"replay\":\"d.replay\",\"format_version\":" + v + ",\"sim\":\"duel\",\"sim_version\":" +
                         std::to_string(h.sim_version) + ",\"input_schema\":\"" + to_hex(h.input_schema) +
                         "\",\"input_size\":" + std::to_string(h.input_size) +
                         ",\"sim_status\":\"ok\",\"config\":{\"players\":2,\"units\":0,\"seed\":3,\"params\":[\"0\",\"0\","
                         "\"0\",\"0\"]},\"ticks\":10,\"block_ticks\":" + std::to_string(h.block_ticks) +
                         ",\"hashes\":11,\"component_hashes\":" + (h.has_component_hashes() ? "true" : "false") +
                         ",\"checkpoint_interval\":0,\"checkpoints\":0,\"complete\":true,\"final_hash\":\"" +
                         to_hex(rec.hashes.back().total) + "\",\"components\":[\"Pos\",\"Vel\"],\"warnings\":[]}");
}

TEST(DescribeFile, ReportsASnapshotAndABundle) {
  inspect::SnapshotSummary sum;
  sum.state.tick = 42;
  sum.components = {"Pos"};
  sum.archetypes_in_use = 0;
  const std::string v = std::to_string(kSnapshotFileVersion);
  EXPECT_EQ(inspect::describe_snapshot_summary("s.snap", sum),
            "snapshot      s.snap (format v" + v + ")\ntick          42\nentities      0 live (0 slots)\n"
            "archetypes    0 (0 holding entities)\ncomponents    Pos\nresources     -\n");
  inspect::JsonWriter j;
  j.begin();
  inspect::append_snapshot_fields(j, "s.snap", sum);
  j.end();
  EXPECT_EQ(j.str(), "{\"snapshot\":\"s.snap\",\"format_version\":" + v +
                         ",\"tick\":42,\"entities\":0,\"slots\":0,\"archetypes\":0,\"archetypes_in_use\":0,"
                         "\"components\":[\"Pos\"],\"resources\":[]}");
  inspect::Bundle b;
  b.source = "test";
  b.sim_name = "duel";
  b.sim_version = 4;
  b.tick = 7;
  b.system = "move";
  b.sides.resize(1);
  b.sides[0].label = "peer0";
  b.sides[0].hash.total = 0xff;
  b.facts = {{"compiler", "gcc"}};
  inspect::JsonWriter jb;
  jb.begin();
  inspect::append_bundle_fields(jb, "b.bundle", b);
  jb.end();
  EXPECT_EQ(jb.str(), "{\"bundle\":\"b.bundle\",\"source\":\"test\",\"sim\":\"duel\",\"sim_version\":4,\"tick\":7,"
                      "\"system\":\"move\",\"report\":\"\",\"sides\":[{\"label\":\"peer0\",\"state\":false,"
                      "\"total\":\"00000000000000ff\"}],\"agreeing_state\":false,\"inputs_from\":0,"
                      "\"facts\":{\"compiler\":\"gcc\"}}");
}

}  // namespace
