#pragma once
// Moved to <lockstep/math/fixed_math.h> in 0.3.0; this path forwards to it until 0.4.0 (CHANGELOG).
#include <lockstep/math/fixed_math.h>
