#pragma once
// Moved to <lockstep/store/world_config.h> in 0.3.0; this path forwards to it until 0.4.0 (CHANGELOG).
#include <lockstep/store/world_config.h>
