#pragma once
// WorldConfig: every capacity of a world, fixed at construction. All memory is reserved up
// front; an operation that would exceed a capacity returns ErrorCode::CapacityExceeded and
// leaves the world unchanged.
#include <cstdint>

namespace lockstep {

struct WorldConfig {
  static constexpr std::uint32_t kMaxArchetypesLimit = 256;
  static constexpr std::uint32_t kMaxComponentsLimit = 256;
  static constexpr std::uint32_t kMaxComponentsPerArchetype = 32;
  static constexpr std::uint32_t kMaxTrackedLimit = 32;
  // Enable bits exist for component ids below this (one 64-bit word per entity slot).
  static constexpr std::uint32_t kEnableBitComponents = 64;

  std::uint32_t max_entities = 65536;     // live + freed slots ever used (slot ids < this)
  std::uint32_t max_components = 64;      // registered component types, ≤ 256
  std::uint32_t max_resources = 32;       // registered resource types
  std::uint32_t max_archetypes = 256;     // ≤ 256, including archetype 0 (no components)
  // Budget for live row bytes: Σ over archetypes of rows × (component bytes + 4 for the slot
  // id). 0 means max_entities × 64. The arena reserves about twice this for amortised growth.
  std::uint64_t row_bytes = 0;
  std::uint32_t resource_bytes = 64 * 1024;    // total bytes of all resource instances
  std::uint32_t command_capacity = 8192;       // commands per command buffer
  std::uint32_t command_bytes = 512 * 1024;    // component payload bytes per command buffer
  // Components whose add/change ticks a world can track (World::trackChanges). 0 reserves
  // nothing; each tracked component costs 16 bytes per entity slot, in the world and in
  // every snapshot.
  std::uint32_t max_tracked_components = 0;

  constexpr std::uint64_t effective_row_bytes() const noexcept {
    return row_bytes != 0 ? row_bytes : std::uint64_t{max_entities} * 64u;
  }
};

}  // namespace lockstep
