#pragma once
// Shared by the inspect tests: the skirmish fixture replayed to a tick; the duel config of
// the recordings they make; a directory holding a duel recording and a snapshot file.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/replay_state.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#ifndef LOCKSTEP_SOURCE_DIR
#error "LOCKSTEP_SOURCE_DIR must be defined"
#endif

namespace inspect_test {

// Two players, seed 3.
inline lockstep::replay::SimConfig duel_config() {
  lockstep::replay::SimConfig c;
  c.players = 2;
  c.seed = 3;
  return c;
}

// A fresh directory `name` under the temp directory with a 10-tick duel recording (bot 3) in
// d.replay and a snapshot of the duel's initial world in s.snap. Call it through
// ASSERT_NO_FATAL_FAILURE: it asserts that every file was written.
struct DuelFiles {
  std::filesystem::path dir;
  lockstep::replay::Replay rec;
  std::string replay_path, snap_path;
};
inline void write_duel_files(const char* name, DuelFiles& out) {
  out.dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(out.dir);
  std::filesystem::create_directories(out.dir);
  ASSERT_TRUE(lockstep::replay::record_bots(lockstep::fixtures::duel_sim(), duel_config(), 3, 10, 0, out.rec).ok());
  out.replay_path = (out.dir / "d.replay").string();
  ASSERT_TRUE(lockstep::replay::write_replay_file(out.replay_path, out.rec).ok());
  lockstep::replay::Runner runner(lockstep::fixtures::duel_sim(), duel_config());
  out.snap_path = (out.dir / "s.snap").string();
  ASSERT_TRUE(lockstep::write_snapshot_file(out.snap_path, runner.world()).ok());
}

inline const lockstep::replay::Replay& skirmish_replay() {
  static const lockstep::replay::Replay r = [] {
    lockstep::replay::Replay out;
    const auto st = lockstep::replay::read_replay_file(std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay", out);
    EXPECT_TRUE(st.ok()) << st.message;
    return out;
  }();
  return r;
}

// A runner of the skirmish fixture brought to `tick`.
inline std::unique_ptr<lockstep::replay::Runner> skirmish_at(std::uint64_t tick) {
  const auto& r = skirmish_replay();
  auto runner = std::make_unique<lockstep::replay::Runner>(lockstep::fixtures::skirmish_sim(), r.header.config);
  const auto st = lockstep::inspect::advance_to(*runner, r, tick, "skirmish.replay");
  EXPECT_TRUE(st.ok()) << st.message;
  return runner;
}

}  // namespace inspect_test
