#pragma once
// printf-style formatting appended to a std::string, for the display reports of inspect/
// (private to the module). Display only: never a simulated value.
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <string>

namespace lockstep::inspect::detail {

#if defined(__GNUC__) || defined(__clang__)
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
