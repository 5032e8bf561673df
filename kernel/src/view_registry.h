#pragma once
// The views of one world (views.cpp). Allocated by registerView (setup time); nothing here
// allocates afterwards.
#include <lockstep/query/cached_query.h>
#include <lockstep/detail/view_journal.h>
#include <lockstep/query/predicate.h>
#include <lockstep/query/terms.h>
#include <lockstep/query/where.h>
#include <lockstep/query/view.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace lockstep::detail {

inline constexpr std::uint32_t kMaxWatched = kMaxQueryFetch + kMaxPredicateAtoms;

struct ViewState {
  QuerySpec spec;
  MatchCache cache;           // archetypes passing the view's filter
  Predicate predicate;
  PredicateBinding binding{};
  bool has_predicate = false;
  IdSet256 named;             // fetched + predicate components: reads for access checks
  // Watched components, ascending ids; per slot a record of, for each, one state byte
  // (0 absent, 1 present, 2 present but disabled) followed by its bytes.
  std::uint32_t watched[kMaxWatched] = {};
  std::uint32_t watched_size[kMaxWatched] = {};
  std::uint32_t watched_count = 0;
  std::uint32_t stride = 0;

  std::unique_ptr<std::uint32_t[]> member;  // per slot: generation of the member handle, 0 = none
  std::unique_ptr<std::byte[]> shadow;      // per slot: the record at the last update
  std::unique_ptr<Entity[]> lists;          // [0,N) added, [N,2N) removed, [2N,3N) modified
  std::unique_ptr<std::byte[]> record;      // one record of working memory
  std::uint32_t n_added = 0, n_removed = 0, n_modified = 0;
  std::uint32_t members = 0;
  std::uint32_t high = 0;     // member[s] == 0 for every s >= high
  std::uint64_t tick = 0;
  std::uint64_t updates = 0;
  bool fresh = true;          // never updated (or reset): every slot is a candidate
};

struct ViewRegistry {
  explicit ViewRegistry(std::uint32_t max_entities) : journal(max_entities), slots(max_entities == 0 ? 1 : max_entities) {}

  ViewJournal journal;
  std::uint32_t slots;
  std::unique_ptr<ViewState> views[kMaxViews];
  std::uint32_t count = 0;
};

}  // namespace lockstep::detail

namespace lockstep::detail {

// views.cpp: everything that needs World's internals.
struct ViewAccess {
  static Status update(World& w) noexcept;
  static Status add(World& w, const QuerySpec& spec, const Predicate* p, ViewId& out) noexcept;
  static ViewRegistry* registry(const World& w) noexcept { return w.views_.get(); }
  // The member handle's generation of `slot` now (0: not a member); for a member, its watched
  // record is written to `record` (v.stride bytes).
  static std::uint32_t evaluate(const World& w, const ViewState& v, std::uint32_t slot, std::byte* record) noexcept;
  // Debug invariant (World::checkInvariants): every slot the journal does not name still has
  // the membership and watched record of the last update — i.e. no change escaped the journal.
  static Status check(const World& w) noexcept;
  // Snapshots (snapshot.cpp): bytes a save needs, the save itself (returns bytes written),
  // the shape check before a load changes anything, and the load (null data: reset).
  static std::size_t save_capacity(const World& w) noexcept;
  static std::size_t save_capacity(const ViewRegistry& reg) noexcept;
  static std::size_t save(const World& w, std::byte* out) noexcept;
  static std::size_t save(const ViewRegistry& reg, std::byte* out) noexcept;
  // A snapshot file's view section (little-endian, view_state.h) -> the host-order bytes
  // `save` writes, into `out` (bytes.size() bytes). Checks the structure against this world's
  // components and capacities first; check_load then compares it with the registered views.
  static Status from_file(const World& w, std::span<const std::byte> bytes, std::byte* out, std::uint64_t& offset);
  // The live view state as a file's view section; and loading prepared (host-order) bytes.
  static Status encode(const World& w, std::vector<std::byte>& out);
  static void restore(World& w, std::span<const std::byte> host) noexcept;

  static Status check_load(const World& w, const std::byte* data, std::size_t size) noexcept;
  static void load(World& w, const std::byte* data, std::size_t size) noexcept;
};

}  // namespace lockstep::detail
