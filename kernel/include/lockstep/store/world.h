#pragma once
// World: the deterministic entity-component store (docs/kernel.md): entities, archetypes,
// columns, resources, events, change ticks, snapshots. The loops over it live in query/
// (each, parallelEach: query/each.h; <lockstep/world.h> brings both); the threads they run
// on in exec/.
//
// State = tick + entity table + free-slot order + archetypes (component sets, rows in
// ascending slot order, SoA columns) + resources. Everything is reserved at construction
// (WorldConfig); afterwards no operation allocates. Iteration order is a pure function of
// that state: archetype id ascending (creation order), then slot id ascending.
#include <lockstep/assert.h>
#include <lockstep/detail/change_ticks.h>
#include <lockstep/detail/scratch_store.h>
#include <lockstep/detail/storage_image.h>
#include <lockstep/detail/view_journal.h>
#include <lockstep/detail/write_marks.h>
#include <lockstep/status.h>
#include <lockstep/store/command_buffer.h>
#include <lockstep/store/component.h>
#include <lockstep/store/entity.h>
#include <lockstep/store/events.h>
#include <lockstep/store/guard.h>
#include <lockstep/store/observers.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/store/storage_view.h>
#include <lockstep/store/system_access.h>
#include <lockstep/store/type_key.h>
#include <lockstep/store/world_config.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

namespace lockstep {

class Executor;
class ThreadPool;
class ConcurrentStage;
class Lane;

namespace detail {
struct QueryAccess;  // the query layer's window into World (query/access.h)
template <class... Ts>
struct QueryEngine;  // each / parallelEach (query/each.h)
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
    const std::uint32_t keys[] = {detail::type_key<Ts>()...};
    const void* const ptrs[] = {static_cast<const void*>(&values)...};
    return add_typed(e, keys, ptrs, sizeof...(Ts));
  }
  // A new entity holding these components, placed straight into their archetype (the same
  // state as create() followed by addComponents, without passing through archetype 0).
  template <class... Ts>
  Status tryCreateWith(Entity& out, const Ts&... values) noexcept {
    static_assert(detail::distinct_component_types<Ts...>(), "tryCreateWith: a component type appears twice");
    const std::uint32_t keys[] = {0, detail::type_key<Ts>()...};
    const void* const ptrs[] = {nullptr, static_cast<const void*>(&values)...};
    return create_typed(out, keys + 1, ptrs + 1, sizeof...(Ts));
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
  std::int32_t scratchIdByName(const char* name) const noexcept;
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
  Status each(Fn&& fn, Tags... tags) { return detail::QueryEngine<Ts...>::each(*this, fn, tags...); }
  // Read-only queries on a const world (every tag must be Read).
  template <class... Ts, class Fn, class... Tags>
  Status each(Fn&& fn, Tags... tags) const { return detail::QueryEngine<Ts...>::each_const(*this, fn, tags...); }

  // ---- parallel loops (docs/systems.md, "Parallel ticks") --------------------------------
  // The executor parallel loops run on (exec/executor.h: the bundled ThreadPool or a game's
  // own job system); null (the default) runs them on the calling thread. Not state: it
  // changes how fast a tick runs, never what it computes. Not owned.
  void setExecutor(Executor* executor) noexcept { executor_ = executor, pool_ = nullptr; }
  Executor* executor() const noexcept { return executor_; }
  // The same for the bundled pool; threadPool() is null when a game's executor is set.
  void setThreadPool(ThreadPool* pool) noexcept;
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
  Status parallelEach(Fn&& fn, Tags... tags) { return detail::QueryEngine<Ts...>::template parallel<false>(*this, fn, tags...); }
  // The same, passing the chunk index first: fn(std::uint32_t chunk, Entity, refs...). Chunks
  // are numbered in visit order, 0 .. parallelChunkCount<Ts...>()-1, so per-chunk partial
  // results (kept by the game, e.g. in a scratch resource) combined in chunk index order give
  // the same answer on every thread count.
  template <class... Ts, class Fn, class... Tags>
  Status parallelEachChunk(Fn&& fn, Tags... tags) { return detail::QueryEngine<Ts...>::template parallel<true>(*this, fn, tags...); }
  // Chunks the next parallelEach<Ts...> would run (restores row order of the matched
  // archetypes first, as the loop does). 0 for an unregistered type.
  template <class... Ts>
  std::uint32_t parallelChunkCount() const noexcept { return detail::QueryEngine<Ts...>::chunk_count(*this); }

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

  // ---- concurrent stages (exec/concurrent_stage.h) ------------------------------------
  using CallState = detail::CallState;
  using ConcurrentStage = lockstep::ConcurrentStage;
  using Lane = lockstep::Lane;
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
  friend class lockstep::ConcurrentStage;
  friend struct detail::QueryAccess;
  friend struct detail::AccessCheck;
  friend struct detail::ViewAccess;

  Status register_component(std::uint32_t key, const TypeDescriptor& d, std::uint32_t size,
                            std::uint32_t align) noexcept;
  Status register_resource(std::uint32_t key, const TypeDescriptor& d, std::uint32_t size,
                           std::uint32_t align, const void* initial) noexcept;
  Status register_scratch(std::uint32_t key, const TypeDescriptor& d, std::uint32_t size, std::uint32_t align,
                          std::uint32_t count) noexcept;
  void zero_scratch() noexcept;  // beginTick's clearing, on the executor when there is one
  // The typed forms' untyped halves: type keys, NotRegistered when one is not a component.
  Status add_typed(Entity e, const std::uint32_t* keys, const void* const* values, std::uint32_t count) noexcept;
  Status create_typed(Entity& out, const std::uint32_t* keys, const void* const* values, std::uint32_t count) noexcept;
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
  inline void prefetch_slot(std::uint32_t slot) const noexcept;  // kernel/src/world_inline.h
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
  inline void mark_archetype_written(const detail::Archetype& a) noexcept;  // world_inline.h

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
  inline void mark_changed(std::uint32_t slot, std::uint32_t component_id) noexcept;  // world_inline.h
  inline void mark_added(std::uint32_t slot, std::uint32_t component_id) noexcept;
  // Writes every slot's effective changed tick into changed_ticks_ and empties the summary's
  // masks (before the per-slot entries are copied or reshaped).
  void materialize_changed_ticks() noexcept;
  void rebuild_changed_summary() noexcept;
  // Keeps only the enable bits of components in `mask` (after a structural change).
  inline void restrict_disabled(std::uint32_t slot, const detail::IdSet256& mask) noexcept;  // world_inline.h

  WorldConfig config_;
  GuardPolicy policy_;
  EventSink* sink_;
  std::uint64_t event_counts_[static_cast<int>(EventId::Count_)] = {};
  // The running system's call state: the world's own, or the calling thread's Lane inside a
  // ConcurrentStage (exec/concurrent_stage.h). Not state: never hashed or saved.
  mutable CallState serial_call_;
  bool lanes_ = false;  // a ConcurrentStage is live
  CallState& call() const noexcept {
    CallState* const lane = lanes_ ? detail::current_lane() : nullptr;
    return lane != nullptr ? *lane : serial_call_;
  }
  Executor* executor_ = nullptr;  // parallel loops' workers (not state), or null
  ThreadPool* pool_ = nullptr;    // executor_ when it is the bundled pool
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

}  // namespace lockstep
