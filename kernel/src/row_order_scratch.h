#pragma once
// Preallocated working memory for restoring an archetype's slot order (world_rows.cpp).
#include <lockstep/store/world.h>

#include <algorithm>
#include <cstdint>
#include <memory>

namespace lockstep {

struct World::RowOrderScratch {
  // Tail rows are live rows, so at most max_entities of them; `bytes` holds one column of the
  // tail at a time. An append that would make some column of the tail outgrow `bytes` restores
  // the order first (world_rows.cpp), so the restore never runs out.
  explicit RowOrderScratch(const WorldConfig& c)
      : keys(new std::uint64_t[std::size_t{c.max_entities} + 1]),
        positions(new std::uint32_t[std::size_t{c.max_entities} + 1]),
        byte_capacity(std::max<std::uint64_t>(c.effective_row_bytes() / 4, std::uint64_t{1} << 16)),
        bytes(new std::byte[byte_capacity]),
        runs(new Run[std::size_t{c.max_entities} + 1]) {}

  // A run of live prefix rows that moves by one shift when holes and tail rows are settled
  // together (every run holds a live row, so there are at most max_entities of them).
  struct Run {
    std::uint32_t begin;
    std::uint32_t count;
    std::int32_t shift;
  };

  std::unique_ptr<std::uint64_t[]> keys;       // tail: slot << 32 | tail index, sorted
  std::unique_ptr<std::uint32_t[]> positions;  // tail: rows of the ordered prefix below it
  std::uint64_t byte_capacity;
  std::unique_ptr<std::byte[]> bytes;          // one column of the tail, in slot order
  std::unique_ptr<Run[]> runs;                 // the fused restore's moves, ascending
};

}  // namespace lockstep
