#pragma once
// Preallocated working memory for World::flush (sized from WorldConfig at construction).
#include <lockstep/detail/storage_image.h>
#include <lockstep/store/world.h>

#include <cstdint>
#include <memory>

namespace lockstep {

struct World::FlushScratch {
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  // One entry per entity a flush touches, in first-touch order.
  struct Staged {
    detail::IdSet256 mask;          // component set after the commands planned so far
    std::uint32_t slot;
    std::uint32_t generation;       // generation after the commands planned so far
    std::uint32_t row_bytes;        // of the current mask's archetype
    std::uint32_t first_command;    // chain of this incarnation's commands
    std::uint32_t last_command;
    std::uint32_t scratch_offset;   // composed row bytes (arrivals only)
    std::uint16_t source;           // archetype in the world before the flush (kNoArchetype if none)
    std::uint16_t archetype;        // archetype id for `mask` (may be planned, not yet created)
    bool initially_alive;
    bool alive;
    bool recreated;                 // destroyed and created again within this flush
    bool leaves;
    bool arrives;
    // The value of this incarnation's only Add command (its component and payload offset), so
    // the apply passes, which visit in slot order, need not walk the chain back to commands in
    // recording order: kNoAdd when there is none, kManyAdds when there are several.
    std::uint16_t add_component = kNoAdd;
    std::uint32_t add_payload = 0;
  };
  static constexpr std::uint16_t kNoAdd = 0xFFFF;
  static constexpr std::uint16_t kManyAdds = 0xFFFE;

  explicit FlushScratch(const WorldConfig& c)
      : stage_of_slot(new std::uint32_t[c.max_entities == 0 ? 1 : c.max_entities]),
        staged(new Staged[c.command_capacity == 0 ? 1 : c.command_capacity]),
        staged_tmp(new Staged[c.command_capacity == 0 ? 1 : c.command_capacity]),
        next_command(new std::uint32_t[c.command_capacity == 0 ? 1 : c.command_capacity]),
        pending_stage(new std::uint32_t[c.command_capacity == 0 ? 1 : c.command_capacity]),
        pending_generation(new std::uint32_t[c.command_capacity == 0 ? 1 : c.command_capacity]),
        freed(new std::uint32_t[c.command_capacity == 0 ? 1 : c.command_capacity]),
        arrivals(new std::uint32_t[c.command_capacity == 0 ? 1 : c.command_capacity]),
        order(new std::uint32_t[c.command_capacity == 0 ? 1 : c.command_capacity]),
        sort_keys(new std::uint64_t[c.command_capacity == 0 ? 1 : c.command_capacity]),
        sort_tmp(new std::uint64_t[c.command_capacity == 0 ? 1 : c.command_capacity]),
        row_bytes(new std::byte[std::uint64_t{c.command_bytes} * 4u + 64u]),
        row_capacity(std::uint64_t{c.command_bytes} * 4u) {
    for (std::uint32_t i = 0; i < c.max_entities; ++i) stage_of_slot[i] = kNone;
  }

  std::unique_ptr<std::uint32_t[]> stage_of_slot;
  std::unique_ptr<Staged[]> staged;
  std::unique_ptr<Staged[]> staged_tmp;       // the staging permuted into slot order (then swapped)
  std::unique_ptr<std::uint32_t[]> next_command;
  std::unique_ptr<std::uint32_t[]> pending_stage;
  std::unique_ptr<std::uint32_t[]> pending_generation;
  std::unique_ptr<std::uint32_t[]> freed;     // slots destroyed by this flush, in order
  std::unique_ptr<std::uint32_t[]> arrivals;  // staged indices arriving in an archetype
  std::unique_ptr<std::uint32_t[]> order;     // staged indices in ascending slot order (apply passes)
  std::unique_ptr<std::uint64_t[]> sort_keys;  // slot << 32 | staged index: the radix sort of `order`
  std::unique_ptr<std::uint64_t[]> sort_tmp;
  std::unique_ptr<std::byte[]> row_bytes;     // composed rows of arriving entities
  std::uint64_t row_capacity;
  detail::IdSet256 planned_masks[WorldConfig::kMaxArchetypesLimit];
};

}  // namespace lockstep
