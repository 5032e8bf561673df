#pragma once
// World: the deterministic entity-component store (docs/kernel.md).
//
// State = tick + entity table + free-slot order + archetypes (component sets, rows in
// ascending slot order, SoA columns) + resources. Everything is reserved at construction
// (WorldConfig); afterwards no operation allocates. Iteration order is a pure function of
// that state: archetype id ascending (creation order), then slot id ascending.
#include <lockstep/assert.h>
#include <lockstep/command_buffer.h>
#include <lockstep/component.h>
#include <lockstep/detail/change_ticks.h>
#include <lockstep/detail/storage_image.h>
#include <lockstep/detail/scratch_store.h>
#include <lockstep/detail/view_journal.h>
#include <lockstep/detail/write_marks.h>
#include <lockstep/entity.h>
#include <lockstep/events.h>
#include <lockstep/observers.h>
#include <lockstep/query.h>
#include <lockstep/snapshot.h>
#include <lockstep/status.h>
#include <lockstep/storage_view.h>
#include <lockstep/system_access.h>
#include <lockstep/thread_pool.h>
#include <lockstep/type_key.h>
#include <lockstep/world_config.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

namespace lockstep {

namespace detail {
template <class...>
struct TypeList {};
template <class... Ts>
constexpr bool distinct_component_types() {
  if constexpr (sizeof...(Ts) <= 1) {
    return true;
  } else {
    return []<class T, class... Rest>(TypeList<T, Rest...>) {
      return (!std::is_same_v<T, Rest> && ...) && distinct_component_types<Rest...>();
    }(TypeList<Ts...>{});
  }
}
struct QueryAccess;  // the query layer's window into World (cached_query.h)
struct AccessCheck;  // system access checks (system_access.cpp)
struct ObserverRegistry;  // observers.cpp
struct ViewRegistry;  // views with deltas (views.cpp)
struct ViewAccess;    // views.cpp
// A fresh process-wide value per call: identifies one layout of one world for query caches.
std::uint64_t next_layout_epoch() noexcept;
}  // namespace detail

class World {
 public:
  explicit World(const WorldConfig& config = {});
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const WorldConfig& config() const noexcept { return config_; }

  // ---- types ---------------------------------------------------------------------------
  // Dense component ids in registration order. T must be trivially copyable, padding-free
  // and declared with LOCKSTEP_COMPONENT. Registering after entities exist is allowed.
  template <class T>
  Status registerComponent() noexcept {
    check_state_type<T>();
    return register_component(detail::type_key<T>(), describe<T>(), sizeof(T), alignof(T));
  }
  // One instance per world, initialised to `initial`; part of the hashed/snapshotted state.
  template <class T>
  Status registerResource(const T& initial = T{}) noexcept {
    check_state_type<T>();
    return register_resource(detail::type_key<T>(), describe<T>(), sizeof(T), alignof(T), &initial);
  }
  // Component id of T, or -1 when T is not registered.
  template <class T>
  std::int32_t componentId() const noexcept { return component_id_of(detail::type_key<T>()); }
  std::uint32_t componentCount() const noexcept { return component_count_; }
  std::uint32_t resourceCount() const noexcept { return resource_count_; }
  const TypeDescriptor& componentDescriptor(std::uint32_t id) const noexcept;
  // Component id by descriptor name, or -1.
  std::int32_t componentIdByName(const char* name) const noexcept;
  std::int32_t resourceIdByName(const char* name) const noexcept;

  // ---- entities ------------------------------------------------------------------------
  // Slot reuse policy: the oldest freed slot first (FIFO); a never-used slot (ascending)
  // only when no freed slot is waiting. Returns Entity::null() when max_entities or the row
  // budget is exhausted (see tryCreate for the Status).
  Entity create() noexcept;
  Status tryCreate(Entity& out) noexcept;
  Status destroy(Entity e) noexcept;
  bool alive(Entity e) const noexcept;
  std::uint32_t entityCount() const noexcept { return live_count_; }

  // ---- components ----------------------------------------------------------------------
  // Create-or-overwrite; a structural move only when T is new to e.
  template <class T>
  Status addComponent(Entity e, const T& value) noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    if (id < 0) return {ErrorCode::NotRegistered, "addComponent: component type not registered"};
    return add_bytes(e, static_cast<std::uint32_t>(id), &value);
  }
  // Adds several components in ONE structural move (docs/kernel.md, "Adding several
  // components at once"): values, enable bits and change ticks end as if each addComponent
  // had been called in order, but no intermediate archetype is created, and the call is
  // all-or-nothing (a guard rejection or a capacity error changes nothing).
  template <class... Ts>
  Status addComponents(Entity e, const Ts&... values) noexcept {
    static_assert(sizeof...(Ts) >= 1, "addComponents: name at least one component");
    static_assert(detail::distinct_component_types<Ts...>(), "addComponents: a component type appears twice");
    const std::int32_t ids[] = {component_id_of(detail::type_key<Ts>())...};
    const void* const ptrs[] = {static_cast<const void*>(&values)...};
    std::uint32_t uids[sizeof...(Ts)];
    for (std::size_t k = 0; k < sizeof...(Ts); ++k) {
      if (ids[k] < 0) return {ErrorCode::NotRegistered, "addComponents: component type not registered"};
      uids[k] = static_cast<std::uint32_t>(ids[k]);
    }
    return add_many(e, uids, ptrs, sizeof...(Ts));
  }
  // A new entity holding these components, placed straight into their archetype (the same
  // state as create() followed by addComponents, without passing through archetype 0).
  template <class... Ts>
  Status tryCreateWith(Entity& out, const Ts&... values) noexcept {
    static_assert(detail::distinct_component_types<Ts...>(), "tryCreateWith: a component type appears twice");
    out = Entity::null();
    const std::int32_t ids[] = {0, component_id_of(detail::type_key<Ts>())...};
    const void* const ptrs[] = {nullptr, static_cast<const void*>(&values)...};
    std::uint32_t uids[sizeof...(Ts) + 1];
    for (std::size_t k = 1; k <= sizeof...(Ts); ++k) {
      if (ids[k] < 0) return {ErrorCode::NotRegistered, "tryCreateWith: component type not registered"};
      uids[k] = static_cast<std::uint32_t>(ids[k]);
    }
    return create_with(out, uids + 1, ptrs + 1, sizeof...(Ts));
  }
  template <class... Ts>
  Entity createWith(const Ts&... values) noexcept {
    Entity e;
    (void)tryCreateWith(e, values...);
    return e;
  }
  // Untyped forms (tools): ids[k] gets the bytes at values[k]; a repeated id takes the last.
  Status add_many(Entity e, const std::uint32_t* ids, const void* const* values, std::uint32_t count) noexcept;
  Status create_with(Entity& out, const std::uint32_t* ids, const void* const* values, std::uint32_t count) noexcept;

  template <class T>
  Status removeComponent(Entity e) noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    if (id < 0) return {ErrorCode::NotRegistered, "removeComponent: component type not registered"};
    return remove_id(e, static_cast<std::uint32_t>(id));
  }
  // Presence only: needs no declared access (docs/systems.md).
  template <class T>
  bool has(Entity e) const noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    return id >= 0 && valid(e) && archetypes_[entity_archetype_[e.slot]].mask.contains(static_cast<std::uint32_t>(id));
  }
  // Null when e is not alive or lacks T. Valid until the next structural change.
  template <class T>
  const T* get(Entity e) const noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    if (id < 0) return nullptr;
    return reinterpret_cast<const T*>(get_bytes(e, static_cast<std::uint32_t>(id)));
  }
  // Mutable access to one entity's component outside the row being visited (e.g. the
  // target of an attack). Null when e is not alive or lacks T — and, inside a live each(),
  // when T is declared Read by that query (reported like any illegal write). Valid until
  // the next structural change.
  template <class T>
  T* getMutable(Entity e) noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    if (id < 0) return nullptr;
    return reinterpret_cast<T*>(get_bytes_mutable(e, static_cast<std::uint32_t>(id)));
  }
  // Untyped access for tools (dumps, diffs, snapshot files).
  std::byte* get_bytes_mutable(Entity e, std::uint32_t component_id) noexcept;
  const std::byte* get_bytes(Entity e, std::uint32_t component_id) const noexcept;
  Status add_bytes(Entity e, std::uint32_t component_id, const void* value) noexcept;
  Status remove_id(Entity e, std::uint32_t component_id) noexcept;

  // Destroys every live entity (generations bumped, slots queued for reuse in ascending slot
  // order). Archetypes, component registrations, resources and the tick are kept.
  Status clear() noexcept;

  // ---- enable bits (docs/kernel.md, "Enable bits") -------------------------------------
  // Switches component T of e off or on without a structural move. Queries skip an entity
  // whose required component is disabled (optional fetches hand out null) unless they ask
  // for it with term::disabled<T>. Only component ids < 64 have enable bits. A component
  // (re)added by a structural change starts enabled; the bits are state (hashed, saved).
  template <class T>
  Status setEnabled(Entity e, bool enabled) noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    if (id < 0) return {ErrorCode::NotRegistered, "setEnabled: component type not registered"};
    return set_enabled(e, static_cast<std::uint32_t>(id), enabled);
  }
  // False when e is not alive, lacks T, or T is disabled for it.
  template <class T>
  bool isEnabled(Entity e) const noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    return id >= 0 && is_enabled(e, static_cast<std::uint32_t>(id));
  }
  Status set_enabled(Entity e, std::uint32_t component_id, bool enabled) noexcept;
  bool is_enabled(Entity e, std::uint32_t component_id) const noexcept;
  // Number of (entity, component) pairs currently disabled.
  std::uint64_t disabledCount() const noexcept { return disabled_total_; }

  // ---- change ticks (docs/kernel.md, "Change detection") -------------------------------
  // Starts tracking when T is added to an entity and when it is last written (Write
  // hand-outs of each()/queries, getMutable, addComponent, command-buffer adds), stamping
  // the current tick(). At most WorldConfig::max_tracked_components per world. Rows that
  // already hold T are stamped with the current tick. The ticks are state.
  template <class T>
  Status trackChanges() noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    if (id < 0) return {ErrorCode::NotRegistered, "trackChanges: component type not registered"};
    return track_changes(static_cast<std::uint32_t>(id));
  }
  Status track_changes(std::uint32_t component_id) noexcept;
  bool tracksChanges(std::uint32_t component_id) const noexcept {
    return component_id < 256 && track_of_[component_id] != kUntracked;
  }
  // The ticks T was added and last written on e; false when e lacks T or T is untracked.
  template <class T>
  bool changeTicks(Entity e, std::uint64_t& added, std::uint64_t& changed) const noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    return id >= 0 && change_ticks(e, static_cast<std::uint32_t>(id), added, changed);
  }
  bool change_ticks(Entity e, std::uint32_t component_id, std::uint64_t& added, std::uint64_t& changed) const noexcept;

  // ---- resources -----------------------------------------------------------------------
  // While a system's access is installed, the const forms need the resource declared Read
  // or Write, the mutable form Write (null + event otherwise; docs/systems.md) — except that
  // a resource declared Read is still served by the mutable form, with a one-time warning
  // naming the system, the resource and its declared access (code written before access
  // checks read resources this way). Unregistered: null.
  // The mutable form also marks the resource as written (incremental hashing re-hashes it):
  // read through a const World& where a system only reads. A pointer obtained before a
  // hash must not be written after it (fetch it again; docs/hashing.md).
  template <class T>
  T* resource() noexcept {
    return reinterpret_cast<T*>(resource_bytes(resource_id_of(detail::type_key<T>()), true));
  }
  template <class T>
  const T* resource() const noexcept {
    return reinterpret_cast<const T*>(const_cast<World*>(this)->resource_bytes(resource_id_of(detail::type_key<T>()), false));
  }
  template <class T>
  const T* readResource() const noexcept {
    return resource<T>();
  }

  // ---- scratch resources (docs/kernel.md, "Scratch resources") ---------------------------
  // Per-tick working memory owned by the world: `count` elements of T, allocated once here
  // (registration belongs to building the world) and zeroed by beginTick() — the first thing
  // of every tick (Runner::advance) — and by a successful load(). Not state: never hashed,
  // snapshotted, saved to files, dumped or diffed, so a system must not carry anything in it
  // from one tick to the next (it reads zero). At most 16 per world.
  template <class T>
  Status registerScratch(std::uint32_t count = 1) noexcept {
    static_assert(std::is_trivially_copyable_v<T>, "scratch types must be trivially copyable");
    return register_scratch(detail::type_key<T>(), describe<T>(), sizeof(T), alignof(T), count);
  }
  // The first element, or null when T is not a registered scratch type.
  template <class T>
  T* scratch() noexcept {
    const std::int32_t i = scratch_res_.find(detail::type_key<T>());
    return i < 0 ? nullptr : reinterpret_cast<T*>(scratch_res_.entries[i].data);
  }
  template <class T>
  const T* scratch() const noexcept {
    return const_cast<World*>(this)->scratch<T>();
  }
  template <class T>
  std::uint32_t scratchCount() const noexcept {
    const std::int32_t i = scratch_res_.find(detail::type_key<T>());
    return i < 0 ? 0 : scratch_res_.entries[i].count;
  }
  // Bytes of all scratch resources (what beginTick zeroes).
  std::uint64_t scratchBytes() const noexcept { return scratch_res_.bytes; }
  // Index (registration order, < 16) of the scratch type registered under `name`, or -1.
  std::int32_t scratchIdByName(const char* name) const noexcept {
    for (std::uint32_t i = 0; i < scratch_res_.used; ++i)
      if (scratch_res_.entries[i].type != nullptr && name != nullptr &&
          std::string_view(scratch_res_.entries[i].type->name) == name)
        return static_cast<std::int32_t>(i);
    return -1;
  }
  // Copies every scratch byte out to / back in from scratchBytes() bytes (registration order).
  // For tools that re-run part of a tick from the same point (Runner's parallel cross-check):
  // a load() zeroes scratch, but a system mid-tick reads what earlier systems left there.
  void copyScratchTo(std::byte* out) const noexcept { scratch_res_.copy_out(out); }
  void copyScratchFrom(const std::byte* in) noexcept { scratch_res_.copy_in(in); }
  // Zeroes every scratch resource and updates the views (view.h). Call it first in every
  // tick (Runner::advance does). With a pool of 2+ threads each thread zeroes its share of
  // every scratch array (the share its parallel loops tend to write, so no core has to take
  // cache lines over from another just to clear them); the bytes are zero either way.
  void beginTick() noexcept {
    if (lanes_) {
      (void)lane_refused("beginTick");
      return;
    }
    zero_scratch();
    if (views_ != nullptr) (void)updateViews();
  }

  // ---- views (view.h, docs/query.md "Views") -------------------------------------------
  // Recomputes every view's Added / Removed / Modified lists from the changes since the last
  // update. beginTick() calls it; refused (guard_nested) inside a live query or observer.
  Status updateViews() noexcept;

  // ---- tick ----------------------------------------------------------------------------
  std::uint64_t tick() const noexcept { return tick_; }
  void setTick(std::uint64_t tick) noexcept { tick_ = tick; }
  void advanceTick() noexcept { ++tick_; }

  // ---- queries -------------------------------------------------------------------------
  // Visits every entity whose archetype holds all of Ts (superset match), archetype id
  // ascending then slot ascending, as fn(Entity, refs...): `const T&` for Read, `T&` for
  // Write. each<>(fn) visits every live entity in ascending slot order. An unregistered
  // type matches nothing. While fn runs, the iteration-legality guard is live.
  template <class... Ts, class Fn, class... Tags>
  Status each(Fn&& fn, Tags... tags);
  // Read-only queries on a const world (every tag must be Read).
  template <class... Ts, class Fn, class... Tags>
  Status each(Fn&& fn, Tags... tags) const {
    static_assert((std::is_same_v<Tags, Read> && ...), "World::each on a const World: every tag must be Read");
    return const_cast<World*>(this)->each<Ts...>(std::forward<Fn>(fn), tags...);
  }

  // ---- parallel loops (docs/systems.md, "Parallel ticks") --------------------------------
  // The pool parallel loops run on; null (the default) runs them on the calling thread. Not
  // state: the pool changes how fast a tick runs, never what it computes. Not owned.
  void setThreadPool(ThreadPool* pool) noexcept { pool_ = pool; }
  ThreadPool* threadPool() const noexcept { return pool_; }
  // Parallel loops run so far by this world (any pool, or none). Not state; tools use it to
  // tell whether a system ran one.
  std::uint64_t parallelLoops() const noexcept { return parallel_loops_; }
  // Rows per chunk of a parallel loop. A constant, so the partition of the matched rows into
  // chunks depends on the data only (archetype by archetype, kParallelChunkRows rows each, the
  // last chunk of an archetype shorter), never on the thread count.
  static constexpr std::uint32_t kParallelChunkRows = 512;
  // parallelEach<Ts...>(fn, tags...): the same rows, references, enable-bit skips and change
  // ticks as each<Ts...>(fn, tags...), with the chunks run concurrently on the pool. fn may
  // write only through its Write references (its own row) and read anything nothing in the
  // loop writes; it must not call the world (no get/getMutable/resource/commands/structural
  // calls) nor write shared memory. Same access checks and guard as each.
  template <class... Ts, class Fn, class... Tags>
  Status parallelEach(Fn&& fn, Tags... tags);
  // The same, passing the chunk index first: fn(std::uint32_t chunk, Entity, refs...). Chunks
  // are numbered in visit order, 0 .. parallelChunkCount<Ts...>()-1, so per-chunk partial
  // results (kept by the game, e.g. in a scratch resource) combined in chunk index order give
  // the same answer on every thread count.
  template <class... Ts, class Fn, class... Tags>
  Status parallelEachChunk(Fn&& fn, Tags... tags);
  // Chunks the next parallelEach<Ts...> would run (restores row order of the matched
  // archetypes first, as the loop does). 0 for an unregistered type.
  template <class... Ts>
  std::uint32_t parallelChunkCount() const noexcept;

  // ---- command buffer ------------------------------------------------------------------
  CommandBuffer& commands() noexcept { return *commands_; }
  // Applies the world's own buffer (then clears it). On error nothing is applied and the
  // buffer is kept.
  Status flush() noexcept { return flush(*commands_); }
  Status flush(CommandBuffer& buffer) noexcept;

  // ---- iteration guard and diagnostics -------------------------------------------------
  void setGuardPolicy(GuardPolicy policy) noexcept { policy_ = policy; }
  GuardPolicy guardPolicy() const noexcept { return policy_; }
  // nullptr restores the stderr sink. The sink must outlive the world or be reset.
  void setEventSink(EventSink* sink) noexcept;
  // Reports one RateLimited event per event kind that had suppressed repeats, then resets
  // the counters. Called by the destructor.
  void flushEventSummary() noexcept;
  bool iterating() const noexcept { return call().guard != nullptr; }

  // ---- system access (docs/systems.md) -------------------------------------------------
  // Installs `access` for the scope's life (restoring the previous one after); the world's
  // own command buffer is checked too. Not state: nothing is hashed or saved.
  class AccessScope {
   public:
    AccessScope(World& world, const AccessSet* access) noexcept : world_(world), previous_(world.call().access) {
      world.install_access(access);
    }
    ~AccessScope() { world_.install_access(previous_); }
    AccessScope(const AccessScope&) = delete;
    AccessScope& operator=(const AccessScope&) = delete;

   private:
    World& world_;
    const AccessSet* previous_;
  };
  const AccessSet* access() const noexcept { return call().access; }

  // ---- concurrent stages (docs/systems.md, "Concurrent stages") ------------------------
  // Systems whose declared access does not conflict may run at once, each on its own thread
  // (Runner::setConcurrentStages drives this). While a ConcurrentStage is live:
  //  - the call state (installed AccessSet, iteration guard) is per thread: each thread that
  //    runs a system holds a Lane; access checks and the iteration guard work as serially;
  //  - row order was settled when the stage began, so queries only read it;
  //  - the write marks (incremental hash) and the views' journal were stamped for everything
  //    the stage's systems declare Write (resources also Read), then frozen: the lanes write
  //    no shared bookkeeping (both are conservative by contract, so hashes stay exact);
  //  - structural and world-wide changes — create, destroy, add/remove, enable bits, clear,
  //    flush, load, beginTick, updateViews, observe, registration, trackChanges — are refused
  //    with EventId::ConcurrentStageChange naming the system: record them as commands instead
  //    (the plan lets at most one system of a stage declare Commands, so the one command
  //    buffer records exactly what the serial run records);
  //  - parallel loops run on the lane's own thread (the pool is busy running the lanes).
  // The bytes every system sees and writes are then those of the serial run in declared order,
  // given declarations that are true (Runner::setStageCheck verifies them). A world with
  // observers does not go concurrent (their access is not in the plan): active() is false and
  // the caller runs the stage's systems one after the other, as it must on one thread.
  struct CallState {
    detail::IterationGuard* guard = nullptr;
    const AccessSet* access = nullptr;
  };
  class ConcurrentStage {
   public:
    // `access`: the declared sets of the stage's systems (count of them).
    ConcurrentStage(World& world, const AccessSet* const* access, std::uint32_t count) noexcept;
    ~ConcurrentStage();
    ConcurrentStage(const ConcurrentStage&) = delete;
    ConcurrentStage& operator=(const ConcurrentStage&) = delete;
    bool active() const noexcept { return active_; }

   private:
    World& world_;
    detail::ViewJournal* journal_ = nullptr;
    bool active_ = false;
  };
  // The calling thread's call state for the lane's life, with `access` installed (null: no
  // checks). Only meaningful inside a live ConcurrentStage; one Lane per thread at a time.
  class Lane {
   public:
    Lane(const World& world, const AccessSet* access) noexcept : previous_(lane_call_) {
      (void)world;
      state_.access = access;
      lane_call_ = &state_;
    }
    ~Lane() { lane_call_ = previous_; }
    Lane(const Lane&) = delete;
    Lane& operator=(const Lane&) = delete;

   private:
    CallState state_;
    CallState* previous_;
  };
  bool inConcurrentStage() const noexcept { return lanes_; }

  // ---- observers (observers.h, docs/observers.md) -------------------------------------
  // Calls fn(world, entity) on `event` for component T, with `access` installed while it runs.
  // At most kMaxObservers per world; refused inside a running observer or query.
  template <class T>
  Status observe(ObserverEvent event, ObserverFn fn, const AccessSet& access) noexcept {
    const std::int32_t id = component_id_of(detail::type_key<T>());
    if (id < 0) return {ErrorCode::NotRegistered, "observe: component type not registered"};
    return observe_id(event, static_cast<std::uint32_t>(id), fn, access);
  }
  Status observe_id(ObserverEvent event, std::uint32_t component_id, ObserverFn fn, const AccessSet& access) noexcept;
  std::uint32_t observerCount() const noexcept;

  // ---- state access --------------------------------------------------------------------
  StorageView storage() const noexcept;
  std::uint32_t archetypeCount() const noexcept { return archetype_count_; }
  // Sum of rows × row bytes over archetypes (the quantity WorldConfig::row_bytes bounds).
  std::uint64_t usedRowBytes() const noexcept { return used_row_bytes_; }

  // ---- snapshots -----------------------------------------------------------------------
  void save(Snapshot& out) const noexcept;
  Status load(const Snapshot& in) noexcept;

  // Conservative write marks for incremental hashing (detail/write_marks.h), and a
  // process-unique identity so a hasher never reuses sub-hashes of another world.
  const detail::WriteMarks& writeMarks() const noexcept { return marks_; }
  std::uint64_t identity() const noexcept { return identity_; }

  // Full invariant check (rows ascending, entity table consistent, budgets); returns
  // Internal on the first broken invariant. Debug builds run it after every mutation.
  Status checkInvariants() const noexcept;

  struct FlushScratch;  // internal working memory of flush (kernel/src/world_scratch.h)
  struct RowOrderScratch;  // working memory of the row-order restore (kernel/src/row_order_scratch.h)
  static constexpr std::uint8_t kUntracked = 0xFF;

 private:
  friend class Snapshot;
  friend struct detail::QueryAccess;
  friend struct detail::AccessCheck;
  friend struct detail::ViewAccess;

  Status register_component(std::uint32_t key, const TypeDescriptor& d, std::uint32_t size,
                            std::uint32_t align) noexcept;
  Status register_resource(std::uint32_t key, const TypeDescriptor& d, std::uint32_t size,
                           std::uint32_t align, const void* initial) noexcept;
  Status register_scratch(std::uint32_t key, const TypeDescriptor& d, std::uint32_t size, std::uint32_t align,
                          std::uint32_t count) noexcept;
  void zero_scratch() noexcept;  // beginTick's clearing, on the pool when there is one
  std::int32_t component_id_of(std::uint32_t key) const noexcept {
    if (key >= detail::kMaxTypeKeys) return -1;
    const std::uint16_t id = component_by_key_[key];
    return id == 0xFFFF ? -1 : std::int32_t{id};
  }
  std::int32_t resource_id_of(std::uint32_t key) const noexcept {
    if (key >= detail::kMaxTypeKeys) return -1;
    const std::uint16_t id = resource_by_key_[key];
    return id == 0xFFFF ? -1 : std::int32_t{id};
  }
  std::byte* resource_data_ptr(std::uint32_t id) noexcept { return resource_data_.get() + resources_[id].offset; }
  bool valid(Entity e) const noexcept {
    return e.slot < slot_count_ && alive_[e.slot] != 0 && generations_[e.slot] == e.generation;
  }
  // Starts the loads of a slot's entity-table entries at once, so that the cache misses of a
  // change to a scattered entity overlap instead of queuing one behind the other (docs/kernel.md,
  // "Memory placement"). A hint only; out-of-range slots are not touched.
  void prefetch_slot(std::uint32_t slot) const noexcept {
#if defined(__GNUC__) || defined(__clang__)
    if (slot >= slot_count_) return;
    __builtin_prefetch(alive_.get() + slot);
    __builtin_prefetch(generations_.get() + slot);
    __builtin_prefetch(entity_archetype_.get() + slot);
    __builtin_prefetch(rows_.get() + slot);
#else
    (void)slot;
#endif
  }
  std::byte* column_base(const detail::Archetype& a, std::uint32_t column) const noexcept {
    return a.column_ptr[column];
  }
  std::uint32_t* slot_column(const detail::Archetype& a) const noexcept { return a.slots_ptr; }
  void refresh_pointers(detail::Archetype& a) const noexcept;

  // System access plumbing (system_access.cpp). access_violation reports and returns the
  // refusal (InvalidArgument; never returns under GuardPolicy::Abort).
  bool access_denied(AccessKind kind, std::uint32_t id) const noexcept {
    const AccessSet* const a = call().access;
    return a != nullptr && !a->allows(kind, id);
  }
  Status access_violation(AccessKind kind, std::uint32_t id, Entity e) const noexcept;
  void install_access(const AccessSet* access) noexcept;
  std::byte* resource_bytes(std::int32_t id, bool write) noexcept;

  // Observer plumbing (observers.cpp): direct-call notifications and the flush hooks.
  Status notify_set(Entity e, std::uint32_t id, bool added) noexcept;
  Status notify_removing(Entity e, std::uint32_t id, const detail::IdSet256& target) noexcept;
  void notify_destroying(Entity e) noexcept;
  void notify_clearing() noexcept;
  void observers_before_apply(const CommandBuffer& buffer, std::uint32_t staged_count) noexcept;
  void observers_after_apply(const CommandBuffer& buffer, std::uint32_t staged_count) noexcept;
  Status observers_finish(Status first_error) noexcept;
  void dispatch(ObserverEvent event, std::uint32_t id, Entity e) noexcept;
  const std::byte* locate(Entity e, std::uint32_t component_id) const noexcept;

  // Guard plumbing (world_guard.cpp). Each returns Ok when the mutation may proceed.
  Status guard_nested() noexcept;
  // A structural or world-wide change inside a ConcurrentStage: refused (events.h).
  Status lane_refused(const char* operation) noexcept;
  Status report(const Event& event) noexcept;
  std::uint64_t count_event(EventId id) noexcept;  // the count before this one
  // A warning that refuses nothing: counted and sent to the sink once, never aborts.
  void note(const Event& event) noexcept;
  template <class... Ts, class... Tags, class Fn>
  void each_rows(detail::TypeList<Ts...>, detail::TypeList<Tags...>, const detail::Archetype& a,
                 const std::uint32_t* ids, Fn& fn);
  template <bool kIndexed, class... Ts, class... Tags, class Fn>
  Status parallel_each(detail::TypeList<Ts...>, detail::TypeList<Tags...>, Fn& fn);
  template <class... Ts, class... Tags, class Fn>
  void each_rows_checked(detail::TypeList<Ts...>, detail::TypeList<Tags...>, const detail::Archetype& a,
                         const std::uint32_t* ids, std::uint64_t skip, bool marks, Fn& fn);

  // Storage plumbing (world.cpp).
  std::int32_t find_archetype(const detail::IdSet256& mask) const noexcept;
  Status create_archetype(const detail::IdSet256& mask, std::uint32_t& out) noexcept;
  Status ensure_capacity(detail::Archetype& a, std::uint32_t rows) noexcept;
  bool relocate(detail::Archetype& a, std::uint32_t capacity) noexcept;
  void compact(bool tight) noexcept;
  // Row order (world_rows.cpp): O(1) appends and removals; settle* restore ascending slot
  // order (physical layout only, hence const) before rows are read in order.
  std::uint32_t append_row(detail::Archetype& a, std::uint32_t slot) noexcept;
  // `bound` = false leaves the hole bound to the caller (a flush checks it once per archetype
  // after all its removals: bound_holes).
  void remove_row(detail::Archetype& a, std::uint32_t row, bool bound = true) noexcept;
  void bound_holes() noexcept;
  void settle_archetype(std::uint32_t archetype) const noexcept;
  void settle_set(const detail::IdSet256& archetypes) const noexcept;
  void settle_all() const noexcept;
  Status structural_change(Entity e, std::uint32_t id, const detail::IdSet256& mask, const void* value) noexcept;
  Status move_entity(std::uint32_t slot, std::uint32_t target, std::uint32_t added_component,
                     const void* value) noexcept;
  // Several components in one move (world_multi_add.cpp).
  Status move_entity_many(std::uint32_t slot, std::uint32_t target, const std::uint32_t* ids,
                          const void* const* values, std::uint32_t count) noexcept;
  Status notify_adds(Entity e, const std::uint32_t* ids, std::uint32_t count, const detail::IdSet256& added) noexcept;
  std::uint32_t take_slot() noexcept;
  void release_slot(std::uint32_t slot) noexcept;
  void debug_check() const noexcept;
  mutable std::uint64_t debug_checks_ = 0;
  // Every column of `a` may change (rows added, removed or reordered).
  void mark_archetype_written(const detail::Archetype& a) noexcept {
    for (std::uint32_t k = 0; k < a.column_count; ++k) marks_.component_written(a.component_ids[k]);
  }

  // Row state (world_row_state.cpp): enable bits and change ticks.
  std::size_t tick_index(std::uint32_t slot, std::uint32_t track) const noexcept {
    return std::size_t{slot} * config_.max_tracked_components + track;
  }
  detail::ChangeTicks tick_table() const noexcept {
    detail::ChangeTicks c;
    c.ticks = changed_ticks_.get();
    c.max = changed_summary_.get();
    c.second = c.max == nullptr ? nullptr : c.max + std::size_t{tick_blocks_} * config_.max_tracked_components;
    c.mask = c.second == nullptr ? nullptr : c.second + std::size_t{tick_blocks_} * config_.max_tracked_components;
    c.stride = config_.max_tracked_components;
    c.blocks = tick_blocks_;
    return c;
  }
  void mark_changed(std::uint32_t slot, std::uint32_t component_id) noexcept {
    const std::uint8_t t = track_of_[component_id];
    if (t != kUntracked) tick_table().stamp(slot, t, tick_);
  }
  void mark_added(std::uint32_t slot, std::uint32_t component_id) noexcept {
    const std::uint8_t t = track_of_[component_id];
    if (t != kUntracked) {
      added_ticks_[tick_index(slot, t)] = tick_;
      tick_table().stamp(slot, t, tick_);
    }
  }
  // Writes every slot's effective changed tick into changed_ticks_ and empties the summary's
  // masks (before the per-slot entries are copied or reshaped).
  void materialize_changed_ticks() noexcept;
  void rebuild_changed_summary() noexcept;
  // Keeps only the enable bits of components in `mask` (after a structural change).
  void restrict_disabled(std::uint32_t slot, const detail::IdSet256& mask) noexcept {
    if (disabled_total_ == 0) return;  // every word is 0: skip the table (a cache miss per call)
    const std::uint64_t old = disabled_[slot];
    if (old == 0) return;
    const std::uint64_t kept = old & mask.words[0];
    disabled_total_ -= static_cast<std::uint64_t>(std::popcount(old) - std::popcount(kept));
    disabled_[slot] = kept;
    if (kept == 0) --disabled_blocks_[slot >> 6];
  }

  WorldConfig config_;
  GuardPolicy policy_;
  EventSink* sink_;
  std::uint64_t event_counts_[static_cast<int>(EventId::Count_)] = {};
  // The call state of the running system (not state: never hashed or saved). One per world,
  // except inside a ConcurrentStage, where every Lane (thread) has its own.
  mutable CallState serial_call_;
  bool lanes_ = false;  // a ConcurrentStage is live: call() is the calling thread's Lane
  // lockstep: allow(static) which Lane this thread runs (call state of a running system), not simulation state
  static inline thread_local CallState* lane_call_ = nullptr;
  CallState& call() const noexcept {
    CallState* const lane = lanes_ ? lane_call_ : nullptr;
    return lane != nullptr ? *lane : serial_call_;
  }
  ThreadPool* pool_ = nullptr;         // parallel loops' workers (not state), or null
  std::uint64_t parallel_loops_ = 0;   // parallelEach calls that passed the checks (not state)
  std::uint64_t tick_ = 0;
  // Not state: changes whenever archetypes may have been removed or renumbered (load) or the
  // registry grew, so cached queries know to rebuild instead of extending their match set.
  std::uint64_t layout_epoch_ = detail::next_layout_epoch();
  const std::uint64_t identity_ = detail::next_layout_epoch();
  detail::WriteMarks marks_;
  detail::ScratchStore scratch_res_;

  // Entity table (SoA, indexed by slot).
  std::unique_ptr<std::uint32_t[]> generations_;
  std::unique_ptr<std::uint8_t[]> alive_;
  std::unique_ptr<std::uint32_t[]> rows_;
  std::unique_ptr<std::uint16_t[]> entity_archetype_;
  std::unique_ptr<std::uint32_t[]> free_;  // FIFO: [free_head_, free_head_ + free_count_)
  std::uint32_t free_head_ = 0;
  std::uint32_t free_count_ = 0;
  std::uint32_t slot_count_ = 0;  // high-water mark
  std::uint32_t live_count_ = 0;

  // Types.
  std::unique_ptr<detail::TypeInfo[]> components_;
  std::unique_ptr<detail::TypeInfo[]> resources_;
  std::unique_ptr<std::uint16_t[]> component_by_key_;
  std::unique_ptr<std::uint16_t[]> resource_by_key_;
  std::uint32_t component_count_ = 0;
  std::uint32_t resource_count_ = 0;
  std::unique_ptr<std::byte[]> resource_data_;
  std::uint32_t resource_used_ = 0;

  // Archetypes and their column arena.
  std::unique_ptr<detail::Archetype[]> archetypes_;
  std::uint32_t archetype_count_ = 0;
  std::unique_ptr<std::byte[]> arena_storage_;
  std::byte* arena_ = nullptr;  // 64-byte aligned
  std::uint64_t arena_size_ = 0;
  std::uint64_t arena_top_ = 0;
  std::uint64_t used_row_bytes_ = 0;

  std::unique_ptr<CommandBuffer> commands_;
  std::unique_ptr<FlushScratch> scratch_;
  std::unique_ptr<RowOrderScratch> order_scratch_;
  // Archetypes whose rows are not in slot order yet (holes or a tail); not state.
  mutable detail::IdSet256 unsettled_;
  std::unique_ptr<detail::ObserverRegistry> observers_;  // null until the first observe()
  std::unique_ptr<detail::ViewRegistry> views_;  // null until the first registerView()
  detail::ViewJournal* view_journal_ = nullptr;  // views_'s journal, or null
  // Views: `slot`'s state may have changed (structural change, write, enable bit). Every
  // path that changes an entity's archetype, a component value in place or an enable bit
  // must call it (or, for column-wide hand-outs, view_journal_->column(id)); checkInvariants
  // verifies it in Debug trees whenever a view exists (views.cpp, ViewAccess::check).
  void view_touch(std::uint32_t slot) noexcept {
    if (view_journal_ != nullptr) view_journal_->touch(slot);
  }

  // Enable bits: per slot, bit c = component c disabled. Invariant: a subset of the slot's
  // archetype mask, 0 for free slots; disabled_total_ = Σ popcount.
  std::unique_ptr<std::uint64_t[]> disabled_;
  std::uint64_t disabled_total_ = 0;
  // Per 64 slots, how many have a non-zero word: lets queries run their unchecked loop over
  // rows whose slots all lie in clean blocks (not state; derived from disabled_).
  std::unique_ptr<std::uint8_t[]> disabled_blocks_;
  // Change ticks: per slot and tracked index, added and changed. Only rows holding the
  // component carry meaning (and are hashed/saved); stale pairs of removed components are
  // overwritten when the component is added again.
  std::unique_ptr<std::uint64_t[]> added_ticks_;    // [slot * max_tracked + tracked index]
  std::unique_ptr<std::uint64_t[]> changed_ticks_;  // same indexing; apart so writes stream
  // The changed ticks' summary per 64 slots (detail/change_ticks.h): max, second, mask planes
  // of max_tracked * tick_blocks_ words each. changed_ticks_ alone is not the state: read a
  // slot's changed tick through tick_table().changed().
  std::unique_ptr<std::uint64_t[]> changed_summary_;
  std::uint32_t tick_blocks_ = 0;
  std::uint8_t track_of_[256];  // component id -> tracked index, or kUntracked
  std::uint8_t tracked_ids_[WorldConfig::kMaxTrackedLimit] = {};
  std::uint32_t tracked_count_ = 0;
};

// ---- each ------------------------------------------------------------------------------

namespace detail {
template <class T, class Tag>
using QueryRef = std::conditional_t<std::is_same_v<Tag, Write>, T&, const T&>;

// RAII: installs the iteration guard and removes it on every exit path.
class GuardScope {
 public:
  GuardScope(IterationGuard*& slot, IterationGuard& guard) noexcept : slot_(slot) { slot_ = &guard; }
  ~GuardScope() { slot_ = nullptr; }
  GuardScope(const GuardScope&) = delete;
  GuardScope& operator=(const GuardScope&) = delete;

 private:
  IterationGuard*& slot_;
};
}  // namespace detail

template <class... Ts, class... Tags, class Fn>
void World::each_rows(detail::TypeList<Ts...>, detail::TypeList<Tags...>, const detail::Archetype& a,
                      const std::uint32_t* ids, Fn& fn) {
  constexpr std::size_t N = sizeof...(Ts);
  const std::uint32_t rows = a.rows;
  std::uint32_t columns[N];
  for (std::size_t k = 0; k < N; ++k) columns[k] = a.column_of[ids[k]];
  for (std::uint32_t r = 0; r < rows; ++r) {
    // Column addresses are re-read every row: a legal structural change made by fn in
    // another archetype may have compacted the arena (see Archetype::column_ptr).
    const std::uint32_t slot = a.slots_ptr[r];
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      fn(Entity{slot, generations_[slot]},
         static_cast<detail::QueryRef<Ts, Tags>>(*(reinterpret_cast<Ts*>(a.column_ptr[columns[I]]) + r))...);
    }(std::index_sequence_for<Ts...>{});
  }
}

template <class... Ts, class... Tags, class Fn>
void World::each_rows_checked(detail::TypeList<Ts...>, detail::TypeList<Tags...>, const detail::Archetype& a,
                              const std::uint32_t* ids, std::uint64_t skip, bool marks, Fn& fn) {
  constexpr std::size_t N = sizeof...(Ts);
  constexpr bool is_read[N] = {std::is_same_v<Tags, Read>...};
  const std::uint32_t rows = a.rows;
  std::uint32_t columns[N];
  for (std::size_t k = 0; k < N; ++k) columns[k] = a.column_of[ids[k]];
  // Everything the row loop needs, in locals: a write through a component reference (an
  // int64 may alias a uint64 member) would otherwise force reloads of the world's fields.
  const std::uint64_t* const disabled = skip != 0 ? disabled_.get() : nullptr;
  const detail::ChangeTicks ticks = tick_table();
  const std::uint64_t now = tick_;
  std::uint32_t tracks[N] = {};
  std::uint32_t track_count = 0;
  for (std::size_t k = 0; k < N; ++k)
    if (marks && !is_read[k] && track_of_[ids[k]] != kUntracked) tracks[track_count++] = track_of_[ids[k]];
  if (disabled == nullptr) {
    // Every row is visited: the rows are stamped first, a word per whole block of 64 slots,
    // and the row loop is the unchecked one.
    for (std::uint32_t t = 0; t < track_count; ++t) ticks.stamp_rows(a.slots_ptr, rows, tracks[t], now);
    each_rows(detail::TypeList<Ts...>{}, detail::TypeList<Tags...>{}, a, ids, fn);
    return;
  }
  for (std::uint32_t r = 0; r < rows; ++r) {
    const std::uint32_t slot = a.slots_ptr[r];
    if ((disabled[slot] & skip) != 0) continue;
    for (std::uint32_t t = 0; t < track_count; ++t) ticks.stamp(slot, tracks[t], now);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      fn(Entity{slot, generations_[slot]},
         static_cast<detail::QueryRef<Ts, Tags>>(*(reinterpret_cast<Ts*>(a.column_ptr[columns[I]]) + r))...);
    }(std::index_sequence_for<Ts...>{});
  }
}

template <class... Ts, class Fn, class... Tags>
Status World::each(Fn&& fn, Tags...) {
  static_assert(sizeof...(Ts) == sizeof...(Tags),
                "World::each: pass exactly one lockstep::Read{} or lockstep::Write{} per listed component");
  static_assert(((std::is_same_v<Tags, Read> || std::is_same_v<Tags, Write>) && ...),
                "World::each: access tags must be lockstep::Read or lockstep::Write");
  if (call().guard != nullptr) return guard_nested();
  detail::IterationGuard guard;
  if constexpr (sizeof...(Ts) == 0) {
    detail::GuardScope scope(call().guard, guard);
    const std::uint32_t end = slot_count_;
    for (std::uint32_t slot = 0; slot < end; ++slot)
      if (alive_[slot] != 0) fn(Entity{slot, generations_[slot]});
    return Status::Ok();
  } else {
    constexpr std::size_t N = sizeof...(Ts);
    const std::int32_t signed_ids[N] = {component_id_of(detail::type_key<Ts>())...};
    std::uint32_t ids[N];
    constexpr bool is_read[N] = {std::is_same_v<Tags, Read>...};
    detail::IdSet256 query;
    for (std::size_t k = 0; k < N; ++k) {
      if (signed_ids[k] < 0) return Status::Ok();  // unregistered: matches nothing
      ids[k] = static_cast<std::uint32_t>(signed_ids[k]);
      const AccessKind kind = is_read[k] ? AccessKind::ReadComponent : AccessKind::WriteComponent;
      if (access_denied(kind, ids[k])) return access_violation(kind, ids[k], Entity::null());
      query.insert(ids[k]);
      guard.listed_components.insert(ids[k]);
      if (is_read[k]) guard.read_components.insert(ids[k]);
    }
    std::uint8_t matched[WorldConfig::kMaxArchetypesLimit];
    std::uint32_t matched_count = 0;
    for (std::uint32_t a = 0; a < archetype_count_; ++a) {
      if (archetypes_[a].mask.contains_all(query)) {
        matched[matched_count++] = static_cast<std::uint8_t>(a);
        guard.matched_archetypes.insert(a);
      }
    }
    settle_set(guard.matched_archetypes);
    // Enable bits and change ticks cost nothing unless some bit is set / a Write-listed
    // component is tracked: then the checked loop runs instead.
    std::uint64_t skip = 0;
    bool marks = false;
    for (std::size_t k = 0; k < N; ++k) {
      if (ids[k] < WorldConfig::kEnableBitComponents) skip |= std::uint64_t{1} << ids[k];
      if (!is_read[k] && track_of_[ids[k]] != kUntracked) marks = true;
    }
    if (disabled_total_ == 0) skip = 0;
    for (std::size_t k = 0; k < N; ++k)
      if (!is_read[k]) {
        marks_.component_written(ids[k]);
        if (view_journal_ != nullptr) view_journal_->column(ids[k]);
      }
    detail::GuardScope scope(call().guard, guard);
    for (std::uint32_t m = 0; m < matched_count; ++m) {
      if (skip == 0 && !marks)
        each_rows(detail::TypeList<Ts...>{}, detail::TypeList<Tags...>{}, archetypes_[matched[m]], ids, fn);
      else
        each_rows_checked(detail::TypeList<Ts...>{}, detail::TypeList<Tags...>{}, archetypes_[matched[m]], ids, skip,
                          marks, fn);
    }
    return Status::Ok();
  }
}

// ---- parallel loops ----------------------------------------------------------------------

template <bool kIndexed, class... Ts, class... Tags, class Fn>
Status World::parallel_each(detail::TypeList<Ts...>, detail::TypeList<Tags...>, Fn& fn) {
  static_assert(sizeof...(Ts) > 0, "World::parallelEach: list at least one component (each<> has no parallel form)");
  static_assert(sizeof...(Ts) == sizeof...(Tags),
                "World::parallelEach: pass exactly one lockstep::Read{} or lockstep::Write{} per listed component");
  static_assert(((std::is_same_v<Tags, Read> || std::is_same_v<Tags, Write>) && ...),
                "World::parallelEach: access tags must be lockstep::Read or lockstep::Write");
  if (call().guard != nullptr) return guard_nested();
  // Everything up to the row loop is each()'s prologue, on the calling thread: access checks,
  // matching, row-order restore, write marks and view journal entries (so incremental hashes
  // and views see the same writes as after a serial each).
  detail::IterationGuard guard;
  constexpr std::size_t N = sizeof...(Ts);
  const std::int32_t signed_ids[N] = {component_id_of(detail::type_key<Ts>())...};
  std::uint32_t ids[N];
  constexpr bool is_read[N] = {std::is_same_v<Tags, Read>...};
  detail::IdSet256 query;
  for (std::size_t k = 0; k < N; ++k) {
    if (signed_ids[k] < 0) return Status::Ok();  // unregistered: matches nothing
    ids[k] = static_cast<std::uint32_t>(signed_ids[k]);
    const AccessKind kind = is_read[k] ? AccessKind::ReadComponent : AccessKind::WriteComponent;
    if (access_denied(kind, ids[k])) return access_violation(kind, ids[k], Entity::null());
    query.insert(ids[k]);
    guard.listed_components.insert(ids[k]);
    if (is_read[k]) guard.read_components.insert(ids[k]);
  }
  std::uint8_t matched[WorldConfig::kMaxArchetypesLimit];
  std::uint32_t matched_count = 0;
  for (std::uint32_t a = 0; a < archetype_count_; ++a) {
    if (archetypes_[a].mask.contains_all(query)) {
      matched[matched_count++] = static_cast<std::uint8_t>(a);
      guard.matched_archetypes.insert(a);
    }
  }
  settle_set(guard.matched_archetypes);
  std::uint64_t skip = 0;
  bool marks = false;
  for (std::size_t k = 0; k < N; ++k) {
    if (ids[k] < WorldConfig::kEnableBitComponents) skip |= std::uint64_t{1} << ids[k];
    if (!is_read[k] && track_of_[ids[k]] != kUntracked) marks = true;
  }
  if (disabled_total_ == 0) skip = 0;
  for (std::size_t k = 0; k < N; ++k)
    if (!is_read[k]) {
      marks_.component_written(ids[k]);
      if (view_journal_ != nullptr) view_journal_->column(ids[k]);
    }
  // The partition: archetypes in visit order, each cut into kParallelChunkRows-row chunks.
  std::uint32_t first_chunk[WorldConfig::kMaxArchetypesLimit + 1];
  std::uint32_t chunks = 0;
  for (std::uint32_t m = 0; m < matched_count; ++m) {
    first_chunk[m] = chunks;
    chunks += (archetypes_[matched[m]].rows + kParallelChunkRows - 1) / kParallelChunkRows;
  }
  first_chunk[matched_count] = chunks;
  // Per-row state the chunks share read-only. Columns do not move during the loop: fn makes
  // no world calls, so nothing can grow or compact the arena.
  const std::uint64_t* const disabled = skip != 0 ? disabled_.get() : nullptr;
  // Change ticks are stamped here, before the chunks run and on this thread: a block of 64
  // slots' summary word may be shared by two chunks. fn makes no world calls, so the rows a
  // chunk visits are exactly the rows whose written components are enabled now.
  if (marks) {
    const detail::ChangeTicks ticks = tick_table();
    for (std::size_t k = 0; k < N; ++k) {
      if (is_read[k] || track_of_[ids[k]] == kUntracked) continue;
      const std::uint32_t t = track_of_[ids[k]];
      for (std::uint32_t m = 0; m < matched_count; ++m) {
        const detail::Archetype& a = archetypes_[matched[m]];
        if (disabled == nullptr) {
          ticks.stamp_rows(a.slots_ptr, a.rows, t, tick_);
        } else {
          for (std::uint32_t r = 0; r < a.rows; ++r)
            if ((disabled[a.slots_ptr[r]] & skip) == 0) ticks.stamp(a.slots_ptr[r], t, tick_);
        }
      }
    }
  }
  const std::uint32_t* const generations = generations_.get();
  auto run_chunk = [&](std::uint32_t chunk) noexcept {
    std::uint32_t m = 0;
    while (first_chunk[m + 1] <= chunk) ++m;  // matched archetypes are few; chunks are not
    const detail::Archetype& a = archetypes_[matched[m]];
    const std::uint32_t begin = (chunk - first_chunk[m]) * kParallelChunkRows;
    const std::uint32_t end = begin + kParallelChunkRows < a.rows ? begin + kParallelChunkRows : a.rows;
    std::byte* columns[N];
    for (std::size_t k = 0; k < N; ++k) columns[k] = a.column_ptr[a.column_of[ids[k]]];
    const std::uint32_t* const slots = a.slots_ptr;
    for (std::uint32_t r = begin; r < end; ++r) {
      const std::uint32_t slot = slots[r];
      if (disabled != nullptr && (disabled[slot] & skip) != 0) continue;
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        if constexpr (kIndexed)
          fn(chunk, Entity{slot, generations[slot]},
             static_cast<detail::QueryRef<Ts, Tags>>(*(reinterpret_cast<Ts*>(columns[I]) + r))...);
        else
          fn(Entity{slot, generations[slot]},
             static_cast<detail::QueryRef<Ts, Tags>>(*(reinterpret_cast<Ts*>(columns[I]) + r))...);
      }(std::index_sequence_for<Ts...>{});
    }
  };
  // In a concurrent stage the pool is running the lanes: the loop runs on its lane's thread
  // (the same chunks in the same order; only timing differs) and is not counted.
  if (!lanes_) ++parallel_loops_;
  detail::GuardScope scope(call().guard, guard);
  if (pool_ == nullptr || pool_->threads() <= 1 || lanes_) {
    for (std::uint32_t c = 0; c < chunks; ++c) run_chunk(c);
  } else {
    pool_->for_each(chunks, run_chunk);
  }
  return Status::Ok();
}

template <class... Ts, class Fn, class... Tags>
Status World::parallelEach(Fn&& fn, Tags...) {
  return parallel_each<false>(detail::TypeList<Ts...>{}, detail::TypeList<Tags...>{}, fn);
}

template <class... Ts, class Fn, class... Tags>
Status World::parallelEachChunk(Fn&& fn, Tags...) {
  return parallel_each<true>(detail::TypeList<Ts...>{}, detail::TypeList<Tags...>{}, fn);
}

template <class... Ts>
std::uint32_t World::parallelChunkCount() const noexcept {
  static_assert(sizeof...(Ts) > 0, "World::parallelChunkCount: list at least one component");
  constexpr std::size_t N = sizeof...(Ts);
  const std::int32_t signed_ids[N] = {component_id_of(detail::type_key<Ts>())...};
  detail::IdSet256 query;
  for (std::size_t k = 0; k < N; ++k) {
    if (signed_ids[k] < 0) return 0;
    query.insert(static_cast<std::uint32_t>(signed_ids[k]));
  }
  detail::IdSet256 matched;
  for (std::uint32_t a = 0; a < archetype_count_; ++a)
    if (archetypes_[a].mask.contains_all(query)) matched.insert(a);
  settle_set(matched);  // rows are counted after holes are compacted, as the loop counts them
  std::uint32_t chunks = 0;
  for (std::uint32_t a = 0; a < archetype_count_; ++a)
    if (matched.contains(a)) chunks += (archetypes_[a].rows + kParallelChunkRows - 1) / kParallelChunkRows;
  return chunks;
}

}  // namespace lockstep
