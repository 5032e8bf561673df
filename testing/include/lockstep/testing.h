#pragma once
// lockstep::testing — checks for a game's own GoogleTest suite (docs/embedding.md, "Your
// game's tests"). Each returns a ::testing::AssertionResult whose failure message is the
// report the `lockstep` tool prints for the same check, so a red test says what the tool
// would: the tick, the system, the entity, the field and both values.
//
//   #include <lockstep/testing.h>
//   namespace lt = lockstep::testing;
//   TEST(MyGame, GoldenReplayVerifies) { EXPECT_TRUE(lt::ReplayFileVerifies("replays/first.replay", "replays/first.trace")); }
//   TEST(MyGame, RollbackSafe) { EXPECT_TRUE(lt::PassesSynctest(my_sim(), config, /*bot seed*/ 1, /*ticks*/ 600, /*distance*/ 8)); }
//   TEST(MyGame, TwoPeersAgree) { EXPECT_TRUE(lt::NetsimStaysInSync(options)); }
//
// Link lockstep::testing (it brings GoogleTest's gtest, not gtest_main). The checks that find
// a sim by name need it registered: call the game's registration function first, or link the
// game's sims with lockstep_link_sims(<test> SIMS <sims>) (cmake/lockstepHelpers.cmake), which
// registers them before main — a static library's self-registering sims are otherwise dropped
// by the linker.
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/sim.h>
#include <lockstep/replay/trace.h>
#include <lockstep/rollback/netsim.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace lockstep::testing {

// replay::verify: every tick against the recording's hashes and checkpoints (and `golden`
// when given). Failure: "DESYNC at tick T (vs recorded hashes): differs: Position; field
// summary" plus the field-level diff when the recording has a checkpoint of that tick; or the
// bad-input message. `sim` null: the registered sim named in the recording; when it is not
// registered, the message names the registered sims and the fix (the game's registration
// function, or lockstep_link_sims for sims in a static library).
::testing::AssertionResult ReplayVerifies(const replay::Replay& recording, const replay::Sim* sim = nullptr,
                                          const replay::Trace* golden = nullptr, const std::string& name = "replay");
// The same from files (the golden trace optional).
::testing::AssertionResult ReplayFileVerifies(const std::string& replay_path, const std::string& golden_trace_path = {});

// Bots play `ticks` ticks of `sim`; every tick is rolled back `distance` ticks and resimulated
// (rollback::run_synctest, `lockstep synctest --check-distance`). On a mismatch the same
// inputs are run again stage by stage (inspect::synctest_by_system), and the message is the
// tool's per-system report: "DESYNC tick 41, system orbit.move, Body[2:1].speed 3.5 | 3.25
// (+1 more)" followed by the field-level diff.
::testing::AssertionResult PassesSynctest(const replay::Sim& sim, const replay::SimConfig& config, std::uint64_t bot_seed,
                                          std::uint64_t ticks, std::uint32_t distance);

// Two recordings of the same inputs agree on every recorded hash (replay::compare_recordings,
// `verify A --against B`); the failure names the first divergent tick, the differing parts
// and, when both recorded a checkpoint there, the field-level diff.
::testing::AssertionResult RecordingsAgree(const replay::Replay& a, const replay::Replay& b,
                                           const std::string& name_a = "A", const std::string& name_b = "B");

// A netsim match (rollback::run_netsim_match, the tool's `netsim`) finishes, no peer raises a
// desync, every peer's confirmed history agrees and an offline replay reproduces it. Failure:
// what the tool reports — the first divergent confirmed tick; the system, from that tick run
// again on both peers stage by stage ("DESYNC tick 0, system scoring, Score.points[0] 120 | 0
// (+2 more)"); and both peers' states of that tick field by field. The states are kept for
// ticks that are multiples of options.hash_interval: 1 names the exact tick and the system.
::testing::AssertionResult NetsimStaysInSync(const rollback::NetsimOptions& options);

}  // namespace lockstep::testing
