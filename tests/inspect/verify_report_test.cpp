// inspect/verify_report.h: the exact stdout text of `lockstep verify` (plain and --json) for an
// agreeing replay, a divergence with and without a checkpoint, a golden trace of another
// length, two recordings compared, and a per-system divergence.
#include "inspect_support.h"

#include <lockstep/fixtures/fixtures.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/json_writer.h>
#include <lockstep/inspect/verify_report.h>
#include <lockstep/replay/record.h>

#include <gtest/gtest.h>

using namespace lockstep;

namespace {
using inspect_test::duel_config;

replay::VerifyResult verify(const replay::Replay& rec, replay::Runner& runner) {
  replay::VerifyOptions opt;
  opt.replay_name = "d.replay";
  return replay::verify(runner, rec, opt);
}
}  // namespace

TEST(VerifyReport, AnAgreeingReplayInTextAndJson) {
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 10, 0, rec).ok());
  replay::Runner runner(fixtures::duel_sim(), rec.header.config);
  const replay::VerifyResult v = verify(rec, runner);
  ASSERT_TRUE(v.ok);
  const std::string h = to_hex(v.final_hash.total);
  EXPECT_EQ(inspect::verify_ok_report("d.replay", v, true, false),
            "OK d.replay: 10 ticks, final hash " + h + "; checked 11 recorded hashes, 0 golden trace ticks, 0 checkpoints\n");
  EXPECT_EQ(inspect::verify_ok_report("d.replay", v, false, true),
            "{\"ok\":true,\"replay\":\"d.replay\",\"ticks\":10,\"final_hash\":\"" + h +
                "\",\"recorded_hashes_checked\":11,\"golden_ticks_checked\":0,\"checkpoints_checked\":0,\"complete\":false}\n");
}

TEST(VerifyReport, ADivergenceWithTheRecordingsCheckpoint) {
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 40, 1, rec).ok());
  rec.hashes[20].total ^= 1;
  replay::Runner runner(fixtures::duel_sim(), rec.header.config);
  const replay::VerifyResult v = verify(rec, runner);
  ASSERT_FALSE(v.ok);
  const inspect::VerifyDesync d = inspect::verify_desync(rec, "d.replay", runner, v);
  EXPECT_EQ(d.parts, "total; tick 20: equal");
  ASSERT_TRUE(d.fields.has_value());
  EXPECT_EQ(inspect::verify_desync_report("d.replay", v, d, "", false),
            "DESYNC at tick 20 (vs recorded hashes): total; tick 20: equal\n" +
                inspect::format_text(*d.fields, "recording", "this build"));
  EXPECT_EQ(inspect::verify_desync_report("d.replay", v, d, "out/b.lsbundle", true),
            "{\"ok\":false,\"exit\":1,\"replay\":\"d.replay\",\"tick\":20,\"against\":\"recorded hashes\",\"differs\":"
            "\"total; tick 20: equal\",\"bundle\":\"out/b.lsbundle\",\"diff\":" +
                inspect::format_json(*d.fields) + "}\n");
}

TEST(VerifyReport, ADivergenceWithoutACheckpointAndAGoldenTraceOfAnotherLength) {
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 10, 0, rec).ok());
  rec.hashes[4].entities ^= 1;
  replay::Runner runner(fixtures::duel_sim(), rec.header.config);
  replay::VerifyResult v = verify(rec, runner);
  const inspect::VerifyDesync d = inspect::verify_desync(rec, "d.replay", runner, v);
  EXPECT_EQ(d.parts, "entities");
  EXPECT_FALSE(d.fields.has_value());
  EXPECT_EQ(inspect::verify_desync_report("d.replay", v, d, "", false), "DESYNC at tick 4 (vs recorded hashes): entities\n");
  EXPECT_EQ(inspect::verify_desync_report("d.replay", v, d, "", true),
            "{\"ok\":false,\"exit\":1,\"replay\":\"d.replay\",\"tick\":4,\"against\":\"recorded hashes\",\"differs\":"
            "\"entities\"}\n");
  v.against = "golden trace g.trace";
  v.differs = "the trace has 12 ticks";
  EXPECT_EQ(inspect::verify_length_report("d.replay", v, false), "");
  EXPECT_EQ(inspect::verify_length_report("d.replay", v, true),
            "{\"ok\":false,\"exit\":1,\"replay\":\"d.replay\",\"tick\":4,\"against\":\"golden trace g.trace\",\"differs\":"
            "\"the trace has 12 ticks\"}\n");
}

TEST(VerifyReport, TwoRecordingsAgainstEachOther) {
  replay::Replay a, b;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 30, 0, a).ok());
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 30, 0, b).ok());
  replay::RecordingComparison c = replay::compare_recordings(a, "a", b, "b");
  EXPECT_EQ(inspect::against_ok_report("a", "b", c, false), "OK a against b: 31 ticks, every recorded hash equal\n");
  EXPECT_EQ(inspect::against_ok_report("a", "b", c, true),
            "{\"ok\":true,\"replay\":\"a\",\"against\":\"b\",\"ticks_compared\":31}\n");
  b.hashes[7].entities ^= 1;
  c = replay::compare_recordings(a, "a", b, "b");
  const inspect::AgainstForensics f = inspect::against_forensics(a, "a", b, "b", c);
  EXPECT_FALSE(f.diff.has_value());
  EXPECT_EQ(inspect::against_desync_report("a", "b", c, f, "", false),
            "DESYNC at tick 7 (A a vs B b): entities\n(no checkpoint of tick 7 in both recordings: recordings with a "
            "checkpoint every tick give the field-level diff)\n");
  EXPECT_EQ(inspect::against_desync_report("a", "b", c, f, "x.lsbundle", true),
            "{\"ok\":false,\"exit\":1,\"replay\":\"a\",\"against\":\"b\",\"tick\":7,\"differs\":\"entities\",\"bundle\":"
            "\"x.lsbundle\"}\n");
}

TEST(VerifyReport, APerSystemDivergence) {
  inspect::SystemSyncResult r;
  r.ok = false;
  r.tick = 5;
  r.system = "duel.move";
  const std::string where = inspect::describe(r);
  EXPECT_EQ(inspect::system_divergence_report("duel", r, "", false),
            "DESYNC " + where + "\n" + inspect::format_text(r.diff, "first", "again"));
  EXPECT_EQ(inspect::system_divergence_report("duel", r, "s.lsbundle", true),
            "{\"ok\":false,\"exit\":1,\"source\":\"duel\",\"per_system\":true,\"tick\":5,\"system\":\"duel.move\",\"report\":\"" +
                inspect::json_escape(where) + "\",\"bundle\":\"s.lsbundle\",\"diff\":" + inspect::format_json(r.diff) + "}\n");
}

TEST(VerifyReport, APerSystemSyncTestThatReproducedEveryStage) {
  inspect::SystemSyncResult r;
  r.ticks = 120;
  EXPECT_EQ(inspect::system_sync_ok_report("duel (bot 3)", r, false),
            "OK per-system sync test duel (bot 3): 120 ticks, every stage of every tick reproduced\n");
  EXPECT_EQ(inspect::system_sync_ok_report("duel (bot 3)", r, true),
            "{\"ok\":true,\"source\":\"duel (bot 3)\",\"per_system\":true,\"ticks\":120}\n");
}
