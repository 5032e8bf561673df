// replay/resume.h: a restarted peer resumes from another process's recording. It starts at the
// newest checkpoint that hashes to the recorded hash (ticks before it copied, not simulated),
// and its own recording comes out byte for byte as the original.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/resume.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace lockstep::replay {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path scratch() {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const fs::path d = fs::temp_directory_path() / ("lockstep-resume-test-" + test);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

SimConfig duel_config() {
  SimConfig c;
  c.players = 2;
  c.seed = 3;
  return c;
}

const Sim& sim_named(const char* name) {
  fixtures::register_builtin_sims();
  const Sim* sim = find_sim(name);
  EXPECT_NE(sim, nullptr) << name;
  return *sim;
}

// Records `ticks` ticks of the sim's bots with a checkpoint every `every` ticks (block of 16
// ticks, so checkpoints fall both inside blocks and on their edges) and reads the file back.
Replay record(const Sim& sim, const SimConfig& config, std::uint64_t ticks, std::uint32_t every, const fs::path& path) {
  RecordOptions options;
  options.block_ticks = 16;
  options.checkpoint_every = every;
  StateHash final_hash{};
  RecordFailure why;
  EXPECT_TRUE(record_bots_to_file(sim, config, 9, ticks, options, path.string(), final_hash, why)) << why.message;
  Replay r;
  EXPECT_TRUE(read_replay_file(path.string(), r).ok());
  return r;
}

// Resumes `history` into a fresh runner and a recorder at `out`; returns the runner's final hash.
std::uint64_t resume(const Sim& sim, const Replay& history, const fs::path& out, ReplayStatus& st) {
  Runner runner(sim, history.header.config);
  EXPECT_TRUE(runner.status().ok());
  ReplayRecorder recorder;
  st = recorder.open(out.string(), history.header);
  if (st.ok()) st = resume_from_recording(runner, history, &recorder);
  if (st.ok()) st = recorder.close();
  return runner.hash().total;
}

TEST(Resume, FromTheNewestCheckpointTheRecordingComesOutByteForByte) {
  const fs::path dir = scratch();
  const SimConfig duel = duel_config();
  SimConfig skirmish;  // (a sim with views: tests/rollback/view_sim_test.cpp)
  skirmish.players = 2;
  skirmish.units = 64;
  skirmish.seed = 5;
  for (const auto& [name, config] : {std::pair{"duel", duel}, std::pair{"skirmish", skirmish}}) {
    const Sim& sim = sim_named(name);
    // 100 ticks, checkpoints every 24: the newest at tick 96, four ticks are simulated.
    const Replay history = record(sim, config, 100, 24, dir / (std::string(name) + ".replay"));
    ASSERT_EQ(history.checkpoints.size(), 4u) << name;
    ASSERT_EQ(history.checkpoints.back().tick, 96u);
    ReplayStatus st;
    const std::uint64_t final_hash = resume(sim, history, dir / (std::string(name) + "-resumed.replay"), st);
    ASSERT_TRUE(st.ok()) << name << ": " << st.message;
    EXPECT_EQ(final_hash, history.hashes.back().total) << name;
    EXPECT_EQ(bytes_of(dir / (std::string(name) + "-resumed.replay")), bytes_of(dir / (std::string(name) + ".replay")))
        << name;
    // The ticks before the checkpoint are not simulated: other inputs there change nothing
    // (stepped from tick 0, they would stop at the first recorded hash they miss).
    Replay altered = history;
    for (std::uint64_t t = 0; t < 96; ++t) altered.inputs[t * altered.header.frame_bytes()] ^= std::byte{1};
    EXPECT_EQ(resume(sim, altered, dir / "altered.replay", st), history.hashes.back().total) << name;
    EXPECT_TRUE(st.ok()) << name << ": " << st.message;
  }
  fs::remove_all(dir);
}

TEST(Resume, WithoutCheckpointsEveryTickIsSteppedFromZero) {
  const fs::path dir = scratch();
  const SimConfig config = duel_config();
  const Sim& sim = sim_named("duel");
  const Replay history = record(sim, config, 70, 0, dir / "plain.replay");
  ASSERT_TRUE(history.checkpoints.empty());
  ReplayStatus st;
  const std::uint64_t final_hash = resume(sim, history, dir / "plain-resumed.replay", st);
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(final_hash, history.hashes.back().total);
  EXPECT_EQ(bytes_of(dir / "plain-resumed.replay"), bytes_of(dir / "plain.replay"));
  fs::remove_all(dir);
}

TEST(Resume, ACheckpointThatDiffersFromTheRecordedHashIsRefusedNamingItsTick) {
  const fs::path dir = scratch();
  const SimConfig config = duel_config();
  const Sim& sim = sim_named("duel");
  Replay history = record(sim, config, 60, 20, dir / "h.replay");
  ASSERT_EQ(history.checkpoints.size(), 3u);
  // The newest checkpoint holds the state of tick 20: a valid snapshot of the wrong state.
  history.checkpoints[2].snapshot = history.checkpoints[0].snapshot;
  ReplayStatus st;
  (void)resume(sim, history, dir / "r.replay", st);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message.find("tick 60"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("the checkpoint's state differs from the recorded hash: hash "), std::string::npos)
      << st.message;
  fs::remove_all(dir);
}

TEST(Resume, AppendRecordedNeedsAFreshRecorderAndTheSameHeader) {
  const fs::path dir = scratch();
  const SimConfig config = duel_config();
  const Sim& sim = sim_named("duel");
  const Replay history = record(sim, config, 30, 10, dir / "h.replay");
  Replay other = history;
  other.header.config.seed = 4;
  ReplayRecorder recorder;
  ASSERT_TRUE(recorder.open((dir / "a.replay").string(), other.header).ok());
  const ReplayStatus mismatch = recorder.append_recorded(history, 10);
  EXPECT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.message.find("the copied recording has another header"), std::string::npos) << mismatch.message;
  ReplayRecorder twice;
  ASSERT_TRUE(twice.open((dir / "b.replay").string(), history.header).ok());
  ASSERT_TRUE(twice.append_recorded(history, 10).ok());
  const ReplayStatus again = twice.append_recorded(history, 20);
  EXPECT_NE(again.message.find("append_recorded needs a fresh recorder"), std::string::npos) << again.message;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lockstep::replay
