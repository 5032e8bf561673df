// The AVX2 build of XXH3's update (xxh3_wide.h). CMake compiles this file alone with -mavx2 on
// x86-64 (LOCKSTEP_XXH3_AVX2). Keep it free of anything with external linkage besides the one
// function below — no templates, no std:: inline functions: the linker could pick this file's
// AVX2 copy of a shared inline function for the whole program, and CPUs without AVX2 would then
// fault outside the checked call. xxHash with XXH_INLINE_ALL has internal linkage only.
#include "xxh3_wide.h"

#if defined(LOCKSTEP_XXH3_AVX2) && defined(__AVX2__)
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif

namespace lockstep::hash_detail {

void xxh3_wide_update(void* state, const void* p, std::size_t n) noexcept {
#if defined(LOCKSTEP_XXH3_AVX2) && defined(__AVX2__)
  (void)XXH3_64bits_update(static_cast<XXH3_state_t*>(state), p, n);
#else
  (void)state;
  (void)p;
  (void)n;
#endif
}

}  // namespace lockstep::hash_detail
