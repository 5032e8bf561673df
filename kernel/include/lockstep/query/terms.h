#pragma once
// Query terms (docs/kernel.md, "Queries II"): what a query hands out (fetch terms) and which
// entities it matches (filter terms), plus the normalised form both the typed CachedQuery and
// the run-time DynamicQuery compile to.
//
// Normal form. A query's archetype filter is
//     mask ⊇ with  ∧  mask ∩ without = ∅  ∧  ∨_b (mask ⊇ b.with ∧ mask ∩ b.without = ∅)
// i.e. the required/excluded sets ANDed with a disjunction (DNF) of at most kMaxQueryBranches
// conjunctions. Every `any` set and every OR group multiplies the branch count by its number
// of alternatives; a query whose product exceeds the cap is rejected with InvalidArgument
// instead of silently growing (the cap keeps matching O(branches) and the state fixed-size).
#include <lockstep/query/tags.h>
#include <lockstep/status.h>

#include <cstdint>

namespace lockstep {

inline constexpr std::uint32_t kMaxQueryBranches = 16;
inline constexpr std::uint32_t kMaxQueryFetch = 32;       // components handed out per query
inline constexpr std::uint32_t kMaxQueryRowTerms = 32;    // enabled/disabled/added/changed terms

enum class Access : std::uint8_t { Read = 0, Write = 1 };

// Typed terms. Fetch terms hand out one argument each, in the order written:
//   read<T> → const T&      write<T> → T&      opt_read<T> → const T*      opt_write<T> → T*
// (an optional fetch is null when the entity lacks T or T is disabled for it).
// Filter terms hand out nothing:
//   with<Ts...>   every Ts present             none<Ts...>  no Ts present
//   any<Ts...>    at least one of Ts present   or_<Alts...> at least one alternative holds,
//   an alternative being with<...>, none<...> or all_of<with/none...>
// Row terms (per entity, see enable bits and change ticks in docs/kernel.md):
//   enabled<T>  T present and enabled          disabled<T>  T present and disabled (a fetch of T
//                                                           then hands the disabled value out)
//   added<T>    T added at or after the query's `since` tick
//   changed<T>  T written at or after the query's `since` tick
namespace term {
template <class T>
struct read {};
template <class T>
struct write {};
template <class T>
struct opt_read {};
template <class T>
struct opt_write {};
template <class... Ts>
struct with {};
template <class... Ts>
struct none {};
template <class... Ts>
struct any {};
template <class... Filters>
struct all_of {};
template <class... Alternatives>
struct or_ {};
template <class T>
struct enabled {};
template <class T>
struct disabled {};
template <class T>
struct added {};
template <class T>
struct changed {};
}  // namespace term

namespace detail {

struct QueryConjunction {
  IdSet256 with;
  IdSet256 without;
};

// The archetype-level filter in normal form (see the top of this file).
struct QueryFilter {
  IdSet256 with;
  IdSet256 without;
  QueryConjunction branch[kMaxQueryBranches];
  std::uint32_t branch_count = 1;  // one empty branch = "true"; 0 = matches nothing

  bool matches(const IdSet256& mask) const noexcept {
    if (!mask.contains_all(with) || mask.intersects(without)) return false;
    for (std::uint32_t b = 0; b < branch_count; ++b)
      if (mask.contains_all(branch[b].with) && !mask.intersects(branch[b].without)) return true;
    return false;
  }
  // ANDs the filter with (alt[0] ∨ ... ∨ alt[n-1]), distributing into the branches. n == 0 is
  // "false". InvalidArgument (filter unchanged) when the result would exceed kMaxQueryBranches.
  Status and_disjunction(const QueryConjunction* alt, std::uint32_t n) noexcept;
};

// Kinds of per-row terms.
enum class RowTermKind : std::uint8_t { Enabled = 0, Disabled = 1, Added = 2, Changed = 3 };

struct QueryFetch {
  std::uint32_t id;   // component id (unused when `missing`)
  Access access;
  bool optional;
  bool missing;       // optional fetch of a type the world has not registered: always null
};

struct QueryRowTerm {
  std::uint32_t id;
  RowTermKind kind;
};

// Everything a query needs at run time, in component ids. Fixed size: building, matching and
// iterating allocate nothing.
struct QuerySpec {
  QueryFetch fetch[kMaxQueryFetch];
  std::uint32_t fetch_count = 0;
  QueryRowTerm row[kMaxQueryRowTerms];
  std::uint32_t row_count = 0;
  QueryFilter filter;
  IdSet256 read_set;     // fetched Read: the guard rejects writes to them
  IdSet256 listed_set;   // every component the query can hand out
  IdSet256 include_disabled;  // components named by a disabled<T> term
  bool never = false;    // a required type is unregistered: matches nothing

  // Resolved against the world's row state (resolve_row_state).
  std::uint64_t need_enabled = 0;   // required ids < 64 whose enable bit must be clear
  std::uint64_t need_disabled = 0;  // disabled<T> ids: enable bit must be set
  std::uint8_t fetch_track[kMaxQueryFetch] = {};  // tracked index of a Write fetch, else 0xFF
  std::uint8_t row_track[kMaxQueryRowTerms] = {};  // tracked index of an added/changed term
  bool marks = false;               // some Write fetch is change-tracked
  bool tick_terms = false;          // some added/changed term
};

}  // namespace detail
}  // namespace lockstep
