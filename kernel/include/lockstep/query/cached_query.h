#pragma once
// CachedQuery<Terms...>: a typed query object that keeps its matched-archetype set between
// calls (docs/kernel.md, "Queries II").
//
//   CachedQuery<term::write<Pos>, term::read<Vel>, term::none<Dead>> move;   // a system member
//   move.each(world, [](Entity e, Pos& p, const Vel& v) { ... });
//
// The match set is a 256-bit set of archetype ids plus the number of archetypes already
// examined, so a call only tests archetypes created since the last call; a snapshot load or
// a registration changes the world's layout epoch and the next call rebuilds from scratch
// (archetypes are state: a load may renumber or drop them). Visit order, the iteration-
// legality guard and the callback shape are those of World::each; the guard's listed set is
// every component the query can hand out (required and optional fetches).
#include <lockstep/query/access.h>
#include <lockstep/query/each.h>
#include <lockstep/query/terms.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace lockstep {

namespace detail {

struct WhereAccess;  // predicates, ordering and paging over a query (query_where.h)

// Fills the QuerySpec fields that depend on the world's row state (enable bits, tracked
// components). Returns InvalidArgument when an added/changed term names an untracked type.
Status resolve_row_state(const World& w, QuerySpec& spec) noexcept;

// System access (system_access.h): every fetch of the query must be declared by the running
// system (read fetches Read or Write, write fetches Write). Ok when none is installed.
Status check_query_access(const World& w, const QuerySpec& spec) noexcept;

// The row filter of one query call, with everything in locals of the row loop (a write
// through a component reference may alias the world's uint64 fields, so nothing is read
// through the world or the spec inside the loop).
struct RowFilter {
  const std::uint64_t* disabled = nullptr;  // null when no bit is set anywhere
  std::uint64_t need_enabled = 0;
  std::uint64_t need_disabled = 0;
  const std::uint64_t* tick_base[kMaxQueryRowTerms];  // per tick term: the added array, or null (changed)
  std::uint32_t tick_track[kMaxQueryRowTerms];
  std::uint32_t tick_count = 0;
  ChangeTicks changed;  // changed ticks (changed terms, and Write terms stamp them)
  std::size_t stride = 0;
  std::uint64_t since = 0;
  std::uint64_t now = 0;
  std::uint64_t opt_null[kMaxQueryFetch];  // per fetch: enable bit that nulls an optional
  std::uint32_t mark_track[kMaxQueryFetch];  // per fetch: tracked index to stamp, or ~0u

  // Whether `slot`'s row passes; `word` receives its disabled word (0 when no bits exist).
  bool pass(std::uint32_t slot, std::uint64_t& word) const noexcept {
    word = disabled != nullptr ? disabled[slot] : 0;
    if ((word & need_enabled) != 0 || (word & need_disabled) != need_disabled) return false;
    for (std::uint32_t k = 0; k < tick_count; ++k) {
      const std::uint64_t t = tick_base[k] != nullptr ? tick_base[k][slot * stride + tick_track[k]]
                                                      : changed.changed(slot, tick_track[k]);
      if (t < since) return false;
    }
    return true;
  }

  // The first row in [r, end) of `slots` that passes (end when none), `word` as in pass().
  // Evaluated at the moment of the call, so a row whose state fn changed before the loop
  // reached it is judged by its new state, exactly as a pass() per row. A lone added/changed
  // term without enable bits — the common change-detection query — takes a loop of its own:
  // for changed, whole blocks of 64 slots are skipped by their summary (detail/change_ticks.h)
  // and blocks where only the mask can pass are judged by the mask, without loading ticks.
  std::uint32_t next(const std::uint32_t* slots, std::uint32_t r, std::uint32_t end, std::uint64_t& word) const noexcept {
    if (disabled == nullptr && tick_count == 1 && need_disabled == 0) {
      word = 0;
      const std::uint64_t t = since;
      if (tick_base[0] != nullptr) {
        const std::uint64_t* const ticks = tick_base[0] + tick_track[0];
        const std::size_t s = stride;
        while (r < end && ticks[std::size_t{slots[r]} * s] < t) ++r;
        return r;
      }
      const std::size_t plane = std::size_t{tick_track[0]} * changed.blocks;
      const std::uint64_t* const max = changed.max + plane;
      const std::uint64_t* const second = changed.second + plane;
      const std::uint64_t* const mask = changed.mask + plane;
      if (r >= end) return end;
      const std::uint32_t last_block = slots[end - 1] >> 6;
      // The first row in (r, end) of the first block after b whose max reaches `since`:
      // runs of unchanged blocks are passed over in the summary, without loading slots.
      auto after_block = [&](std::uint32_t row, std::uint32_t b) noexcept {
        do ++b;
        while (b <= last_block && max[b] < t);
        return b > last_block ? end : first_row_from(slots, row + 1, end, b << 6);
      };
      while (r < end) {
        const std::uint32_t slot = slots[r];
        const std::uint32_t b = slot >> 6;
        if (max[b] < t) {
          r = after_block(r, b);
          continue;
        }
        if (second[b] < t) {
          // Exactly the mask's slots pass: the next one at or above this row's slot.
          const std::uint64_t bits = mask[b] & (~std::uint64_t{0} << (slot & 63u));
          if (bits == 0) {
            r = after_block(r, b);
            continue;
          }
          const std::uint32_t want = (b << 6) + static_cast<std::uint32_t>(std::countr_zero(bits));
          if (want == slot) return r;
          r = first_row_from(slots, r + 1, end, want);
          continue;
        }
        if (changed.changed(slot, tick_track[0]) >= t) return r;
        ++r;
      }
      return end;
    }
    while (r < end && !pass(slots[r], word)) ++r;
    return r;
  }

  // The first row in [r, end) whose slot is >= `slot` (rows ascend by slot, slots distinct,
  // so it lies within `slot - slots[r]` rows of r: one probe when the slots are dense).
  static std::uint32_t first_row_from(const std::uint32_t* slots, std::uint32_t r, std::uint32_t end,
                                      std::uint32_t slot) noexcept {
    if (r >= end || slots[r] >= slot) return r;
    std::uint32_t hi = end;
    const std::uint64_t reach = std::uint64_t{r} + (slot - slots[r]);
    if (reach < end) {
      hi = static_cast<std::uint32_t>(reach);
      if (slots[hi] == slot) return hi;  // dense: every slot in between is a row here
    } else {
      hi = end;
    }
    // slots[r] < slot, and the answer is in (r, hi] (hi == end: none below end).
    std::uint32_t lo = r + 1;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (slots[mid] < slot) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
};

inline RowFilter row_filter(const World& w, const QuerySpec& spec, std::uint64_t since) noexcept {
  RowFilter f;
  f.disabled = QueryAccess::disabled_total(w) != 0 ? QueryAccess::disabled(w) : nullptr;
  f.need_enabled = spec.need_enabled;
  f.need_disabled = spec.need_disabled;
  f.stride = QueryAccess::tick_stride(w);
  f.since = since;
  f.now = QueryAccess::tick(w);
  f.changed = QueryAccess::change_ticks(w);
  if (spec.tick_terms) {
    for (std::uint32_t k = 0; k < spec.row_count; ++k) {
      const RowTermKind kind = spec.row[k].kind;
      if (kind != RowTermKind::Added && kind != RowTermKind::Changed) continue;
      f.tick_base[f.tick_count] = kind == RowTermKind::Added ? QueryAccess::added_ticks(w) : nullptr;
      f.tick_track[f.tick_count++] = spec.row_track[k];
    }
  }
  for (std::uint32_t k = 0; k < spec.fetch_count; ++k) {
    const QueryFetch& fe = spec.fetch[k];
    f.opt_null[k] = (fe.optional && !fe.missing && fe.id < 64 && !spec.include_disabled.contains(fe.id))
                        ? std::uint64_t{1} << fe.id
                        : 0;
    f.mark_track[k] = spec.fetch_track[k] == 0xFF ? ~0u : spec.fetch_track[k];
  }
  return f;
}

inline bool needs_row_checks(const World& w, const QuerySpec& spec) noexcept {
  return QueryAccess::disabled_total(w) != 0 || spec.row_count != 0 || spec.marks;
}

// Only Write stamps need the checked loop (no enable bit set anywhere, no row term): every row
// is visited, so the rows can be stamped before the visit — a word per whole block of 64
// slots — and visited by the unchecked loop. Stamps the fetches of `a` present in it.
inline bool stamps_only(const World& w, const QuerySpec& spec) noexcept {
  return QueryAccess::disabled_total(w) == 0 && spec.row_count == 0 && spec.marks;
}
inline void stamp_archetype(const RowFilter& f, const Archetype& a, const QuerySpec& spec) noexcept {
  for (std::uint32_t k = 0; k < spec.fetch_count; ++k)
    if (f.mark_track[k] != ~0u && !spec.fetch[k].missing && a.column_of[spec.fetch[k].id] != kNoColumn)
      f.changed.stamp_rows(a.slots_ptr, a.rows, f.mark_track[k], f.now);
}

// The runs of a chunked visit (CachedQuery::eachChunk, DynamicQuery::eachChunk): rows
// [0, count) of `a` when nothing is checked, else every maximal stretch of passing rows whose
// disabled words agree on the enable bits that null one of the `fetches` optional fetches.
// emit(begin, end, word) runs before the next stretch is judged, so the rows after a run are
// judged by the state fn left, as each() judges every row after the calls before it.
template <class Emit>
void for_each_run(const Archetype& a, std::uint32_t count, bool checked, const RowFilter& f, std::uint32_t fetches,
                  Emit&& emit) {
  if (!checked) {
    if (count != 0) emit(std::uint32_t{0}, count, std::uint64_t{0});
    return;
  }
  std::uint64_t presence_bits = 0;
  for (std::uint32_t k = 0; k < fetches; ++k) presence_bits |= f.opt_null[k];
  std::uint64_t word = 0;
  std::uint32_t r = f.next(a.slots_ptr, 0, count, word);
  while (r < count) {
    const std::uint64_t presence = word & presence_bits;
    const std::uint32_t begin = r;
    std::uint64_t next_word = 0;
    ++r;
    while (r < count && f.pass(a.slots_ptr[r], next_word) && (next_word & presence_bits) == presence) ++r;
    emit(begin, r, word);
    if (r < count) r = f.next(a.slots_ptr, r, count, word);
  }
}

// A chunked visit hands out column addresses that fn keeps for a whole run, and any structural
// change — a create included — may move the arena's columns: so while its fn runs, every
// archetype counts as matched (structural adds, removes and destroys are refused) and create()
// is refused too (the observer rule), each as an iteration_mutation event.
inline void freeze_structure(IterationGuard& guard) noexcept {
  for (std::uint64_t& word : guard.matched_archetypes.words) word = ~std::uint64_t{0};
  guard.observer = true;
}

// Stamps rows [begin, end) of `a` as changed at f.now for tracked index `track`.
inline void stamp_run(const RowFilter& f, const Archetype& a, std::uint32_t track, std::uint32_t begin,
                      std::uint32_t end) noexcept {
  f.changed.stamp_rows(a.slots_ptr + begin, end - begin, track, f.now);
}

// What a query remembers between calls. Not state: it is rebuilt from the world whenever the
// world's layout epoch differs from the one it was built against.
struct MatchCache {
  std::uint64_t epoch = 0;  // 0 = never built (epochs start at 1)
  std::uint32_t seen = 0;   // archetypes [0, seen) have been tested
  IdSet256 matched;
  std::uint32_t matched_count = 0;
  std::uint64_t tests = 0;  // archetype masks tested over the query's life (tests use it)
};

// Tests archetypes [cache.seen, archetype_count) against spec and records the matches.
void extend_matches(const World& w, const QuerySpec& spec, MatchCache& cache) noexcept;

// The prologue of every query visit (typed and dynamic, per row and by runs): nesting, the
// match set (refresh()), the running system's declared access, write marks, the guard's sets,
// and slot order restored in the matched archetypes.
template <class Refresh>
Status begin_visit(World& world, const QuerySpec& spec, const MatchCache& cache, IterationGuard& guard,
                   Refresh&& refresh) {
  if (QueryAccess::guard(world) != nullptr) return QueryAccess::nested(world);
  if (Status s = refresh(); !s.ok()) return s;
  if (world.access() != nullptr)
    if (Status s = check_query_access(world, spec); !s.ok()) return s;
  QueryAccess::mark_writes(world, spec);
  guard.matched_archetypes = cache.matched;
  guard.read_components = spec.read_set;
  guard.listed_components = spec.listed_set;
  QueryAccess::settle(world, cache.matched);
  return Status::Ok();
}

// ---- typed term resolution ----

template <class Term>
struct fetch_traits {
  static constexpr bool is_fetch = false;
};
template <class T>
struct fetch_traits<term::read<T>> {
  static constexpr bool is_fetch = true, optional = false, write = false;
  using type = T;
  using arg = const T&;
  using column = const T*;
};
template <class T>
struct fetch_traits<term::write<T>> {
  static constexpr bool is_fetch = true, optional = false, write = true;
  using type = T;
  using arg = T&;
  using column = T*;
};
template <class T>
struct fetch_traits<term::opt_read<T>> {
  static constexpr bool is_fetch = true, optional = true, write = false;
  using type = T;
  using arg = const T*;
  using column = const T*;
};
template <class T>
struct fetch_traits<term::opt_write<T>> {
  static constexpr bool is_fetch = true, optional = true, write = true;
  using type = T;
  using arg = T*;
  using column = T*;
};

template <class... Ls>
struct concat;
template <>
struct concat<> {
  using type = TypeList<>;
};
template <class... As>
struct concat<TypeList<As...>> {
  using type = TypeList<As...>;
};
template <class... As, class... Bs, class... Rest>
struct concat<TypeList<As...>, TypeList<Bs...>, Rest...> {
  using type = typename concat<TypeList<As..., Bs...>, Rest...>::type;
};
template <class... Terms>
using fetch_list_t =
    typename concat<std::conditional_t<fetch_traits<Terms>::is_fetch, TypeList<Terms>, TypeList<>>...>::type;

// Upper bound of the DNF branch count a term contributes (1 for non-disjunctive terms).
template <class Term>
struct branch_factor {
  static constexpr std::uint64_t value = 1;
};
template <class... Ts>
struct branch_factor<term::any<Ts...>> {
  static constexpr std::uint64_t value = sizeof...(Ts) == 0 ? 1 : sizeof...(Ts);
};
template <class... Alts>
struct branch_factor<term::or_<Alts...>> {
  static constexpr std::uint64_t value = sizeof...(Alts) == 0 ? 1 : sizeof...(Alts);
};

template <class Term>
struct is_row_term : std::false_type {};
template <class T>
struct is_row_term<term::enabled<T>> : std::true_type {};
template <class T>
struct is_row_term<term::disabled<T>> : std::true_type {};
template <class T>
struct is_row_term<term::added<T>> : std::true_type {};
template <class T>
struct is_row_term<term::changed<T>> : std::true_type {};

template <class... Ts>
constexpr bool distinct_types() noexcept {
  if constexpr (sizeof...(Ts) < 2) {
    return true;
  } else {
    return []<class H, class... R>(TypeList<H, R...>) {
      return !(std::is_same_v<H, R> || ...) && distinct_types<R...>();
    }(TypeList<Ts...>{});
  }
}

inline void spec_fetch(QuerySpec& s, std::int32_t id, Access access, bool optional) noexcept {
  QueryFetch& f = s.fetch[s.fetch_count++];
  if (id < 0) {
    f = QueryFetch{0, access, optional, true};
    if (!optional) s.never = true;  // a required type the world does not know: matches nothing
    return;
  }
  const auto u = static_cast<std::uint32_t>(id);
  f = QueryFetch{u, access, optional, false};
  s.listed_set.insert(u);
  if (access == Access::Read) s.read_set.insert(u);
  if (!optional) s.filter.with.insert(u);
}
inline void spec_row(QuerySpec& s, std::int32_t id, RowTermKind kind) noexcept {
  if (id < 0) {
    s.never = true;
    return;
  }
  const auto u = static_cast<std::uint32_t>(id);
  s.filter.with.insert(u);
  if (kind == RowTermKind::Disabled) s.include_disabled.insert(u);
  s.row[s.row_count++] = QueryRowTerm{u, kind};
}

template <class F>
void add_term(const World& w, QuerySpec& s, Status&) noexcept {
  using Tr = fetch_traits<F>;
  spec_fetch(s, w.componentId<typename Tr::type>(), Tr::write ? Access::Write : Access::Read, Tr::optional);
}

// Alternatives of an or_ group.
template <class Alt>
struct alt_filler;
template <class... Ts>
struct alt_filler<term::with<Ts...>> {
  static void fill(const World& w, QueryConjunction& c, bool& possible) noexcept {
    const std::int32_t ids[] = {w.componentId<Ts>()..., 0};
    for (std::size_t k = 0; k < sizeof...(Ts); ++k) {
      if (ids[k] < 0) possible = false;
      else c.with.insert(static_cast<std::uint32_t>(ids[k]));
    }
  }
};
template <class... Ts>
struct alt_filler<term::none<Ts...>> {
  static void fill(const World& w, QueryConjunction& c, bool&) noexcept {
    const std::int32_t ids[] = {w.componentId<Ts>()..., -1};
    for (std::size_t k = 0; k < sizeof...(Ts); ++k)
      if (ids[k] >= 0) c.without.insert(static_cast<std::uint32_t>(ids[k]));
  }
};
template <class... Fs>
struct alt_filler<term::all_of<Fs...>> {
  static void fill(const World& w, QueryConjunction& c, bool& possible) noexcept {
    (alt_filler<Fs>::fill(w, c, possible), ...);
  }
};

template <class Term>
struct term_adder {
  static void add(const World& w, QuerySpec& s, Status& st) noexcept { add_term<Term>(w, s, st); }
};
template <class... Ts>
struct term_adder<term::with<Ts...>> {
  static void add(const World& w, QuerySpec& s, Status&) noexcept {
    const std::int32_t ids[] = {w.componentId<Ts>()..., 0};
    for (std::size_t k = 0; k < sizeof...(Ts); ++k) {
      if (ids[k] < 0) s.never = true;
      else s.filter.with.insert(static_cast<std::uint32_t>(ids[k]));
    }
  }
};
template <class... Ts>
struct term_adder<term::none<Ts...>> {
  static void add(const World& w, QuerySpec& s, Status&) noexcept {
    const std::int32_t ids[] = {w.componentId<Ts>()..., -1};
    for (std::size_t k = 0; k < sizeof...(Ts); ++k)
      if (ids[k] >= 0) s.filter.without.insert(static_cast<std::uint32_t>(ids[k]));
  }
};
template <class... Ts>
struct term_adder<term::any<Ts...>> {
  static void add(const World& w, QuerySpec& s, Status& st) noexcept {
    const std::int32_t ids[] = {w.componentId<Ts>()..., -1};
    QueryConjunction alts[sizeof...(Ts) + 1];
    std::uint32_t n = 0;
    for (std::size_t k = 0; k < sizeof...(Ts); ++k)
      if (ids[k] >= 0) alts[n++].with.insert(static_cast<std::uint32_t>(ids[k]));
    const Status r = s.filter.and_disjunction(alts, n);
    if (!r.ok() && st.ok()) st = r;
  }
};
template <class... Alts>
struct term_adder<term::or_<Alts...>> {
  static void add(const World& w, QuerySpec& s, Status& st) noexcept {
    QueryConjunction alts[sizeof...(Alts) + 1];
    std::uint32_t n = 0;
    auto one = [&]<class Alt>(Alt*) {
      QueryConjunction c;
      bool possible = true;
      alt_filler<Alt>::fill(w, c, possible);
      if (possible) alts[n++] = c;
    };
    (one(static_cast<Alts*>(nullptr)), ...);
    const Status r = s.filter.and_disjunction(alts, n);
    if (!r.ok() && st.ok()) st = r;
  }
};
template <class T>
struct term_adder<term::enabled<T>> {
  static void add(const World& w, QuerySpec& s, Status&) noexcept { spec_row(s, w.componentId<T>(), RowTermKind::Enabled); }
};
template <class T>
struct term_adder<term::disabled<T>> {
  static void add(const World& w, QuerySpec& s, Status&) noexcept { spec_row(s, w.componentId<T>(), RowTermKind::Disabled); }
};
template <class T>
struct term_adder<term::added<T>> {
  static void add(const World& w, QuerySpec& s, Status&) noexcept { spec_row(s, w.componentId<T>(), RowTermKind::Added); }
};
template <class T>
struct term_adder<term::changed<T>> {
  static void add(const World& w, QuerySpec& s, Status&) noexcept { spec_row(s, w.componentId<T>(), RowTermKind::Changed); }
};

// Ascending archetype ids of a match set, calling f(id) for each.
template <class F>
inline void for_each_id(const IdSet256& set, F&& f) {
  for (std::uint32_t word = 0; word < 4; ++word) {
    std::uint64_t bits = set.words[word];
    while (bits != 0) {
      const auto bit = static_cast<std::uint32_t>(std::countr_zero(bits));
      bits &= bits - 1;
      f(word * 64u + bit);
    }
  }
}

}  // namespace detail

// One run of a chunked visit (CachedQuery::eachChunk, DynamicQuery::eachChunk): size()
// consecutive rows of one archetype, every one passing the query's filters, with the same
// fetched components present. The column pointers handed beside it address the run's first
// row and stay valid for the whole visit: while fn runs, structural changes and creates are
// refused (freeze_structure); record them in the command buffer instead.
class QueryChunk {
 public:
  std::uint32_t size() const noexcept { return count_; }
  std::uint32_t archetype() const noexcept { return archetype_id_; }
  Entity entity(std::uint32_t i) const noexcept {
    const std::uint32_t slot = archetype_->slots_ptr[begin_ + i];
    return Entity{slot, generations_[slot]};
  }

 protected:
  template <class...>
  friend class CachedQuery;
  friend class DynamicQuery;
  const detail::Archetype* archetype_ = nullptr;
  const std::uint32_t* generations_ = nullptr;
  std::uint32_t archetype_id_ = 0;
  std::uint32_t begin_ = 0;
  std::uint32_t count_ = 0;
};

template <class... Terms>
class CachedQuery {
  using Fetches = detail::fetch_list_t<Terms...>;
  static constexpr std::uint64_t kBranchBound = (std::uint64_t{1} * ... * detail::branch_factor<Terms>::value);
  static constexpr std::size_t kRowTerms = (std::size_t{0} + ... + (detail::is_row_term<Terms>::value ? 1 : 0));

  template <class... Fs>
  static constexpr bool fetch_types_distinct(detail::TypeList<Fs...>) {
    return detail::distinct_types<typename detail::fetch_traits<Fs>::type...>();
  }
  template <class... Fs>
  static constexpr bool fetch_read_only(detail::TypeList<Fs...>) {
    return (!detail::fetch_traits<Fs>::write && ...);
  }
  template <class... Fs>
  static constexpr std::size_t fetch_count(detail::TypeList<Fs...>) {
    return sizeof...(Fs);
  }

 public:
  static_assert(fetch_types_distinct(Fetches{}),
                "CachedQuery: a component may be fetched once (conflicting or repeated Read/Write terms)");
  static_assert(kBranchBound <= kMaxQueryBranches,
                "CachedQuery: the any/or_ terms normalise to more than kMaxQueryBranches (16) DNF branches");
  static_assert(fetch_count(Fetches{}) <= kMaxQueryFetch, "CachedQuery: at most 32 fetched components");
  static_assert(kRowTerms <= kMaxQueryRowTerms, "CachedQuery: at most 32 row terms");

  static constexpr bool kReadOnly = fetch_read_only(Fetches{});

  CachedQuery() = default;

  // Brings the match set up to date with `world` (called by each); returns the query's
  // build status (an error only for malformed queries).
  Status refresh(const World& world) noexcept {
    if (cache_.epoch != detail::QueryAccess::epoch(world)) {
      spec_ = detail::QuerySpec{};
      status_ = Status::Ok();
      (detail::term_adder<Terms>::add(world, spec_, status_), ...);
      const Status rs = detail::resolve_row_state(world, spec_);
      if (status_.ok()) status_ = rs;
      const std::uint64_t tests = cache_.tests;
      cache_ = detail::MatchCache{};
      cache_.tests = tests;
      cache_.epoch = detail::QueryAccess::epoch(world);
    }
    if (cache_.seen != detail::QueryAccess::archetype_count(world)) detail::extend_matches(world, spec_, cache_);
    return status_;
  }

  // fn(Entity, args...) with one argument per fetch term, in term order. Archetype id
  // ascending, then slot ascending; the iteration-legality guard is live while fn runs.
  template <class Fn>
  Status each(World& world, Fn&& fn) {
    detail::IterationGuard guard;
    if (Status s = begin_visit(world, guard); !s.ok()) return s;
    const detail::IdSet256 matched = cache_.matched;  // fixed before the first callback
    detail::GuardScope scope(detail::QueryAccess::guard(world), guard);
    const detail::Archetype* archetypes = detail::QueryAccess::archetypes(world);
    const std::uint32_t* generations = detail::QueryAccess::generations(world);
    if (!detail::needs_row_checks(world, spec_)) {
      detail::for_each_id(matched,
                          [&](std::uint32_t id) { rows(Fetches{}, archetypes[id], generations, fn, 0, archetypes[id].rows); });
    } else if (detail::stamps_only(world, spec_)) {
      const detail::RowFilter filter = detail::row_filter(world, spec_, since_);
      detail::for_each_id(matched, [&](std::uint32_t id) {
        detail::stamp_archetype(filter, archetypes[id], spec_);
        rows(Fetches{}, archetypes[id], generations, fn, 0, archetypes[id].rows);
      });
    } else {
      const detail::RowFilter filter = detail::row_filter(world, spec_, since_);
      const bool bits_only = filter.tick_count == 0 && !spec_.marks && filter.need_disabled == 0;
      const std::uint8_t* blocks = detail::QueryAccess::disabled_blocks(world);
      detail::for_each_id(matched, [&](std::uint32_t id) {
        const detail::Archetype& a = archetypes[id];
        if (!bits_only || filter.disabled == nullptr) {
          rows_checked(Fetches{}, a, generations, filter, fn, 0, a.rows);
          return;
        }
        // Enable bits only: runs of 64 rows whose slots lie in clean 64-slot blocks take the
        // unchecked loop, so a few disabled entities cost little.
        for (std::uint32_t begin = 0; begin < a.rows; begin += 64) {
          const std::uint32_t end = begin + 64 < a.rows ? begin + 64 : a.rows;
          const std::uint32_t lo = a.slots_ptr[begin] >> 6, hi = a.slots_ptr[end - 1] >> 6;
          bool clean = hi - lo < 4;
          for (std::uint32_t b = lo; clean && b <= hi; ++b) clean = blocks[b] == 0;
          if (clean) rows(Fetches{}, a, generations, fn, begin, end);
          else rows_checked(Fetches{}, a, generations, filter, fn, begin, end);
        }
      });
    }
    return Status::Ok();
  }

  // fn(const QueryChunk&, columns...): the same rows in the same order as each(), as runs
  // (one per archetype when no row filter is live), with one pointer per fetch term — T* for
  // write/opt_write, const T* for read/opt_read, null for an optional term absent in the run —
  // addressing the run's first row. For loops the compiler can vectorise, or hand-written SIMD.
  // Row filters are judged when a run is handed out; Write terms of tracked components stamp
  // the whole run then. Structural changes and creates inside fn are refused (QueryChunk).
  template <class Fn>
  Status eachChunk(World& world, Fn&& fn) {
    detail::IterationGuard guard;
    if (Status s = begin_visit(world, guard); !s.ok()) return s;
    const detail::IdSet256 matched = cache_.matched;
    detail::freeze_structure(guard);
    detail::GuardScope scope(detail::QueryAccess::guard(world), guard);
    const detail::Archetype* archetypes = detail::QueryAccess::archetypes(world);
    const bool checked = detail::needs_row_checks(world, spec_);
    const detail::RowFilter f = detail::row_filter(world, spec_, since_);
    constexpr std::size_t N = fetch_count(Fetches{});
    QueryChunk chunk;
    chunk.generations_ = detail::QueryAccess::generations(world);
    detail::for_each_id(matched, [&](std::uint32_t id) {
      const detail::Archetype& a = archetypes[id];
      std::uint8_t columns[N + 1];
      for (std::size_t k = 0; k < N; ++k)
        columns[k] = spec_.fetch[k].missing ? detail::kNoColumn : a.column_of[spec_.fetch[k].id];
      chunk.archetype_ = &a;
      chunk.archetype_id_ = id;
      detail::for_each_run(a, a.rows, checked, f, static_cast<std::uint32_t>(N), [&](std::uint32_t begin, std::uint32_t end, std::uint64_t word) {
        std::uint8_t run_columns[N + 1];
        for (std::size_t k = 0; k < N; ++k) {
          run_columns[k] = (word & f.opt_null[k]) != 0 ? detail::kNoColumn : columns[k];
          if (run_columns[k] != detail::kNoColumn && f.mark_track[k] != ~0u)
            detail::stamp_run(f, a, f.mark_track[k], begin, end);
        }
        chunk.begin_ = begin;
        chunk.count_ = end - begin;
        [&]<class... Fs, std::size_t... I>(detail::TypeList<Fs...>, std::index_sequence<I...>) {
          fn(static_cast<const QueryChunk&>(chunk), column_base<Fs>(a, run_columns[I], begin)...);
        }(Fetches{}, std::make_index_sequence<N>{});
      });
    });
    return Status::Ok();
  }
  template <class Fn>
  Status eachChunk(const World& world, Fn&& fn) {
    static_assert(kReadOnly, "CachedQuery::eachChunk on a const World: every fetch must be read/opt_read");
    return eachChunk(const_cast<World&>(world), std::forward<Fn>(fn));
  }

  // added<T>/changed<T> terms match rows stamped at or after this tick (default 0).
  CachedQuery& since(std::uint64_t tick) noexcept {
    since_ = tick;
    return *this;
  }
  std::uint64_t since() const noexcept { return since_; }
  // Read-only queries on a const world.
  template <class Fn>
  Status each(const World& world, Fn&& fn) {
    static_assert(kReadOnly, "CachedQuery::each on a const World: every fetch must be read/opt_read");
    return each(const_cast<World&>(world), std::forward<Fn>(fn));
  }

  // Introspection (tools, tests).
  std::uint32_t matchedArchetypeCount() const noexcept { return cache_.matched_count; }
  bool matchesArchetype(std::uint32_t id) const noexcept { return id < 256 && cache_.matched.contains(id); }
  std::uint64_t archetypeTests() const noexcept { return cache_.tests; }

 private:
  friend struct detail::WhereAccess;

  Status begin_visit(World& world, detail::IterationGuard& guard) {
    return detail::begin_visit(world, spec_, cache_, guard, [&] { return refresh(world); });
  }

  template <class... Fs, class Fn>
  void rows(detail::TypeList<Fs...>, const detail::Archetype& a, const std::uint32_t* generations, Fn& fn,
            std::uint32_t begin, std::uint32_t end) {
    constexpr std::size_t N = sizeof...(Fs);
    std::uint8_t columns[N + 1];
    for (std::size_t k = 0; k < N; ++k)
      columns[k] = spec_.fetch[k].missing ? detail::kNoColumn : a.column_of[spec_.fetch[k].id];
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      for (std::uint32_t r = begin; r < end; ++r) {
        // Column addresses are re-read every row, as in World::each: a legal structural
        // change made by fn in another archetype may have compacted the arena.
        const std::uint32_t slot = a.slots_ptr[r];
        fn(Entity{slot, generations[slot]}, hand<Fs>(a, columns[I], r)...);
      }
    }(std::index_sequence_for<Fs...>{});
  }

  template <class... Fs, class Fn>
  void rows_checked(detail::TypeList<Fs...>, const detail::Archetype& a, const std::uint32_t* generations,
                    const detail::RowFilter& filter, Fn& fn, std::uint32_t begin, std::uint32_t end) {
    constexpr std::size_t N = sizeof...(Fs);
    constexpr bool kOptional = (detail::fetch_traits<Fs>::optional || ...);
    constexpr bool kWrites = (detail::fetch_traits<Fs>::write || ...);
    std::uint8_t columns[N + 1];
    for (std::size_t k = 0; k < N; ++k)
      columns[k] = spec_.fetch[k].missing ? detail::kNoColumn : a.column_of[spec_.fetch[k].id];
    const detail::RowFilter f = filter;  // a local copy: never reloaded inside the loop
    std::uint32_t marks[N + 1];
    std::uint32_t mark_count = 0;
    if constexpr (kWrites)
      for (std::uint32_t k = 0; k < N; ++k)
        if (f.mark_track[k] != ~0u && columns[k] != detail::kNoColumn) marks[mark_count++] = k;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::uint64_t word = 0;
      for (std::uint32_t r = f.next(a.slots_ptr, begin, end, word); r < end; r = f.next(a.slots_ptr, r + 1, end, word)) {
        const std::uint32_t slot = a.slots_ptr[r];
        std::uint8_t row_columns[sizeof...(I) + 1] = {columns[I]..., 0};
        if constexpr (kOptional)
          for (std::uint32_t k = 0; k < sizeof...(I); ++k)
            if ((word & f.opt_null[k]) != 0) row_columns[k] = detail::kNoColumn;
        if constexpr (kWrites)
          for (std::uint32_t m = 0; m < mark_count; ++m)
            if (row_columns[marks[m]] != detail::kNoColumn) f.changed.stamp(slot, f.mark_track[marks[m]], f.now);
        fn(Entity{slot, generations[slot]}, hand<Fs>(a, row_columns[I], r)...);
      }
    }(std::index_sequence_for<Fs...>{});
  }

  template <class F>
  static typename detail::fetch_traits<F>::arg hand(const detail::Archetype& a, std::uint8_t column,
                                                    std::uint32_t r) noexcept {
    using T = typename detail::fetch_traits<F>::type;
    if constexpr (detail::fetch_traits<F>::optional) {
      return column == detail::kNoColumn ? nullptr : reinterpret_cast<T*>(a.column_ptr[column]) + r;
    } else {
      return *(reinterpret_cast<T*>(a.column_ptr[column]) + r);
    }
  }

  template <class F>
  static typename detail::fetch_traits<F>::column column_base(const detail::Archetype& a, std::uint8_t column,
                                                              std::uint32_t begin) noexcept {
    using T = typename detail::fetch_traits<F>::type;
    return column == detail::kNoColumn ? nullptr : reinterpret_cast<T*>(a.column_ptr[column]) + begin;
  }

  detail::QuerySpec spec_;
  detail::MatchCache cache_;
  Status status_;
  std::uint64_t since_ = 0;
};

}  // namespace lockstep
