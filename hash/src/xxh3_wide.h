#pragma once
// XXH3's AVX2 kernel, for the long byte runs of the state hash (docs/hashing.md, "Speed").
//
// XXH3 defines one result for every vector width (scalar, SSE2, AVX2, NEON... agree bit for bit,
// which xxHash tests), so feeding some updates of one stream through this kernel and the rest
// through the baseline one changes no hash. The kernel lives in its own file compiled with
// -mavx2 (xxh3_wide.cpp) and is called only after the CPU said it has AVX2.
#include <cstddef>

namespace lockstep::hash_detail {

// True when this build has the AVX2 kernel and the CPU (and OS) can run it. Compiled for the
// baseline target, so it is safe to call anywhere.
bool xxh3_wide_available() noexcept;

// XXH3_64bits_update(state, p, n) with the AVX2 kernel; `state` is an XXH3_state_t of a
// translation unit that includes xxhash.h with XXH_INLINE_ALL. Call only when
// xxh3_wide_available().
void xxh3_wide_update(void* state, const void* p, std::size_t n) noexcept;

}  // namespace lockstep::hash_detail
