#pragma once
// Canonical XXH3-64 state hash of a world (or of a snapshot, through its StorageView), with a
// per-component breakdown for desync localisation. The exact byte layout is specified in
// docs/hashing.md; in short:
//
//   entities      = XXH3(slot table: generations, liveness, free-slot order)
//   archetypes    = XXH3(archetype structure: component sets, row slot ids)
//   components[c] = XXH3(for each archetype holding c, id ascending: id, rows, c's column)
//   resources     = XXH3(every resource's canonical bytes)
//   resource_parts[r] = XXH3(u32 r, u32 size, resource r's canonical bytes)  (not in total)
//   total         = XXH3(tag, tick, entities, archetypes, resources, every components[c])
//
// All bytes are little-endian, independent of host byte order, pointer width and compiler.
// Hashing allocates nothing and reads the state through lockstep::StorageView only.
#include <lockstep/store/storage_view.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace lockstep {

class World;

struct StateHash {
  static constexpr std::uint32_t kMaxComponents = 256;
  static constexpr std::uint32_t kMaxResources = 64;

  std::uint64_t total = 0;
  std::uint64_t tick = 0;        // the hashed world's tick (also folded into total)
  std::uint64_t entities = 0;    // entity table: generations, liveness, free-slot order
  std::uint64_t archetypes = 0;  // archetype structure: component sets and row slot ids
  std::uint64_t resources = 0;   // every resource's canonical bytes
  std::uint32_t component_count = 0;
  // components[c] for registered component id c < component_count; the rest stay 0.
  std::array<std::uint64_t, kMaxComponents> components{};
  // Per-resource sub-hashes for desync localisation (which resource differs). They are NOT
  // folded into `total` (nor into traces or replay files): `resources` covers all resources
  // and keeps every recorded hash valid. resource_parts[r] for r < resource_count.
  std::uint32_t resource_count = 0;
  std::array<std::uint64_t, kMaxResources> resource_parts{};

  std::span<const std::uint64_t> component_hashes() const noexcept {
    return {components.data(), component_count};
  }

  // Equal when every part is equal (total, tick, entities, archetypes, resources and each
  // component sub-hash).
  friend bool operator==(const StateHash& a, const StateHash& b) noexcept;
};

// Which hashing path to use. Auto takes the fast path (whole columns as byte ranges) on
// little-endian hosts and the canonical path elsewhere; Canonical forces the field-by-field
// path (each FieldDescriptor element re-encoded little-endian) — the path a big-endian host
// runs — so tests can prove both produce identical values.
enum class HashPath : std::uint8_t { Auto = 0, Canonical = 1 };

// Hash of a world's complete state. Allocation-free.
StateHash hash_world(const World& world, HashPath path = HashPath::Auto) noexcept;
// Same for any StorageView (a world's storage() or a Snapshot's view()).
StateHash hash_storage(const StorageView& view, HashPath path = HashPath::Auto) noexcept;

// Number of canonical bytes hash_storage feeds to XXH3 for this state (all parts, excluding
// the fixed-size fold into `total`). Used by the benchmark to size its raw-XXH3 baseline.
std::uint64_t canonical_byte_count(const StorageView& view) noexcept;

// XXH3-64 (seed 0) of a byte range: the checksum used by snapshot files, exposed for tools
// and tests.
std::uint64_t xxh3_64(std::span<const std::byte> bytes) noexcept;

// ---- desync reports ----------------------------------------------------------------------

// Bit flags of the non-component parts that differ.
enum HashPart : std::uint32_t {
  kPartTotal = 1u << 0,
  kPartTick = 1u << 1,
  kPartEntities = 1u << 2,
  kPartArchetypes = 1u << 3,
  kPartResources = 1u << 4,
  kPartComponentCount = 1u << 5,
};

struct HashDiff {
  std::uint32_t parts = 0;  // HashPart flags
  std::uint32_t component_count = 0;
  std::array<std::uint8_t, StateHash::kMaxComponents> components{};  // ids whose sub-hash differs, ascending
  std::uint32_t resource_count = 0;
  std::array<std::uint8_t, StateHash::kMaxResources> resources{};  // resource ids whose sub-hash differs
  bool empty() const noexcept { return parts == 0 && component_count == 0; }
};

// Allocation-free comparison of two hashes.
HashDiff diff_hashes(const StateHash& a, const StateHash& b) noexcept;

// Human-readable desync summary, e.g. "tick 120: total differs; components: Pos, Health" —
// and "; resources: Economy" when per-resource sub-hashes name the resources.
// Component names come from `schema` (a view of either side's world); ids beyond it are
// printed as "#id". Not allocation-free (reports only).
std::string describe_hash_diff(const StateHash& a, const StateHash& b, const StorageView& schema);

// 16 lowercase hex digits, most significant first (no terminator is written).
void format_hex(std::uint64_t value, char out[16]) noexcept;
std::string to_hex(std::uint64_t value);
// Multi-line breakdown: "total <hex>\ntick <n>\nentities <hex>\n...\ncomponent <name> <hex>\n".
std::string format_state_hash(const StateHash& h, const StorageView& schema);

}  // namespace lockstep
