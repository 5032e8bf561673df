// replay/farm.h: the listing, sharding and job running behind `verify`/`trace` farms, called
// directly (the tool's farm behaviour is tests/cli/farm_test.py).
#include <lockstep/replay/farm.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace lockstep::replay {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("lockstep-farm-test-" + name);
  fs::remove_all(d);
  fs::create_directories(d / "sub");
  return d;
}

void touch(const fs::path& p) { std::ofstream(p) << "x"; }

TEST(Farm, ListsReplaysSortedDeduplicatedAndRecursively) {
  const fs::path d = fresh_dir("list");
  touch(d / "b.replay");
  touch(d / "a.replay");
  touch(d / "notes.txt");
  touch(d / "sub" / "c.replay");
  const std::string root = d.generic_string();
  const auto got = list_replays({root, root + "/a.replay"});
  EXPECT_EQ(got, (std::vector<std::string>{root + "/a.replay", root + "/b.replay", root + "/sub/c.replay"}));
  EXPECT_THROW(list_replays({root + "/missing.replay"}), std::runtime_error);
  fs::remove_all(d);
}

TEST(Farm, ShardsByPositionModuloCount) {
  std::uint32_t index = 0, count = 0;
  parse_shard("2/3", index, count);
  EXPECT_EQ(index, 2u);
  EXPECT_EQ(count, 3u);
  EXPECT_THROW(parse_shard("0/3", index, count), std::runtime_error);
  EXPECT_THROW(parse_shard("4/3", index, count), std::runtime_error);
  EXPECT_THROW(parse_shard("3", index, count), std::runtime_error);
  EXPECT_THROW(parse_shard("1/x", index, count), std::runtime_error);
  try {
    parse_shard("2", index, count);
    ADD_FAILURE() << "\"2\" accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "shard '2': expected I/N with 1 <= I <= N <= 100000");
  }
  const std::vector<std::string> all{"a", "b", "c", "d", "e"};
  EXPECT_EQ(shard_of(all, 1, 2), (std::vector<std::string>{"a", "c", "e"}));
  EXPECT_EQ(shard_of(all, 2, 2), (std::vector<std::string>{"b", "d"}));
}

TEST(Farm, SelectsThisShardsReplaysAndRefusesClashingOutputs) {
  const fs::path d = fresh_dir("select");
  touch(d / "b.replay");
  touch(d / "a.replay");
  touch(d / "c.replay");
  const std::string root = d.generic_string();
  FarmSelection sel;
  EXPECT_EQ(select_farm_replays({root}, "2/2", "", sel), "");
  EXPECT_EQ(sel.all, (std::vector<std::string>{root + "/a.replay", root + "/b.replay", root + "/c.replay"}));
  EXPECT_EQ(sel.mine, (std::vector<std::string>{root + "/b.replay"}));
  EXPECT_EQ(sel.shard, 2u);
  EXPECT_EQ(sel.shards, 2u);
  FarmSelection all;
  EXPECT_EQ(select_farm_replays({root}, "", root + "/out", all), "");
  EXPECT_EQ(all.mine, all.all);
  EXPECT_TRUE(fs::is_directory(d / "out"));
  FarmSelection bad;
  EXPECT_EQ(select_farm_replays({root + "/sub"}, "", "", bad), "no *.replay files in " + root + "/sub");
  EXPECT_EQ(bad.problem, FarmSelectionProblem::NoReplays);
  EXPECT_EQ(select_farm_replays({root + "/missing"}, "", "", bad), root + "/missing: no such file or directory");
  EXPECT_EQ(bad.problem, FarmSelectionProblem::Inputs);
  EXPECT_EQ(select_farm_replays({root}, "3/2", "", bad), "shard '3/2': expected I/N with 1 <= I <= N <= 100000");
  EXPECT_EQ(bad.problem, FarmSelectionProblem::Shard);
  EXPECT_EQ(bad.detail, "expected I/N with 1 <= I <= N <= 100000");
  touch(d / "blocker");
  EXPECT_EQ(select_farm_replays({root}, "", root + "/blocker/out", bad).rfind("output directory " + root + "/blocker/out: ", 0),
            0u);
  EXPECT_EQ(bad.problem, FarmSelectionProblem::OutDir);
  EXPECT_FALSE(bad.detail.empty());
  touch(d / "sub" / "a.replay");
  EXPECT_EQ(select_farm_replays({root}, "", "o", bad),
            root + "/a.replay and " + root + "/sub/a.replay would both write o/a.trace");
  EXPECT_EQ(bad.problem, FarmSelectionProblem::SameOutput);
  EXPECT_EQ(select_farm_replays({root}, "1/2", "", bad), "");
  EXPECT_EQ(bad.problem, FarmSelectionProblem::None);
  fs::remove_all(d);
}

TEST(Farm, CountsOkMismatchedAndBadInput) {
  FarmRun run;
  for (int code : {0, 1, 2, 0, 139}) run.results.push_back(FarmResult{code, "", 0, true});
  const FarmCounts c = count_farm_results(run);
  EXPECT_EQ(c.ok, 2u);
  EXPECT_EQ(c.mismatched, 1u);
  EXPECT_EQ(c.bad, 2u);
}

TEST(Farm, NamesTraceOutputsAndEscapesXml) {
  EXPECT_EQ(trace_output_for("in/dir/match.replay", "out"), "out/match.trace");
  EXPECT_EQ(xml_escape("a<b>&\"c'\x01\td"), "a&lt;b&gt;&amp;&quot;c&apos;\td");
}

TEST(Farm, SummaryLinePrefersTheFailureLine) {
  FarmResult r;
  r.code = 1;
  r.output = "loading\nDESYNC at tick 7\nmore\n";
  EXPECT_EQ(farm_summary_line(r), "DESYNC at tick 7");
  r.output = "one\ntwo\n\n";
  EXPECT_EQ(farm_summary_line(r), "two");
  r.output.clear();
  EXPECT_EQ(farm_summary_line(r), "exit 1");
}

#if defined(__linux__)
TEST(Farm, RunsChildProcessesAndReportsInJobOrder) {
  ASSERT_TRUE(farm_spawns_processes("/bin/sh"));
  const std::vector<FarmJob> jobs{{{"-c", "sleep 0.2; echo first; exit 0"}, {}},
                                  {{"-c", "echo DESYNC second >&2; exit 1"}, {}},
                                  {{"-c", "kill -9 $$"}, {}}};
  std::vector<std::size_t> order;
  const FarmRun run = run_farm_jobs(jobs, 3, "/bin/sh", [&](std::size_t i, const FarmResult& r) {
    EXPECT_TRUE(r.done);
    order.push_back(i);
  });
  EXPECT_TRUE(run.spawned);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2}));
  ASSERT_EQ(run.results.size(), 3u);
  EXPECT_EQ(run.results[0].code, 0);
  EXPECT_EQ(run.results[0].output, "first\n");
  EXPECT_EQ(run.results[1].code, 1);
  EXPECT_EQ(run.results[1].output, "DESYNC second\n");
  EXPECT_EQ(run.results[2].code, 2);
  EXPECT_EQ(run.results[2].output, "error: crashed (signal 9)\n");

  const std::string xml = farm_junit("tool verify", {"a.replay", "b.replay", "c.replay"}, run);
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" errors=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<testcase classname=\"tool.verify\" name=\"b.replay\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"desync\" message=\"DESYNC second\">"), std::string::npos);
  EXPECT_NE(xml.find("<error type=\"exit-2\" message=\"error: crashed (signal 9)\">"), std::string::npos);
}
#endif

}  // namespace
}  // namespace lockstep::replay
