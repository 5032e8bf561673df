// See huge_pages.h. The only platform call in the kernel, behind a feature test.
#include "huge_pages.h"

#include <cstdint>

#if defined(__linux__) && __has_include(<sys/mman.h>)
#include <sys/mman.h>
#define LOCKSTEP_HAVE_MADVISE 1
#endif

namespace lockstep::detail {

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(LOCKSTEP_HAVE_MADVISE) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  // lockstep: allow(pointer-cast) page rounding only; the address never reaches state or hashes
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHuge - 1);
  if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace lockstep::detail
