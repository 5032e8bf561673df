// A game's test suite that links its sims as a static library (issue 39): built three ways
// by tests/testing/static_sims.cmake, one executable each —
//   plain     target_link_libraries: the self-registering sim's object file is dropped by
//             the linker; ReplayFileVerifies says so, names the fix, and fails;
//   whole     lockstep_link_sims with a self-registering library: linked whole-archive;
//   register  lockstep_link_sims with a lockstep_add_sim(... REGISTER fn) library: the
//             generated source calls fn before main.
// The duel fixture's sim stands in for the game's; no test code registers anything.
#include <lockstep/replay/sim.h>
#include <lockstep/testing.h>

#include <gtest/gtest.h>

#include <string>

namespace lt = lockstep::testing;

namespace {
const std::string kReplay = LOCKSTEP_SOURCE_DIR "/fixtures/duel/duel.replay";
const std::string kTrace = LOCKSTEP_SOURCE_DIR "/fixtures/duel/duel.trace";
}  // namespace

#if LOCKSTEP_STATIC_CASE_PLAIN
TEST(StaticSims, LinkedPlainlyTheSelfRegisteringSimIsDroppedAndTheMessageSaysHowToFixIt) {
  EXPECT_EQ(lockstep::replay::find_sim("duel"), nullptr);
  const auto r = lt::ReplayFileVerifies(kReplay, kTrace);
  ASSERT_FALSE(r);
  EXPECT_EQ(std::string(r.message()),
            kReplay +
                ": recorded with sim 'duel', which is not registered in this process (registered sims: none). If the "
                "game's sims are in a static library, the linker dropped the ones that register themselves from a "
                "static initializer: call the game's registration function (the one that calls "
                "lockstep::replay::register_sim) before this check, or link the library into the test with "
                "lockstep_link_sims(<test> SIMS <library>) (docs/embedding.md, \"Registration and static linking\")");
}
#else
TEST(StaticSims, LinkedWithLockstepLinkSimsTheSimIsRegisteredBeforeMain) {
  ASSERT_NE(lockstep::replay::find_sim("duel"), nullptr);
  const auto r = lt::ReplayFileVerifies(kReplay, kTrace);
  EXPECT_TRUE(r) << r.message();
  EXPECT_EQ(std::string(r.message()), kReplay + ": 1800 ticks verified");
}
#endif
