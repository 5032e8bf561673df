// Observers (observers.h, docs/observers.md): registration, dispatch, the direct-call
// notifications and the flush hooks.
#include "observer_registry.h"
#include "world_scratch.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/store/world.h>

#include <algorithm>
#include <utility>

namespace lockstep {

using detail::IdSet256;
using detail::ObserverRegistry;
using Scratch = World::FlushScratch;

const char* to_string(ObserverEvent event) noexcept {
  switch (event) {
    case ObserverEvent::OnAdd: return "on_add";
    case ObserverEvent::OnRemove: return "on_remove";
    case ObserverEvent::OnSet: return "on_set";
  }
  return "unknown";
}

Status World::observe_id(ObserverEvent event, std::uint32_t id, ObserverFn fn, const AccessSet& access) noexcept {
  if (lanes_) return lane_refused("observe");
  if (call().guard != nullptr) return guard_nested();
  if (id >= component_count_) return {ErrorCode::NotRegistered, "observe: unknown component id"};
  if (fn == nullptr) return {ErrorCode::InvalidArgument, "observe: null observer function"};
  if (static_cast<std::uint32_t>(event) > 2) return {ErrorCode::InvalidArgument, "observe: unknown event"};
  if (observers_ == nullptr) observers_ = std::make_unique<ObserverRegistry>(config_);  // setup time
  ObserverRegistry& r = *observers_;
  if (r.count >= kMaxObservers) return {ErrorCode::CapacityExceeded, "observe: more than kMaxObservers observers"};
  r.entries[r.count++] = ObserverRegistry::Entry{fn, access, id, event};
  r.observed[static_cast<std::uint32_t>(event)].insert(id);
  return Status::Ok();
}

std::uint32_t World::observerCount() const noexcept { return observers_ == nullptr ? 0 : observers_->count; }

// Runs the observers of (event, id) on e in registration order, each with its access
// installed, under a guard that refuses direct structural changes, iteration and flush.
void World::dispatch(ObserverEvent event, std::uint32_t id, Entity e) noexcept {
  ObserverRegistry& r = *observers_;
  detail::IterationGuard guard;
  detail::freeze_structure(guard);
  if (call().guard != nullptr) guard.read_components = call().guard->read_components;  // a live query's Read set still holds
  detail::IterationGuard* const previous = call().guard;
  call().guard = &guard;
  ++r.depth;
  for (std::uint32_t i = 0; i < r.count; ++i) {
    const ObserverRegistry::Entry& entry = r.entries[i];
    if (entry.event != event || entry.component != id) continue;
    AccessScope scope(*this, &entry.access);
    entry.fn(*this, e);
  }
  --r.depth;
  call().guard = previous;
}

// ---- direct calls --------------------------------------------------------------------------

Status World::notify_set(Entity e, std::uint32_t id, bool added) noexcept {
  if (observers_ == nullptr) return Status::Ok();
  ObserverRegistry& r = *observers_;
  const bool on_add = added && r.observed[static_cast<int>(ObserverEvent::OnAdd)].contains(id);
  const bool on_set = r.observed[static_cast<int>(ObserverEvent::OnSet)].contains(id);
  if (!on_add && !on_set) return Status::Ok();
  if (r.depth >= kMaxObserverDepth)
    return {ErrorCode::CapacityExceeded, "addComponent: observers nested deeper than kMaxObserverDepth (value set, "
                                         "observers not called)"};
  if (on_add) dispatch(ObserverEvent::OnAdd, id, e);
  if (on_set) dispatch(ObserverEvent::OnSet, id, e);
  return Status::Ok();
}

Status World::notify_removing(Entity e, std::uint32_t id, const IdSet256& target) noexcept {
  if (observers_ == nullptr || !observers_->observed[static_cast<int>(ObserverEvent::OnRemove)].contains(id))
    return Status::Ok();
  // Fire only when structural_change will go through; its refusals report themselves.
  const std::uint32_t source = entity_archetype_[e.slot];
  const std::int32_t found = find_archetype(target);
  if (call().guard != nullptr && (call().guard->matched_archetypes.contains(source) ||
                            (found >= 0 && call().guard->matched_archetypes.contains(static_cast<std::uint32_t>(found)))))
    return Status::Ok();
  if (found < 0 && archetype_count_ >= config_.max_archetypes) return Status::Ok();
  if (observers_->depth >= kMaxObserverDepth)
    return {ErrorCode::CapacityExceeded, "removeComponent: observers nested deeper than kMaxObserverDepth"};
  dispatch(ObserverEvent::OnRemove, id, e);
  return Status::Ok();
}

void World::notify_destroying(Entity e) noexcept {
  if (observers_ == nullptr) return;
  const IdSet256& observed = observers_->observed[static_cast<int>(ObserverEvent::OnRemove)];
  const IdSet256 mask = archetypes_[entity_archetype_[e.slot]].mask;
  for (std::uint32_t id = 0; id < component_count_; ++id)
    if (mask.contains(id) && observed.contains(id)) dispatch(ObserverEvent::OnRemove, id, e);
}

void World::notify_clearing() noexcept {
  if (observers_ == nullptr) return;
  const IdSet256& observed = observers_->observed[static_cast<int>(ObserverEvent::OnRemove)];
  for (std::uint32_t id = 0; id < component_count_; ++id) {
    if (!observed.contains(id)) continue;
    for (std::uint32_t slot = 0; slot < slot_count_; ++slot)
      if (alive_[slot] != 0 && archetypes_[entity_archetype_[slot]].mask.contains(id))
        dispatch(ObserverEvent::OnRemove, id, Entity{slot, generations_[slot]});
  }
}

// ---- flush hooks ---------------------------------------------------------------------------
// The staged entries of the flush (world_scratch.h) give each touched entity's state before
// (source archetype, initially_alive) and after (mask, alive, recreated) and its final
// incarnation's commands: enough for the net effect without looking at the columns.

void World::observers_before_apply(const CommandBuffer&, std::uint32_t staged_count) noexcept {
  if (observers_ == nullptr) return;
  ObserverRegistry& r = *observers_;
  const Scratch& s = *scratch_;
  for (std::uint32_t k = 0; k < staged_count; ++k) r.order[k] = k;
  std::sort(r.order.get(), r.order.get() + staged_count,
            [&](std::uint32_t x, std::uint32_t y) { return s.staged[x].slot < s.staged[y].slot; });
  r.ordered = staged_count;
  const IdSet256& observed = r.observed[static_cast<int>(ObserverEvent::OnRemove)];
  if (observed.empty() || staged_count == 0) return;
  std::swap(commands_, r.buffers[r.pending]);  // observers record into the pending round
  for (std::uint32_t id = 0; id < component_count_; ++id) {
    if (!observed.contains(id)) continue;
    for (std::uint32_t k = 0; k < staged_count; ++k) {
      const Scratch::Staged& g = s.staged[r.order[k]];
      if (!g.initially_alive || !archetypes_[g.source].mask.contains(id)) continue;
      if (g.alive && !g.recreated && g.mask.contains(id)) continue;  // still there afterwards
      dispatch(ObserverEvent::OnRemove, id, Entity{g.slot, generations_[g.slot]});
    }
  }
  std::swap(commands_, r.buffers[r.pending]);
}

void World::observers_after_apply(const CommandBuffer& buffer, std::uint32_t staged_count) noexcept {
  if (observers_ == nullptr || staged_count == 0) return;
  ObserverRegistry& r = *observers_;
  const Scratch& s = *scratch_;
  const IdSet256& on_add = r.observed[static_cast<int>(ObserverEvent::OnAdd)];
  const IdSet256& on_set = r.observed[static_cast<int>(ObserverEvent::OnSet)];
  if (on_add.empty() && on_set.empty()) return;
  auto assigned = [&](const Scratch::Staged& g, std::uint32_t id) noexcept {
    for (std::uint32_t cmd = g.first_command; cmd != Scratch::kNone; cmd = s.next_command[cmd]) {
      const CommandBuffer::Command& c = buffer.command(cmd);
      if (c.op == CommandBuffer::Op::Add && component_id_of(c.type_key) == static_cast<std::int32_t>(id)) return true;
    }
    return false;
  };
  std::swap(commands_, r.buffers[r.pending]);
  for (std::uint32_t id = 0; id < component_count_; ++id) {
    if (!on_add.contains(id)) continue;
    for (std::uint32_t k = 0; k < staged_count; ++k) {
      const Scratch::Staged& g = s.staged[r.order[k]];
      if (!g.alive || !g.mask.contains(id)) continue;
      if (g.initially_alive && !g.recreated && archetypes_[g.source].mask.contains(id)) continue;
      dispatch(ObserverEvent::OnAdd, id, Entity{g.slot, g.generation});
    }
  }
  for (std::uint32_t id = 0; id < component_count_; ++id) {
    if (!on_set.contains(id)) continue;
    for (std::uint32_t k = 0; k < staged_count; ++k) {
      const Scratch::Staged& g = s.staged[r.order[k]];
      if (g.alive && g.mask.contains(id) && assigned(g, id))
        dispatch(ObserverEvent::OnSet, id, Entity{g.slot, g.generation});
    }
  }
  std::swap(commands_, r.buffers[r.pending]);
}

// Follow-up rounds: applies what observers recorded during the flush, alternating the two
// round buffers, until a round records nothing (or kMaxObserverRounds).
Status World::observers_finish(Status first_error) noexcept {
  if (observers_ == nullptr || observers_->cascading) return first_error;
  ObserverRegistry& r = *observers_;
  r.cascading = true;
  for (std::uint32_t round = 0; !r.buffers[r.pending]->empty(); ++round) {
    if (round >= kMaxObserverRounds) {
      if (first_error.ok())
        first_error = {ErrorCode::CapacityExceeded,
                       "flush: observers kept recording commands for more than kMaxObserverRounds rounds"};
      r.buffers[r.pending]->clear();
      break;
    }
    const std::uint32_t p = r.pending;
    r.pending = 1 - p;
    const Status st = flush(*r.buffers[p]);
    if (!st.ok() && first_error.ok()) first_error = st;
    r.buffers[p]->clear();
  }
  r.cascading = false;
  return first_error;
}

}  // namespace lockstep
