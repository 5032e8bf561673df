// Display code that opted out of the determinism flags (tests/tool/plain_project).
#include <lockstep/replay/sim.h>
int plain_render_marker() { return 2; }
