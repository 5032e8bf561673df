// inspect::describe_file_report: `lockstep info`'s whole answer (dispatch by request and file
// kind, the JSON wrappers, the errors) as one library call.
#include "inspect_support.h"

#include <lockstep/fixtures/fixtures.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/describe_file.h>
#include <lockstep/inspect/forensics.h>
#include <lockstep/replay/open_replay.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/verify.h>

#include <gtest/gtest.h>

#include <filesystem>

using namespace lockstep;

namespace {

namespace fs = std::filesystem;

using inspect_test::duel_config;

inspect::FileReportRequest request(const std::string& path, bool json = false) {
  inspect::FileReportRequest q;
  q.path = path;
  q.json = json;
  return q;
}

TEST(DescribeFileReport, ListsTheSimsAndRefusesAFileWithSims) {
  fixtures::register_builtin_sims();
  std::string lines;
  for (const replay::Sim* s : replay::registered_sims())
    lines += std::string(s->name()) + " v" + std::to_string(s->version()) + "  input " + s->input_type().name + " (" +
             std::to_string(s->input_type().size) + " bytes, schema " +
             to_hex(replay::input_schema_hash(s->input_type())) + ")\n";
  const inspect::FileReport text = inspect::describe_file_report(request(""));
  EXPECT_TRUE(text.error.empty());
  EXPECT_EQ(text.out, lines);
  EXPECT_NE(text.out.find("\nduel v"), std::string::npos);
  inspect::FileReportRequest q = request("", true);
  q.sims = true;
  EXPECT_EQ(inspect::describe_file_report(q).out, "{\"ok\":true,\"sims\":[\"skirmish\",\"skirmish8\",\"duel\"]}\n");
  q.path = "x.replay";
  const inspect::FileReport refused = inspect::describe_file_report(q);
  EXPECT_EQ(refused.error,
            "listing the sims of this build takes no file (got 'x.replay'); without the listing the file is described");
  EXPECT_EQ(refused.problem, inspect::FileReportProblem::SimsWithPath);
  EXPECT_TRUE(refused.out.empty());
}

TEST(DescribeFileReport, DescribesEachKindOfFileWithTheJsonWrapper) {
  fixtures::register_builtin_sims();
  inspect_test::DuelFiles files;
  ASSERT_NO_FATAL_FAILURE(inspect_test::write_duel_files("lockstep-describe-file-report-test", files));
  const fs::path& dir = files.dir;
  const replay::Replay& rec = files.rec;
  const std::string& replay_path = files.replay_path;
  const std::string& snap_path = files.snap_path;
  replay::Replay broken = rec;
  broken.hashes[5].total ^= 1;
  replay::Runner verifier(fixtures::duel_sim(), rec.header.config);
  const replay::VerifyResult v = replay::verify(verifier, broken, replay::VerifyOptions{});
  ASSERT_FALSE(v.ok);
  inspect::Bundle b = inspect::verify_bundle(fixtures::duel_sim(), broken, "d.replay", verifier, nullptr, v.tick, "test");
  b.report = "why it was written";
  std::string bundle_path;
  ASSERT_TRUE(inspect::write_bundle(dir.string(), b, bundle_path).ok());

  replay::Replay read_back;
  ASSERT_TRUE(replay::read_replay_file(replay_path, read_back).ok());
  const std::string status = inspect::replay_sim_status(read_back, replay_path);
  // The reading build closes the answer: a replay does not name the build that wrote it.
  EXPECT_EQ(inspect::describe_file_report(request(replay_path)).out,
            inspect::describe_replay(read_back, replay_path, status) +
                "read by       lockstep 0.3.0 (a replay file does not record the lockstep version that wrote it)\n");
  inspect::JsonWriter j;
  j.begin().field("ok", true);
  inspect::append_replay_fields(j, read_back, replay_path, status);
  j.field("reader_version", "0.3.0");
  j.end();
  EXPECT_EQ(inspect::describe_file_report(request(replay_path, true)).out, j.str() + "\n");

  inspect::Bundle read_bundle;
  const FileStatus read_st = inspect::read_bundle_file(bundle_path, read_bundle);
  ASSERT_TRUE(read_st.ok()) << read_st.message;
  // A bundle names the build that wrote it (its "lockstep: 0.3.0" fact) and the reader.
  EXPECT_NE(inspect::describe_bundle(read_bundle).find("\nlockstep: 0.3.0\n"), std::string::npos);
  EXPECT_EQ(inspect::describe_file_report(request(bundle_path)).out,
            "bundle        " + bundle_path + "\n" + inspect::describe_bundle(read_bundle) +
                "report        why it was written\nread by       lockstep 0.3.0\n");
  const std::string bundle_json = inspect::describe_file_report(request(bundle_path, true)).out;
  EXPECT_EQ(bundle_json.rfind("{\"ok\":true,\"bundle\":\"", 0), 0u);
  EXPECT_NE(bundle_json.find("\"lockstep\":\"0.3.0\""), std::string::npos) << bundle_json;
  EXPECT_EQ(bundle_json.substr(bundle_json.size() - 27), ",\"reader_version\":\"0.3.0\"}\n");

  inspect::SnapshotSummary sum;
  ASSERT_TRUE(inspect::describe_snapshot_file(snap_path, sum).ok());
  EXPECT_EQ(inspect::describe_file_report(request(snap_path)).out, inspect::describe_snapshot_summary(snap_path, sum));
  EXPECT_EQ(inspect::describe_file_report(request(snap_path, true)).out.rfind("{\"ok\":true,\"snapshot\":\"", 0), 0u);

  const inspect::FileReport missing = inspect::describe_file_report(request((dir / "missing.replay").string()));
  EXPECT_FALSE(missing.error.empty());
  ASSERT_TRUE(missing.status.has_value());
  EXPECT_EQ(missing.error, missing.status->message);
  EXPECT_EQ(missing.problem, inspect::FileReportProblem::Other);
  fs::remove_all(dir);
}

TEST(DescribeFileReport, TheEmbeddedReplayAndTheSchedule) {
  fixtures::register_builtin_sims();
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 10, 0, rec).ok());
  std::vector<std::byte> bytes;
  ASSERT_TRUE(replay::encode_replay(rec, bytes).ok());

  inspect::FileReportRequest q = request("<embedded>");
  q.tool_name = "mygame-tool";
  EXPECT_EQ(inspect::describe_file_report(q).error, "mygame-tool has no default replay: give a replay file");
  q.systems = true;
  EXPECT_EQ(inspect::describe_file_report(q).error, "mygame-tool has no default replay: give a replay file");
  q.embedded = bytes;
  q.embedded_name = "<embedded>/d.replay";
  replay::Schedule schedule;
  ASSERT_TRUE(replay::build_schedule(fixtures::duel_sim(), duel_config(), schedule).ok());
  EXPECT_EQ(inspect::describe_file_report(q).out, inspect::describe_schedule("duel", schedule));
  q.systems = false;
  const inspect::FileReport described = inspect::describe_file_report(q);
  EXPECT_EQ(described.out.rfind("replay        <embedded>/d.replay (format v", 0), 0u) << described.out;

  inspect::FileReportRequest s = request("duel", true);
  s.systems = true;
  inspect::JsonWriter j;
  j.begin().field("ok", true).field("sim", "duel");
  inspect::append_schedule_fields(j, schedule);
  j.end();
  EXPECT_EQ(inspect::describe_file_report(s).out, j.str() + "\n");
  s.path.clear();
  const inspect::FileReport no_subject = inspect::describe_file_report(s);
  EXPECT_EQ(no_subject.error, "a system schedule needs a sim name (" + replay::describe_registered_sims() + ") or a replay file");
  EXPECT_EQ(no_subject.problem, inspect::FileReportProblem::NoScheduleSubject);
}

}  // namespace
