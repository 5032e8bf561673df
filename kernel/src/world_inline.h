#pragma once
// World's small private helpers used on the store's hot paths (declared in store/world.h,
// defined here so the public header declares and does not loop).
#include <lockstep/store/world.h>

#include <bit>
#include <cstdint>

namespace lockstep {

// Starts the loads of a slot's entity-table entries at once, so that the cache misses of a
// change to a scattered entity overlap instead of queuing one behind the other (docs/kernel.md,
// "Memory placement"). A hint only; out-of-range slots are not touched.
inline void World::prefetch_slot(std::uint32_t slot) const noexcept {
#if defined(__GNUC__) || defined(__clang__)
  if (slot >= slot_count_) return;
  __builtin_prefetch(alive_.get() + slot);
  __builtin_prefetch(generations_.get() + slot);
  __builtin_prefetch(entity_archetype_.get() + slot);
  __builtin_prefetch(rows_.get() + slot);
#else
  (void)slot;
#endif
}

// Every column of `a` may change (rows added, removed or reordered).
inline void World::mark_archetype_written(const detail::Archetype& a) noexcept {
  for (std::uint32_t k = 0; k < a.column_count; ++k) marks_.component_written(a.component_ids[k]);
}

inline void World::mark_changed(std::uint32_t slot, std::uint32_t component_id) noexcept {
  const std::uint8_t t = track_of_[component_id];
  if (t != kUntracked) tick_table().stamp(slot, t, tick_);
}

inline void World::mark_added(std::uint32_t slot, std::uint32_t component_id) noexcept {
  const std::uint8_t t = track_of_[component_id];
  if (t != kUntracked) {
    added_ticks_[tick_index(slot, t)] = tick_;
    tick_table().stamp(slot, t, tick_);
  }
}

// Keeps only the enable bits of components in `mask` (after a structural change).
inline void World::restrict_disabled(std::uint32_t slot, const detail::IdSet256& mask) noexcept {
  if (disabled_total_ == 0) return;  // every word is 0: skip the table (a cache miss per call)
  const std::uint64_t old = disabled_[slot];
  if (old == 0) return;
  const std::uint64_t kept = old & mask.words[0];
  disabled_total_ -= static_cast<std::uint64_t>(std::popcount(old) - std::popcount(kept));
  disabled_[slot] = kept;
  if (kept == 0) --disabled_blocks_[slot >> 6];
}

}  // namespace lockstep
