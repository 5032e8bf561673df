#pragma once
// Moved to <lockstep/math/fixed.h> in 0.3.0; this path forwards to it until 0.4.0 (CHANGELOG).
#include <lockstep/math/fixed.h>
