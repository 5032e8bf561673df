// World::flush: applies a command buffer as if each command had been called on the world in
// recording order, in O(k log k) for k commands: rows are removed and appended in O(1) each
// and the slot order of touched archetypes is restored lazily (world_rows.cpp).
//
// Phases: plan (simulate every command on a staged copy of the touched entities, checking
// every capacity), then apply (create planned archetypes, compose arriving rows, remove
// leavers, append arrivals, commit the entity table and the free list, write in-place values). A capacity failure is detected during the plan, so nothing
// is applied. Invalid handles skip their command, as the direct call would.
#include "copy_value.h"
#include "world_scratch.h"

#include <lockstep/store/world.h>

#include "world_inline.h"

#include <algorithm>
#include <cstring>

namespace lockstep {

using detail::Archetype;
using detail::IdSet256;
using detail::kNoArchetype;
using detail::kNoColumn;
using Op = CommandBuffer::Op;
using Scratch = World::FlushScratch;

namespace {

std::uint32_t bump(std::uint32_t generation) noexcept {
  return generation >= Entity::kMaxGeneration ? 1 : generation + 1;
}

// Rewrites pending handles inside Entity fields of a recorded value.
void patch_pending(std::byte* value, const TypeDescriptor& type, const Scratch& s) noexcept {
  for (std::uint32_t f = 0; f < type.field_count; ++f) {
    const FieldDescriptor& field = type.fields[f];
    if (field.kind != FieldKind::Entity) continue;
    for (std::uint32_t k = 0; k + 1 < field.count; k += 2) {
      std::byte* at = value + field.offset + k * 4u;
      Entity e;
      std::memcpy(&e, at, sizeof e);
      if (!e.is_pending()) continue;
      const std::uint32_t staged = s.pending_stage[e.slot];
      if (staged == Scratch::kNone) continue;
      const Entity real{s.staged[staged].slot, s.pending_generation[e.slot]};
      std::memcpy(at, &real, sizeof real);
    }
  }
}

// s.order = the staged indices [0, count) in ascending slot order: an LSD radix sort, 11 bits
// of the slot per pass, over preallocated scratch (slots are distinct, so the order is total).
void sort_by_slot(Scratch& s, std::uint32_t count) noexcept {
  std::uint64_t* keys = s.sort_keys.get();
  std::uint64_t* tmp = s.sort_tmp.get();
  std::uint32_t top = 0;
  for (std::uint32_t st = 0; st < count; ++st) {
    const std::uint32_t slot = s.staged[st].slot;
    keys[st] = std::uint64_t{slot} << 32 | st;
    top |= slot;
  }
  constexpr std::uint32_t kBits = 11;
  std::uint32_t counts[1u << kBits];
  for (std::uint32_t shift = 32; shift < 64 && (top >> (shift - 32)) != 0; shift += kBits) {
    for (std::uint32_t& c : counts) c = 0;
    for (std::uint32_t i = 0; i < count; ++i) ++counts[(keys[i] >> shift) & ((1u << kBits) - 1)];
    std::uint32_t sum = 0;
    for (std::uint32_t& c : counts) {
      const std::uint32_t here = c;
      c = sum;
      sum += here;
    }
    for (std::uint32_t i = 0; i < count; ++i) tmp[counts[(keys[i] >> shift) & ((1u << kBits) - 1)]++] = keys[i];
    std::swap(keys, tmp);
  }
  for (std::uint32_t i = 0; i < count; ++i) s.order[i] = static_cast<std::uint32_t>(keys[i]);
}

// The same order when the staged slots are dense in [lo, hi]: one sequential scan of the
// slot -> entry map, which holds an entry exactly for the staged slots. A flush that touches
// most entities (every unit's buff expires) then costs no radix pass, whose scattered bucket
// writes were ~15 % of such a flush.
void scan_by_slot(Scratch& s, std::uint32_t lo, std::uint32_t hi) noexcept {
  std::uint32_t n = 0;
  for (std::uint32_t slot = lo; slot <= hi; ++slot) {
    const std::uint32_t st = s.stage_of_slot[slot];
    if (st != Scratch::kNone) s.order[n++] = st;
  }
}

}  // namespace

Status World::flush(CommandBuffer& buffer) noexcept {
  if (lanes_) return lane_refused("flush");
  if (call().guard != nullptr) return guard_nested();
  Scratch& s = *scratch_;
  const std::uint32_t n = buffer.size();
  if (n > config_.command_capacity)
    return {ErrorCode::CapacityExceeded, "flush: buffer larger than WorldConfig::command_capacity"};
  // Incremental hashing: a flush may touch rows of any archetype (conservative).
  if (n != 0)
    for (std::uint32_t c = 0; c < component_count_; ++c) marks_.component_written(c);

  // ---------------- plan ----------------
  std::uint32_t staged_count = 0;
  std::uint32_t planned_archetypes = archetype_count_;
  std::uint32_t free_taken = 0;       // entries consumed from the world's free list
  std::uint32_t freed_count = 0;      // slots freed by this flush
  std::uint32_t freed_taken = 0;      // ... of which consumed again by creates
  std::uint32_t slot_count = slot_count_;
  std::uint32_t live = live_count_;
  std::uint64_t used = used_row_bytes_;
  std::uint64_t row_scratch = 0;
  Status first_error = Status::Ok();
  Status capacity = Status::Ok();

  auto reset_stages = [&]() noexcept {
    for (std::uint32_t i = 0; i < staged_count; ++i) s.stage_of_slot[s.staged[i].slot] = Scratch::kNone;
  };
  auto archetype_mask = [&](std::uint32_t id) noexcept -> const IdSet256& {
    return id < archetype_count_ ? archetypes_[id].mask : s.planned_masks[id];
  };
  auto find_or_plan = [&](const IdSet256& mask, std::uint32_t& out) noexcept -> Status {
    for (std::uint32_t a = 0; a < planned_archetypes; ++a)
      if (archetype_mask(a) == mask) {
        out = a;
        return Status::Ok();
      }
    if (planned_archetypes >= config_.max_archetypes)
      return {ErrorCode::CapacityExceeded, "flush: WorldConfig::max_archetypes reached"};
    std::uint32_t columns = 0;
    for (std::uint32_t id = 0; id < component_count_; ++id) columns += mask.contains(id) ? 1u : 0u;
    if (columns > detail::kMaxColumns)
      return {ErrorCode::CapacityExceeded, "flush: an archetype holds at most 32 components"};
    s.planned_masks[planned_archetypes] = mask;
    out = planned_archetypes++;
    return Status::Ok();
  };
  auto note_error = [&](Status st) noexcept {
    if (first_error.ok()) first_error = st;
  };
  // Resolves a handle to its staged entry, staging live world entities on first touch.
  auto resolve = [&](Entity e, std::uint32_t& out) noexcept -> bool {
    if (e.is_pending()) {
      if (e.slot >= buffer.pending_creates()) return false;
      const std::uint32_t st = s.pending_stage[e.slot];
      if (st == Scratch::kNone) return false;
      if (!s.staged[st].alive || s.staged[st].generation != s.pending_generation[e.slot]) return false;
      out = st;
      return true;
    }
    if (e.slot < slot_count && e.slot < config_.max_entities && s.stage_of_slot[e.slot] != Scratch::kNone) {
      const std::uint32_t st = s.stage_of_slot[e.slot];
      if (!s.staged[st].alive || s.staged[st].generation != e.generation) return false;
      out = st;
      return true;
    }
    if (!valid(e)) return false;
    const std::uint32_t st = staged_count++;
    Scratch::Staged& g = s.staged[st];
    const std::uint16_t arch = entity_archetype_[e.slot];
    g = Scratch::Staged{archetypes_[arch].mask, e.slot, e.generation, archetypes_[arch].row_bytes,
                        Scratch::kNone, Scratch::kNone, 0, arch, arch, true, true, false, false, false};
    s.stage_of_slot[e.slot] = st;
    out = st;
    return true;
  };
  auto note_add = [&](Scratch::Staged& g, std::uint32_t cid, std::uint32_t payload) noexcept {
    g.add_component = g.add_component == Scratch::kNoAdd ? static_cast<std::uint16_t>(cid) : Scratch::kManyAdds;
    g.add_payload = payload;
  };
  auto chain = [&](Scratch::Staged& g, std::uint32_t cmd) noexcept {
    s.next_command[cmd] = Scratch::kNone;
    if (g.last_command == Scratch::kNone) {
      g.first_command = cmd;
    } else {
      s.next_command[g.last_command] = cmd;
    }
    g.last_command = cmd;
  };

  for (std::uint32_t i = 0; i < buffer.pending_creates(); ++i) s.pending_stage[i] = Scratch::kNone;

  // The staged entity of an addComponents group whose archetype is planned at the group's end.
  std::uint32_t grouped = Scratch::kNone;
  auto end_group = [&]() noexcept {
    Scratch::Staged& g = s.staged[grouped];
    grouped = Scratch::kNone;
    if (used > config_.row_bytes) {
      capacity = {ErrorCode::CapacityExceeded, "flush: WorldConfig::row_bytes exhausted"};
      return;
    }
    std::uint32_t target = 0;
    if (Status fs = find_or_plan(g.mask, target); !fs.ok()) {
      capacity = fs;
      return;
    }
    g.archetype = static_cast<std::uint16_t>(target);
  };

  // Commands recorded in game order touch the per-slot tables in scattered order: start the
  // loads of the entity a few commands ahead so the misses overlap.
  constexpr std::uint32_t kAhead = 8;
  auto prefetch_command = [&](std::uint32_t i) noexcept {
    const Entity e = buffer.command(i).entity;
    if (e.is_pending() || e.slot >= slot_count_) return;
    prefetch_slot(e.slot);
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(s.stage_of_slot.get() + e.slot);
#endif
  };
  for (std::uint32_t i = 0; i < n && i < kAhead; ++i) prefetch_command(i);
  for (std::uint32_t i = 0; i < n && capacity.ok(); ++i) {
    if (i + kAhead < n) prefetch_command(i + kAhead);
    const CommandBuffer::Command& c = buffer.command(i);
    if (grouped != Scratch::kNone && i != 0 && buffer.command(i - 1).more == 0) end_group();
    if (!capacity.ok()) break;
    switch (c.op) {
      case Op::Create: {
        std::uint32_t slot;
        if (free_taken < free_count_) {
          slot = free_[free_head_ + free_taken++];
        } else if (freed_taken < freed_count) {
          slot = s.freed[freed_taken++];
        } else if (slot_count < config_.max_entities) {
          slot = slot_count++;
        } else {
          capacity = {ErrorCode::CapacityExceeded, "flush: WorldConfig::max_entities reached"};
          break;
        }
        if (used + archetypes_[0].row_bytes > config_.row_bytes) {
          capacity = {ErrorCode::CapacityExceeded, "flush: WorldConfig::row_bytes exhausted"};
          break;
        }
        used += archetypes_[0].row_bytes;
        ++live;
        std::uint32_t st = s.stage_of_slot[slot];
        if (st == Scratch::kNone) {
          st = staged_count++;
          const bool existed = slot < slot_count_;
          std::uint32_t gen = existed ? generations_[slot] : 0;
          if (gen == 0) gen = 1;
          s.staged[st] = Scratch::Staged{IdSet256{}, slot, gen, archetypes_[0].row_bytes, Scratch::kNone,
                                         Scratch::kNone, 0, kNoArchetype, 0, false, true, false, false, false};
          s.stage_of_slot[slot] = st;
        } else {
          Scratch::Staged& g = s.staged[st];
          g.recreated = g.initially_alive;
          g.alive = true;
          g.mask = IdSet256{};
          g.archetype = 0;
          g.row_bytes = archetypes_[0].row_bytes;
          g.first_command = g.last_command = Scratch::kNone;
          g.add_component = Scratch::kNoAdd;
        }
        chain(s.staged[st], i);
        s.pending_stage[c.entity.slot] = st;
        s.pending_generation[c.entity.slot] = s.staged[st].generation;
        break;
      }
      case Op::Destroy: {
        std::uint32_t st;
        if (!resolve(c.entity, st)) {
          note_error({ErrorCode::InvalidArgument, "flush: destroy of a null, stale or foreign handle"});
          break;
        }
        Scratch::Staged& g = s.staged[st];
        used -= g.row_bytes;
        --live;
        g.alive = false;
        g.generation = bump(g.generation);
        s.freed[freed_count++] = g.slot;
        chain(g, i);
        break;
      }
      case Op::Add:
      case Op::Remove: {
        std::uint32_t st;
        if (!resolve(c.entity, st)) {
          note_error({ErrorCode::InvalidArgument, "flush: command on a null, stale or foreign handle"});
          break;
        }
        const std::int32_t id = component_id_of(c.type_key);
        if (id < 0) {
          note_error({ErrorCode::NotRegistered, "flush: component type not registered"});
          break;
        }
        Scratch::Staged& g = s.staged[st];
        const std::uint32_t cid = static_cast<std::uint32_t>(id);
        const bool present = g.mask.contains(cid);
        if (c.op == Op::Remove && !present) {
          note_error({ErrorCode::NotFound, "flush: remove of a component the entity lacks"});
          break;
        }
        if (c.op == Op::Add && present) {
          chain(g, i);  // in-place overwrite
          note_add(g, cid, c.payload);
          break;
        }
        if (c.op == Op::Add && (c.more != 0 || grouped == st)) {
          // One of several adds in one structural move: only the last plans an archetype.
          g.mask.insert(cid);
          used += components_[cid].size;
          g.row_bytes += components_[cid].size;
          grouped = st;
          chain(g, i);
          note_add(g, cid, c.payload);
          break;
        }
        IdSet256 mask = g.mask;
        std::uint32_t row_bytes = g.row_bytes;
        if (c.op == Op::Add) {
          mask.insert(cid);
          row_bytes += components_[cid].size;
        } else {
          mask.erase(cid);
          row_bytes -= components_[cid].size;
        }
        if (used - g.row_bytes + row_bytes > config_.row_bytes) {
          capacity = {ErrorCode::CapacityExceeded, "flush: WorldConfig::row_bytes exhausted"};
          break;
        }
        std::uint32_t target = 0;
        if (Status fs = find_or_plan(mask, target); !fs.ok()) {
          capacity = fs;
          break;
        }
        used = used - g.row_bytes + row_bytes;
        g.mask = mask;
        g.row_bytes = row_bytes;
        g.archetype = static_cast<std::uint16_t>(target);
        chain(g, i);
        if (c.op == Op::Add) note_add(g, cid, c.payload);
        break;
      }
    }
  }

  if (capacity.ok() && grouped != Scratch::kNone) end_group();

  // Classify, and size the composed rows of arriving entities; count arrivals per archetype.
  std::uint32_t arrivals_in[WorldConfig::kMaxArchetypesLimit + 1] = {};
  bool ascending = true;
  std::uint32_t lowest_slot = 0xFFFFFFFFu, highest_slot = 0;
  if (capacity.ok()) {
    for (std::uint32_t st = 0; st < staged_count; ++st) {
      Scratch::Staged& g = s.staged[st];
      lowest_slot = std::min(lowest_slot, g.slot);
      highest_slot = std::max(highest_slot, g.slot);
      const bool same_place = g.initially_alive && !g.recreated && g.alive && g.archetype == g.source;
      g.leaves = g.initially_alive && !same_place;
      g.arrives = g.alive && !same_place;
      if (g.arrives) {
        row_scratch += g.row_bytes - 4u;  // offsets are handed out in apply order below
        ++arrivals_in[g.archetype + 1];
      }
      if (st != 0 && s.staged[st - 1].slot > g.slot) ascending = false;
    }
    if (row_scratch > s.row_capacity)
      capacity = {ErrorCode::CapacityExceeded, "flush: too many component bytes move in one flush"};
  }
  if (!capacity.ok()) {
    reset_stages();
    return capacity;
  }

  if (observers_ != nullptr) observers_before_apply(buffer, staged_count);  // OnRemove (observers.cpp)

  // ---------------- apply ----------------
  for (std::uint32_t a = archetype_count_; a < planned_archetypes; ++a) {
    std::uint32_t id = 0;
    const Status cs = create_archetype(s.planned_masks[a], id);
    LOCKSTEP_ASSERT(cs.ok() && id == a);
  }

  // Last recorded value per component of one incarnation (payload offsets), or kNone.
  std::uint32_t last_add[WorldConfig::kMaxComponentsLimit];
  auto collect_adds = [&](const Scratch::Staged& g) noexcept {
    for (std::uint32_t k = 0; k < component_count_; ++k) last_add[k] = Scratch::kNone;
    if (g.add_component == Scratch::kNoAdd) return;
    if (g.add_component != Scratch::kManyAdds) {
      last_add[g.add_component] = g.add_payload;
      return;
    }
    // The chain's last link is known: stopping there spares a scattered read of next_command.
    for (std::uint32_t cmd = g.first_command; cmd != Scratch::kNone;
         cmd = cmd == g.last_command ? Scratch::kNone : s.next_command[cmd]) {
      const CommandBuffer::Command& c = buffer.command(cmd);
      if (c.op != Op::Add) continue;
      const std::int32_t id = component_id_of(c.type_key);
      if (id >= 0) last_add[id] = c.payload;
    }
  };
  // The recorded value (same type, size and descriptor as the registered component's).
  auto write_value = [&](std::byte* to, std::uint32_t id, std::uint32_t payload) noexcept {
    detail::copy_value(to, buffer.payload(payload), components_[id].size);
    patch_pending(to, *components_[id].descriptor, s);
  };

  // One pass over the staged entities: compose each arriving row from recorded values and the
  // entity's current row, then remove the entity from its source archetype (O(1): a hole in
  // the ordered prefix, or a swap within the tail). Removing in the same pass is safe because
  // a removal that moves another entity's row updates rows_, through which that entity's row
  // is read when its turn comes.
  //
  // The apply passes visit the staged entities in ascending slot order (a radix sort of the
  // staging, skipped when the commands came in that order): the per-slot tables and the source
  // rows, which are ordered by slot, are then read and written as streams, whatever order the
  // game recorded its commands in. Arrivals are bucketed by target archetype on the way (a
  // counting sort), so they come out grouped by archetype and ascending by slot, as the
  // appends want them.
  std::uint32_t* order = s.order.get();
  if (ascending) {
    for (std::uint32_t i = 0; i < staged_count; ++i) order[i] = i;
  } else {
    // Dense (at least one staged slot in 8 of the range): scan; sparse: radix sort.
    if (std::uint64_t{highest_slot - lowest_slot} + 1 <= std::uint64_t{staged_count} * 8u) {
      scan_by_slot(s, lowest_slot, highest_slot);
    } else {
      sort_by_slot(s, staged_count);
    }
    if (observers_ == nullptr) {
      // Permute the staging itself into slot order (one scattered pass instead of one per apply
      // pass): the entries, the slot -> entry map and the pending handles' entries. Observers
      // keep the recording-order staging they were given before the apply.
      Scratch::Staged* from = s.staged.get();
      Scratch::Staged* to = s.staged_tmp.get();
      std::uint32_t* inverse = s.arrivals.get();  // free until the compose pass fills it
      for (std::uint32_t i = 0; i < staged_count; ++i) {
#if defined(__GNUC__) || defined(__clang__)
        if (i + 16 < staged_count) __builtin_prefetch(&from[order[i + 16]]);
#endif
        to[i] = from[order[i]];
        inverse[order[i]] = i;
        s.stage_of_slot[to[i].slot] = i;
      }
      for (std::uint32_t p = 0; p < buffer.pending_creates(); ++p)
        if (s.pending_stage[p] != Scratch::kNone) s.pending_stage[p] = inverse[s.pending_stage[p]];
      s.staged.swap(s.staged_tmp);
      for (std::uint32_t i = 0; i < staged_count; ++i) order[i] = i;  // command chains stay scattered: prefetched below
    }
  }
  for (std::uint32_t a = 0; a < planned_archetypes; ++a) arrivals_in[a + 1] += arrivals_in[a];
  std::uint32_t arrival_next[WorldConfig::kMaxArchetypesLimit];
  for (std::uint32_t a = 0; a < planned_archetypes; ++a) arrival_next[a] = arrivals_in[a];
  // In slot order the staging entries and their commands are the scattered side: start their
  // loads ahead (the entry 16 visits ahead, its first command 8 ahead).
  auto prefetch_stage = [&](std::uint32_t i) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    if (i + 16 < staged_count) __builtin_prefetch(&s.staged[order[i + 16]]);
    if (i + 8 < staged_count) {
      const Scratch::Staged& ahead = s.staged[order[i + 8]];
      if (ahead.add_component == Scratch::kManyAdds) __builtin_prefetch(&buffer.command(ahead.first_command));
      else if (ahead.add_component != Scratch::kNoAdd) __builtin_prefetch(buffer.payload(ahead.add_payload));
    }
#else
    (void)i;
#endif
  };
  std::uint64_t scratch_at = 0;
  for (std::uint32_t i = 0; i < staged_count; ++i) {
    if (!ascending) prefetch_stage(i);
    const std::uint32_t st = order[i];
    Scratch::Staged& g = s.staged[st];
    if (!g.arrives) {
      if (g.leaves) remove_row(archetypes_[g.source], rows_[g.slot], false);
      continue;
    }
    s.arrivals[arrival_next[g.archetype]++] = st;
    g.scratch_offset = static_cast<std::uint32_t>(scratch_at);  // composed rows are written as one stream
    scratch_at += g.row_bytes - 4u;
    collect_adds(g);
    const Archetype& dst = archetypes_[g.archetype];
    std::byte* out = s.row_bytes.get() + g.scratch_offset;
    for (std::uint32_t col = 0; col < dst.column_count; ++col) {
      const std::uint32_t id = dst.component_ids[col];
      if (last_add[id] != Scratch::kNone) {
        write_value(out, id, last_add[id]);
      } else {
        LOCKSTEP_ASSERT(g.initially_alive && !g.recreated);
        const Archetype& src = archetypes_[g.source];
        const std::uint8_t sc = src.column_of[id];
        LOCKSTEP_ASSERT(sc != kNoColumn);
        detail::copy_value(out, column_base(src, sc) + std::size_t{rows_[g.slot]} * src.column_size[sc],
                           dst.column_size[col]);
      }
      out += dst.column_size[col];
    }
    if (g.leaves) remove_row(archetypes_[g.source], rows_[g.slot], false);
  }
  bound_holes();

  // Append arrivals, grouped by archetype and in ascending slot order, so an archetype that
  // only gains slots above its rows stays ordered, and one that lost rows refills their holes
  // in place (world_rows.cpp); otherwise the order is restored lazily before the next read.
  for (std::uint32_t target = 0; target < planned_archetypes; ++target) {
    const std::uint32_t begin = arrivals_in[target];
    const std::uint32_t end = arrivals_in[target + 1];
    if (begin == end) continue;
    Archetype& a = archetypes_[target];
    const Status grown = ensure_capacity(a, a.rows + (end - begin));
    LOCKSTEP_ASSERT_MSG(grown.ok(), grown.message());
    for (std::uint32_t i = begin; i < end; ++i) {
      const Scratch::Staged& g = s.staged[s.arrivals[i]];
      const std::uint32_t row = append_row(a, g.slot);
      const std::byte* in = s.row_bytes.get() + g.scratch_offset;
      for (std::uint32_t col = 0; col < a.column_count; ++col) {
        const std::size_t size = a.column_size[col];
        detail::copy_value(column_base(a, col) + std::size_t{row} * size, in, size);
        in += size;
      }
    }
  }

  // Commit the free list, then one pass over the staged entities: the entity table, row state
  // and in-place values. A new incarnation starts with every component enabled and freshly
  // added; a survivor keeps the enable bits of the components it still has, and components it
  // gained are stamped added, re-added ones changed. Without observers the pass also releases
  // the staging (observers read it after this pass).
  for (std::uint32_t slot = slot_count_; slot < slot_count; ++slot)
    if (s.stage_of_slot[slot] == Scratch::kNone) generations_[slot] = 0;  // never reached
  free_head_ += free_taken;
  free_count_ -= free_taken;
  if (free_count_ == 0) free_head_ = 0;
  for (std::uint32_t f = freed_taken; f < freed_count; ++f) release_slot(s.freed[f]);
  slot_count_ = slot_count;
  live_count_ = live;
  used_row_bytes_ = used;
  const bool release_stages = observers_ == nullptr;
  for (std::uint32_t i = 0; i < staged_count; ++i) {
    if (!ascending) prefetch_stage(i);
    const Scratch::Staged& g = s.staged[order[i]];
    view_touch(g.slot);
    generations_[g.slot] = g.generation;
    alive_[g.slot] = g.alive ? 1 : 0;
    entity_archetype_[g.slot] = g.alive ? g.archetype : kNoArchetype;
    if (release_stages) s.stage_of_slot[g.slot] = Scratch::kNone;
    const bool fresh = !g.initially_alive || g.recreated;
    restrict_disabled(g.slot, (!g.alive || fresh) ? IdSet256{} : archetypes_[g.archetype].mask);
    if (!g.alive) continue;
    const Archetype& a = archetypes_[g.archetype];
    if (g.arrives) {
      if (tracked_count_ == 0) continue;
      collect_adds(g);
      for (std::uint32_t col = 0; col < a.column_count; ++col) {
        const std::uint32_t id = a.component_ids[col];
        if (fresh || g.source == kNoArchetype || !archetypes_[g.source].mask.contains(id)) mark_added(g.slot, id);
        else if (last_add[id] != Scratch::kNone) mark_changed(g.slot, id);
      }
      continue;
    }
    // Stayed in its archetype: write the recorded values in place.
    collect_adds(g);
    for (std::uint32_t col = 0; col < a.column_count; ++col) {
      const std::uint32_t id = a.component_ids[col];
      if (last_add[id] != Scratch::kNone) {
        write_value(column_base(a, col) + std::size_t{rows_[g.slot]} * a.column_size[col], id, last_add[id]);
        mark_changed(g.slot, id);
      }
    }
  }

  if (observers_ != nullptr) observers_after_apply(buffer, staged_count);  // OnAdd, OnSet

  if (!release_stages) reset_stages();
  buffer.clear();
  debug_check();
  return observers_ != nullptr ? observers_finish(first_error) : first_error;
}

}  // namespace lockstep
