#pragma once
// LOCKSTEP_ASSERT: always-on check that reports file, line and condition, then aborts.
// LOCKSTEP_DEBUG_ASSERT: same, compiled only when LOCKSTEP_CHECK_INVARIANTS is set (Debug trees).

namespace lockstep::detail {
[[noreturn]] void assert_fail(const char* file, int line, const char* condition, const char* message) noexcept;
}

#define LOCKSTEP_ASSERT_MSG(cond, msg)                                         \
  do {                                                                         \
    if (!(cond)) ::lockstep::detail::assert_fail(__FILE__, __LINE__, #cond, msg); \
  } while (false)
#define LOCKSTEP_ASSERT(cond) LOCKSTEP_ASSERT_MSG(cond, nullptr)

#if defined(LOCKSTEP_CHECK_INVARIANTS) && LOCKSTEP_CHECK_INVARIANTS
#define LOCKSTEP_DEBUG_ASSERT(cond) LOCKSTEP_ASSERT(cond)
#else
#define LOCKSTEP_DEBUG_ASSERT(cond) ((void)0)
#endif
