#pragma once
// Plain per-slot changed ticks out of the summary (detail/change_ticks.h): what a snapshot
// holds, and what reshaping the tick table (trackChanges) starts from.
#include <lockstep/detail/change_ticks.h>

#include <bit>
#include <cstddef>
#include <cstdint>

namespace lockstep::detail {

// Writes block `block`'s max into `out` ([slot * c.stride + t], a table shaped like c.ticks)
// for the slots of its mask below `slot_limit`.
inline void write_masked_ticks(const ChangeTicks& c, std::uint64_t* out, std::uint32_t t, std::uint32_t block,
                               std::uint32_t slot_limit) noexcept {
  const std::size_t b = std::size_t{t} * c.blocks + block;
  for (std::uint64_t m = c.mask[b]; m != 0; m &= m - 1) {
    const std::uint32_t slot = block * 64 + static_cast<std::uint32_t>(std::countr_zero(m));
    if (slot < slot_limit) out[std::size_t{slot} * c.stride + t] = c.max[b];
  }
}

}  // namespace lockstep::detail
