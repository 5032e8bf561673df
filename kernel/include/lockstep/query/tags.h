#pragma once
// Access tags of World::each / parallelEach: one per listed component, in template order.
// Read hands out `const T&`, Write `T&` (docs/kernel.md, "Queries").
#include <lockstep/store/guard.h>

namespace lockstep {

struct Read {};
struct Write {};

}  // namespace lockstep
