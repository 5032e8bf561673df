// Several components added in one structural move: World::addComponents / createWith
// (docs/kernel.md, "Adding several components at once"). The end state equals the adds made
// one by one, except that the archetypes in between are never created.
#include "copy_value.h"

#include <lockstep/store/world.h>

#include "world_inline.h"

#include <cstring>

namespace lockstep {

using detail::Archetype;
using detail::IdSet256;
using detail::kNoColumn;

namespace {

// The value given for `id` (the last one when an id repeats), or null.
const void* value_for(const std::uint32_t* ids, const void* const* values, std::uint32_t count,
                      std::uint32_t id) noexcept {
  for (std::uint32_t k = count; k-- > 0;)
    if (ids[k] == id) return values[k];
  return nullptr;
}

}  // namespace

Status World::move_entity_many(std::uint32_t slot, std::uint32_t target, const std::uint32_t* ids,
                               const void* const* values, std::uint32_t count) noexcept {
  Archetype& dst = archetypes_[target];
  if (Status s = ensure_capacity(dst, dst.rows + 1); !s.ok()) return s;
  Archetype& src = archetypes_[entity_archetype_[slot]];
  const std::uint32_t src_row = rows_[slot];
  const std::uint32_t dst_row = append_row(dst, slot);
  for (std::uint32_t c = 0; c < dst.column_count; ++c) {
    const std::uint32_t id = dst.component_ids[c];
    const std::size_t size = dst.column_size[c];
    std::byte* to = column_base(dst, c) + dst_row * size;
    if (const void* v = value_for(ids, values, count, id)) {
      std::memcpy(to, v, size);
    } else {
      const std::uint8_t sc = src.column_of[id];
      LOCKSTEP_DEBUG_ASSERT(sc != kNoColumn);
      detail::copy_value(to, column_base(src, sc) + std::size_t{src_row} * size, size);
    }
  }
  remove_row(src, src_row);
  entity_archetype_[slot] = static_cast<std::uint16_t>(target);
  return Status::Ok();
}

Status World::add_many(Entity e, const std::uint32_t* ids, const void* const* values, std::uint32_t count) noexcept {
  if (lanes_) return lane_refused("addComponents");
  if (!valid(e)) return {ErrorCode::InvalidArgument, "addComponents: null, stale or foreign entity handle"};
  for (std::uint32_t k = 0; k < count; ++k) {
    if (ids[k] >= component_count_) return {ErrorCode::NotRegistered, "addComponents: unknown component id"};
    if (access_denied(AccessKind::WriteComponent, ids[k])) return access_violation(AccessKind::WriteComponent, ids[k], e);
  }
  const std::uint32_t source = entity_archetype_[e.slot];
  const Archetype& src = archetypes_[source];
  IdSet256 mask = src.mask;
  IdSet256 added;
  std::uint64_t target_bytes = src.row_bytes;
  for (std::uint32_t k = 0; k < count; ++k) {
    if (mask.contains(ids[k])) continue;
    mask.insert(ids[k]);
    added.insert(ids[k]);
    target_bytes += components_[ids[k]].size;
  }
  // Guard first, before any side effect: overwriting a component the live query reads is a
  // write during read; gaining components is a structural change.
  if (call().guard != nullptr) {
    for (std::uint32_t k = 0; k < count; ++k) {
      if (!added.contains(ids[k]) && call().guard->read_components.contains(ids[k])) {
        Event ev;
        ev.id = EventId::IterationWriteDuringRead;
        ev.entity = e;
        ev.component_id = static_cast<std::int32_t>(ids[k]);
        ev.archetype_id = static_cast<std::int32_t>(source);
        return report(ev);
      }
    }
  }
  if (added.empty()) {
    view_touch(e.slot);
    for (std::uint32_t k = 0; k < count; ++k) {
      const std::uint8_t c = src.column_of[ids[k]];
      std::memcpy(column_base(src, c) + std::size_t{rows_[e.slot]} * src.column_size[c], values[k], src.column_size[c]);
      mark_changed(e.slot, ids[k]);
      marks_.component_written(ids[k]);
    }
    return notify_adds(e, ids, count, added);
  }
  const std::int32_t found = find_archetype(mask);
  if (call().guard != nullptr && (call().guard->matched_archetypes.contains(source) ||
                            (found >= 0 && call().guard->matched_archetypes.contains(static_cast<std::uint32_t>(found))))) {
    Event ev;
    ev.id = EventId::IterationMutation;
    ev.entity = e;
    for (std::uint32_t k = 0; k < count && ev.component_id < 0; ++k)
      if (added.contains(ids[k])) ev.component_id = static_cast<std::int32_t>(ids[k]);
    ev.archetype_id = static_cast<std::int32_t>(source);
    ev.source_archetype = static_cast<std::int32_t>(source);
    ev.target_archetype = found;
    return report(ev);
  }
  if (used_row_bytes_ - src.row_bytes + target_bytes > config_.row_bytes)
    return {ErrorCode::CapacityExceeded, "WorldConfig::row_bytes exhausted"};
  std::uint32_t target = 0;
  if (found >= 0) {
    target = static_cast<std::uint32_t>(found);
  } else if (Status s = create_archetype(mask, target); !s.ok()) {
    return s;
  }
  const std::uint32_t source_bytes = src.row_bytes;
  mark_archetype_written(archetypes_[source]);
  mark_archetype_written(archetypes_[target]);
  Status s = move_entity_many(e.slot, target, ids, values, count);
  if (s.ok()) {
    view_touch(e.slot);
    used_row_bytes_ = used_row_bytes_ - source_bytes + archetypes_[target].row_bytes;
    for (std::uint32_t k = 0; k < count; ++k) {
      if (added.contains(ids[k])) mark_added(e.slot, ids[k]);
      else mark_changed(e.slot, ids[k]);
    }
  }
  debug_check();
  return s.ok() ? notify_adds(e, ids, count, added) : s;
}

// Observers see the adds after the single move, in argument order (a repeated id once).
Status World::notify_adds(Entity e, const std::uint32_t* ids, std::uint32_t count, const IdSet256& added) noexcept {
  if (observers_ == nullptr) return Status::Ok();
  IdSet256 done;
  for (std::uint32_t k = 0; k < count; ++k) {
    if (done.contains(ids[k])) continue;
    done.insert(ids[k]);
    if (Status s = notify_set(e, ids[k], added.contains(ids[k])); !s.ok()) return s;
  }
  return Status::Ok();
}

Status World::create_with(Entity& out, const std::uint32_t* ids, const void* const* values,
                          std::uint32_t count) noexcept {
  out = Entity::null();
  if (lanes_) return lane_refused("createWith");
  if (call().guard != nullptr && call().guard->observer) {  // observers defer structural changes (observers.h)
    Event ev;
    ev.id = EventId::IterationMutation;
    return report(ev);
  }
  for (std::uint32_t k = 0; k < count; ++k) {
    if (ids[k] >= component_count_) return {ErrorCode::NotRegistered, "createWith: unknown component id"};
    if (access_denied(AccessKind::WriteComponent, ids[k]))
      return access_violation(AccessKind::WriteComponent, ids[k], Entity::null());
  }
  if (free_count_ == 0 && slot_count_ >= config_.max_entities)
    return {ErrorCode::CapacityExceeded, "WorldConfig::max_entities reached"};
  IdSet256 mask;
  std::uint64_t bytes = archetypes_[0].row_bytes;
  for (std::uint32_t k = 0; k < count; ++k) {
    if (mask.contains(ids[k])) continue;
    mask.insert(ids[k]);
    bytes += components_[ids[k]].size;
  }
  if (used_row_bytes_ + bytes > config_.row_bytes) return {ErrorCode::CapacityExceeded, "WorldConfig::row_bytes exhausted"};
  const std::int32_t found = find_archetype(mask);
  // As create() followed by a structural add: legal unless archetype 0 or the target is being
  // visited (a plain create, count == 0, is always legal).
  if (call().guard != nullptr && count != 0 &&
      (call().guard->matched_archetypes.contains(0) ||
       (found >= 0 && call().guard->matched_archetypes.contains(static_cast<std::uint32_t>(found))))) {
    Event ev;
    ev.id = EventId::IterationMutation;
    ev.component_id = static_cast<std::int32_t>(ids[0]);
    ev.source_archetype = 0;
    ev.target_archetype = found;
    return report(ev);
  }
  std::uint32_t target = 0;
  if (found >= 0) {
    target = static_cast<std::uint32_t>(found);
  } else if (Status s = create_archetype(mask, target); !s.ok()) {
    return s;
  }
  Archetype& a = archetypes_[target];
  if (Status s = ensure_capacity(a, a.rows + 1); !s.ok()) return s;
  mark_archetype_written(a);
  const std::uint32_t slot = take_slot();
  std::uint32_t& gen = generations_[slot];
  if (gen == 0) gen = 1;  // first use of the slot; destroy() already bumped reused ones
  alive_[slot] = 1;
  entity_archetype_[slot] = static_cast<std::uint16_t>(target);
  const std::uint32_t row = append_row(a, slot);
  for (std::uint32_t c = 0; c < a.column_count; ++c) {
    const std::size_t size = a.column_size[c];
    std::memcpy(column_base(a, c) + row * size, value_for(ids, values, count, a.component_ids[c]), size);
  }
  used_row_bytes_ += a.row_bytes;
  ++live_count_;
  view_touch(slot);
  for (std::uint32_t k = 0; k < count; ++k) mark_added(slot, ids[k]);
  out = Entity{slot, gen};
  debug_check();
  return notify_adds(out, ids, count, mask);
}

// The typed forms (addComponents, tryCreateWith) resolve their type keys here, so the
// public header holds no loop.
Status World::add_typed(Entity e, const std::uint32_t* keys, const void* const* values, std::uint32_t count) noexcept {
  std::uint32_t ids[256];
  if (count > 256) return {ErrorCode::InvalidArgument, "addComponents: more than 256 components"};
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::int32_t id = component_id_of(keys[k]);
    if (id < 0) return {ErrorCode::NotRegistered, "addComponents: component type not registered"};
    ids[k] = static_cast<std::uint32_t>(id);
  }
  return add_many(e, ids, values, count);
}

Status World::create_typed(Entity& out, const std::uint32_t* keys, const void* const* values,
                           std::uint32_t count) noexcept {
  out = Entity::null();
  std::uint32_t ids[256];
  if (count > 256) return {ErrorCode::InvalidArgument, "tryCreateWith: more than 256 components"};
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::int32_t id = component_id_of(keys[k]);
    if (id < 0) return {ErrorCode::NotRegistered, "tryCreateWith: component type not registered"};
    ids[k] = static_cast<std::uint32_t>(id);
  }
  return create_with(out, ids, values, count);
}

}  // namespace lockstep
