#pragma once
// QueryAccess: the query layer's only window into World's internals (store/world.h). Every
// iteration form — World::each / parallelEach (query/each.h), cached and dynamic queries,
// predicates, views — reads the store through it, so the store's layout can change behind it.
#include <lockstep/query/terms.h>
#include <lockstep/store/world.h>

#include <cstdint>

namespace lockstep::detail {

// What the shared prologue of World::each / parallelEach settled (QueryAccess::begin_each).
struct EachPlan {
  std::uint8_t matched[WorldConfig::kMaxArchetypesLimit];  // matched archetype ids, visit order
  std::uint32_t matched_count = 0;
  std::uint64_t skip = 0;  // enable bits that skip a row (0: no bit is set anywhere)
  bool marks = false;      // a Write-listed component is tracked: rows are stamped
  bool none = false;       // a listed type is not registered: the call matches nothing
};

struct QueryAccess {
  static const Archetype* archetypes(const World& w) noexcept { return w.archetypes_.get(); }
  static std::uint32_t archetype_count(const World& w) noexcept { return w.archetype_count_; }
  static const std::uint32_t* generations(const World& w) noexcept { return w.generations_.get(); }
  static const std::uint8_t* alive(const World& w) noexcept { return w.alive_.get(); }
  static std::uint32_t slot_count(const World& w) noexcept { return w.slot_count_; }
  static std::uint64_t epoch(const World& w) noexcept { return w.layout_epoch_; }
  static IterationGuard*& guard(World& w) noexcept { return w.call().guard; }
  static Status nested(World& w) noexcept { return w.guard_nested(); }
  static std::uint32_t component_size(const World& w, std::uint32_t id) noexcept { return w.components_[id].size; }
  static std::uint64_t disabled_total(const World& w) noexcept { return w.disabled_total_; }
  static const std::uint64_t* disabled(const World& w) noexcept { return w.disabled_.get(); }
  static const std::uint8_t* disabled_blocks(const World& w) noexcept { return w.disabled_blocks_.get(); }
  static std::uint64_t* added_ticks(const World& w) noexcept { return w.added_ticks_.get(); }
  static ChangeTicks change_ticks(const World& w) noexcept { return w.tick_table(); }
  static std::uint32_t tick_stride(const World& w) noexcept { return w.config_.max_tracked_components; }
  static std::uint8_t track_of(const World& w, std::uint32_t id) noexcept { return w.track_of_[id]; }
  static std::uint64_t tick(const World& w) noexcept { return w.tick_; }
  // Restores slot order in these archetypes before a query reads them (world_rows.cpp).
  static void settle(const World& w, const IdSet256& archetypes) noexcept { w.settle_set(archetypes); }
  // Write terms hand out mutable rows: mark them for incremental hashing (detail/write_marks.h).
  static void mark_writes(World& w, const QuerySpec& spec) noexcept;

  // ---- World::each / parallelEach (query/each.h; kernel/src/query_each.cpp) ----
  // The prologue both share, on the calling thread: nesting, type ids (`keys` are type keys),
  // the running system's declared access, the guard's sets, matching, slot order restored,
  // enable-bit and change-tick needs, write marks and the views' journal.
  static Status begin_each(World& w, const std::uint32_t* keys, const bool* is_read, std::uint32_t n,
                           std::uint32_t* ids, IterationGuard& guard, EachPlan& plan) noexcept;
  // Parallel loops: stamps the Write-listed tracked components' change ticks of every row the
  // loop will visit (before the chunks run, on this thread: a block's summary word may be
  // shared by two chunks), cuts the matched archetypes into chunks (first_chunk[m] = first
  // chunk of matched archetype m; [matched_count] = total) and counts the loop.
  static std::uint32_t plan_chunks(World& w, const std::uint32_t* ids, const bool* is_read, std::uint32_t n,
                                   const EachPlan& plan, std::uint32_t* first_chunk) noexcept;
  // The executor the chunks of a parallel loop run on, or null to run them on this thread
  // (none set, one thread, or inside a concurrent stage whose lanes hold the executor).
  static Executor* loop_executor(const World& w) noexcept;
  static std::uint32_t chunk_count(const World& w, const std::uint32_t* keys, std::uint32_t n) noexcept;
};

}  // namespace lockstep::detail
