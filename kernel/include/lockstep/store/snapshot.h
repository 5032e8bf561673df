#pragma once
// Snapshot: a complete copy of a world's state in preallocated buffers. World::save and
// World::load copy only live bytes and allocate nothing. SnapshotRing keeps N of them for
// rollback. Snapshots made by World::save are trusted by World::load; snapshots assembled
// from external bytes (files) are validated completely before anything is changed.
#include <lockstep/detail/storage_image.h>
#include <lockstep/status.h>
#include <lockstep/store/storage_view.h>
#include <lockstep/store/world_config.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace lockstep {

class World;

// Host-order state parts, as a snapshot-file reader decodes them (ids are the target
// world's ids). Used only to build untrusted snapshots; not on any hot path.
struct SnapshotParts {
  struct ArchetypePart {
    std::vector<std::uint8_t> component_ids;             // ascending
    std::vector<std::uint32_t> slots;                    // ascending
    std::vector<std::vector<std::byte>> columns;         // one per component id, rows × size
  };
  std::uint64_t tick = 0;
  std::vector<std::uint32_t> generations;                // one per slot ever used
  std::vector<std::uint8_t> alive;                       // one per slot ever used
  std::vector<std::uint32_t> free_slots;                 // reuse order
  std::vector<ArchetypePart> archetypes;                 // id order; [0] is component-less
  std::vector<std::vector<std::byte>> resources;         // one per registered resource
};

class Snapshot {
 public:
  Snapshot() = default;
  // Reserves room for any state `world` can hold.
  explicit Snapshot(const World& world);

  void reserve(const World& world);
  bool empty() const noexcept { return !valid_; }
  bool trusted() const noexcept { return trusted_; }
  std::uint64_t tick() const noexcept { return image_.tick; }
  // Bytes the last save copied (entity table, the entity -> row index of a trusted snapshot,
  // free list, archetype rows, resources, row state): the baseline of save/load benchmarks.
  std::size_t live_bytes() const noexcept { return live_bytes_; }
  StorageView view() const noexcept { return StorageView(image_); }

  // Builds an untrusted snapshot for `world`'s schema from decoded parts. Only shape is
  // checked here (sizes against the world's capacities); World::load checks the rest.
  Status assign(const World& world, const SnapshotParts& parts);

 private:
  friend class World;
  void refresh_image() noexcept;

  WorldConfig config_{};
  std::unique_ptr<std::uint32_t[]> generations_;
  std::unique_ptr<std::uint8_t[]> alive_;
  std::unique_ptr<std::uint32_t[]> free_;
  std::unique_ptr<std::uint32_t[]> rows_;              // trusted snapshots: entity -> row
  std::unique_ptr<std::uint16_t[]> entity_archetype_;  // trusted snapshots: entity -> archetype
  std::unique_ptr<detail::Archetype[]> archetypes_;
  std::unique_ptr<detail::TypeInfo[]> components_;
  std::unique_ptr<detail::TypeInfo[]> resources_;
  std::unique_ptr<std::byte[]> column_storage_;
  std::unique_ptr<std::byte[]> resource_data_;
  std::unique_ptr<std::uint64_t[]> disabled_;  // enable bits per slot (used when any is set)
  std::unique_ptr<std::uint64_t[]> added_ticks_;    // change ticks (worlds with tracked components)
  std::unique_ptr<std::uint64_t[]> changed_ticks_;
  std::uint8_t tracked_ids_[WorldConfig::kMaxTrackedLimit] = {};
  // View state (view.h): trusted snapshots only, host order; never in StorageView or files.
  std::unique_ptr<std::byte[]> view_data_;
  std::size_t view_capacity_ = 0;
  std::size_t view_used_ = 0;
  std::byte* columns_ = nullptr;  // 64-byte aligned view into column_storage_
  std::uint64_t column_capacity_ = 0;
  std::uint32_t resource_capacity_ = 0;
  std::uint32_t resource_used_ = 0;
  std::size_t live_bytes_ = 0;
  bool valid_ = false;
  bool trusted_ = false;
  detail::StorageImage image_{};
};

// N preallocated snapshots addressed by tick (slot = tick mod N).
class SnapshotRing {
 public:
  SnapshotRing(const World& world, std::uint32_t slots);

  std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(slots_.size()); }
  // The slot that holds (or will hold) `tick`.
  Snapshot& slot_for(std::uint64_t tick) noexcept { return slots_[tick % slots_.size()]; }
  // The snapshot of `tick`, or nullptr when that tick was overwritten or never saved.
  const Snapshot* find(std::uint64_t tick) const noexcept;
  // Saves `world` into the slot for world.tick().
  void save(const World& world) noexcept;

 private:
  std::vector<Snapshot> slots_;
};

}  // namespace lockstep
