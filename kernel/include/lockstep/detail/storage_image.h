#pragma once
// Internal layout shared by World and Snapshot, exposed only because World's templates
// (each, get, addComponent) are header-defined. Not part of the API; use StorageView.
#include <lockstep/detail/change_ticks.h>
#include <lockstep/store/field.h>
#include <lockstep/store/guard.h>

#include <cstddef>
#include <cstdint>

namespace lockstep::detail {

inline constexpr std::uint16_t kNoArchetype = 0xFFFF;  // entity_archetype of a free slot
inline constexpr std::uint8_t kNoColumn = 0xFF;
inline constexpr std::uint32_t kColumnAlign = 64;
inline constexpr std::uint32_t kMaxColumns = 32;

struct TypeInfo {
  const TypeDescriptor* descriptor;
  std::uint32_t size;
  std::uint32_t align;
  std::uint32_t type_key;   // process-local lookup key; never hashed, never ordered
  std::uint32_t offset;     // resources: byte offset in the resource block
};

struct Archetype {
  IdSet256 mask;                            // component ids in this archetype
  std::uint8_t column_of[256];              // component id -> column index, kNoColumn if absent
  std::uint8_t component_ids[kMaxColumns];  // ascending
  std::uint32_t column_count;
  std::uint32_t column_size[kMaxColumns];   // bytes per row of each column
  std::uint32_t row_bytes;                  // Σ column_size + 4 (slot id)
  std::uint32_t rows;                       // physical rows; rows - holes are live (World)
  std::uint32_t capacity;                   // rows the block can hold
  // Lazy row order (kernel/src/world_rows.cpp). Rows [0, sorted) ascend by slot except for
  // `holes` removed rows; rows [sorted, rows) were appended since. Always sorted == rows and
  // holes == 0 where rows are read in order (queries, StorageView, snapshots).
  std::uint32_t sorted;
  std::uint32_t holes;
  std::uint32_t widest;                     // largest column (slot column included), bytes
  std::uint64_t block;                      // byte offset of the block in its arena
  // Live addresses of the slot column and of each column (arena + block + offset); not
  // state, refreshed on every layout change. Kept as pointers on purpose: a write through a
  // component reference (integers, bools, Entity) cannot alias a pointer object, so each()
  // re-reads them after every callback (a legal structural change elsewhere may compact the
  // arena) and the compiler can still hoist the loads out of an inlined inner loop.
  std::uint32_t* slots_ptr;
  std::byte* column_ptr[kMaxColumns];
  std::uint64_t block_bytes;
  std::uint64_t slots_offset;               // byte offset (from block) of the uint32 slot column
  std::uint64_t column_offset[kMaxColumns]; // byte offset (from block) of each column
};

struct StorageImage {
  std::uint64_t tick = 0;
  std::uint32_t slot_count = 0;
  std::uint32_t free_count = 0;
  const std::uint32_t* generations = nullptr;
  const std::uint8_t* alive = nullptr;
  const std::uint32_t* free_slots = nullptr;  // free_count entries, next reused first
  std::uint32_t component_count = 0;
  const TypeInfo* components = nullptr;
  std::uint32_t archetype_count = 0;
  const Archetype* archetypes = nullptr;
  const std::byte* arena = nullptr;
  std::uint32_t resource_count = 0;
  const TypeInfo* resources = nullptr;
  const std::byte* resource_data = nullptr;
  // Row state. disabled: slot_count words (bit c = component c disabled), meaningful only
  // when disabled_total != 0. added/changed ticks: [slot * tick_stride + i] for component
  // tracked_ids[i]; a world's changed ticks are read through changed_summary (a slot in a
  // block's mask has the block's max), a snapshot's (summary empty) are the entries.
  const std::uint64_t* disabled = nullptr;
  std::uint64_t disabled_total = 0;
  const std::uint64_t* added_ticks = nullptr;
  const std::uint64_t* changed_ticks = nullptr;
  ChangeTicks changed_summary;  // max == nullptr: no summary
  std::uint32_t tick_stride = 0;
  std::uint32_t tracked_count = 0;
  const std::uint8_t* tracked_ids = nullptr;
};

}  // namespace lockstep::detail
