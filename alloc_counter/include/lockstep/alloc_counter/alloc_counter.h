#pragma once
// lockstep::alloc_counter — replaces the global allocation functions of the executable that
// links it with counting ones, so a tool can report heap allocations during ticks (`bench`,
// which must print 0). Only executables link it, never a library: two replacements of the
// global operator new in one program are an ODR violation, and a game's own allocator must
// win. lockstep_add_tool links it unless given NO_ALLOCATION_COUNTER (docs/embedding.md).
#include <cstdint>

namespace lockstep::alloc_counter {

// Calls of the global operator new (every form) in this process so far.
std::uint64_t heap_allocations() noexcept;

}  // namespace lockstep::alloc_counter
