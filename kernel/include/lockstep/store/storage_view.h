#pragma once
// StorageView: the read-only window through which everything outside the kernel (hash,
// snapshot files, dumps, diffs) sees a world's — or a snapshot's — complete state. It
// exposes exactly the state that determines the future: tick, entity table, free-slot
// order, archetypes (component sets, row slot ids, column bytes) and resources. No
// capacities, pointers or slack. Column and resource bytes are in host byte order; use the
// TypeDescriptor field list to produce canonical little-endian bytes.
#include <lockstep/detail/storage_image.h>
#include <lockstep/store/field.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace lockstep {


class StorageView {
 public:
  // Holds its own copy of the (small) image, so views are independent values: hashing one
  // world from several threads at once is safe as long as nobody mutates the world.
  explicit StorageView(const detail::StorageImage& image) noexcept : image_(image) {}

  std::uint64_t tick() const noexcept;

  // Entity table, indexed by slot id, over every slot ever used (the high-water mark).
  std::uint32_t slot_count() const noexcept;
  std::span<const std::uint32_t> generations() const noexcept;  // current generation per slot
  std::span<const std::uint8_t> alive() const noexcept;         // 1 = live, 0 = free
  // Freed slots in reuse order: free_slots()[0] is the slot the next create() takes.
  std::span<const std::uint32_t> free_slots() const noexcept;

  // Registered component types, dense ids in registration order.
  std::uint32_t component_count() const noexcept;
  const TypeDescriptor& component(std::uint32_t component_id) const noexcept;

  // Archetypes in id (creation) order. Archetype 0 is the component-less archetype.
  std::uint32_t archetype_count() const noexcept;
  // Ascending component ids; column i stores component archetype_components(a)[i].
  std::span<const std::uint8_t> archetype_components(std::uint32_t archetype) const noexcept;
  std::uint32_t archetype_rows(std::uint32_t archetype) const noexcept;
  std::span<const std::uint32_t> archetype_slots(std::uint32_t archetype) const noexcept;  // ascending
  std::span<const std::byte> column_bytes(std::uint32_t archetype, std::uint32_t column) const noexcept;

  // Registered resource types, dense ids in registration order, one instance each.
  std::uint32_t resource_count() const noexcept;
  const TypeDescriptor& resource(std::uint32_t resource_id) const noexcept;
  std::span<const std::byte> resource_bytes(std::uint32_t resource_id) const noexcept;

  // Row state (docs/kernel.md, "Enable bits", "Change detection"). Both are absent — empty
  // spans, count 0 — in worlds that never disable a component or track changes.
  // Enable bits: one word per slot (slot_count), bit c set = component c disabled.
  std::uint64_t disabled_count() const noexcept;
  std::span<const std::uint64_t> disabled_bits() const noexcept;
  // Change-tracked component ids, ascending; tracked index i of a component = its position.
  std::span<const std::uint8_t> tracked_components() const noexcept;
  // Tick at which tracked component i was added to / last written on the entity in `slot`
  // (meaningful only while that entity holds the component).
  std::uint64_t added_tick(std::uint32_t slot, std::uint32_t tracked_index) const noexcept;
  std::uint64_t changed_tick(std::uint32_t slot, std::uint32_t tracked_index) const noexcept;

 private:
  detail::StorageImage image_;
};

}  // namespace lockstep
