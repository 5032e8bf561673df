#pragma once
// The parts of a state hash one by one (docs/hashing.md defines each byte string): shared by
// the full hash (hash_storage) and the incremental hasher, so both feed XXH3 the same bytes.
#include <lockstep/hash/state_hash.h>
#include <lockstep/store/storage_view.h>

#include <cstdint>

namespace lockstep::hash_detail {

std::uint64_t hash_entities_part(const StorageView& view, bool fast) noexcept;
std::uint64_t hash_archetypes_part(const StorageView& view, bool fast) noexcept;
std::uint64_t hash_component_part(const StorageView& view, std::uint32_t component, bool fast) noexcept;
// resource_parts[r] (localisation only) and the combined `resources` part.
std::uint64_t hash_resource_part(const StorageView& view, std::uint32_t resource, bool fast) noexcept;
std::uint64_t hash_resources_part(const StorageView& view, bool fast) noexcept;
// `total` from tick, entities, archetypes, resources and components[0..component_count).
std::uint64_t fold_total(const StateHash& h) noexcept;

}  // namespace lockstep::hash_detail
