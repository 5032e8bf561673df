// Query normal form (DNF with a branch cap) and the incremental archetype matcher.
#include <lockstep/query/cached_query.h>
#include <lockstep/query/terms.h>

#include <atomic>

namespace lockstep {
namespace detail {

std::uint64_t next_layout_epoch() noexcept {
  // Process-wide so that two worlds (or one world before and after a load) never share an
  // epoch: a query cache built against one can never be mistaken for current on another.
  // Never part of the state and never observable in the visit order.
  // lockstep: allow(static) a cache-validity stamp, never hashed, snapshotted or visible in any visit order
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

Status QueryFilter::and_disjunction(const QueryConjunction* alt, std::uint32_t n) noexcept {
  if (branch_count == 0) return Status::Ok();  // already "false"
  if (n == 0) {
    branch_count = 0;
    return Status::Ok();
  }
  if (std::uint64_t{branch_count} * n > kMaxQueryBranches)
    return {ErrorCode::InvalidArgument,
            "query: the any/OR terms normalise to more than kMaxQueryBranches (16) DNF branches"};
  QueryConjunction out[kMaxQueryBranches];
  std::uint32_t count = 0;
  for (std::uint32_t b = 0; b < branch_count; ++b) {
    for (std::uint32_t k = 0; k < n; ++k) {
      QueryConjunction c = branch[b];
      c.with.unite(alt[k].with);
      c.without.unite(alt[k].without);
      if (c.with.intersects(c.without)) continue;  // contradictory: can never hold
      out[count++] = c;
    }
  }
  for (std::uint32_t b = 0; b < count; ++b) branch[b] = out[b];
  branch_count = count;
  return Status::Ok();
}

Status resolve_row_state(const World& w, QuerySpec& spec) noexcept {
  IdSet256 need = spec.filter.with;
  for (int i = 0; i < 4; ++i) need.words[i] &= ~spec.include_disabled.words[i];
  spec.need_enabled = need.words[0];
  spec.need_disabled = spec.include_disabled.words[0];
  spec.marks = false;
  spec.tick_terms = false;
  for (std::uint32_t k = 0; k < spec.fetch_count; ++k) {
    const QueryFetch& f = spec.fetch[k];
    const std::uint8_t t =
        (f.missing || f.access != Access::Write) ? World::kUntracked : QueryAccess::track_of(w, f.id);
    spec.fetch_track[k] = t;
    if (t != World::kUntracked) spec.marks = true;
  }
  Status status = Status::Ok();
  for (std::uint32_t k = 0; k < spec.row_count; ++k) {
    const QueryRowTerm& r = spec.row[k];
    if (r.kind == RowTermKind::Disabled && r.id >= WorldConfig::kEnableBitComponents && status.ok())
      status = {ErrorCode::InvalidArgument, "query: disabled<T> on a component id >= 64 (it has no enable bit)"};
    if (r.kind != RowTermKind::Added && r.kind != RowTermKind::Changed) continue;
    spec.tick_terms = true;
    const std::uint8_t t = QueryAccess::track_of(w, r.id);
    spec.row_track[k] = t;
    if (t == World::kUntracked && status.ok())
      status = {ErrorCode::InvalidArgument,
                "query: added/changed term on a component whose changes are not tracked (World::trackChanges)"};
  }
  return status;
}

void extend_matches(const World& w, const QuerySpec& spec, MatchCache& cache) noexcept {
  const std::uint32_t n = QueryAccess::archetype_count(w);
  const Archetype* archetypes = QueryAccess::archetypes(w);
  for (std::uint32_t a = cache.seen; a < n; ++a) {
    ++cache.tests;
    if (!spec.never && spec.filter.matches(archetypes[a].mask)) {
      cache.matched.insert(a);
      ++cache.matched_count;
    }
  }
  cache.seen = n;
}

}  // namespace detail
}  // namespace lockstep
