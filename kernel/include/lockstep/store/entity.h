#pragma once
// Entity: a slot id plus a generation. Generation 0 is never live, so Entity{} is the null
// handle. A destroyed slot's generation is bumped, which turns every old handle stale.
#include <lockstep/store/field.h>

#include <compare>
#include <cstddef>
#include <cstdint>

namespace lockstep {

struct Entity {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;

  // Field description (component.h): two little-endian uint32 elements, slot then generation.
  static constexpr FieldKind lockstep_field_kind = FieldKind::Entity;
  static constexpr std::size_t lockstep_element_size = 4;

  // Live generations run 1..kMaxGeneration and then wrap to 1. kPendingGeneration marks a
  // handle returned by CommandBuffer::create() that becomes real at flush.
  static constexpr std::uint32_t kMaxGeneration = 0xFFFFFFFEu;
  static constexpr std::uint32_t kPendingGeneration = 0xFFFFFFFFu;

  static constexpr Entity null() noexcept { return {}; }
  constexpr bool is_null() const noexcept { return generation == 0; }
  constexpr bool is_pending() const noexcept { return generation == kPendingGeneration; }

  constexpr std::uint64_t pack() const noexcept {
    return (std::uint64_t{generation} << 32) | std::uint64_t{slot};
  }
  static constexpr Entity unpack(std::uint64_t bits) noexcept {
    return Entity{static_cast<std::uint32_t>(bits & 0xFFFFFFFFu), static_cast<std::uint32_t>(bits >> 32)};
  }

  friend constexpr bool operator==(Entity, Entity) noexcept = default;
  // Ordered by slot, then generation: the kernel's tie-break for total sorts.
  friend constexpr std::strong_ordering operator<=>(Entity a, Entity b) noexcept {
    if (a.slot != b.slot) return a.slot <=> b.slot;
    return a.generation <=> b.generation;
  }
};

static_assert(sizeof(Entity) == 8);

}  // namespace lockstep
