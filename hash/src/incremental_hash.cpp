// Incremental state hash (hash/incremental_hash.h; docs/hashing.md "Incremental hashing").
#include <lockstep/assert.h>
#include <lockstep/hash/incremental_hash.h>
#include <lockstep/store/world.h>

#include "state_hash_parts.h"

namespace lockstep {

const StateHash& IncrementalHasher::hash(const World& world) noexcept {
  const StorageView view = world.storage();
  const detail::WriteMarks& marks = world.writeMarks();
  // Inside each() mutable references may be live and written after this call: no reuse,
  // and no cache update either (the marks were set before this call, so the next call
  // recomputes those parts anyway, but an empty cache is the simplest sound answer).
  const bool reuse = world_ == world.identity() && !world.iterating() && marks.everything <= seen_;
  const std::uint32_t component_count =
      view.component_count() < StateHash::kMaxComponents ? view.component_count() : StateHash::kMaxComponents;
  const std::uint32_t resource_count = view.resource_count();
  const bool same_shape = reuse && last_.component_count == component_count &&
                          last_.resource_count ==
                              (resource_count < StateHash::kMaxResources ? resource_count : StateHash::kMaxResources);
  StateHash& h = last_;
  recomputed_ = 0;
  h.tick = view.tick();
  h.entities = hash_detail::hash_entities_part(view, true);
  h.archetypes = hash_detail::hash_archetypes_part(view, true);
  h.component_count = component_count;
  for (std::uint32_t c = 0; c < component_count; ++c) {
    if (same_shape && marks.component[c] <= seen_) continue;
    h.components[c] = hash_detail::hash_component_part(view, c, true);
    ++recomputed_;
  }
  bool any_resource = !same_shape;
  for (std::uint32_t r = 0; r < resource_count && !any_resource; ++r)
    any_resource = marks.resource[r & 0xFFu] > seen_;
  h.resource_count = resource_count < StateHash::kMaxResources ? resource_count : StateHash::kMaxResources;
  if (any_resource) {
    h.resources = hash_detail::hash_resources_part(view, true);
    for (std::uint32_t r = 0; r < h.resource_count; ++r) {
      if (same_shape && marks.resource[r] <= seen_) continue;
      h.resource_parts[r] = hash_detail::hash_resource_part(view, r, true);
      ++recomputed_;
    }
  }
  h.total = hash_detail::fold_total(h);
  if (world.iterating()) {
    world_ = 0;
  } else {
    world_ = world.identity();
    seen_ = marks.clock;
  }
#if defined(LOCKSTEP_CHECK_INVARIANTS) && LOCKSTEP_CHECK_INVARIANTS
  // Debug trees prove every incremental hash against the full one: a write path without a
  // mark (or a pointer written after a hash) fails here, at the first tick it matters.
  LOCKSTEP_ASSERT_MSG(hash_world(world) == h,
                      "IncrementalHasher: reused a stale sub-hash (a write without a mark, or a mutable pointer "
                      "kept across a hash; docs/hashing.md)");
#endif
  return h;
}

}  // namespace lockstep
