// The out-of-line half of World::each / parallelEach (query/each.h): the prologue they share,
// the parallel loop's partition and change-tick stamping, and the executor choice.
#include <lockstep/exec/executor.h>
#include <lockstep/exec/thread_pool.h>
#include <lockstep/query/access.h>

#include <cstdint>

namespace lockstep {

void World::setThreadPool(ThreadPool* pool) noexcept {
  executor_ = pool;
  pool_ = pool;
}

namespace detail {

void QueryAccess::mark_writes(World& w, const QuerySpec& spec) noexcept {
  for (std::uint32_t k = 0; k < spec.fetch_count; ++k)
    if (spec.fetch[k].access == Access::Write && !spec.fetch[k].missing) {
      w.marks_.component_written(spec.fetch[k].id);
      if (w.view_journal_ != nullptr) w.view_journal_->column(spec.fetch[k].id);  // views rescan these columns
    }
}

Status QueryAccess::begin_each(World& w, const std::uint32_t* keys, const bool* is_read, std::uint32_t n,
                               std::uint32_t* ids, IterationGuard& guard, EachPlan& plan) noexcept {
  IdSet256 query;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::int32_t id = w.component_id_of(keys[k]);
    if (id < 0) {  // unregistered: matches nothing
      plan.none = true;
      return Status::Ok();
    }
    ids[k] = static_cast<std::uint32_t>(id);
    const AccessKind kind = is_read[k] ? AccessKind::ReadComponent : AccessKind::WriteComponent;
    if (w.access_denied(kind, ids[k])) return w.access_violation(kind, ids[k], Entity::null());
    query.insert(ids[k]);
    guard.listed_components.insert(ids[k]);
    if (is_read[k]) guard.read_components.insert(ids[k]);
  }
  for (std::uint32_t a = 0; a < w.archetype_count_; ++a) {
    if (w.archetypes_[a].mask.contains_all(query)) {
      plan.matched[plan.matched_count++] = static_cast<std::uint8_t>(a);
      guard.matched_archetypes.insert(a);
    }
  }
  w.settle_set(guard.matched_archetypes);
  // Enable bits and change ticks cost nothing unless some bit is set / a Write-listed
  // component is tracked: then the checked loop runs instead.
  for (std::uint32_t k = 0; k < n; ++k) {
    if (ids[k] < WorldConfig::kEnableBitComponents) plan.skip |= std::uint64_t{1} << ids[k];
    if (!is_read[k] && w.track_of_[ids[k]] != World::kUntracked) plan.marks = true;
  }
  if (w.disabled_total_ == 0) plan.skip = 0;
  for (std::uint32_t k = 0; k < n; ++k)
    if (!is_read[k]) {
      w.marks_.component_written(ids[k]);
      if (w.view_journal_ != nullptr) w.view_journal_->column(ids[k]);
    }
  return Status::Ok();
}

std::uint32_t QueryAccess::plan_chunks(World& w, const std::uint32_t* ids, const bool* is_read, std::uint32_t n,
                                       const EachPlan& plan, std::uint32_t* first_chunk) noexcept {
  std::uint32_t chunks = 0;
  for (std::uint32_t m = 0; m < plan.matched_count; ++m) {
    first_chunk[m] = chunks;
    chunks += (w.archetypes_[plan.matched[m]].rows + World::kParallelChunkRows - 1) / World::kParallelChunkRows;
  }
  first_chunk[plan.matched_count] = chunks;
  // fn makes no world calls, so the rows a chunk visits are exactly the rows whose written
  // components are enabled now.
  if (plan.marks) {
    const std::uint64_t* const disabled = plan.skip != 0 ? w.disabled_.get() : nullptr;
    const ChangeTicks ticks = w.tick_table();
    for (std::uint32_t k = 0; k < n; ++k) {
      if (is_read[k] || w.track_of_[ids[k]] == World::kUntracked) continue;
      const std::uint32_t t = w.track_of_[ids[k]];
      for (std::uint32_t m = 0; m < plan.matched_count; ++m) {
        const Archetype& a = w.archetypes_[plan.matched[m]];
        if (disabled == nullptr) {
          ticks.stamp_rows(a.slots_ptr, a.rows, t, w.tick_);
        } else {
          for (std::uint32_t r = 0; r < a.rows; ++r)
            if ((disabled[a.slots_ptr[r]] & plan.skip) == 0) ticks.stamp(a.slots_ptr[r], t, w.tick_);
        }
      }
    }
  }
  // In a concurrent stage the executor is running the lanes: the loop runs on its lane's
  // thread (the same chunks in the same order; only timing differs) and is not counted.
  if (!w.lanes_) ++w.parallel_loops_;
  return chunks;
}

Executor* QueryAccess::loop_executor(const World& w) noexcept {
  if (w.executor_ == nullptr || w.executor_->threads() <= 1 || w.lanes_) return nullptr;
  return w.executor_;
}

std::uint32_t QueryAccess::chunk_count(const World& w, const std::uint32_t* keys, std::uint32_t n) noexcept {
  IdSet256 query;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::int32_t id = w.component_id_of(keys[k]);
    if (id < 0) return 0;
    query.insert(static_cast<std::uint32_t>(id));
  }
  IdSet256 matched;
  for (std::uint32_t a = 0; a < w.archetype_count_; ++a)
    if (w.archetypes_[a].mask.contains_all(query)) matched.insert(a);
  w.settle_set(matched);  // rows are counted after holes are compacted, as the loop counts them
  std::uint32_t chunks = 0;
  for (std::uint32_t a = 0; a < w.archetype_count_; ++a)
    if (matched.contains(a)) chunks += (w.archetypes_[a].rows + World::kParallelChunkRows - 1) / World::kParallelChunkRows;
  return chunks;
}

}  // namespace detail
}  // namespace lockstep
