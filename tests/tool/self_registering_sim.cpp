// A sim library whose only content registers a sim from a static initializer: nothing else
// references this object file, which is exactly what a static link drops. The duel fixture
// stands in for a game's sim.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/sim.h>

namespace {
[[maybe_unused]] const bool registered = (lockstep::replay::register_sim(lockstep::fixtures::duel_sim()), true);
}  // namespace
