// QueryBuilder and DynamicQuery's out-of-line parts.
#include <lockstep/query/dynamic_query.h>

namespace lockstep {

Status DynamicQuery::refresh(const World& world) noexcept {
  if (!built_) return {ErrorCode::InvalidArgument, "DynamicQuery: the query was not built"};
  if (cache_.epoch != detail::QueryAccess::epoch(world)) {
    // Ids are stable (registration only appends), but a query built for a world with fewer
    // registrations than this one's ids may not be used on a smaller world.
    if (world.componentCount() < component_count_)
      return {ErrorCode::Mismatch, "DynamicQuery: built for a world with more registered components"};
    for (std::uint32_t k = 0; k < spec_.fetch_count; ++k)
      if (&world.componentDescriptor(spec_.fetch[k].id) != descriptors_[k])
        return {ErrorCode::Mismatch, "DynamicQuery: built for a world whose component ids name other types"};
    if (Status s = detail::resolve_row_state(world, spec_); !s.ok()) return s;
    const std::uint64_t tests = cache_.tests;
    cache_ = detail::MatchCache{};
    cache_.tests = tests;
    cache_.epoch = detail::QueryAccess::epoch(world);
  }
  if (cache_.seen != detail::QueryAccess::archetype_count(world)) detail::extend_matches(world, spec_, cache_);
  return Status::Ok();
}

std::uint32_t QueryBuilder::lookup(const char* name) noexcept {
  const std::int32_t id = name == nullptr ? -1 : world_.componentIdByName(name);
  if (id < 0) {
    if (error_.ok()) unknown_name_ = name;
    fail({ErrorCode::NotRegistered, "query: unknown component name (see QueryBuilder::unknownName)"});
    return kUnknown;
  }
  return static_cast<std::uint32_t>(id);
}

bool QueryBuilder::check_id(std::uint32_t id) noexcept {
  if (id == kUnknown) return false;  // lookup already failed
  if (id >= world_.componentCount()) {
    fail({ErrorCode::NotRegistered, "query: unknown component id"});
    return false;
  }
  return true;
}

bool QueryBuilder::outside_group(const char* what) noexcept {
  if (!in_group_) return true;
  fail({ErrorCode::InvalidArgument, what});
  return false;
}

QueryBuilder& QueryBuilder::fetch(std::uint32_t id, Access access, bool optional) noexcept {
  if (!check_id(id) || !outside_group("query: only with/without terms may appear inside an OR group")) return *this;
  if (spec_.fetch_count >= kMaxQueryFetch) {
    fail({ErrorCode::CapacityExceeded, "query: more than kMaxQueryFetch (32) fetch terms"});
    return *this;
  }
  for (std::uint32_t k = 0; k < spec_.fetch_count; ++k) {
    if (spec_.fetch[k].id == id) {
      fail({ErrorCode::InvalidArgument,
            "query: a component is fetched twice (conflicting Read/Write terms for one component)"});
      return *this;
    }
  }
  detail::spec_fetch(spec_, static_cast<std::int32_t>(id), access, optional);
  return *this;
}

QueryBuilder& QueryBuilder::row(std::uint32_t id, detail::RowTermKind kind) noexcept {
  if (!check_id(id) || !outside_group("query: only with/without terms may appear inside an OR group")) return *this;
  if (spec_.row_count >= kMaxQueryRowTerms) {
    fail({ErrorCode::CapacityExceeded, "query: more than kMaxQueryRowTerms (32) row terms"});
    return *this;
  }
  detail::spec_row(spec_, static_cast<std::int32_t>(id), kind);
  return *this;
}

QueryBuilder& QueryBuilder::with(std::uint32_t id) noexcept {
  if (!check_id(id)) return *this;
  if (in_group_) alts_[alt_count_ - 1].with.insert(id);
  else spec_.filter.with.insert(id);
  return *this;
}

QueryBuilder& QueryBuilder::without(std::uint32_t id) noexcept {
  if (!check_id(id)) return *this;
  if (in_group_) alts_[alt_count_ - 1].without.insert(id);
  else spec_.filter.without.insert(id);
  return *this;
}

QueryBuilder& QueryBuilder::any(std::initializer_list<std::uint32_t> ids) noexcept {
  if (!outside_group("query: any() inside an OR group (write it as alternatives)")) return *this;
  if (ids.size() > kMaxQueryBranches) {
    fail({ErrorCode::InvalidArgument, "query: the any/OR terms normalise to more than kMaxQueryBranches (16) DNF branches"});
    return *this;
  }
  detail::QueryConjunction alts[kMaxQueryBranches];
  std::uint32_t n = 0;
  for (std::uint32_t id : ids) {
    if (!check_id(id)) return *this;
    alts[n++].with.insert(id);
  }
  fail(spec_.filter.and_disjunction(alts, n));
  return *this;
}

QueryBuilder& QueryBuilder::any(std::initializer_list<const char*> names) noexcept {
  if (!outside_group("query: any() inside an OR group (write it as alternatives)")) return *this;
  if (names.size() > kMaxQueryBranches) {
    fail({ErrorCode::InvalidArgument, "query: the any/OR terms normalise to more than kMaxQueryBranches (16) DNF branches"});
    return *this;
  }
  detail::QueryConjunction alts[kMaxQueryBranches];
  std::uint32_t n = 0;
  for (const char* name : names) {
    const std::uint32_t id = lookup(name);
    if (!check_id(id)) return *this;
    alts[n++].with.insert(id);
  }
  fail(spec_.filter.and_disjunction(alts, n));
  return *this;
}

QueryBuilder& QueryBuilder::beginOr() noexcept {
  if (!outside_group("query: OR groups do not nest")) return *this;
  in_group_ = true;
  alt_count_ = 1;
  alts_[0] = detail::QueryConjunction{};
  return *this;
}

QueryBuilder& QueryBuilder::orElse() noexcept {
  if (!in_group_) {
    fail({ErrorCode::InvalidArgument, "query: orElse() outside an OR group"});
    return *this;
  }
  if (alt_count_ >= kMaxQueryBranches) {
    fail({ErrorCode::InvalidArgument, "query: the any/OR terms normalise to more than kMaxQueryBranches (16) DNF branches"});
    return *this;
  }
  alts_[alt_count_++] = detail::QueryConjunction{};
  return *this;
}

QueryBuilder& QueryBuilder::endOr() noexcept {
  if (!in_group_) {
    fail({ErrorCode::InvalidArgument, "query: endOr() without beginOr()"});
    return *this;
  }
  in_group_ = false;
  fail(spec_.filter.and_disjunction(alts_, alt_count_));
  alt_count_ = 0;
  return *this;
}

Status QueryBuilder::build(DynamicQuery& out) const noexcept {
  if (!error_.ok()) return error_;
  if (in_group_) return {ErrorCode::InvalidArgument, "query: an OR group was not closed with endOr()"};
  detail::QuerySpec resolved = spec_;
  if (Status s = detail::resolve_row_state(world_, resolved); !s.ok()) return s;
  out.spec_ = resolved;
  out.cache_ = detail::MatchCache{};
  out.component_count_ = world_.componentCount();
  for (std::uint32_t k = 0; k < spec_.fetch_count; ++k) {
    out.descriptors_[k] = &world_.componentDescriptor(spec_.fetch[k].id);
    out.sizes_[k] = detail::QueryAccess::component_size(world_, spec_.fetch[k].id);
  }
  out.built_ = true;
  return Status::Ok();
}

}  // namespace lockstep
