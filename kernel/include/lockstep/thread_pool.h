#pragma once
// Moved to <lockstep/exec/thread_pool.h> in 0.3.0; this path forwards to it until 0.4.0 (CHANGELOG).
#include <lockstep/exec/thread_pool.h>
