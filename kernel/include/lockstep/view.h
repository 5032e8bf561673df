#pragma once
// Moved to <lockstep/query/view.h> in 0.3.0; this path forwards to it until 0.4.0 (CHANGELOG).
#include <lockstep/query/view.h>
