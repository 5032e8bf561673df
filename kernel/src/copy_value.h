#pragma once
// One component value copied between rows. Structural changes copy a handful of small values
// per entity; a library memcpy call per value costs more than the copy, so the common sizes
// are inlined.
#include <cstddef>
#include <cstring>

namespace lockstep::detail {

inline void copy_value(std::byte* to, const std::byte* from, std::size_t size) noexcept {
  switch (size) {
    case 4: std::memcpy(to, from, 4); return;
    case 8: std::memcpy(to, from, 8); return;
    case 12: std::memcpy(to, from, 12); return;
    case 16: std::memcpy(to, from, 16); return;
    case 24: std::memcpy(to, from, 24); return;
    case 32: std::memcpy(to, from, 32); return;
    default: std::memcpy(to, from, size); return;
  }
}

}  // namespace lockstep::detail
