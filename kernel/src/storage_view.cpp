#include <lockstep/detail/storage_image.h>
#include <lockstep/store/storage_view.h>

namespace lockstep {

std::uint64_t StorageView::tick() const noexcept { return image_.tick; }
std::uint32_t StorageView::slot_count() const noexcept { return image_.slot_count; }
std::span<const std::uint32_t> StorageView::generations() const noexcept {
  return {image_.generations, image_.slot_count};
}
std::span<const std::uint8_t> StorageView::alive() const noexcept { return {image_.alive, image_.slot_count}; }
std::span<const std::uint32_t> StorageView::free_slots() const noexcept {
  return {image_.free_slots, image_.free_count};
}
std::uint32_t StorageView::component_count() const noexcept { return image_.component_count; }
const TypeDescriptor& StorageView::component(std::uint32_t id) const noexcept {
  return *image_.components[id].descriptor;
}
std::uint32_t StorageView::archetype_count() const noexcept { return image_.archetype_count; }
std::span<const std::uint8_t> StorageView::archetype_components(std::uint32_t a) const noexcept {
  const detail::Archetype& arch = image_.archetypes[a];
  return {arch.component_ids, arch.column_count};
}
std::uint32_t StorageView::archetype_rows(std::uint32_t a) const noexcept { return image_.archetypes[a].rows; }
std::span<const std::uint32_t> StorageView::archetype_slots(std::uint32_t a) const noexcept {
  const detail::Archetype& arch = image_.archetypes[a];
  if (arch.rows == 0) return {};
  return {reinterpret_cast<const std::uint32_t*>(image_.arena + arch.block + arch.slots_offset), arch.rows};
}
std::span<const std::byte> StorageView::column_bytes(std::uint32_t a, std::uint32_t column) const noexcept {
  const detail::Archetype& arch = image_.archetypes[a];
  if (arch.rows == 0) return {};
  return {image_.arena + arch.block + arch.column_offset[column], std::size_t{arch.rows} * arch.column_size[column]};
}
std::uint32_t StorageView::resource_count() const noexcept { return image_.resource_count; }
const TypeDescriptor& StorageView::resource(std::uint32_t id) const noexcept {
  return *image_.resources[id].descriptor;
}
std::span<const std::byte> StorageView::resource_bytes(std::uint32_t id) const noexcept {
  const detail::TypeInfo& t = image_.resources[id];
  return {image_.resource_data + t.offset, t.size};
}

std::uint64_t StorageView::disabled_count() const noexcept { return image_.disabled_total; }
std::span<const std::uint64_t> StorageView::disabled_bits() const noexcept {
  if (image_.disabled_total == 0) return {};
  return {image_.disabled, image_.slot_count};
}
std::span<const std::uint8_t> StorageView::tracked_components() const noexcept {
  return {image_.tracked_ids, image_.tracked_count};
}
std::uint64_t StorageView::added_tick(std::uint32_t slot, std::uint32_t i) const noexcept {
  return image_.added_ticks[std::size_t{slot} * image_.tick_stride + i];
}
std::uint64_t StorageView::changed_tick(std::uint32_t slot, std::uint32_t i) const noexcept {
  if (image_.changed_summary.max != nullptr) return image_.changed_summary.changed(slot, i);
  return image_.changed_ticks[std::size_t{slot} * image_.tick_stride + i];
}

}  // namespace lockstep
