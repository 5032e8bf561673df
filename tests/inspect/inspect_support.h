#pragma once
// Shared by the inspect tests: the skirmish fixture replayed to a tick; the duel config of
// the recordings they make.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/inspect/replay_state.h>
#include <lockstep/replay/replay_file.h>

#include <gtest/gtest.h>

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
