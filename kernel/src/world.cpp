// World storage: entity table, archetypes and their column arena, structural changes.
// The rules this file follows are in docs/kernel.md and docs/determinism.md.
#include "copy_value.h"
#include "huge_pages.h"
#include "row_order_scratch.h"
#include "access_check.h"
#include "observer_registry.h"
#include "view_registry.h"
#include "world_scratch.h"

#include <lockstep/world.h>

#include "world_inline.h"

#include <mutex>

#include <algorithm>
#include <cstring>
#include <new>

namespace lockstep {

using detail::Archetype;
using detail::IdSet256;
using detail::kColumnAlign;
using detail::kNoArchetype;
using detail::kNoColumn;

namespace {

constexpr std::uint64_t align_up(std::uint64_t v, std::uint64_t a) noexcept { return (v + a - 1) / a * a; }

// Bytes of a block holding `capacity` rows, and each column's offset inside it.
std::uint64_t layout_block(const Archetype& a, std::uint32_t capacity, std::uint64_t* slots_offset,
                           std::uint64_t* column_offset) noexcept {
  std::uint64_t at = 0;
  *slots_offset = at;
  at += align_up(std::uint64_t{capacity} * 4u, kColumnAlign);
  for (std::uint32_t c = 0; c < a.column_count; ++c) {
    column_offset[c] = at;
    at += align_up(std::uint64_t{capacity} * a.column_size[c], kColumnAlign);
  }
  return at;
}

// A per-slot table filled with `init`, on huge pages where the OS offers them (advised before
// the first write, see huge_pages.h).
template <class T>
std::unique_ptr<T[]> slot_table(std::size_t count, T init) {
  std::unique_ptr<T[]> t(new T[count]);
  detail::advise_huge_pages(t.get(), count * sizeof(T));
  std::fill_n(t.get(), count, init);
  return t;
}

GuardPolicy default_policy() noexcept {
#if defined(LOCKSTEP_CHECK_INVARIANTS) && LOCKSTEP_CHECK_INVARIANTS
  return GuardPolicy::Abort;
#else
  return GuardPolicy::Reject;
#endif
}

}  // namespace

World::World(const WorldConfig& config)
    : config_(config), policy_(default_policy()), sink_(&stderr_event_sink()) {
  config_.max_archetypes = std::clamp<std::uint32_t>(config_.max_archetypes, 1, WorldConfig::kMaxArchetypesLimit);
  config_.max_components = std::min<std::uint32_t>(config_.max_components, WorldConfig::kMaxComponentsLimit);
  config_.row_bytes = config_.effective_row_bytes();
  // Slot ids stay below 2^31: the row-order code marks holes with the top bit (world_rows.cpp).
  config_.max_entities = std::min(config_.max_entities, std::uint32_t{0x80000000u});
  const std::uint32_t n = config_.max_entities;
  const std::size_t slots = n == 0 ? 1 : n;
  generations_ = slot_table<std::uint32_t>(slots, 0);
  alive_ = slot_table<std::uint8_t>(slots, 0);
  rows_ = slot_table<std::uint32_t>(slots, 0);
  entity_archetype_ = slot_table<std::uint16_t>(slots, kNoArchetype);
  free_.reset(new std::uint32_t[slots]);
  disabled_ = slot_table<std::uint64_t>(slots, 0);
  disabled_blocks_.reset(new std::uint8_t[n / 64 + 1]());
  config_.max_tracked_components = std::min(config_.max_tracked_components, WorldConfig::kMaxTrackedLimit);
  if (config_.max_tracked_components != 0)
  {
    added_ticks_ = slot_table<std::uint64_t>(slots * config_.max_tracked_components, 0);
    changed_ticks_ = slot_table<std::uint64_t>(slots * config_.max_tracked_components, 0);
    tick_blocks_ = static_cast<std::uint32_t>((slots + 63) / 64);
    changed_summary_.reset(new std::uint64_t[std::size_t{3} * tick_blocks_ * config_.max_tracked_components]());
  }
  std::fill(std::begin(track_of_), std::end(track_of_), kUntracked);

  components_.reset(new detail::TypeInfo[config_.max_components == 0 ? 1 : config_.max_components]);
  resources_.reset(new detail::TypeInfo[config_.max_resources == 0 ? 1 : config_.max_resources]);
  component_by_key_.reset(new std::uint16_t[detail::kMaxTypeKeys]);
  resource_by_key_.reset(new std::uint16_t[detail::kMaxTypeKeys]);
  std::fill_n(component_by_key_.get(), detail::kMaxTypeKeys, std::uint16_t{0xFFFF});
  std::fill_n(resource_by_key_.get(), detail::kMaxTypeKeys, std::uint16_t{0xFFFF});
  resource_data_.reset(new std::byte[config_.resource_bytes == 0 ? 1 : config_.resource_bytes]());

  archetypes_.reset(new Archetype[config_.max_archetypes]);
  // Twice the logical budget (amortised doubling) plus per-column alignment slack for every
  // archetype: with it, a change that passes the logical budget check always finds room
  // after compaction (docs/kernel.md, "Capacities").
  const std::uint64_t slack = std::uint64_t{config_.max_archetypes + 2} * (detail::kMaxColumns + 1) * kColumnAlign * 2;
  arena_size_ = 2 * config_.row_bytes + slack;
  arena_storage_.reset(new std::byte[arena_size_ + kColumnAlign]);
  detail::advise_huge_pages(arena_storage_.get(), arena_size_ + kColumnAlign);
  // lockstep: allow(pointer-cast) alignment padding only; the address never reaches state or hashes
  const auto base = reinterpret_cast<std::uintptr_t>(arena_storage_.get());
  arena_ = arena_storage_.get() + (align_up(base, kColumnAlign) - base);

  commands_ = std::make_unique<CommandBuffer>(config_);
  scratch_ = std::make_unique<FlushScratch>(config_);
  order_scratch_ = std::make_unique<RowOrderScratch>(config_);

  std::uint32_t empty_id = 0;
  const Status s = create_archetype(IdSet256{}, empty_id);
  LOCKSTEP_ASSERT(s.ok() && empty_id == 0);
}

World::~World() { flushEventSummary(); }

// ---- types -------------------------------------------------------------------------------

Status World::register_component(std::uint32_t key, const TypeDescriptor& d, std::uint32_t size,
                                 std::uint32_t align) noexcept {
  if (lanes_) return lane_refused("register");
  if (key >= detail::kMaxTypeKeys)
    return {ErrorCode::CapacityExceeded, "registerComponent: too many distinct types in this process"};
  if (component_by_key_[key] != 0xFFFF) return {ErrorCode::AlreadyRegistered, "registerComponent: already registered"};
  // Names key snapshot files and traces: two types sharing one would make every snapshot of
  // this world unloadable ("appears twice"), so the second is refused here, up front.
  if (componentIdByName(d.name) >= 0)
    return {ErrorCode::AlreadyRegistered,
            "registerComponent: a different component type with the same name is registered (names identify types "
            "in snapshots and traces; give one a distinct name with LOCKSTEP_COMPONENT_NAMED)"};
  if (component_count_ >= config_.max_components)
    return {ErrorCode::CapacityExceeded, "registerComponent: WorldConfig::max_components reached"};
  if (align > kColumnAlign) return {ErrorCode::InvalidArgument, "registerComponent: alignment above 64"};
  components_[component_count_] = detail::TypeInfo{&d, size, align, key, 0};
  component_by_key_[key] = static_cast<std::uint16_t>(component_count_);
  ++component_count_;
  layout_epoch_ = detail::next_layout_epoch();
  marks_.all_written();
  return Status::Ok();
}

Status World::register_resource(std::uint32_t key, const TypeDescriptor& d, std::uint32_t size,
                                std::uint32_t align, const void* initial) noexcept {
  if (lanes_) return lane_refused("register");
  if (key >= detail::kMaxTypeKeys)
    return {ErrorCode::CapacityExceeded, "registerResource: too many distinct types in this process"};
  if (resource_by_key_[key] != 0xFFFF) return {ErrorCode::AlreadyRegistered, "registerResource: already registered"};
  if (resourceIdByName(d.name) >= 0)
    return {ErrorCode::AlreadyRegistered,
            "registerResource: a different resource type with the same name is registered (names identify types "
            "in snapshots and traces; give one a distinct name with LOCKSTEP_COMPONENT_NAMED)"};
  if (resource_count_ >= config_.max_resources)
    return {ErrorCode::CapacityExceeded, "registerResource: WorldConfig::max_resources reached"};
  const std::uint64_t offset = align_up(resource_used_, align);
  if (offset + size > config_.resource_bytes)
    return {ErrorCode::CapacityExceeded, "registerResource: WorldConfig::resource_bytes exhausted"};
  resources_[resource_count_] = detail::TypeInfo{&d, size, align, key, static_cast<std::uint32_t>(offset)};
  std::memcpy(resource_data_.get() + offset, initial, size);
  resource_used_ = static_cast<std::uint32_t>(offset + size);
  resource_by_key_[key] = static_cast<std::uint16_t>(resource_count_);
  ++resource_count_;
  marks_.all_written();
  return Status::Ok();
}

const TypeDescriptor& World::componentDescriptor(std::uint32_t id) const noexcept {
  LOCKSTEP_ASSERT(id < component_count_);
  return *components_[id].descriptor;
}

std::int32_t World::componentIdByName(const char* name) const noexcept {
  for (std::uint32_t i = 0; i < component_count_; ++i)
    if (std::strcmp(components_[i].descriptor->name, name) == 0) return static_cast<std::int32_t>(i);
  return -1;
}

std::int32_t World::resourceIdByName(const char* name) const noexcept {
  for (std::uint32_t i = 0; i < resource_count_; ++i)
    if (std::strcmp(resources_[i].descriptor->name, name) == 0) return static_cast<std::int32_t>(i);
  return -1;
}

// ---- archetypes and arena ----------------------------------------------------------------

std::int32_t World::find_archetype(const IdSet256& mask) const noexcept {
  for (std::uint32_t a = 0; a < archetype_count_; ++a)
    if (archetypes_[a].mask == mask) return static_cast<std::int32_t>(a);
  return -1;
}

Status World::create_archetype(const IdSet256& mask, std::uint32_t& out) noexcept {
  if (archetype_count_ >= config_.max_archetypes)
    return {ErrorCode::CapacityExceeded, "WorldConfig::max_archetypes reached"};
  std::uint32_t columns = 0;
  for (std::uint32_t id = 0; id < component_count_; ++id)
    if (mask.contains(id)) ++columns;
  if (columns > detail::kMaxColumns)
    return {ErrorCode::CapacityExceeded, "an archetype holds at most 32 components"};
  Archetype& a = archetypes_[archetype_count_];
  a = Archetype{};
  a.mask = mask;
  std::fill(std::begin(a.column_of), std::end(a.column_of), kNoColumn);
  a.row_bytes = 4;
  a.widest = 4;
  for (std::uint32_t id = 0; id < component_count_; ++id) {
    if (!mask.contains(id)) continue;
    a.column_of[id] = static_cast<std::uint8_t>(a.column_count);
    a.component_ids[a.column_count] = static_cast<std::uint8_t>(id);
    a.column_size[a.column_count] = components_[id].size;
    a.row_bytes += components_[id].size;
    a.widest = std::max(a.widest, components_[id].size);
    ++a.column_count;
  }
  a.rows = 0;
  a.capacity = 0;
  a.block = arena_top_;
  refresh_pointers(a);
  a.block_bytes = 0;
  out = archetype_count_++;
  return Status::Ok();
}

// Moves `a` to a block of `capacity` rows: in place when it is the last block, else at the
// top of the arena. Returns false when the arena has no room there.
bool World::relocate(Archetype& a, std::uint32_t capacity) noexcept {
  std::uint64_t slots_offset = 0;
  std::uint64_t offsets[detail::kMaxColumns];
  const std::uint64_t bytes = layout_block(a, capacity, &slots_offset, offsets);
  const bool last = a.block_bytes != 0 && a.block + a.block_bytes == arena_top_;
  if (last) {
    if (a.block + bytes > arena_size_) return false;
    // Grow in place: later columns move further up, so move them first.
    for (std::uint32_t c = a.column_count; c-- > 0;)
      std::memmove(arena_ + a.block + offsets[c], arena_ + a.block + a.column_offset[c],
                   std::size_t{a.rows} * a.column_size[c]);
    std::memmove(arena_ + a.block + slots_offset, arena_ + a.block + a.slots_offset, std::size_t{a.rows} * 4u);
    arena_top_ = a.block + bytes;
  } else {
    const std::uint64_t block = align_up(arena_top_, kColumnAlign);
    if (block + bytes > arena_size_) return false;
    for (std::uint32_t c = 0; c < a.column_count; ++c)
      std::memcpy(arena_ + block + offsets[c], arena_ + a.block + a.column_offset[c],
                  std::size_t{a.rows} * a.column_size[c]);
    if (a.rows != 0) std::memcpy(arena_ + block + slots_offset, arena_ + a.block + a.slots_offset, std::size_t{a.rows} * 4u);
    a.block = block;
    arena_top_ = block + bytes;
  }
  a.block_bytes = bytes;
  a.capacity = capacity;
  a.slots_offset = slots_offset;
  std::copy_n(offsets, a.column_count, a.column_offset);
  refresh_pointers(a);
  return true;
}

void World::refresh_pointers(Archetype& a) const noexcept {
  a.slots_ptr = reinterpret_cast<std::uint32_t*>(arena_ + a.block + a.slots_offset);
  for (std::uint32_t c = 0; c < a.column_count; ++c) a.column_ptr[c] = arena_ + a.block + a.column_offset[c];
}

// Slides every block down to the bottom of the arena, in address order. Capacities only
// shrink (to rows plus slack, or exactly rows when `tight`), so every move is downwards
// and memmove is safe.
void World::compact(bool tight) noexcept {
  std::uint8_t order[WorldConfig::kMaxArchetypesLimit];
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < archetype_count_; ++i) order[n++] = static_cast<std::uint8_t>(i);
  std::sort(order, order + n, [&](std::uint8_t x, std::uint8_t y) {
    if (archetypes_[x].block != archetypes_[y].block) return archetypes_[x].block < archetypes_[y].block;
    return x < y;
  });
  std::uint64_t cursor = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    Archetype& a = archetypes_[order[k]];
    std::uint32_t cap = tight ? a.rows : std::min<std::uint32_t>(a.capacity, a.rows + a.rows / 4 + 8);
    if (cap < a.rows) cap = a.rows;
    std::uint64_t slots_offset = 0;
    std::uint64_t offsets[detail::kMaxColumns];
    const std::uint64_t bytes = cap == 0 ? 0 : layout_block(a, cap, &slots_offset, offsets);
    const std::uint64_t block = cursor;
    if (bytes != 0) {
      std::memmove(arena_ + block + slots_offset, arena_ + a.block + a.slots_offset, std::size_t{a.rows} * 4u);
      for (std::uint32_t c = 0; c < a.column_count; ++c)
        std::memmove(arena_ + block + offsets[c], arena_ + a.block + a.column_offset[c],
                     std::size_t{a.rows} * a.column_size[c]);
      a.slots_offset = slots_offset;
      std::copy_n(offsets, a.column_count, a.column_offset);
    }
    a.block = block;
    a.block_bytes = bytes;
    a.capacity = cap;
    refresh_pointers(a);
    cursor = block + bytes;
  }
  arena_top_ = cursor;
}

Status World::ensure_capacity(Archetype& a, std::uint32_t rows) noexcept {
  if (rows <= a.capacity) return Status::Ok();
  const std::uint32_t grown = std::max<std::uint32_t>({rows, a.capacity * 2u, 16u});
  if (relocate(a, grown)) return Status::Ok();
  compact(false);
  if (relocate(a, grown)) return Status::Ok();
  // Holes are physical rows without a live entity: drop them before the tight compaction, so
  // physical rows equal live rows and the sizing argument of the constructor holds.
  settle_all();
  compact(true);
  if (relocate(a, rows)) return Status::Ok();
  // Unreachable while the logical row budget holds (see the arena sizing in the constructor).
  return {ErrorCode::Internal, "column arena exhausted within the row budget"};
}

// Moves the entity in `slot` to archetype `target`, copying shared columns; when
// `added_component` is a column of the target, it is initialised from `value`.
Status World::move_entity(std::uint32_t slot, std::uint32_t target, std::uint32_t added_component,
                          const void* value) noexcept {
  const std::uint32_t source = entity_archetype_[slot];
  Archetype& dst = archetypes_[target];
  const std::uint64_t new_used = used_row_bytes_ - archetypes_[source].row_bytes + dst.row_bytes;
  if (new_used > config_.row_bytes) return {ErrorCode::CapacityExceeded, "WorldConfig::row_bytes exhausted"};
  if (Status s = ensure_capacity(dst, dst.rows + 1); !s.ok()) return s;
  Archetype& src = archetypes_[source];
  const std::uint32_t src_row = rows_[slot];
  const std::uint32_t dst_row = append_row(dst, slot);
  for (std::uint32_t c = 0; c < dst.column_count; ++c) {
    const std::uint32_t id = dst.component_ids[c];
    const std::size_t s = dst.column_size[c];
    std::byte* to = column_base(dst, c) + dst_row * s;
    if (id == added_component) {
      std::memcpy(to, value, s);
    } else {
      const std::uint8_t sc = src.column_of[id];
      LOCKSTEP_DEBUG_ASSERT(sc != kNoColumn);
      detail::copy_value(to, column_base(src, sc) + std::size_t{src_row} * s, s);
    }
  }
  remove_row(src, src_row);
  entity_archetype_[slot] = static_cast<std::uint16_t>(target);
  used_row_bytes_ = new_used;
  return Status::Ok();
}

// ---- entities ----------------------------------------------------------------------------

std::uint32_t World::take_slot() noexcept {
  if (free_count_ != 0) {
    const std::uint32_t slot = free_[free_head_];
    ++free_head_;
    --free_count_;
    if (free_count_ == 0) free_head_ = 0;
    return slot;
  }
  return slot_count_++;
}

void World::release_slot(std::uint32_t slot) noexcept {
  if (free_head_ + free_count_ == config_.max_entities) {
    std::memmove(free_.get(), free_.get() + free_head_, std::size_t{free_count_} * 4u);
    free_head_ = 0;
  }
  free_[free_head_ + free_count_] = slot;
  ++free_count_;
}

Status World::tryCreate(Entity& out) noexcept {
  out = Entity::null();
  if (lanes_) return lane_refused("create");
  if (call().guard != nullptr && call().guard->observer) {  // observers defer structural changes (observers.h)
    Event ev;
    ev.id = EventId::IterationMutation;
    return report(ev);
  }
  if (free_count_ == 0 && slot_count_ >= config_.max_entities)
    return {ErrorCode::CapacityExceeded, "WorldConfig::max_entities reached"};
  Archetype& empty = archetypes_[0];
  if (used_row_bytes_ + empty.row_bytes > config_.row_bytes)
    return {ErrorCode::CapacityExceeded, "WorldConfig::row_bytes exhausted"};
  if (Status s = ensure_capacity(empty, empty.rows + 1); !s.ok()) return s;
  const std::uint32_t slot = take_slot();
  std::uint32_t& gen = generations_[slot];
  if (gen == 0) gen = 1;  // first use of the slot; destroy() already bumped reused ones
  alive_[slot] = 1;
  entity_archetype_[slot] = 0;
  append_row(empty, slot);
  used_row_bytes_ += empty.row_bytes;
  ++live_count_;
  view_touch(slot);
  out = Entity{slot, gen};
  debug_check();
  return Status::Ok();
}

Entity World::create() noexcept {
  Entity e;
  (void)tryCreate(e);
  return e;
}

bool World::alive(Entity e) const noexcept { return valid(e); }

Status World::destroy(Entity e) noexcept {
  if (lanes_) return lane_refused("destroy");
  prefetch_slot(e.slot);
  if (!valid(e)) return {ErrorCode::InvalidArgument, "destroy: null, stale or foreign entity handle"};
  const std::uint32_t arch = entity_archetype_[e.slot];
  if (call().access != nullptr) {
    if (Status s = detail::AccessCheck::destroy(*this, e, archetypes_[arch].mask); !s.ok()) return s;
  }
  if (call().guard != nullptr && call().guard->matched_archetypes.contains(arch)) {
    Event ev;
    ev.id = EventId::IterationMutation;
    ev.entity = e;
    ev.archetype_id = static_cast<std::int32_t>(arch);
    ev.source_archetype = static_cast<std::int32_t>(arch);
    return report(ev);
  }
  if (observers_ != nullptr) notify_destroying(e);
  view_touch(e.slot);
  Archetype& a = archetypes_[arch];
  mark_archetype_written(a);
  remove_row(a, rows_[e.slot]);
  used_row_bytes_ -= a.row_bytes;
  restrict_disabled(e.slot, IdSet256{});
  alive_[e.slot] = 0;
  entity_archetype_[e.slot] = kNoArchetype;
  generations_[e.slot] = e.generation >= Entity::kMaxGeneration ? 1 : e.generation + 1;
  release_slot(e.slot);
  --live_count_;
  debug_check();
  return Status::Ok();
}

Status World::clear() noexcept {
  if (lanes_) return lane_refused("clear");
  if (call().access != nullptr) {
    for (std::uint32_t a = 0; a < archetype_count_; ++a)
      if (archetypes_[a].rows != archetypes_[a].holes)  // live rows (holes are removed rows)
        if (Status s = detail::AccessCheck::destroy(*this, Entity::null(), archetypes_[a].mask); !s.ok()) return s;
  }
  if (call().guard != nullptr) {
    for (std::uint32_t a = 0; a < archetype_count_; ++a) {
      if (call().guard->matched_archetypes.contains(a) && archetypes_[a].rows != 0) {
        Event ev;
        ev.id = EventId::IterationClear;
        ev.archetype_id = static_cast<std::int32_t>(a);
        ev.rows = archetypes_[a].rows;
        return report(ev);
      }
    }
  }
  marks_.all_written();
  if (view_journal_ != nullptr) view_journal_->rescan = true;
  if (observers_ != nullptr) notify_clearing();
  for (std::uint32_t slot = 0; slot < slot_count_; ++slot) {
    if (alive_[slot] == 0) continue;
    alive_[slot] = 0;
    entity_archetype_[slot] = kNoArchetype;
    generations_[slot] = generations_[slot] >= Entity::kMaxGeneration ? 1 : generations_[slot] + 1;
    release_slot(slot);
  }
  for (std::uint32_t a = 0; a < archetype_count_; ++a) {
    archetypes_[a].rows = 0;
    archetypes_[a].sorted = 0;
    archetypes_[a].holes = 0;
  }
  unsettled_ = IdSet256{};
  if (disabled_total_ != 0) {
    std::fill_n(disabled_.get(), slot_count_, std::uint64_t{0});
    std::fill_n(disabled_blocks_.get(), slot_count_ / 64 + 1, std::uint8_t{0});
  }
  disabled_total_ = 0;
  used_row_bytes_ = 0;
  live_count_ = 0;
  debug_check();
  return Status::Ok();
}

// ---- components --------------------------------------------------------------------------

const std::byte* World::get_bytes(Entity e, std::uint32_t component_id) const noexcept {
  if (access_denied(AccessKind::ReadComponent, component_id)) {
    (void)access_violation(AccessKind::ReadComponent, component_id, e);
    return nullptr;
  }
  return locate(e, component_id);
}

const std::byte* World::locate(Entity e, std::uint32_t component_id) const noexcept {
  if (!valid(e) || component_id >= component_count_) return nullptr;
  const Archetype& a = archetypes_[entity_archetype_[e.slot]];
  const std::uint8_t c = a.column_of[component_id];
  if (c == kNoColumn) return nullptr;
  return column_base(a, c) + std::size_t{rows_[e.slot]} * a.column_size[c];
}

std::byte* World::get_bytes_mutable(Entity e, std::uint32_t component_id) noexcept {
  // The call state is read once for both checks, the serial one laid out as the straight path:
  // the hottest checked path (docs/systems.md, "Cost").
  const CallState* lane_or_serial = &serial_call_;
  if (lanes_) [[unlikely]]
    lane_or_serial = &call();
  const CallState& call_state = *lane_or_serial;
  if (call_state.access != nullptr && !call_state.access->allows(AccessKind::WriteComponent, component_id)) {
    (void)access_violation(AccessKind::WriteComponent, component_id, e);
    return nullptr;
  }
  std::byte* p = const_cast<std::byte*>(locate(e, component_id));
  if (p == nullptr) return nullptr;
  if (call_state.guard != nullptr && call_state.guard->read_components.contains(component_id)) {
    Event ev;
    ev.id = EventId::IterationWriteDuringRead;
    ev.entity = e;
    ev.component_id = static_cast<std::int32_t>(component_id);
    ev.archetype_id = static_cast<std::int32_t>(entity_archetype_[e.slot]);
    (void)report(ev);
    return nullptr;
  }
  mark_changed(e.slot, component_id);
  marks_.component_written(component_id);
  if (view_journal_ != nullptr) view_journal_->touch_if_watched(e.slot, component_id);
  return p;
}

Status World::add_bytes(Entity e, std::uint32_t id, const void* value) noexcept {
  if (lanes_) return lane_refused("addComponent");
  prefetch_slot(e.slot);
  if (!valid(e)) return {ErrorCode::InvalidArgument, "addComponent: null, stale or foreign entity handle"};
  if (id >= component_count_) return {ErrorCode::NotRegistered, "addComponent: unknown component id"};
  if (access_denied(AccessKind::WriteComponent, id)) return access_violation(AccessKind::WriteComponent, id, e);
  const std::uint32_t source = entity_archetype_[e.slot];
  Archetype& src = archetypes_[source];
  const std::uint8_t column = src.column_of[id];
  if (column != kNoColumn) {
    // In-place overwrite: illegal only when the live query declared this component Read.
    if (call().guard != nullptr && call().guard->read_components.contains(id)) {
      Event ev;
      ev.id = EventId::IterationWriteDuringRead;
      ev.entity = e;
      ev.component_id = static_cast<std::int32_t>(id);
      ev.archetype_id = static_cast<std::int32_t>(source);
      return report(ev);
    }
    std::memcpy(column_base(src, column) + std::size_t{rows_[e.slot]} * src.column_size[column], value,
                src.column_size[column]);
    mark_changed(e.slot, id);
    marks_.component_written(id);
    if (view_journal_ != nullptr) view_journal_->touch_if_watched(e.slot, id);
    return observers_ != nullptr ? notify_set(e, id, false) : Status::Ok();
  }
  IdSet256 mask = src.mask;
  mask.insert(id);
  const Status s = structural_change(e, id, mask, value);
  return s.ok() && observers_ != nullptr ? notify_set(e, id, true) : s;
}

// Moves e to the archetype of `mask` (e gains or loses component `id`; `value` initialises
// a gained component). Guard and budget checks come before the first side effect.
Status World::structural_change(Entity e, std::uint32_t id, const IdSet256& mask, const void* value) noexcept {
  const std::uint32_t source = entity_archetype_[e.slot];
  const std::int32_t found = find_archetype(mask);
  if (call().guard != nullptr && (call().guard->matched_archetypes.contains(source) ||
                            (found >= 0 && call().guard->matched_archetypes.contains(static_cast<std::uint32_t>(found))))) {
    Event ev;
    ev.id = EventId::IterationMutation;
    ev.entity = e;
    ev.component_id = static_cast<std::int32_t>(id);
    ev.archetype_id = static_cast<std::int32_t>(source);
    ev.source_archetype = static_cast<std::int32_t>(source);
    ev.target_archetype = found;
    return report(ev);
  }
  const std::uint32_t source_bytes = archetypes_[source].row_bytes;
  const std::uint64_t target_row_bytes =
      mask.contains(id) ? source_bytes + components_[id].size : source_bytes - components_[id].size;
  if (used_row_bytes_ - source_bytes + target_row_bytes > config_.row_bytes)
    return {ErrorCode::CapacityExceeded, "WorldConfig::row_bytes exhausted"};
  std::uint32_t target = 0;
  if (found >= 0) {
    target = static_cast<std::uint32_t>(found);
  } else if (Status s = create_archetype(mask, target); !s.ok()) {
    return s;
  }
  mark_archetype_written(archetypes_[source]);
  mark_archetype_written(archetypes_[target]);
  Status s = move_entity(e.slot, target, mask.contains(id) ? id : 0xFFFFFFFFu, value);
  if (s.ok()) {
    view_touch(e.slot);
    restrict_disabled(e.slot, mask);
    if (mask.contains(id)) mark_added(e.slot, id);
  }
  debug_check();
  return s;
}

Status World::remove_id(Entity e, std::uint32_t id) noexcept {
  if (lanes_) return lane_refused("removeComponent");
  prefetch_slot(e.slot);
  if (!valid(e)) return {ErrorCode::InvalidArgument, "removeComponent: null, stale or foreign entity handle"};
  if (id >= component_count_) return {ErrorCode::NotRegistered, "removeComponent: unknown component id"};
  if (access_denied(AccessKind::WriteComponent, id)) return access_violation(AccessKind::WriteComponent, id, e);
  const std::uint32_t source = entity_archetype_[e.slot];
  const Archetype& src = archetypes_[source];
  if (src.column_of[id] == kNoColumn) return {ErrorCode::NotFound, "removeComponent: entity lacks the component"};
  IdSet256 mask = src.mask;
  mask.erase(id);
  if (observers_ != nullptr)
    if (Status s = notify_removing(e, id, mask); !s.ok()) return s;
  return structural_change(e, id, mask, nullptr);
}

// ---- guard and events --------------------------------------------------------------------

Status World::guard_nested() noexcept {
  Event ev;
  ev.id = EventId::IterationNested;
  return report(ev);
}

Status World::lane_refused(const char* operation) noexcept {
  Event ev;
  ev.id = EventId::ConcurrentStageChange;
  ev.system = call().access != nullptr ? call().access->name : nullptr;
  ev.operation = operation;
  return report(ev);
}

// Counted under a lock: the lanes of a concurrent stage, or the chunks of a parallel loop, may
// report at once (diagnostics, not state; exactly one of them sees the first count and calls
// the sink). A lock rather than a 64-bit atomic: those need libatomic on some 32-bit targets.
std::uint64_t World::count_event(EventId id) noexcept {
  // lockstep: allow(static) diagnostics lock shared by every world, not simulation state
  static std::mutex lock;
  const std::lock_guard<std::mutex> hold(lock);
  return event_counts_[static_cast<std::size_t>(id)]++;
}

Status World::report(const Event& event) noexcept {
  if (count_event(event.id) == 0) sink_->on_event(event);
  if (policy_ == GuardPolicy::Abort)
    detail::assert_fail(__FILE__, __LINE__, to_string(event.id),
                        "iteration-legality violation (GuardPolicy::Abort); see docs/kernel.md");
  return {ErrorCode::InvalidArgument, to_string(event.id)};
}

void World::note(const Event& event) noexcept {
  if (count_event(event.id) == 0) sink_->on_event(event);
}

void World::setEventSink(EventSink* sink) noexcept { sink_ = sink != nullptr ? sink : &stderr_event_sink(); }

void World::flushEventSummary() noexcept {
  for (std::size_t i = 0; i < static_cast<std::size_t>(EventId::Count_); ++i) {
    if (event_counts_[i] > 1) {
      Event ev;
      ev.id = EventId::RateLimited;
      ev.severity = Severity::Info;
      ev.summarised = static_cast<EventId>(i);
      ev.suppressed = event_counts_[i] - 1;
      sink_->on_event(ev);
    }
    event_counts_[i] = 0;
  }
}

// ---- state view and invariants -----------------------------------------------------------

StorageView World::storage() const noexcept {
  settle_all();  // readers of the view see rows in slot order
  detail::StorageImage image;
  image.tick = tick_;
  image.slot_count = slot_count_;
  image.free_count = free_count_;
  image.generations = generations_.get();
  image.alive = alive_.get();
  image.free_slots = free_.get() + free_head_;
  image.component_count = component_count_;
  image.components = components_.get();
  image.archetype_count = archetype_count_;
  image.archetypes = archetypes_.get();
  image.arena = arena_;
  image.resource_count = resource_count_;
  image.resources = resources_.get();
  image.resource_data = resource_data_.get();
  image.disabled = disabled_.get();
  image.disabled_total = disabled_total_;
  image.added_ticks = added_ticks_.get();
  image.changed_ticks = changed_ticks_.get();
  image.changed_summary = tick_table();
  image.tick_stride = config_.max_tracked_components;
  image.tracked_count = tracked_count_;
  image.tracked_ids = tracked_ids_;
  return StorageView(image);
}

void World::debug_check() const noexcept {
#if defined(LOCKSTEP_CHECK_INVARIANTS) && LOCKSTEP_CHECK_INVARIANTS
  // The full check is O(entities): run it after every mutation on small worlds and after
  // every 64th on large ones, so Debug builds of big scenes stay usable.
  if (live_count_ > 4096 && (debug_checks_++ % 64) != 0) return;
  const Status s = checkInvariants();
  LOCKSTEP_ASSERT_MSG(s.ok(), s.message());
#endif
}

Status World::checkInvariants() const noexcept {
  std::uint64_t used = 0;
  std::uint32_t live_rows = 0;
  for (std::uint32_t ai = 0; ai < archetype_count_; ++ai) {
    const Archetype& a = archetypes_[ai];
    if (a.rows > a.capacity) return {ErrorCode::Internal, "archetype rows exceed capacity"};
    if (a.rows != 0 && a.block + a.block_bytes > arena_top_) return {ErrorCode::Internal, "block beyond arena top"};
    if (a.sorted > a.rows || a.holes > a.sorted) return {ErrorCode::Internal, "row-order bookkeeping out of range"};
    if (a.holes > a.rows - a.holes + 64) return {ErrorCode::Internal, "holes outnumber live rows beyond the bound"};
    if ((a.holes != 0 || a.sorted != a.rows) != unsettled_.contains(ai))
      return {ErrorCode::Internal, "unsettled-archetype set disagrees with the rows"};
    const std::uint32_t* slots = a.rows != 0 ? slot_column(a) : nullptr;
    std::uint32_t holes = 0;
    std::uint32_t previous = 0;
    bool any = false;
    for (std::uint32_t r = 0; r < a.rows; ++r) {
      const std::uint32_t s = slots[r];
      if ((s & 0x80000000u) != 0 && r < a.sorted) {
        ++holes;
        continue;
      }
      if (r < a.sorted) {
        if (any && previous >= s) return {ErrorCode::Internal, "rows not in ascending slot order"};
        previous = s;
        any = true;
      }
      if (s >= slot_count_ || alive_[s] == 0) return {ErrorCode::Internal, "row holds a free slot"};
      if (entity_archetype_[s] != ai || rows_[s] != r) return {ErrorCode::Internal, "entity table disagrees with rows"};
    }
    if (holes != a.holes) return {ErrorCode::Internal, "hole count is off"};
    used += std::uint64_t{a.rows - a.holes} * a.row_bytes;
    live_rows += a.rows - a.holes;
  }
  if (used != used_row_bytes_) return {ErrorCode::Internal, "row byte accounting is off"};
  if (live_rows != live_count_) return {ErrorCode::Internal, "live count disagrees with rows"};
  if (live_count_ + free_count_ != slot_count_) return {ErrorCode::Internal, "free list and live count disagree"};
  std::uint64_t disabled = 0;
  for (std::uint32_t s = 0; s < slot_count_; ++s) {
    const std::uint64_t bits = disabled_[s];
    if (bits == 0) continue;
    if (alive_[s] == 0) return {ErrorCode::Internal, "a free slot has enable bits"};
    if ((bits & ~archetypes_[entity_archetype_[s]].mask.words[0]) != 0)
      return {ErrorCode::Internal, "an enable bit names a component the entity lacks"};
    disabled += static_cast<std::uint64_t>(std::popcount(bits));
  }
  if (disabled != disabled_total_) return {ErrorCode::Internal, "disabled count is off"};
  for (std::uint32_t b = 0; b <= slot_count_ / 64 && b <= config_.max_entities / 64; ++b) {
    std::uint32_t dirty = 0;
    for (std::uint32_t s = b * 64; s < (b + 1) * 64 && s < slot_count_; ++s) dirty += disabled_[s] != 0 ? 1 : 0;
    if (dirty != disabled_blocks_[b]) return {ErrorCode::Internal, "disabled block summary is off"};
  }
  for (std::uint32_t i = 0; i < free_count_; ++i) {
    const std::uint32_t s = free_[free_head_ + i];
    if (s >= slot_count_ || alive_[s] != 0) return {ErrorCode::Internal, "free list holds a live slot"};
  }
  // Changed-tick summary (detail/change_ticks.h): for every live holder of a tracked
  // component, its tick <= the block's max, and <= second when outside the mask.
  if (changed_summary_ != nullptr) {
    const detail::ChangeTicks c = tick_table();
    for (std::uint32_t t = 0; t < tracked_count_; ++t) {
      for (std::uint32_t s = 0; s < slot_count_; ++s) {
        if (alive_[s] == 0 || !archetypes_[entity_archetype_[s]].mask.contains(tracked_ids_[t])) continue;
        const std::size_t b = std::size_t{t} * c.blocks + (s >> 6);
        const bool in_mask = ((c.mask[b] >> (s & 63u)) & 1u) != 0;
        if (c.changed(s, t) > c.max[b] || (!in_mask && c.ticks[std::size_t{s} * c.stride + t] > c.second[b]))
          return {ErrorCode::Internal, "changed-tick summary is below a slot's tick"};
      }
    }
  }
  if (views_ != nullptr) return detail::ViewAccess::check(*this);
  return Status::Ok();
}

}  // namespace lockstep
