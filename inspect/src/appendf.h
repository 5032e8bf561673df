#pragma once
// printf-style formatting appended to a std::string, for the display reports of inspect/
// (private to the module). Display only: never a simulated value.
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <string>

namespace lockstep::inspect::detail {

// MinGW's `printf` archetype is Microsoft's (no %zu, %llu checked as %I64u); libstdc++ builds with
// __USE_MINGW_ANSI_STDIO, so vsnprintf here is the C99 one and gnu_printf is the true archetype.
#if defined(__MINGW32__)
__attribute__((format(gnu_printf, 2, 3)))
#elif defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
inline void appendf(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const std::size_t old = out.size();
    out.resize(old + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data() + old, static_cast<std::size_t>(n) + 1, format, again);
    out.resize(old + static_cast<std::size_t>(n));
  }
  va_end(again);
}

}  // namespace lockstep::inspect::detail
