#pragma once
// Moved to <lockstep/query/predicate.h> in 0.3.0; this path forwards to it until 0.4.0 (CHANGELOG).
#include <lockstep/query/predicate.h>
