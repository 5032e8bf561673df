// Row state beside the columns: per-entity enable bits and per-component change ticks
// (docs/kernel.md, "Enable bits" and "Change detection").
#include "change_ticks_copy.h"

#include <lockstep/store/world.h>

#include <bit>

namespace lockstep {

Status World::set_enabled(Entity e, std::uint32_t id, bool enabled) noexcept {
  if (lanes_) return lane_refused("setEnabled");
  if (!valid(e)) return {ErrorCode::InvalidArgument, "setEnabled: null, stale or foreign entity handle"};
  if (id >= component_count_) return {ErrorCode::NotRegistered, "setEnabled: unknown component id"};
  if (access_denied(AccessKind::WriteComponent, id)) return access_violation(AccessKind::WriteComponent, id, e);
  if (id >= WorldConfig::kEnableBitComponents)
    return {ErrorCode::CapacityExceeded, "setEnabled: enable bits exist for component ids < 64 only"};
  const std::uint32_t arch = entity_archetype_[e.slot];
  if (!archetypes_[arch].mask.contains(id)) return {ErrorCode::NotFound, "setEnabled: entity lacks the component"};
  // Switching a component is a write of it: illegal while a live query declares it Read.
  if (call().guard != nullptr && call().guard->read_components.contains(id)) {
    Event ev;
    ev.id = EventId::IterationWriteDuringRead;
    ev.entity = e;
    ev.component_id = static_cast<std::int32_t>(id);
    ev.archetype_id = static_cast<std::int32_t>(arch);
    return report(ev);
  }
  view_touch(e.slot);
  const std::uint64_t bit = std::uint64_t{1} << id;
  std::uint64_t& word = disabled_[e.slot];
  const bool was_clean = word == 0;
  if (enabled && (word & bit) != 0) {
    word &= ~bit;
    --disabled_total_;
  } else if (!enabled && (word & bit) == 0) {
    word |= bit;
    ++disabled_total_;
  }
  if (was_clean != (word == 0)) {
    if (was_clean) ++disabled_blocks_[e.slot >> 6];
    else --disabled_blocks_[e.slot >> 6];
  }
  return Status::Ok();
}

bool World::is_enabled(Entity e, std::uint32_t id) const noexcept {
  if (!valid(e) || id >= component_count_) return false;
  if (!archetypes_[entity_archetype_[e.slot]].mask.contains(id)) return false;
  return id >= WorldConfig::kEnableBitComponents || (disabled_[e.slot] >> id & 1u) == 0;
}

Status World::track_changes(std::uint32_t id) noexcept {
  if (lanes_) return lane_refused("trackChanges");
  if (call().guard != nullptr) return guard_nested();
  if (id >= component_count_) return {ErrorCode::NotRegistered, "trackChanges: unknown component id"};
  if (track_of_[id] != kUntracked) return Status::Ok();
  if (tracked_count_ >= config_.max_tracked_components)
    return {ErrorCode::CapacityExceeded, "trackChanges: WorldConfig::max_tracked_components reached"};
  // Tracked indices follow component id order, so the hashed/saved layout does not depend on
  // the order trackChanges calls were made in.
  std::uint32_t at = 0;
  while (at < tracked_count_ && tracked_ids_[at] < id) ++at;
  const std::uint32_t stride = config_.max_tracked_components;
  materialize_changed_ticks();
  for (std::uint32_t s = 0; s < slot_count_; ++s) {
    for (std::uint64_t* row : {added_ticks_.get() + std::size_t{s} * stride, changed_ticks_.get() + std::size_t{s} * stride}) {
      for (std::uint32_t t = tracked_count_; t > at; --t) row[t] = row[t - 1];
      row[at] = tick_;
    }
  }
  for (std::uint32_t t = tracked_count_; t > at; --t) tracked_ids_[t] = tracked_ids_[t - 1];
  tracked_ids_[at] = static_cast<std::uint8_t>(id);
  ++tracked_count_;
  for (std::uint32_t t = 0; t < tracked_count_; ++t) track_of_[tracked_ids_[t]] = static_cast<std::uint8_t>(t);
  rebuild_changed_summary();
  layout_epoch_ = detail::next_layout_epoch();  // queries with added/changed terms re-resolve
  return Status::Ok();
}

bool World::change_ticks(Entity e, std::uint32_t id, std::uint64_t& added, std::uint64_t& changed) const noexcept {
  if (!valid(e) || id >= component_count_ || track_of_[id] == kUntracked) return false;
  if (!archetypes_[entity_archetype_[e.slot]].mask.contains(id)) return false;
  added = added_ticks_[tick_index(e.slot, track_of_[id])];
  changed = tick_table().changed(e.slot, track_of_[id]);
  return true;
}

void World::materialize_changed_ticks() noexcept {
  if (changed_summary_ == nullptr) return;
  const detail::ChangeTicks c = tick_table();
  for (std::uint32_t t = 0; t < config_.max_tracked_components; ++t) {
    for (std::uint32_t b = 0; b < tick_blocks_; ++b) {
      const std::size_t i = std::size_t{t} * tick_blocks_ + b;
      detail::write_masked_ticks(c, c.ticks, t, b, ~0u);
      c.mask[i] = 0;
      c.second[i] = c.max[i];
    }
  }
}

void World::rebuild_changed_summary() noexcept {
  if (changed_summary_ == nullptr) return;
  const detail::ChangeTicks c = tick_table();
  for (std::uint32_t t = 0; t < config_.max_tracked_components; ++t) c.rebuild(t, slot_count_);
}

}  // namespace lockstep
