#pragma once
// Views with deltas (docs/query.md, "Views"): a persistent view of a query (terms + an
// optional field predicate), registered with a world at setup, whose membership the world
// keeps up to date and which reports, per update, the entities that entered (Added), left
// (Removed) or changed while staying (Modified), each list in ascending slot order.
//
//   // Sim::setup
//   CachedQuery<term::read<Health>, term::read<Team>> q;
//   ViewId wounded;
//   registerView(world, q, field(&Health::hp) < 10, wounded);
//
//   // a system (tick t sees what changed during tick t-1; beginTick() updates the views)
//   eachDelta(world, wounded, ViewList::Added, [&](Entity e) { ... });
//   ViewDeltas d;  viewDeltas(world, wounded, d);   // the three lists as spans
//
// Semantics (exact):
//  * Member at an update = alive, passes the query's archetype filter and enable-bit terms,
//    satisfies the predicate — exactly the rows q.each / each_where would visit then.
//  * Added = members now that were not members at the previous update (under this handle);
//    Removed = members at the previous update that are not now (the old handle, dead or
//    not); a destroyed-and-reused slot is Removed (old handle) and Added (new handle).
//    Modified = members then and now (same handle) whose watched state differs: presence,
//    enable bit and bytes of every fetched component and every component the predicate
//    reads, compared by value with what they held at the previous update. An entity that
//    entered and left between two updates is in no list; a write that restores the old
//    value is no modification.
//  * Updates happen at World::updateViews(), which World::beginTick() calls first thing in
//    every tick: the lists read during tick t describe the changes since the start of
//    tick t-1 (everything tick t-1's inputs, systems and flush did).
//  * The view state (membership, the values compared against, the current lists) is
//    restored by World::load from a snapshot World::save made. Snapshot files written from a
//    World carry it since format 2 (view_state.h) and load_snapshot_* restores it; a format-1
//    file resets every view (its next update reports all members as Added).
// Nothing allocates after registration: each view reserves per-slot arrays for
// WorldConfig::max_entities slots when it is registered.
#include <lockstep/query/where.h>

#include <cstdint>
#include <span>

namespace lockstep {

inline constexpr std::uint32_t kMaxViews = 16;

struct ViewId {
  std::uint32_t index = 0xFFFFFFFFu;
  bool valid() const noexcept { return index != 0xFFFFFFFFu; }
};

enum class ViewList : std::uint8_t { Added = 0, Removed = 1, Modified = 2 };

// The lists of the last update. Spans stay valid (and unchanged) until the next update;
// structural changes never touch them.
struct ViewDeltas {
  std::span<const Entity> added;
  std::span<const Entity> removed;
  std::span<const Entity> modified;
  std::uint32_t members = 0;   // members at the last update
  std::uint64_t tick = 0;      // world tick of the last update
  std::uint64_t updates = 0;   // updates since registration
};

namespace detail {
// views.cpp
Status register_view(World& w, const QuerySpec& spec, const Predicate* p, ViewId& out) noexcept;
// Access check (Read of every component the view names) + the lists + the guard sets a
// traversal installs.
Status view_begin(const World& w, ViewId id, ViewDeltas& out, IterationGuard* guard) noexcept;
}  // namespace detail

// Registers a view of `query` (a CachedQuery<...> or a built DynamicQuery) and optionally a
// predicate. Setup-time: allocates the view's arrays; refused inside a live query or
// observer (iteration_nested). Errors: CapacityExceeded beyond kMaxViews, InvalidArgument
// for added<T>/changed<T> row terms (use Modified) or a predicate whose status is not ok,
// and the query's own build error. Write fetches are accepted and count as reads.
// A view registered while entities exist reports every member as Added at its first update.
template <class Q>
Status registerView(World& w, Q& query, const Predicate& p, ViewId& out) noexcept {
  out = ViewId{};
  if (Status s = query.refresh(w); !s.ok()) return s;
  return detail::register_view(w, detail::WhereAccess::spec(query), &p, out);
}
template <class Q>
Status registerView(World& w, Q& query, ViewId& out) noexcept {
  out = ViewId{};
  if (Status s = query.refresh(w); !s.ok()) return s;
  return detail::register_view(w, detail::WhereAccess::spec(query), nullptr, out);
}

// The lists of the last update. Under an installed AccessSet every component the view names
// (fetch terms and predicate fields) must be declared Read (or Write): they count as reads.
inline Status viewDeltas(const World& w, ViewId id, ViewDeltas& out) noexcept {
  return detail::view_begin(w, id, out, nullptr);
}

// Calls fn(Entity) for each entry of one list, in ascending slot order, with the iteration
// guard live exactly as for a read-only query over the view's terms: structural changes to
// the view's archetypes (direct create into them, destroy, add/remove) and writes to the
// view's components are refused — record them in world.commands() instead; another query
// or eachDelta inside fn is refused (iteration_nested).
template <class Fn>
Status eachDelta(World& w, ViewId id, ViewList which, Fn&& fn) {
  if (detail::QueryAccess::guard(w) != nullptr) return detail::QueryAccess::nested(w);
  ViewDeltas d;
  detail::IterationGuard guard;
  if (Status s = detail::view_begin(w, id, d, &guard); !s.ok()) return s;
  const std::span<const Entity> list = which == ViewList::Added ? d.added : which == ViewList::Removed ? d.removed : d.modified;
  detail::GuardScope scope(detail::QueryAccess::guard(w), guard);
  for (const Entity& e : list) fn(e);
  return Status::Ok();
}

// Whether e was a member at the last update (false for a stale handle of a member's slot).
bool viewContains(const World& w, ViewId id, Entity e) noexcept;
std::uint32_t viewCount(const World& w) noexcept;

}  // namespace lockstep
