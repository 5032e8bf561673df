// Snapshots: World::save / World::load and the Snapshot buffers. A snapshot holds the same
// StorageImage a world exposes, with every archetype packed tightly (capacity = rows) into
// one column buffer. Save and load copy only live bytes and never allocate.
#include "change_ticks_copy.h"
#include "huge_pages.h"
#include "view_registry.h"
#include "world_scratch.h"

#include <lockstep/store/snapshot.h>
#include <lockstep/store/world.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace lockstep {

using detail::Archetype;
using detail::kColumnAlign;
using detail::kNoArchetype;
using detail::kNoColumn;

namespace {

constexpr std::uint64_t align_up(std::uint64_t v, std::uint64_t a) noexcept { return (v + a - 1) / a * a; }

std::uint64_t packed_layout(Archetype& a, std::uint32_t capacity) noexcept {
  std::uint64_t at = 0;
  a.slots_offset = 0;
  at += align_up(std::uint64_t{capacity} * 4u, kColumnAlign);
  for (std::uint32_t c = 0; c < a.column_count; ++c) {
    a.column_offset[c] = at;
    at += align_up(std::uint64_t{capacity} * a.column_size[c], kColumnAlign);
  }
  a.capacity = capacity;
  return at;
}

// Rebuilds the derived fields of an archetype record from its component id list.
void derive_columns(Archetype& a, const detail::TypeInfo* components) noexcept {
  a.mask = detail::IdSet256{};
  std::fill(std::begin(a.column_of), std::end(a.column_of), kNoColumn);
  a.row_bytes = 4;
  a.widest = 4;
  for (std::uint32_t c = 0; c < a.column_count; ++c) {
    const std::uint32_t id = a.component_ids[c];
    a.mask.insert(id);
    a.column_of[id] = static_cast<std::uint8_t>(c);
    a.column_size[c] = components[id].size;
    a.row_bytes += components[id].size;
    a.widest = std::max(a.widest, components[id].size);
  }
}

std::uint64_t column_buffer_bytes(const WorldConfig& c) noexcept {
  return c.effective_row_bytes() + std::uint64_t{c.max_archetypes + 1} * (detail::kMaxColumns + 1) * kColumnAlign;
}

// A zeroed table on huge pages where the OS offers them (advised before the first write, as
// the world's own tables: huge_pages.h). Save copies the world's huge-page tables and columns
// into these buffers; with 4 KiB pages on this side every 4 KiB of a large save was a TLB miss
// (under a hypervisor, a walk of two page tables), which made save 1.2-2x a memcpy of the same
// bytes at 1M entities (docs/benchmarks.md). Advice only: no byte depends on it.
template <class T>
std::unique_ptr<T[]> huge_table(std::size_t count) {
  std::unique_ptr<T[]> t(new T[count]);
  detail::advise_huge_pages(t.get(), count * sizeof(T));
  std::fill_n(t.get(), count, T{});
  return t;
}

bool same_capacities(const WorldConfig& a, const WorldConfig& b) noexcept {
  return a.max_entities == b.max_entities && a.max_components == b.max_components &&
         a.max_resources == b.max_resources && a.max_archetypes == b.max_archetypes &&
         a.effective_row_bytes() == b.effective_row_bytes() && a.resource_bytes == b.resource_bytes &&
         a.max_tracked_components == b.max_tracked_components;
}

bool bools_valid(const std::byte* data, std::uint32_t rows, const TypeDescriptor& type) noexcept {
  for (std::uint32_t f = 0; f < type.field_count; ++f) {
    const FieldDescriptor& field = type.fields[f];
    if (field.kind != FieldKind::Bool) continue;
    for (std::uint32_t r = 0; r < rows; ++r)
      for (std::uint32_t k = 0; k < field.count; ++k) {
        const auto v = static_cast<std::uint8_t>(data[std::size_t{r} * type.size + field.offset + k]);
        if (v > 1) return false;
      }
  }
  return true;
}

}  // namespace

// ---- Snapshot ------------------------------------------------------------------------------

Snapshot::Snapshot(const World& world) { reserve(world); }

void Snapshot::reserve(const World& world) {
  const WorldConfig& c = world.config();
  if (const std::size_t views = detail::ViewAccess::save_capacity(world); views > view_capacity_) {
    view_data_.reset(new std::byte[views]);
    view_capacity_ = views;
  }
  if (generations_ && same_capacities(config_, c)) return;
  config_ = c;
  const std::uint32_t n = c.max_entities == 0 ? 1 : c.max_entities;
  generations_ = huge_table<std::uint32_t>(n);
  alive_ = huge_table<std::uint8_t>(n);
  free_ = huge_table<std::uint32_t>(n);
  rows_ = huge_table<std::uint32_t>(n);
  entity_archetype_ = huge_table<std::uint16_t>(n);
  archetypes_.reset(new Archetype[c.max_archetypes]);
  components_.reset(new detail::TypeInfo[c.max_components == 0 ? 1 : c.max_components]);
  resources_.reset(new detail::TypeInfo[c.max_resources == 0 ? 1 : c.max_resources]);
  column_capacity_ = column_buffer_bytes(c);
  column_storage_.reset(new std::byte[column_capacity_ + kColumnAlign]);
  detail::advise_huge_pages(column_storage_.get(), column_capacity_ + kColumnAlign);
  // lockstep: allow(pointer-cast) alignment padding only; the address never reaches state or hashes
  const auto base = reinterpret_cast<std::uintptr_t>(column_storage_.get());
  columns_ = column_storage_.get() + (align_up(base, kColumnAlign) - base);
  resource_capacity_ = c.resource_bytes;
  resource_data_.reset(new std::byte[resource_capacity_ == 0 ? 1 : resource_capacity_]());
  disabled_ = huge_table<std::uint64_t>(n);
  if (c.max_tracked_components != 0) {
    added_ticks_ = huge_table<std::uint64_t>(std::size_t{n} * c.max_tracked_components);
    changed_ticks_ = huge_table<std::uint64_t>(std::size_t{n} * c.max_tracked_components);
  } else {
    added_ticks_.reset();
    changed_ticks_.reset();
  }
  valid_ = false;
  trusted_ = false;
}

void Snapshot::refresh_image() noexcept {
  image_.generations = generations_.get();
  image_.alive = alive_.get();
  image_.free_slots = free_.get();
  image_.components = components_.get();
  image_.archetypes = archetypes_.get();
  image_.arena = columns_;
  image_.resources = resources_.get();
  image_.resource_data = resource_data_.get();
  image_.disabled = disabled_.get();
  image_.added_ticks = added_ticks_.get();
  image_.changed_ticks = changed_ticks_.get();
  image_.tracked_ids = tracked_ids_;
}

Status Snapshot::assign(const World& world, const SnapshotParts& parts) {
  reserve(world);
  valid_ = false;
  trusted_ = false;
  const WorldConfig& c = world.config();
  if (parts.generations.size() != parts.alive.size())
    return {ErrorCode::Corrupt, "snapshot: generation and liveness tables differ in length"};
  if (parts.generations.size() > c.max_entities)
    return {ErrorCode::CapacityExceeded, "snapshot: more slots than WorldConfig::max_entities"};
  if (parts.free_slots.size() > parts.generations.size())
    return {ErrorCode::Corrupt, "snapshot: free list longer than the slot table"};
  if (parts.archetypes.empty()) return {ErrorCode::Corrupt, "snapshot: no archetypes (archetype 0 is required)"};
  if (parts.archetypes.size() > c.max_archetypes)
    return {ErrorCode::CapacityExceeded, "snapshot: more archetypes than WorldConfig::max_archetypes"};
  if (parts.resources.size() != world.resourceCount())
    return {ErrorCode::Mismatch, "snapshot: resource count differs from the world's"};

  const StorageView wv = world.storage();
  const std::uint32_t comp_count = world.componentCount();
  for (std::uint32_t i = 0; i < comp_count; ++i) components_[i] = world.components_[i];
  for (std::uint32_t i = 0; i < world.resourceCount(); ++i) resources_[i] = world.resources_[i];

  image_.tick = parts.tick;
  image_.slot_count = static_cast<std::uint32_t>(parts.generations.size());
  image_.free_count = static_cast<std::uint32_t>(parts.free_slots.size());
  std::copy(parts.generations.begin(), parts.generations.end(), generations_.get());
  std::copy(parts.alive.begin(), parts.alive.end(), alive_.get());
  std::copy(parts.free_slots.begin(), parts.free_slots.end(), free_.get());
  image_.component_count = comp_count;
  image_.archetype_count = static_cast<std::uint32_t>(parts.archetypes.size());
  std::uint64_t cursor = 0;
  live_bytes_ = std::size_t{image_.slot_count} * 5u + std::size_t{image_.free_count} * 4u;
  for (std::size_t ai = 0; ai < parts.archetypes.size(); ++ai) {
    const SnapshotParts::ArchetypePart& p = parts.archetypes[ai];
    if (p.component_ids.size() > detail::kMaxColumns || p.columns.size() != p.component_ids.size())
      return {ErrorCode::Corrupt, "snapshot: archetype column list malformed"};
    if (p.slots.size() > c.max_entities) return {ErrorCode::Corrupt, "snapshot: archetype has too many rows"};
    Archetype& a = archetypes_[ai];
    a = Archetype{};
    a.column_count = static_cast<std::uint32_t>(p.component_ids.size());
    for (std::uint32_t col = 0; col < a.column_count; ++col) {
      if (p.component_ids[col] >= comp_count) return {ErrorCode::Corrupt, "snapshot: unknown component id"};
      a.component_ids[col] = p.component_ids[col];
    }
    derive_columns(a, components_.get());
    a.rows = static_cast<std::uint32_t>(p.slots.size());
    const std::uint64_t bytes = packed_layout(a, a.rows);
    if (cursor + bytes > column_capacity_) return {ErrorCode::CapacityExceeded, "snapshot: rows exceed the row budget"};
    a.block = cursor;
    a.block_bytes = bytes;
    if (a.rows != 0) std::memcpy(columns_ + a.block + a.slots_offset, p.slots.data(), std::size_t{a.rows} * 4u);
    for (std::uint32_t col = 0; col < a.column_count; ++col) {
      if (p.columns[col].size() != std::size_t{a.rows} * a.column_size[col])
        return {ErrorCode::Corrupt, "snapshot: column byte count does not match rows × component size"};
      if (a.rows != 0) std::memcpy(columns_ + a.block + a.column_offset[col], p.columns[col].data(), p.columns[col].size());
    }
    cursor += bytes;
    live_bytes_ += std::size_t{a.rows} * a.row_bytes;
  }
  std::uint32_t used = 0;
  for (std::uint32_t i = 0; i < world.resourceCount(); ++i) {
    if (parts.resources[i].size() != resources_[i].size)
      return {ErrorCode::Mismatch, "snapshot: resource size differs from the world's"};
    std::memcpy(resource_data_.get() + resources_[i].offset, parts.resources[i].data(), resources_[i].size);
    used = std::max(used, resources_[i].offset + resources_[i].size);
  }
  (void)wv;
  // Files carry no row state (docs/hashing.md): enable bits all clear, no change ticks.
  image_.disabled_total = 0;
  image_.tracked_count = 0;
  image_.tick_stride = config_.max_tracked_components;
  resource_used_ = used;
  image_.resource_count = world.resourceCount();
  live_bytes_ += used;
  refresh_image();
  valid_ = true;
  return Status::Ok();
}

// ---- World::save / load --------------------------------------------------------------------

void World::save(Snapshot& out) const noexcept {
  settle_all();  // snapshots hold rows in slot order
  if (!out.generations_ || !same_capacities(out.config_, config_)) out.reserve(*this);  // allocates once
  detail::StorageImage& img = out.image_;
  img.tick = tick_;
  img.slot_count = slot_count_;
  img.free_count = free_count_;
  std::memcpy(out.generations_.get(), generations_.get(), std::size_t{slot_count_} * 4u);
  std::memcpy(out.alive_.get(), alive_.get(), slot_count_);
  std::memcpy(out.free_.get(), free_.get() + free_head_, std::size_t{free_count_} * 4u);
  // The entity -> (archetype, row) index is derivable, but copying it makes load a pure copy.
  std::memcpy(out.rows_.get(), rows_.get(), std::size_t{slot_count_} * 4u);
  std::memcpy(out.entity_archetype_.get(), entity_archetype_.get(), std::size_t{slot_count_} * 2u);
  img.component_count = component_count_;
  std::copy_n(components_.get(), component_count_, out.components_.get());
  img.archetype_count = archetype_count_;
  std::uint64_t cursor = 0;
  // What save copies: 5 bytes of entity table per slot plus the 6 bytes of the index above.
  std::size_t live = std::size_t{slot_count_} * (5u + 6u) + std::size_t{free_count_} * 4u;
  for (std::uint32_t ai = 0; ai < archetype_count_; ++ai) {
    const Archetype& src = archetypes_[ai];
    Archetype& dst = out.archetypes_[ai];
    // Copy the record without the 256-byte column_of table twice: the struct is POD.
    dst = src;
    const std::uint64_t bytes = packed_layout(dst, src.rows);
    dst.block = cursor;
    dst.block_bytes = bytes;
    if (src.rows != 0) {
      std::memcpy(out.columns_ + cursor + dst.slots_offset, arena_ + src.block + src.slots_offset, std::size_t{src.rows} * 4u);
      for (std::uint32_t c = 0; c < src.column_count; ++c)
        std::memcpy(out.columns_ + cursor + dst.column_offset[c], arena_ + src.block + src.column_offset[c],
                    std::size_t{src.rows} * src.column_size[c]);
    }
    cursor += bytes;
    live += std::size_t{src.rows} * src.row_bytes;
  }
  img.resource_count = resource_count_;
  std::copy_n(resources_.get(), resource_count_, out.resources_.get());
  std::memcpy(out.resource_data_.get(), resource_data_.get(), resource_used_);
  out.resource_used_ = resource_used_;
  img.disabled_total = disabled_total_;
  if (disabled_total_ != 0) {
    std::memcpy(out.disabled_.get(), disabled_.get(), std::size_t{slot_count_} * 8u);
    live += std::size_t{slot_count_} * 8u;
  }
  img.tracked_count = tracked_count_;
  img.tick_stride = config_.max_tracked_components;
  std::copy_n(tracked_ids_, tracked_count_, out.tracked_ids_);
  if (tracked_count_ != 0) {
    const std::size_t words = std::size_t{slot_count_} * config_.max_tracked_components;
    std::memcpy(out.added_ticks_.get(), added_ticks_.get(), words * 8u);
    std::memcpy(out.changed_ticks_.get(), changed_ticks_.get(), words * 8u);
    // The snapshot holds plain entries: the slots in a block's mask get the block's max.
    const detail::ChangeTicks c = tick_table();
    for (std::uint32_t t = 0; t < tracked_count_; ++t)
      for (std::uint32_t b = 0; b < c.blocks && b * 64u < slot_count_; ++b)
        detail::write_masked_ticks(c, out.changed_ticks_.get(), t, b, slot_count_);
    live += words * 16u;
  }
  const std::size_t views = detail::ViewAccess::save_capacity(*this);
  if (views > out.view_capacity_) out.reserve(*this);  // a view registered after the reserve: once
  out.view_used_ = views != 0 ? detail::ViewAccess::save(*this, out.view_data_.get()) : 0;
  live += out.view_used_;
  out.live_bytes_ = live + resource_used_;
  out.refresh_image();
  out.valid_ = true;
  out.trusted_ = true;
}

Status World::load(const Snapshot& in) noexcept {
  if (lanes_) return lane_refused("load");
  if (call().guard != nullptr) return guard_nested();
  marks_.all_written();  // conservative: also when the load is then refused
  if (!in.valid_) return {ErrorCode::InvalidArgument, "load: empty snapshot"};
  const detail::StorageImage& img = in.image_;
  // Schema: same component and resource types, in the same registration order.
  if (img.component_count != component_count_ || img.resource_count != resource_count_)
    return {ErrorCode::Mismatch, "load: snapshot was taken from a world with other registrations"};
  for (std::uint32_t i = 0; i < component_count_; ++i)
    if (img.components[i].descriptor != components_[i].descriptor)
      return {ErrorCode::Mismatch, "load: component types differ"};
  for (std::uint32_t i = 0; i < resource_count_; ++i)
    if (img.resources[i].size != resources_[i].size || img.resources[i].offset != resources_[i].offset)
      return {ErrorCode::Mismatch, "load: resource types differ"};
  if (img.slot_count > config_.max_entities || img.archetype_count > config_.max_archetypes ||
      img.archetype_count == 0)
    return {ErrorCode::CapacityExceeded, "load: snapshot exceeds this world's capacities"};
  if (img.tracked_count != tracked_count_ || (tracked_count_ != 0 && img.tick_stride != config_.max_tracked_components))
    return {ErrorCode::Mismatch, "load: the snapshot's change-tracked components differ from the world's"};
  for (std::uint32_t t = 0; t < tracked_count_; ++t)
    if (img.tracked_ids[t] != tracked_ids_[t])
      return {ErrorCode::Mismatch, "load: the snapshot's change-tracked components differ from the world's"};

  // Views: a trusted snapshot carries their state (and must match the world's views); an
  // untrusted one (a file) has none and resets them.
  const std::byte* view_data = in.trusted_ && (in.view_used_ != 0 || views_ != nullptr) ? in.view_data_.get() : nullptr;
  if (in.trusted_ && in.view_used_ == 0 && views_ != nullptr)
    return {ErrorCode::Mismatch, "load: the snapshot's views differ from the world's"};
  if (Status s = detail::ViewAccess::check_load(*this, view_data, in.view_used_); !s.ok()) return s;

  std::uint64_t used = 0;
  std::uint32_t live = 0;
  for (std::uint32_t ai = 0; ai < img.archetype_count; ++ai)
    used += std::uint64_t{img.archetypes[ai].rows} * img.archetypes[ai].row_bytes;
  if (used > config_.row_bytes) return {ErrorCode::CapacityExceeded, "load: snapshot exceeds the row budget"};

  if (!in.trusted_) {
    // Everything an untrusted snapshot claims is checked before the first change. The flush
    // scratch's slot table (all kNone outside flush) marks slots already seen.
    std::uint32_t* seen = scratch_->stage_of_slot.get();
    Status bad = Status::Ok();
    std::uint32_t marked_hi = 0;
    auto mark = [&](std::uint32_t slot) noexcept {
      if (seen[slot] != FlushScratch::kNone) return false;
      seen[slot] = 0;
      marked_hi = std::max(marked_hi, slot + 1);
      return true;
    };
    std::uint32_t dead = 0;
    for (std::uint32_t s = 0; s < img.slot_count && bad.ok(); ++s) {
      const std::uint32_t g = img.generations[s];
      if (img.alive[s] > 1) bad = {ErrorCode::Corrupt, "load: liveness flag is not 0 or 1"};
      else if (g == 0 || g > Entity::kMaxGeneration) bad = {ErrorCode::Corrupt, "load: generation out of range"};
      if (img.alive[s] == 0) ++dead;
    }
    if (bad.ok() && dead != img.free_count) bad = {ErrorCode::Corrupt, "load: free list does not hold every free slot"};
    for (std::uint32_t i = 0; i < img.free_count && bad.ok(); ++i) {
      const std::uint32_t s = img.free_slots[i];
      if (s >= img.slot_count || img.alive[s] != 0 || !mark(s))
        bad = {ErrorCode::Corrupt, "load: free list holds a live, unknown or repeated slot"};
    }
    for (std::uint32_t ai = 0; ai < img.archetype_count && bad.ok(); ++ai) {
      const Archetype& a = img.archetypes[ai];
      if (ai == 0 && a.column_count != 0) bad = {ErrorCode::Corrupt, "load: archetype 0 must have no components"};
      for (std::uint32_t c = 1; c < a.column_count && bad.ok(); ++c)
        if (a.component_ids[c - 1] >= a.component_ids[c]) bad = {ErrorCode::Corrupt, "load: archetype component ids not ascending"};
      for (std::uint32_t bi = 0; bi < ai && bad.ok(); ++bi)
        if (img.archetypes[bi].mask == a.mask) bad = {ErrorCode::Corrupt, "load: two archetypes with one component set"};
      const std::uint32_t* slots = reinterpret_cast<const std::uint32_t*>(img.arena + a.block + a.slots_offset);
      for (std::uint32_t r = 0; r < a.rows && bad.ok(); ++r) {
        const std::uint32_t s = slots[r];
        if (r != 0 && slots[r - 1] >= s) bad = {ErrorCode::Corrupt, "load: archetype rows not in ascending slot order"};
        else if (s >= img.slot_count || img.alive[s] == 0 || !mark(s))
          bad = {ErrorCode::Corrupt, "load: archetype row holds a free, unknown or repeated slot"};
        ++live;
      }
      for (std::uint32_t c = 0; c < a.column_count && bad.ok(); ++c)
        if (!bools_valid(img.arena + a.block + a.column_offset[c], a.rows, *components_[a.component_ids[c]].descriptor))
          bad = {ErrorCode::Corrupt, "load: a bool field holds a value other than 0 or 1"};
    }
    if (bad.ok() && live + dead != img.slot_count) bad = {ErrorCode::Corrupt, "load: a live slot belongs to no archetype"};
    if (bad.ok() && img.disabled_total != 0) {
      std::uint64_t count = 0;
      for (std::uint32_t ai = 0; ai < img.archetype_count; ++ai) {
        const Archetype& a = img.archetypes[ai];
        const std::uint32_t* slots = reinterpret_cast<const std::uint32_t*>(img.arena + a.block + a.slots_offset);
        for (std::uint32_t r = 0; r < a.rows; ++r) {
          const std::uint64_t bits = img.disabled[slots[r]];
          if ((bits & ~a.mask.words[0]) != 0) bad = {ErrorCode::Corrupt, "load: an enable bit names a missing component"};
          count += static_cast<std::uint64_t>(std::popcount(bits));
        }
      }
      if (bad.ok() && count != img.disabled_total) bad = {ErrorCode::Corrupt, "load: disabled count is off"};
    }
    for (std::uint32_t i = 0; i < resource_count_ && bad.ok(); ++i)
      if (!bools_valid(img.resource_data + img.resources[i].offset, 1, *resources_[i].descriptor))
        bad = {ErrorCode::Corrupt, "load: a bool field of a resource holds a value other than 0 or 1"};
    for (std::uint32_t s = 0; s < marked_hi; ++s) seen[s] = FlushScratch::kNone;
    if (!bad.ok()) return bad;
  }

  // ---- apply ----
  layout_epoch_ = detail::next_layout_epoch();  // archetypes may be renumbered or gone
  const std::uint32_t old_slots = slot_count_;
  std::memcpy(generations_.get(), img.generations, std::size_t{img.slot_count} * 4u);
  std::memcpy(alive_.get(), img.alive, img.slot_count);
  for (std::uint32_t s = img.slot_count; s < old_slots; ++s) {
    generations_[s] = 0;  // never used in the loaded state
    alive_[s] = 0;
  }
  if (in.trusted_) {
    std::memcpy(rows_.get(), in.rows_.get(), std::size_t{img.slot_count} * 4u);
    std::memcpy(entity_archetype_.get(), in.entity_archetype_.get(), std::size_t{img.slot_count} * 2u);
    if (old_slots > img.slot_count) std::fill_n(entity_archetype_.get() + img.slot_count, old_slots - img.slot_count, kNoArchetype);
  } else {
    std::fill_n(entity_archetype_.get(), std::max(old_slots, img.slot_count), kNoArchetype);
  }
  std::memcpy(free_.get(), img.free_slots, std::size_t{img.free_count} * 4u);
  free_head_ = 0;
  free_count_ = img.free_count;
  slot_count_ = img.slot_count;

  // Lay archetypes out with growth slack when it fits, tightly otherwise.
  std::uint64_t with_slack = 0;
  for (std::uint32_t ai = 0; ai < img.archetype_count; ++ai) {
    Archetype probe = img.archetypes[ai];
    with_slack += packed_layout(probe, probe.rows + probe.rows / 4 + 16);
  }
  const bool slack = with_slack <= arena_size_;
  archetype_count_ = img.archetype_count;
  unsettled_ = detail::IdSet256{};  // every loaded archetype is in slot order
  std::uint64_t cursor = 0;
  live = 0;
  for (std::uint32_t ai = 0; ai < archetype_count_; ++ai) {
    const Archetype& src = img.archetypes[ai];
    Archetype& a = archetypes_[ai];
    a.column_count = src.column_count;
    std::copy_n(src.component_ids, src.column_count, a.component_ids);
    derive_columns(a, components_.get());
    a.rows = src.rows;
    a.sorted = a.rows;
    a.holes = 0;
    a.block = cursor;
    a.block_bytes = packed_layout(a, slack ? a.rows + a.rows / 4 + 16 : a.rows);
    refresh_pointers(a);
    if (a.rows != 0) {
      std::memcpy(arena_ + a.block + a.slots_offset, img.arena + src.block + src.slots_offset, std::size_t{a.rows} * 4u);
      for (std::uint32_t c = 0; c < a.column_count; ++c)
        std::memcpy(arena_ + a.block + a.column_offset[c], img.arena + src.block + src.column_offset[c],
                    std::size_t{a.rows} * a.column_size[c]);
    }
    if (!in.trusted_) {
      const std::uint32_t* slots = slot_column(a);
      for (std::uint32_t r = 0; r < a.rows; ++r) {
        rows_[slots[r]] = r;
        entity_archetype_[slots[r]] = static_cast<std::uint16_t>(ai);
      }
    }
    live += a.rows;
    cursor += a.block_bytes;
  }
  arena_top_ = cursor;
  used_row_bytes_ = used;
  live_count_ = live;
  for (std::uint32_t i = 0; i < resource_count_; ++i)
    std::memcpy(resource_data_.get() + resources_[i].offset, img.resource_data + img.resources[i].offset,
                resources_[i].size);
  if (disabled_total_ != 0) {
    std::fill_n(disabled_.get(), std::max(old_slots, img.slot_count), std::uint64_t{0});
    std::fill_n(disabled_blocks_.get(), std::max(old_slots, img.slot_count) / 64 + 1, std::uint8_t{0});
  }
  if (img.disabled_total != 0) {
    std::memcpy(disabled_.get(), img.disabled, std::size_t{img.slot_count} * 8u);
    for (std::uint32_t s = 0; s < img.slot_count; ++s) disabled_blocks_[s >> 6] += disabled_[s] != 0 ? 1 : 0;
  }
  disabled_total_ = img.disabled_total;
  if (tracked_count_ != 0)
  {
    const std::size_t words = std::size_t{img.slot_count} * config_.max_tracked_components;
    std::memcpy(added_ticks_.get(), img.added_ticks, words * 8u);
    std::memcpy(changed_ticks_.get(), img.changed_ticks, words * 8u);
    rebuild_changed_summary();
  }
  tick_ = img.tick;
  scratch_res_.zero();  // scratch is not state: a restored world starts it from zero (docs/kernel.md)
  detail::ViewAccess::load(*this, view_data, in.view_used_);
  debug_check();
  return Status::Ok();
}

// ---- SnapshotRing --------------------------------------------------------------------------

SnapshotRing::SnapshotRing(const World& world, std::uint32_t slots) {
  slots_.resize(slots == 0 ? 1 : slots);
  for (Snapshot& s : slots_) s.reserve(world);
}

const Snapshot* SnapshotRing::find(std::uint64_t tick) const noexcept {
  const Snapshot& s = slots_[tick % slots_.size()];
  return (!s.empty() && s.tick() == tick) ? &s : nullptr;
}

void SnapshotRing::save(const World& world) noexcept { world.save(slot_for(world.tick())); }

}  // namespace lockstep
