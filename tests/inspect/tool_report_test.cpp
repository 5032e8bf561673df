// inspect/tool_report.h: the exact stdout text of `lockstep run`, `record`, `trace`, `snapshot`
// and `synctest` (plain and --json), the snapshot-file check, and terminal-safe messages.
#include "inspect_support.h"

#include <lockstep/fixtures/fixtures.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/tool_report.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/runner.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

using namespace lockstep;

namespace {
using inspect_test::duel_config;

StateHash hash_of(std::uint64_t tick, std::uint64_t total) {
  StateHash h;
  h.tick = tick;
  h.total = total;
  return h;
}
}  // namespace

TEST(ToolReport, TerminalSafeEscapesControlBytesAndCuts) {
  EXPECT_EQ(inspect::terminal_safe("a\x1b[2Jb\tc\nd\x7f"), "a\\x1b[2Jb\tc\nd\\x7f");
  EXPECT_EQ(inspect::terminal_safe(std::string(4096, 'x')), std::string(4096, 'x'));
  EXPECT_EQ(inspect::terminal_safe(std::string(4100, 'x')), std::string(4096, 'x') + "...(4 more bytes)");
}

TEST(ToolReport, Run) {
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 10, 0, rec).ok());
  const StateHash h = hash_of(10, 0xabc);
  inspect::Percentiles p;
  p.p50_us = 1.25;
  p.p99_us = 2.5;
  p.max_us = 3;
  EXPECT_EQ(inspect::run_report("d.replay", rec, h, 11, 4, 0.5, p, false),
            "replay      d.replay\n"
            "sim         duel v" + std::to_string(rec.header.sim_version) + "  players 2  units 0  seed 3\n"
            "ticks       10\n"
            "final hash  0000000000000abc (tick 10)\n"
            "recorded    11/11 tick hashes match\n"
            "entities    4\n"
            "speed       20 ticks/s\n"
            "tick time   p50 1.2 us  p99 2.5 us  max 3.0 us\n");
  EXPECT_EQ(inspect::run_report("d.replay", rec, h, 11, 4, 0, p, true),
            "{\"ok\":true,\"replay\":\"d.replay\",\"sim\":\"duel\",\"players\":2,\"units\":0,\"ticks\":10,\"final_tick\":10,"
            "\"final_hash\":\"0000000000000abc\",\"hashes_checked\":11,\"ticks_per_second\":0,\"tick_p50_us\":1.25,"
            "\"tick_p99_us\":2.5,\"tick_max_us\":3,\"entities\":4}\n");
  rec.hashes.clear();
  EXPECT_NE(inspect::run_report("d.replay", rec, h, 0, 4, 0.5, p, false)
                .find("\nrecorded    no hashes in this replay (nothing checked)\n"),
            std::string::npos);
  EXPECT_EQ(inspect::run_desync_report("d.replay", "tick 3: state differs from the recording: total", false), "");
  EXPECT_EQ(inspect::run_desync_report("d.replay", "tick 3: x", true),
            "{\"ok\":false,\"exit\":1,\"replay\":\"d.replay\",\"divergence\":\"tick 3: x\"}\n");
}

TEST(ToolReport, RecordAndTrace) {
  replay::SimConfig c = duel_config();
  c.units = 8;
  const StateHash h = hash_of(60, 0x12);
  EXPECT_EQ(inspect::record_report("m.replay", "duel", c, 7, 60, h, 0.125, false),
            "recorded 60 ticks of duel (players 2, units 8, seed 3, bot 7) to m.replay\n"
            "final hash 0000000000000012 (tick 60), 0.12 s\n");
  EXPECT_EQ(inspect::record_report("m.replay", "duel", c, 7, 60, h, 0.125, true),
            "{\"ok\":true,\"output\":\"m.replay\",\"sim\":\"duel\",\"players\":2,\"units\":8,\"seed\":3,\"bot\":7,\"ticks\":60,"
            "\"final_hash\":\"0000000000000012\",\"seconds\":0.125}\n");
  EXPECT_EQ(inspect::trace_report("d.replay", "d.trace", 11, false), "wrote 11 trace lines (ticks 0..10) to d.trace\n");
  EXPECT_EQ(inspect::trace_report("d.replay", "d.trace", 0, false), "wrote 0 trace lines (ticks 0..0) to d.trace\n");
  EXPECT_EQ(inspect::trace_report("d.replay", "-", 11, false), "");
  EXPECT_EQ(inspect::trace_report("d.replay", "d.trace", 11, true),
            "{\"ok\":true,\"replay\":\"d.replay\",\"output\":\"d.trace\",\"lines\":11}\n");
}

TEST(ToolReport, Synctest) {
  EXPECT_EQ(inspect::synctest_ok_report("duel (bot 7)", 4, 100, 96, 384, 1.5, false),
            "OK synctest duel (bot 7): 100 ticks, check distance 4: 96 rollbacks, 384 resimulated ticks, every hash "
            "reproduced (1.50 s)\n");
  EXPECT_EQ(inspect::synctest_ok_report("duel (bot 7)", 4, 100, 96, 384, 1.5, true),
            "{\"ok\":true,\"source\":\"duel (bot 7)\",\"check_distance\":4,\"ticks\":100,\"rollbacks\":96,"
            "\"resimulated_ticks\":384,\"seconds\":1.5}\n");
}

TEST(ToolReport, SnapshotWrittenAndChecked) {
  const replay::Sim& sim = fixtures::duel_sim();
  replay::Runner runner(sim, duel_config());
  ASSERT_TRUE(runner.status().ok());
  const StateHash at = runner.hash();
  const std::string h = to_hex(at.total);
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "lockstep-tool-report-test.snap";
  ASSERT_TRUE(write_snapshot_file(p.string(), runner.world()).ok());
  EXPECT_EQ(inspect::snapshot_written_report("d.replay", 0, "s.snap", at, false),
            "wrote the state at tick 0 (hash " + h + ") to s.snap\n");
  EXPECT_EQ(inspect::snapshot_written_report("d.replay", 0, "s.snap", at, true),
            "{\"ok\":true,\"replay\":\"d.replay\",\"tick\":0,\"output\":\"s.snap\",\"hash\":\"" + h + "\"}\n");

  const inspect::SnapshotCheck same =
      inspect::check_snapshot_file(sim, duel_config(), "d.replay", p.string(), at, runner.world().storage());
  ASSERT_EQ(same.error, "");
  EXPECT_TRUE(same.same);
  EXPECT_EQ(same.loaded.total, at.total);
  const inspect::SnapshotCheckReport ok = inspect::snapshot_check_report("s.snap", "d.replay", 0, same, at, false);
  EXPECT_EQ(ok.report, "OK s.snap: identical to tick 0 of d.replay (hash " + h + ")\n");
  EXPECT_EQ(ok.log, "");

  StateHash other = at;
  other.total ^= 1;
  const inspect::SnapshotCheck differs =
      inspect::check_snapshot_file(sim, duel_config(), "d.replay", p.string(), other, runner.world().storage());
  ASSERT_EQ(differs.error, "");
  EXPECT_FALSE(differs.same);
  EXPECT_EQ(differs.parts, describe_hash_diff(differs.loaded, other, runner.world().storage()));
  const inspect::SnapshotCheckReport bad = inspect::snapshot_check_report("s.snap", "d.replay", 0, differs, other, true);
  EXPECT_EQ(bad.report, "{\"ok\":false,\"exit\":1,\"replay\":\"d.replay\",\"tick\":0,\"snapshot\":\"s.snap\",\"hash\":\"" + h +
                            "\",\"expected\":\"" + to_hex(other.total) + "\",\"differs\":\"" + differs.parts + "\"}\n");
  EXPECT_EQ(bad.log, "MISMATCH s.snap vs tick 0 of d.replay: differs: " + differs.parts + "\n");
  EXPECT_EQ(inspect::snapshot_check_report("s.snap", "d.replay", 0, differs, other, false).report, "");

  std::filesystem::remove(p);
  const inspect::SnapshotCheck missing =
      inspect::check_snapshot_file(sim, duel_config(), "d.replay", p.string(), at, runner.world().storage());
  EXPECT_FALSE(missing.error.empty());
  EXPECT_EQ(missing.error.rfind(p.string(), 0), 0u) << missing.error;
}
