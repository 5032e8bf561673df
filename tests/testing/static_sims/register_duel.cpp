// A sim library with an explicit registration function (lockstep_add_sim(... REGISTER
// static_sims::register_sims)): nothing registers at static-initialisation time.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/sim.h>

namespace static_sims {
void register_sims() { lockstep::replay::register_sim(lockstep::fixtures::duel_sim()); }
}  // namespace static_sims
