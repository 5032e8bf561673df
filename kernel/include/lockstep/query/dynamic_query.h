#pragma once
// Run-time queries (docs/kernel.md, "Queries II"): a fetch list plus DNF filters built from
// component ids or names, handing out untyped column pointers with the component descriptor
// — the building block for tools, a query language and scripting.
//
//   DynamicQuery q;
//   Status s = QueryBuilder(world).write("Pos").read("Vel").without("Dead")
//                  .beginOr().with("Missile").orElse().with("Bullet").endOr()
//                  .build(q);
//   q.each(world, [](const DynamicRow& row) { std::byte* pos = row.write(0); ... });
//
// Same visit order (archetype id, then slot), same iteration-legality guard and the same
// cached match set as CachedQuery. Building, matching and iterating allocate nothing.
#include <lockstep/query/cached_query.h>
#include <lockstep/query/terms.h>
#include <lockstep/query/access.h>
#include <lockstep/query/each.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

namespace lockstep {

class DynamicQuery;

// One visited row: the entity and one pointer per fetch term (in build order).
class DynamicRow {
 public:
  Entity entity() const noexcept { return entity_; }
  std::uint32_t size() const noexcept { return count_; }
  // Null when term k is optional and the entity lacks the component (or it is disabled).
  const std::byte* read(std::uint32_t k) const noexcept { return ptr_[k]; }
  // Null when term k is Read, or optional and absent: writing needs a Write term.
  std::byte* write(std::uint32_t k) const noexcept { return writable_[k] ? ptr_[k] : nullptr; }
  std::uint32_t componentId(std::uint32_t k) const noexcept { return ids_[k]; }
  const TypeDescriptor& descriptor(std::uint32_t k) const noexcept { return *descriptors_[k]; }

 private:
  friend class DynamicQuery;
  friend struct detail::WhereAccess;
  Entity entity_;
  std::uint32_t count_ = 0;
  std::byte* ptr_[kMaxQueryFetch] = {};
  bool writable_[kMaxQueryFetch] = {};
  std::uint32_t ids_[kMaxQueryFetch] = {};
  const TypeDescriptor* descriptors_[kMaxQueryFetch] = {};
};

// One run of a chunked visit (QueryChunk: size(), archetype(), entity(i)) with its columns
// by term index: column k is size() values of stride(k) bytes each, contiguous, in visit order.
// They stay valid for the whole visit: structural changes and creates inside fn are refused.
class DynamicChunk : public QueryChunk {
 public:
  std::uint32_t fetchCount() const noexcept;
  // Column k's value for the run's first row; null when term k is optional and absent in the run.
  const std::byte* read(std::uint32_t k) const noexcept;
  // As read(k); null when term k is Read.
  std::byte* write(std::uint32_t k) const noexcept;
  template <class T>
  const T* read(std::uint32_t k) const noexcept {
    return reinterpret_cast<const T*>(read(k));
  }
  template <class T>
  T* write(std::uint32_t k) const noexcept {
    return reinterpret_cast<T*>(write(k));
  }
  std::size_t stride(std::uint32_t k) const noexcept;
  std::uint32_t componentId(std::uint32_t k) const noexcept;
  const TypeDescriptor& descriptor(std::uint32_t k) const noexcept;

 private:
  friend class DynamicQuery;
  const DynamicQuery* query_ = nullptr;  // the terms: access, ids, sizes, descriptors
  std::uint8_t column_[kMaxQueryFetch] = {};
};

class DynamicQuery {
 public:
  bool built() const noexcept { return built_; }
  std::uint32_t fetchCount() const noexcept { return spec_.fetch_count; }
  std::uint32_t componentId(std::uint32_t k) const noexcept { return spec_.fetch[k].id; }
  Access access(std::uint32_t k) const noexcept { return spec_.fetch[k].access; }
  bool optional(std::uint32_t k) const noexcept { return spec_.fetch[k].optional; }

  // fn(const DynamicRow&). InvalidArgument when the query was never built successfully.
  template <class Fn>
  Status each(World& world, Fn&& fn);
  // fn(const DynamicChunk&): the same rows in the same order as each(), handed out as runs
  // (one per archetype when no row filter is live), so fn loops over column bases instead of
  // being called per row — the form for tools and scripts that do per-row work themselves.
  // Row filters (enable bits, added/changed) are judged when a run is handed out, and Write
  // terms of tracked components stamp the whole run then. Structural changes and creates
  // inside fn are refused (the run's column addresses must stay valid).
  template <class Fn>
  Status eachChunk(World& world, Fn&& fn);
  template <class Fn>
  Status eachChunk(const World& world, Fn&& fn) {
    if (!spec_.read_set.contains_all(spec_.listed_set))
      return {ErrorCode::InvalidArgument, "DynamicQuery::eachChunk on a const World: the query has Write terms"};
    return eachChunk(const_cast<World&>(world), std::forward<Fn>(fn));
  }
  // On a const world every fetch must be Read (InvalidArgument otherwise).
  template <class Fn>
  Status each(const World& world, Fn&& fn) {
    if (!spec_.read_set.contains_all(spec_.listed_set))
      return {ErrorCode::InvalidArgument, "DynamicQuery::each on a const World: the query has Write terms"};
    return each(const_cast<World&>(world), std::forward<Fn>(fn));
  }

  Status refresh(const World& world) noexcept;
  // added/changed terms match rows stamped at or after this tick (default 0).
  DynamicQuery& since(std::uint64_t tick) noexcept {
    since_ = tick;
    return *this;
  }
  std::uint32_t matchedArchetypeCount() const noexcept { return cache_.matched_count; }
  bool matchesArchetype(std::uint32_t id) const noexcept { return id < 256 && cache_.matched.contains(id); }
  std::uint64_t archetypeTests() const noexcept { return cache_.tests; }

 private:
  friend class QueryBuilder;
  friend class DynamicChunk;
  friend struct detail::WhereAccess;
  // each()'s and eachChunk()'s prologue: checks, match refresh, write marks, the guard's
  // sets, slot order restored in the matched archetypes.
  Status begin_visit(World& world, const char* what, detail::IterationGuard& guard);
  detail::QuerySpec spec_;
  detail::MatchCache cache_;
  const TypeDescriptor* descriptors_[kMaxQueryFetch] = {};
  std::uint32_t sizes_[kMaxQueryFetch] = {};
  std::uint32_t component_count_ = 0;  // registrations when built (ids never change after)
  std::uint64_t since_ = 0;
  bool built_ = false;
};

// Collects terms; the first error sticks and is returned by build(). Names are the
// LOCKSTEP_COMPONENT type names (World::componentIdByName).
class QueryBuilder {
 public:
  explicit QueryBuilder(const World& world) noexcept : world_(world) {}

  QueryBuilder& read(std::uint32_t id) noexcept { return fetch(id, Access::Read, false); }
  QueryBuilder& write(std::uint32_t id) noexcept { return fetch(id, Access::Write, false); }
  QueryBuilder& optRead(std::uint32_t id) noexcept { return fetch(id, Access::Read, true); }
  QueryBuilder& optWrite(std::uint32_t id) noexcept { return fetch(id, Access::Write, true); }
  QueryBuilder& with(std::uint32_t id) noexcept;
  QueryBuilder& without(std::uint32_t id) noexcept;
  QueryBuilder& any(std::initializer_list<std::uint32_t> ids) noexcept;
  QueryBuilder& enabled(std::uint32_t id) noexcept { return row(id, detail::RowTermKind::Enabled); }
  QueryBuilder& disabled(std::uint32_t id) noexcept { return row(id, detail::RowTermKind::Disabled); }
  QueryBuilder& added(std::uint32_t id) noexcept { return row(id, detail::RowTermKind::Added); }
  QueryBuilder& changed(std::uint32_t id) noexcept { return row(id, detail::RowTermKind::Changed); }

  QueryBuilder& read(const char* name) noexcept { return read(lookup(name)); }
  QueryBuilder& write(const char* name) noexcept { return write(lookup(name)); }
  QueryBuilder& optRead(const char* name) noexcept { return optRead(lookup(name)); }
  QueryBuilder& optWrite(const char* name) noexcept { return optWrite(lookup(name)); }
  QueryBuilder& with(const char* name) noexcept { return with(lookup(name)); }
  QueryBuilder& without(const char* name) noexcept { return without(lookup(name)); }
  QueryBuilder& any(std::initializer_list<const char*> names) noexcept;
  QueryBuilder& enabled(const char* name) noexcept { return enabled(lookup(name)); }
  QueryBuilder& disabled(const char* name) noexcept { return disabled(lookup(name)); }
  QueryBuilder& added(const char* name) noexcept { return added(lookup(name)); }
  QueryBuilder& changed(const char* name) noexcept { return changed(lookup(name)); }

  // OR group: beginOr(), then with()/without() terms of the first alternative, orElse()
  // before each further alternative, endOr(). Only with/without may appear inside a group.
  QueryBuilder& beginOr() noexcept;
  QueryBuilder& orElse() noexcept;
  QueryBuilder& endOr() noexcept;

  // The first error: unknown name or id (NotRegistered), a component fetched twice
  // (InvalidArgument, "conflicting Read/Write"), too many terms or DNF branches, a misplaced
  // term inside an OR group, an unclosed group. `out` is untouched on error.
  Status build(DynamicQuery& out) const noexcept;
  Status status() const noexcept { return error_; }
  // The name that failed to resolve, when status() is NotRegistered from a name; else null.
  const char* unknownName() const noexcept { return unknown_name_; }

 private:
  static constexpr std::uint32_t kUnknown = 0xFFFFFFFFu;
  std::uint32_t lookup(const char* name) noexcept;
  bool check_id(std::uint32_t id) noexcept;
  void fail(Status s) noexcept {
    if (error_.ok()) error_ = s;
  }
  QueryBuilder& fetch(std::uint32_t id, Access access, bool optional) noexcept;
  QueryBuilder& row(std::uint32_t id, detail::RowTermKind kind) noexcept;
  bool outside_group(const char* what) noexcept;

  const World& world_;
  detail::QuerySpec spec_;
  Status error_;
  const char* unknown_name_ = nullptr;
  bool in_group_ = false;
  detail::QueryConjunction alts_[kMaxQueryBranches];
  std::uint32_t alt_count_ = 0;
};

inline std::uint32_t DynamicChunk::fetchCount() const noexcept { return query_->spec_.fetch_count; }
inline const std::byte* DynamicChunk::read(std::uint32_t k) const noexcept {
  return column_[k] == detail::kNoColumn ? nullptr
                                         : archetype_->column_ptr[column_[k]] + std::size_t{begin_} * query_->sizes_[k];
}
inline std::byte* DynamicChunk::write(std::uint32_t k) const noexcept {
  return query_->spec_.fetch[k].access == Access::Write ? const_cast<std::byte*>(read(k)) : nullptr;
}
inline std::size_t DynamicChunk::stride(std::uint32_t k) const noexcept { return query_->sizes_[k]; }
inline std::uint32_t DynamicChunk::componentId(std::uint32_t k) const noexcept { return query_->spec_.fetch[k].id; }
inline const TypeDescriptor& DynamicChunk::descriptor(std::uint32_t k) const noexcept { return *query_->descriptors_[k]; }

inline Status DynamicQuery::begin_visit(World& world, const char* what, detail::IterationGuard& guard) {
  if (!built_) return {ErrorCode::InvalidArgument, what};
  return detail::begin_visit(world, spec_, cache_, guard, [&] { return refresh(world); });
}

template <class Fn>
Status DynamicQuery::each(World& world, Fn&& fn) {
  detail::IterationGuard guard;
  if (Status s = begin_visit(world, "DynamicQuery::each: the query was not built", guard); !s.ok()) return s;
  const detail::IdSet256 matched = cache_.matched;
  detail::GuardScope scope(detail::QueryAccess::guard(world), guard);
  const detail::Archetype* archetypes = detail::QueryAccess::archetypes(world);
  const std::uint32_t* generations = detail::QueryAccess::generations(world);
  DynamicRow row;
  const std::uint32_t n = spec_.fetch_count;
  row.count_ = n;
  for (std::uint32_t k = 0; k < n; ++k) {
    row.writable_[k] = spec_.fetch[k].access == Access::Write;
    row.ids_[k] = spec_.fetch[k].id;
    row.descriptors_[k] = descriptors_[k];
  }
  const bool stamps_first = detail::stamps_only(world, spec_);
  const bool checked = !stamps_first && detail::needs_row_checks(world, spec_);
  const detail::RowFilter filter = detail::row_filter(world, spec_, since_);
  detail::for_each_id(matched, [&](std::uint32_t id) {
    const detail::Archetype& a = archetypes[id];
    if (stamps_first) detail::stamp_archetype(filter, a, spec_);
    // Per-archetype locals: the row loop reads nothing through `this` or the world.
    std::uint8_t columns[kMaxQueryFetch];
    std::size_t sizes[kMaxQueryFetch];
    for (std::uint32_t k = 0; k < n; ++k) {
      columns[k] = a.column_of[spec_.fetch[k].id];
      sizes[k] = sizes_[k];
    }
    const std::uint32_t count = a.rows;
    if (!checked) {
      for (std::uint32_t r = 0; r < count; ++r) {
        const std::uint32_t slot = a.slots_ptr[r];
        row.entity_ = Entity{slot, generations[slot]};
        for (std::uint32_t k = 0; k < n; ++k)
          row.ptr_[k] = columns[k] == detail::kNoColumn ? nullptr : a.column_ptr[columns[k]] + r * sizes[k];
        fn(static_cast<const DynamicRow&>(row));
      }
      return;
    }
    const detail::RowFilter& f = filter;
    std::uint64_t word = 0;
    for (std::uint32_t r = f.next(a.slots_ptr, 0, count, word); r < count; r = f.next(a.slots_ptr, r + 1, count, word)) {
      const std::uint32_t slot = a.slots_ptr[r];
      row.entity_ = Entity{slot, generations[slot]};
      for (std::uint32_t k = 0; k < n; ++k) {
        const bool absent = columns[k] == detail::kNoColumn || (word & f.opt_null[k]) != 0;
        row.ptr_[k] = absent ? nullptr : a.column_ptr[columns[k]] + r * sizes[k];
        if (!absent && f.mark_track[k] != ~0u) f.changed.stamp(slot, f.mark_track[k], f.now);
      }
      fn(static_cast<const DynamicRow&>(row));
    }
  });
  return Status::Ok();
}

template <class Fn>
Status DynamicQuery::eachChunk(World& world, Fn&& fn) {
  detail::IterationGuard guard;
  if (Status s = begin_visit(world, "DynamicQuery::eachChunk: the query was not built", guard); !s.ok()) return s;
  const detail::IdSet256 matched = cache_.matched;
  detail::freeze_structure(guard);
  detail::GuardScope scope(detail::QueryAccess::guard(world), guard);
  const detail::Archetype* archetypes = detail::QueryAccess::archetypes(world);
  DynamicChunk chunk;
  const std::uint32_t n = spec_.fetch_count;
  chunk.generations_ = detail::QueryAccess::generations(world);
  chunk.query_ = this;
  const bool checked = detail::needs_row_checks(world, spec_);
  const detail::RowFilter f = detail::row_filter(world, spec_, since_);
  detail::for_each_id(matched, [&](std::uint32_t id) {
    const detail::Archetype& a = archetypes[id];
    std::uint8_t columns[kMaxQueryFetch];
    for (std::uint32_t k = 0; k < n; ++k) columns[k] = a.column_of[spec_.fetch[k].id];
    chunk.archetype_ = &a;
    chunk.archetype_id_ = id;
    detail::for_each_run(a, a.rows, checked, f, n, [&](std::uint32_t begin, std::uint32_t end, std::uint64_t word) {
      for (std::uint32_t k = 0; k < n; ++k) {
        const bool absent = columns[k] == detail::kNoColumn || (word & f.opt_null[k]) != 0;
        chunk.column_[k] = absent ? detail::kNoColumn : columns[k];
        if (!absent && f.mark_track[k] != ~0u) detail::stamp_run(f, a, f.mark_track[k], begin, end);
      }
      chunk.begin_ = begin;
      chunk.count_ = end - begin;
      fn(static_cast<const DynamicChunk&>(chunk));
    });
  });
  return Status::Ok();
}

}  // namespace lockstep
