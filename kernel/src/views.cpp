// Views with deltas (view.h, docs/query.md "Views"): registration, the per-tick update from
// the change journal, access-checked reads, and the snapshot form of the view state.
//
// Why the results are exact whatever the journal holds: an update compares, for each
// candidate slot, the view's stored state at the previous update (member handle + watched
// record) with the world's state now. Any slot whose state may differ is a candidate (the
// journal is a superset: every structural change, watched write, enable-bit change and
// column-wide Write hand-out lands there), and a slot that is not a candidate has, by that
// superset property, the same state as at the previous update. So the lists are a function
// of (state at the previous update, state now) alone — the property the model test checks
// against a from-scratch recomputation, and the one that makes a restored snapshot (stored
// state + journal) continue exactly.
#include "access_check.h"
#include "view_registry.h"

#include <lockstep/query/view.h>
#include <lockstep/store/world.h>

#include <algorithm>
#include <cstring>

namespace lockstep {

using detail::Archetype;
using detail::IdSet256;
using detail::kNoColumn;
using detail::ViewRegistry;
using detail::ViewState;

namespace detail {

namespace {

void refresh_matches(const World& w, ViewState& v) noexcept {
  if (v.cache.epoch != QueryAccess::epoch(w)) {
    const std::uint64_t tests = v.cache.tests;
    v.cache = MatchCache{};
    v.cache.tests = tests;
    v.cache.epoch = QueryAccess::epoch(w);
  }
  if (v.cache.seen != QueryAccess::archetype_count(w)) extend_matches(w, v.spec, v.cache);
}

// Byte writer/reader of the snapshot form (host order). A snapshot file's view section is
// these bytes in little-endian order (view_state.cpp converts and checks them).
struct Out {
  std::byte* p;
  std::size_t n = 0;
  void put(const void* src, std::size_t bytes) noexcept {
    if (bytes != 0) std::memcpy(p + n, src, bytes);
    n += bytes;
  }
  template <class T>
  void put(const T& v) noexcept {
    put(&v, sizeof v);
  }
};
struct In {
  const std::byte* p;
  std::size_t size;
  std::size_t n = 0;
  bool ok = true;
  const std::byte* take(std::size_t bytes) noexcept {
    if (!ok || bytes > size - n) {
      ok = false;
      return nullptr;
    }
    const std::byte* at = p + n;
    n += bytes;
    return at;
  }
  template <class T>
  T get() noexcept {
    T v{};
    if (const std::byte* at = take(sizeof v)) std::memcpy(&v, at, sizeof v);
    return v;
  }
};

struct ViewHeader {
  std::uint32_t stride, watched_count, members, high, n_added, n_removed, n_modified, fresh;
  std::uint64_t tick, updates;
};

}  // namespace

std::uint32_t ViewAccess::evaluate(const World& w, const ViewState& v, std::uint32_t slot, std::byte* rec) noexcept {
  if (slot >= w.slot_count_ || w.alive_[slot] == 0 || v.spec.never) return 0;
  const std::uint32_t arch = w.entity_archetype_[slot];
  const std::uint64_t word = w.disabled_[slot];
  if (!v.cache.matched.contains(arch) || (word & v.spec.need_enabled) != 0 ||
      (word & v.spec.need_disabled) != v.spec.need_disabled)
    return 0;
  const Archetype& a = w.archetypes_[arch];
  const std::size_t row = w.rows_[slot];  // the physical row: point reads need no settled order
  if (v.has_predicate) {
    std::uint32_t bits = 0;
    for (std::uint32_t k = 0; k < v.predicate.atomCount(); ++k) {
      const std::uint8_t c = a.column_of[v.binding.component[k]];
      if (c != kNoColumn && atom_holds(v.predicate.atomAt(k), a.column_ptr[c] + row * a.column_size[c], false))
        bits |= std::uint32_t{1} << k;
    }
    if (!v.predicate.evaluate(bits)) return 0;
  }
  for (std::uint32_t k = 0; k < v.watched_count; ++k) {
    const std::uint32_t id = v.watched[k];
    const std::uint32_t size = v.watched_size[k];
    const std::uint8_t c = a.column_of[id];
    if (c == kNoColumn) {
      rec[0] = std::byte{0};
      std::memset(rec + 1, 0, size);
    } else {
      const bool off = id < WorldConfig::kEnableBitComponents && ((word >> id) & 1u) != 0;
      rec[0] = std::byte{static_cast<unsigned char>(off ? 2 : 1)};
      std::memcpy(rec + 1, a.column_ptr[c] + row * size, size);
    }
    rec += 1 + size;
  }
  return w.generations_[slot];
}

Status ViewAccess::check(const World& w) noexcept {
  const ViewRegistry& reg = *w.views_;
  const ViewJournal& j = reg.journal;
  if (j.rescan) return Status::Ok();
  for (std::uint32_t i = 0; i < reg.count; ++i) {
    const ViewState& v = *reg.views[i];
    if (v.fresh) continue;
    // Only journalled (created or moved) slots can live in an archetype created since the
    // last update; the match cache is brought up to date lazily for the others.
    std::uint32_t members = 0;
    const std::uint32_t end = std::max(w.slot_count_, v.high);
    for (std::uint32_t slot = 0; slot < end; ++slot) {
      members += v.member[slot] != 0 ? 1 : 0;
      if (j.dirty[slot] != 0) continue;
      if (slot < w.slot_count_ && w.alive_[slot] != 0 && w.archetypes_[w.entity_archetype_[slot]].mask.intersects(j.columns))
        continue;  // a column-wide hand-out: the update compares these rows
      if (v.cache.epoch != QueryAccess::epoch(w) || v.cache.seen != w.archetype_count_) {
        ViewState& mut = const_cast<ViewState&>(v);  // match cache only: not view state
        refresh_matches(w, mut);
      }
      const std::uint32_t gen = evaluate(w, v, slot, v.record.get());
      if (gen != v.member[slot])
        return {ErrorCode::Internal, "view: a membership change escaped the change journal"};
      if (gen != 0 && v.stride != 0 && std::memcmp(v.record.get(), v.shadow.get() + std::size_t{slot} * v.stride, v.stride) != 0)
        return {ErrorCode::Internal, "view: a watched value changed without a journal entry"};
    }
    if (members != v.members) return {ErrorCode::Internal, "view: member count is off"};
  }
  return Status::Ok();
}

Status ViewAccess::update(World& w) noexcept {
  ViewRegistry& reg = *w.views_;
  ViewJournal& j = reg.journal;
  const std::uint32_t slot_count = w.slot_count_;
  const Archetype* archetypes = w.archetypes_.get();
  for (std::uint32_t i = 0; i < reg.count; ++i) refresh_matches(w, *reg.views[i]);

  // Column-wide Write hand-outs: every row of an archetype some view matches and watches
  // the column of becomes a candidate (the kernel cannot know which rows were written).
  if (!j.rescan && !j.columns.empty()) {
    for (std::uint32_t a = 0; a < w.archetype_count_; ++a) {
      const Archetype& arch = archetypes[a];
      if (!arch.mask.intersects(j.columns)) continue;
      bool relevant = false;
      for (std::uint32_t i = 0; i < reg.count && !relevant; ++i) {
        const ViewState& v = *reg.views[i];
        IdSet256 hit = arch.mask;
        for (int k = 0; k < 4; ++k) hit.words[k] &= j.columns.words[k] & v.named.words[k];
        relevant = !hit.empty() && v.cache.matched.contains(a);
      }
      if (!relevant) continue;
      for (std::uint32_t r = 0; r < arch.rows; ++r) {
        const std::uint32_t slot = arch.slots_ptr[r];
        if (slot < slot_count) j.touch(slot);  // skips holes of unsettled archetypes
      }
    }
  }

  // Candidates in ascending slot order: sort the journal, or sweep the flags when most
  // slots are dirty anyway.
  const bool sweep = j.rescan || std::uint64_t{j.count} * 16u > slot_count;
  if (!sweep) std::sort(j.list.get(), j.list.get() + j.count);

  const std::uint32_t n = reg.slots;
  for (std::uint32_t i = 0; i < reg.count; ++i) {
    ViewState& v = *reg.views[i];
    Entity* added = v.lists.get();
    Entity* removed = added + n;
    Entity* modified = removed + n;
    std::uint32_t na = 0, nr = 0, nm = 0;
    auto visit = [&](std::uint32_t slot) noexcept {
      const std::uint32_t old = v.member[slot];
      const std::uint32_t gen = evaluate(w, v, slot, v.record.get());
      if (old == 0 && gen == 0) return;
      if (gen == 0) {
        removed[nr++] = Entity{slot, old};
        v.member[slot] = 0;
        --v.members;
        return;
      }
      std::byte* shadow = v.shadow.get() + std::size_t{slot} * v.stride;
      if (old == gen) {
        if (v.stride != 0 && std::memcmp(shadow, v.record.get(), v.stride) != 0) {
          modified[nm++] = Entity{slot, gen};
          std::memcpy(shadow, v.record.get(), v.stride);
        }
        return;
      }
      if (old != 0) removed[nr++] = Entity{slot, old};
      else ++v.members;
      added[na++] = Entity{slot, gen};
      if (v.stride != 0) std::memcpy(shadow, v.record.get(), v.stride);
      v.member[slot] = gen;
      if (slot >= v.high) v.high = slot + 1;
    };
    if (v.fresh || j.rescan) {
      const std::uint32_t end = std::max(slot_count, v.high);
      for (std::uint32_t slot = 0; slot < end; ++slot) visit(slot);
    } else if (sweep) {
      const std::uint32_t end = std::max(slot_count, v.high);
      for (std::uint32_t slot = 0; slot < end; ++slot)
        if (j.dirty[slot] != 0) visit(slot);
    } else {
      for (std::uint32_t k = 0; k < j.count; ++k) visit(j.list[k]);
    }
    v.n_added = na;
    v.n_removed = nr;
    v.n_modified = nm;
    v.fresh = false;
    v.tick = w.tick_;
    ++v.updates;
  }
  for (std::uint32_t k = 0; k < j.count; ++k) j.dirty[j.list[k]] = 0;
  j.count = 0;
  j.columns = IdSet256{};
  j.rescan = false;
  return Status::Ok();
}

std::size_t ViewAccess::save_capacity(const World& w) noexcept {
  return w.views_ == nullptr ? 0 : save_capacity(*w.views_);
}

std::size_t ViewAccess::save_capacity(const ViewRegistry& reg) noexcept {
  std::size_t bytes = 4 + 4 + 4 + sizeof(IdSet256) + std::size_t{reg.slots} * 4u;
  for (std::uint32_t i = 0; i < reg.count; ++i)
    bytes += sizeof(ViewHeader) + std::size_t{reg.views[i]->watched_count} * 4u +
             std::size_t{reg.slots} * (4u + reg.views[i]->stride + 3u * sizeof(Entity));
  return bytes;
}

std::size_t ViewAccess::save(const World& w, std::byte* out) noexcept { return save(*w.views_, out); }

// The watched ids follow each header so that the saved bytes describe their own records:
// a snapshot file's view section (view_state.cpp) is these bytes in little-endian order.
std::size_t ViewAccess::save(const ViewRegistry& reg, std::byte* out) noexcept {
  const ViewJournal& j = reg.journal;
  Out o{out};
  o.put(reg.count);
  o.put(std::uint32_t{j.rescan ? 1u : 0u});
  o.put(j.count);
  o.put(j.columns);
  o.put(j.list.get(), std::size_t{j.count} * 4u);
  for (std::uint32_t i = 0; i < reg.count; ++i) {
    const ViewState& v = *reg.views[i];
    const ViewHeader h{v.stride,    v.watched_count, v.members, v.high,   v.n_added,
                       v.n_removed, v.n_modified,    v.fresh ? 1u : 0u, v.tick, v.updates};
    o.put(h);
    o.put(v.watched, std::size_t{v.watched_count} * 4u);
    o.put(v.member.get(), std::size_t{v.high} * 4u);
    o.put(v.shadow.get(), std::size_t{v.high} * v.stride);
    const Entity* lists = v.lists.get();
    o.put(lists, std::size_t{v.n_added} * sizeof(Entity));
    o.put(lists + reg.slots, std::size_t{v.n_removed} * sizeof(Entity));
    o.put(lists + 2u * std::size_t{reg.slots}, std::size_t{v.n_modified} * sizeof(Entity));
  }
  return o.n;
}

Status ViewAccess::check_load(const World& w, const std::byte* data, std::size_t size) noexcept {
  const std::uint32_t count = w.views_ == nullptr ? 0 : w.views_->count;
  if (data == nullptr) return Status::Ok();  // a snapshot without view state: views reset
  const Status mismatch{ErrorCode::Mismatch, "load: the snapshot's views differ from the world's"};
  In in{data, size};
  if (in.get<std::uint32_t>() != count || !in.ok) return mismatch;
  const std::uint32_t slots = count == 0 ? 0 : w.views_->slots;
  (void)in.get<std::uint32_t>();
  const std::uint32_t jcount = in.get<std::uint32_t>();
  if (!in.ok || jcount > slots) return mismatch;
  (void)in.take(sizeof(IdSet256) + std::size_t{jcount} * 4u);
  for (std::uint32_t i = 0; i < count && in.ok; ++i) {
    const ViewState& v = *w.views_->views[i];
    const auto h = in.get<ViewHeader>();
    if (!in.ok || h.stride != v.stride || h.watched_count != v.watched_count || h.high > slots ||
        h.n_added > slots || h.n_removed > slots || h.n_modified > slots)
      return mismatch;
    const std::byte* ids = in.take(std::size_t{h.watched_count} * 4u);
    if (ids == nullptr || (h.watched_count != 0 && std::memcmp(ids, v.watched, std::size_t{h.watched_count} * 4u) != 0))
      return mismatch;
    (void)in.take(std::size_t{h.high} * (4u + h.stride) +
                  (std::size_t{h.n_added} + h.n_removed + h.n_modified) * sizeof(Entity));
  }
  return in.ok && in.n == size ? Status::Ok() : mismatch;
}

void ViewAccess::load(World& w, const std::byte* data, std::size_t size) noexcept {
  if (w.views_ == nullptr) return;
  ViewRegistry& reg = *w.views_;
  ViewJournal& j = reg.journal;
  for (std::uint32_t k = 0; k < j.count; ++k) j.dirty[j.list[k]] = 0;
  j.count = 0;
  j.columns = IdSet256{};
  j.rescan = false;
  if (data == nullptr) {  // reset: the next update reports every member as Added
    for (std::uint32_t i = 0; i < reg.count; ++i) {
      ViewState& v = *reg.views[i];
      std::fill_n(v.member.get(), v.high, 0u);
      v.high = v.members = v.n_added = v.n_removed = v.n_modified = 0;
      v.fresh = true;
    }
    return;
  }
  In in{data, size};
  (void)in.get<std::uint32_t>();
  j.rescan = in.get<std::uint32_t>() != 0;
  const std::uint32_t jcount = in.get<std::uint32_t>();
  j.columns = in.get<IdSet256>();
  std::memcpy(j.list.get(), in.take(std::size_t{jcount} * 4u), std::size_t{jcount} * 4u);
  j.count = jcount;
  for (std::uint32_t k = 0; k < j.count; ++k) j.dirty[j.list[k]] = 1;
  for (std::uint32_t i = 0; i < reg.count; ++i) {
    ViewState& v = *reg.views[i];
    const auto h = in.get<ViewHeader>();
    (void)in.take(std::size_t{h.watched_count} * 4u);
    if (v.high > h.high) std::fill_n(v.member.get() + h.high, v.high - h.high, 0u);
    v.members = h.members;
    v.high = h.high;
    v.n_added = h.n_added;
    v.n_removed = h.n_removed;
    v.n_modified = h.n_modified;
    v.fresh = h.fresh != 0;
    v.tick = h.tick;
    v.updates = h.updates;
    auto copy = [&](void* to, std::size_t bytes) noexcept {
      if (bytes != 0) std::memcpy(to, in.take(bytes), bytes);
    };
    copy(v.member.get(), std::size_t{h.high} * 4u);
    copy(v.shadow.get(), std::size_t{h.high} * v.stride);
    Entity* lists = v.lists.get();
    copy(lists, std::size_t{h.n_added} * sizeof(Entity));
    copy(lists + reg.slots, std::size_t{h.n_removed} * sizeof(Entity));
    copy(lists + 2u * std::size_t{reg.slots}, std::size_t{h.n_modified} * sizeof(Entity));
  }
}

Status register_view(World& w, const QuerySpec& spec, const Predicate* p, ViewId& out) noexcept {
  out = ViewId{};
  if (QueryAccess::guard(w) != nullptr) return QueryAccess::nested(w);
  for (std::uint32_t k = 0; k < spec.row_count; ++k)
    if (spec.row[k].kind == RowTermKind::Added || spec.row[k].kind == RowTermKind::Changed)
      return {ErrorCode::InvalidArgument,
              "registerView: added<T>/changed<T> terms are relative to a query's `since` tick; a view reports "
              "changes itself (Modified)"};
  return ViewAccess::add(w, spec, p, out);
}

Status ViewAccess::add(World& w, const QuerySpec& spec, const Predicate* p, ViewId& out) noexcept {
  if (w.lanes_) return w.lane_refused("registerView");
  if (w.views_ != nullptr && w.views_->count >= kMaxViews)
    return {ErrorCode::CapacityExceeded, "registerView: at most kMaxViews (16) views per world"};
  auto v = std::make_unique<ViewState>();
  v->spec = spec;
  if (p != nullptr && !p->isAlways()) {
    if (Status s = p->status(); !s.ok()) return s;
    v->predicate = *p;
    v->has_predicate = true;
    (void)bind(*p, w, v->binding);
    for (std::uint32_t k = 0; k < p->atomCount(); ++k) {
      if (v->binding.component[k] == PredicateBinding::kUnbound)
        return {ErrorCode::NotRegistered, "registerView: the predicate reads a component the world has not registered"};
      v->named.insert(v->binding.component[k]);
    }
  }
  for (std::uint32_t k = 0; k < spec.fetch_count; ++k)
    if (!spec.fetch[k].missing) v->named.insert(spec.fetch[k].id);
  for (std::uint32_t id = 0; id < w.component_count_; ++id) {
    if (!v->named.contains(id)) continue;
    v->watched[v->watched_count] = id;
    v->watched_size[v->watched_count++] = w.components_[id].size;
    v->stride += 1 + w.components_[id].size;
  }
  if (w.views_ == nullptr) {
    w.views_ = std::make_unique<ViewRegistry>(w.config_.max_entities);
    w.view_journal_ = &w.views_->journal;
  }
  ViewRegistry& reg = *w.views_;
  const std::size_t n = reg.slots;
  v->member.reset(new std::uint32_t[n]());
  v->shadow.reset(new std::byte[v->stride == 0 ? 1 : n * v->stride]());
  v->lists.reset(new Entity[3 * n]);
  v->record.reset(new std::byte[v->stride == 0 ? 1 : v->stride]());
  refresh_matches(w, *v);
  reg.journal.watched.unite(v->named);
  out.index = reg.count;
  reg.views[reg.count++] = std::move(v);
  return Status::Ok();
}

Status view_begin(const World& w, ViewId id, ViewDeltas& out, IterationGuard* guard) noexcept {
  out = ViewDeltas{};
  const ViewRegistry* reg = ViewAccess::registry(w);
  if (reg == nullptr || !id.valid() || id.index >= reg->count)
    return {ErrorCode::InvalidArgument, "view: unknown view id"};
  ViewState& v = *reg->views[id.index];
  if (w.access() != nullptr) {
    for (std::uint32_t k = 0; k < v.watched_count; ++k)
      if (!w.access()->allows(AccessKind::ReadComponent, v.watched[k]))
        return AccessCheck::violation(w, AccessKind::ReadComponent, v.watched[k], Entity::null());
  }
  const Entity* lists = v.lists.get();
  out.added = {lists, v.n_added};
  out.removed = {lists + reg->slots, v.n_removed};
  out.modified = {lists + 2u * std::size_t{reg->slots}, v.n_modified};
  out.members = v.members;
  out.tick = v.tick;
  out.updates = v.updates;
  if (guard != nullptr) {
    refresh_matches(w, v);
    guard->matched_archetypes = v.cache.matched;
    guard->read_components = v.named;
    guard->listed_components = v.named;
  }
  return Status::Ok();
}

}  // namespace detail

Status World::updateViews() noexcept {
  if (lanes_) return lane_refused("updateViews");
  if (views_ == nullptr) return Status::Ok();
  if (call().guard != nullptr) return guard_nested();
  return detail::ViewAccess::update(*this);
}

bool viewContains(const World& w, ViewId id, Entity e) noexcept {
  const detail::ViewRegistry* reg = detail::ViewAccess::registry(w);
  if (reg == nullptr || !id.valid() || id.index >= reg->count || e.slot >= reg->slots) return false;
  return e.generation != 0 && reg->views[id.index]->member[e.slot] == e.generation;
}

std::uint32_t viewCount(const World& w) noexcept {
  const detail::ViewRegistry* reg = detail::ViewAccess::registry(w);
  return reg == nullptr ? 0 : reg->count;
}

}  // namespace lockstep
