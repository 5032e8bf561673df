// Sim code in a plain target (tests/tool/plain_project).
#include <lockstep/replay/sim.h>
int plain_sim_marker() { return 1; }
