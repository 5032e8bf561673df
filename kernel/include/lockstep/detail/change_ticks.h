#pragma once
// Changed ticks with a summary per block of 64 slots (docs/kernel.md, "Change detection").
// Internal to World, its queries and StorageView; not part of the API.
//
// For each tracked index t and block b of slots [64b, 64b + 64):
//   max[t][b]    the largest changed tick of any slot of the block (an upper bound),
//   mask[t][b]   slots whose changed tick is max[t][b]; their entries in `ticks` are stale,
//   second[t][b] an upper bound of the changed ticks of the block's slots outside the mask.
// A slot's changed tick is max when its mask bit is set, else its own entry — the same value
// the single per-slot table held, so hashes, saves and golden traces do not change. What the
// summary buys: a write loop over whole blocks stamps one word per block instead of one per
// row, and a changed<T> query skips a block whose max is older than `since` and, when only the
// mask can pass (second < since), tests rows against the mask instead of loading their ticks.
// Bits of slots that no longer hold the component may stay set: only rows holding it are
// ever read.
#include <bit>
#include <cstddef>
#include <cstdint>

namespace lockstep::detail {

struct ChangeTicks {
  std::uint64_t* ticks = nullptr;   // [slot * stride + t]
  std::uint64_t* max = nullptr;     // [t * blocks + b]
  std::uint64_t* second = nullptr;  // [t * blocks + b]
  std::uint64_t* mask = nullptr;    // [t * blocks + b]
  std::uint32_t stride = 0;
  std::uint32_t blocks = 0;

  std::uint64_t changed(std::uint32_t slot, std::uint32_t t) const noexcept {
    const std::size_t b = std::size_t{t} * blocks + (slot >> 6);
    return ((mask[b] >> (slot & 63u)) & 1u) != 0 ? max[b] : ticks[std::size_t{slot} * stride + t];
  }

  // The slot's changed tick becomes `now`.
  void stamp(std::uint32_t slot, std::uint32_t t, std::uint64_t now) const noexcept {
    const std::size_t b = std::size_t{t} * blocks + (slot >> 6);
    const std::uint64_t bit = std::uint64_t{1} << (slot & 63u);
    if (now == max[b]) {
      mask[b] |= bit;
    } else if (now > max[b]) {
      // The mask's slots keep the old max as their own tick, and it bounds everything else.
      const std::uint32_t base = slot & ~63u;
      for (std::uint64_t m = mask[b]; m != 0; m &= m - 1)
        ticks[std::size_t{base + static_cast<std::uint32_t>(std::countr_zero(m))} * stride + t] = max[b];
      second[b] = max[b];
      max[b] = now;
      mask[b] = bit;
    } else {  // the tick went back (setTick): an ordinary entry below the max
      ticks[std::size_t{slot} * stride + t] = now;
      if ((mask[b] & bit) != 0) mask[b] &= ~bit;
      if (now > second[b]) second[b] = now;
    }
  }

  // Every slot of block `block` (all 64 hold the component) changed at `now`.
  void stamp_block(std::uint32_t block, std::uint32_t t, std::uint64_t now) const noexcept {
    const std::size_t b = std::size_t{t} * blocks + block;
    if (now >= max[b]) {
      max[b] = now;
      mask[b] = ~std::uint64_t{0};
      second[b] = 0;
    } else {
      for (std::uint32_t i = 0; i < 64; ++i) stamp(block * 64 + i, t, now);
    }
  }

  // Stamps `count` ascending slots (an archetype's rows) at `now`: a run of 64 rows holding
  // exactly the 64 slots of one block is one stamp_block.
  void stamp_rows(const std::uint32_t* slots, std::uint32_t count, std::uint32_t t, std::uint64_t now) const noexcept {
    std::uint32_t r = 0;
    while (r < count) {
      const std::uint32_t s = slots[r];
      if ((s & 63u) == 0 && count - r >= 64 && slots[r + 63] == s + 63) {
        stamp_block(s >> 6, t, now);
        r += 64;
      } else {
        stamp(s, t, now);
        ++r;
      }
    }
  }

  // Recomputes the summary of tracked index t over slots [0, slot_count) from `ticks` alone
  // (after a load or a copy that wrote the entries): no mask, max = second = the block's max.
  void rebuild(std::uint32_t t, std::uint32_t slot_count) const noexcept {
    for (std::uint32_t b = 0; b < blocks; ++b) {
      std::uint64_t m = 0;
      const std::uint32_t begin = b * 64;
      const std::uint32_t end = begin + 64 < slot_count ? begin + 64 : slot_count;
      for (std::uint32_t s = begin; s < end; ++s) {
        const std::uint64_t v = ticks[std::size_t{s} * stride + t];
        if (v > m) m = v;
      }
      const std::size_t i = std::size_t{t} * blocks + b;
      max[i] = m;
      second[i] = m;
      mask[i] = 0;
    }
  }
};

}  // namespace lockstep::detail
