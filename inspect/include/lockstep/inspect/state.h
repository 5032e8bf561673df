#pragma once
// inspect::State — a complete, self-describing, walkable world state: the schema (component
// and resource names, sizes, field lists) plus the state (tick, entity table, free list,
// archetypes with rows, resources), owned and independent of any World or Sim. Values are
// kept as canonical little-endian bytes, so a state read on s390x walks exactly like one
// captured on x86-64.
//
// Sources (all give the same State for the same world state):
//   capture(view)               a live World's storage() or a Snapshot's view()
//   decode_state(bytes) / read_state_file(path)   a snapshot file (docs/hashing.md)
//   state_at_tick (replay_state.h), bundles (bundle.h)
// Consumers: dump.h, diff.h, svg.h — and tools (the browser viewer) that walk it directly.
#include <lockstep/store/field.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/store/storage_view.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::inspect {

struct Field {
  std::string name;
  std::uint32_t offset = 0;        // byte offset inside the value
  std::uint16_t element_size = 0;  // 1, 2, 4 or 8
  std::uint16_t count = 0;         // elements (arrays, vectors)
  FieldKind kind = FieldKind::UnsignedInt;

  std::uint32_t size() const noexcept { return std::uint32_t{element_size} * count; }
  // Elements that make one printed value: 2 for Entity (slot, generation), else 1.
  std::uint32_t unit() const noexcept { return kind == FieldKind::Entity ? 2u : 1u; }
  std::uint32_t units() const noexcept { return count / unit(); }
  friend bool operator==(const Field&, const Field&) = default;
};

struct Type {
  std::string name;
  std::uint32_t size = 0;
  std::vector<Field> fields;
  // Index of the field marked as the 2-D position (vec2) used by pictures, or -1.
  std::int32_t position_field = -1;

  const Field* field(std::string_view name) const noexcept;
  // Same layout (size and every field); position marks are display-only and not compared.
  bool same_layout(const Type& other) const noexcept;
};

struct Archetype {
  std::vector<std::uint32_t> components;           // ascending component ids
  std::vector<std::uint32_t> slots;                // ascending
  std::vector<std::vector<std::byte>> columns;     // per component: rows × size canonical bytes
};

struct State {
  std::uint64_t tick = 0;
  std::vector<Type> components;                    // by component id
  std::vector<Type> resources;                     // by resource id
  std::vector<std::uint32_t> generations;          // per slot ever used
  std::vector<std::uint8_t> alive;                 // per slot ever used
  std::vector<std::uint32_t> free_slots;           // reuse order
  std::vector<Archetype> archetypes;               // id order; [0] is component-less
  std::vector<std::vector<std::byte>> resource_values;  // per resource: canonical bytes

  std::uint32_t slot_count() const noexcept { return static_cast<std::uint32_t>(generations.size()); }
  std::uint64_t live_entities() const noexcept;
  std::int32_t component_id(std::string_view name) const noexcept;
  std::int32_t resource_id(std::string_view name) const noexcept;

  // Where a live slot's row is: archetype id and row, or false for a free slot.
  struct Location {
    std::uint32_t archetype = 0;
    std::uint32_t row = 0;
  };
  // One entry per slot; archetype 0xFFFFFFFF marks a free slot. Built on demand.
  std::vector<Location> locate() const;
  // Canonical bytes of component `c` in archetype `a` at `row`, or empty.
  std::span<const std::byte> value(std::uint32_t archetype, std::uint32_t row, std::uint32_t component) const noexcept;
};

inline constexpr std::uint32_t kNoArchetype = 0xFFFFFFFFu;

// Copies a live state (encodes it canonically; allocates).
State capture(const StorageView& view);
// Marks position fields (display only) from a world's descriptors: see mark_positions in svg.h.

// Snapshot-file bytes → State, without a World: the file's own schema is the State's schema.
// Every length is checked against the bytes that remain before anything is allocated; errors
// name `name`, the byte offset and what was expected (FileStatus.message).
// `verify_checksum` = false only for the fuzzer (to reach the body parser), never for files.
FileStatus decode_state(std::span<const std::byte> bytes, State& out, std::string_view name = "<memory>",
                        bool verify_checksum = true);
FileStatus read_state_file(const std::string& path, State& out);
// State → snapshot-file bytes (the exact bytes encode_snapshot writes for the same state).
std::vector<std::byte> encode_state(const State& state);

// Reads a whole file (bounded by `max_bytes`); errors name the file.
FileStatus read_file_bytes(const std::string& path, std::vector<std::byte>& out, std::uint64_t max_bytes);

// ---- values ---------------------------------------------------------------------------
// Element `k` of field `f` of a value (canonical bytes), as an unsigned 64-bit pattern.
std::uint64_t element_bits(const Field& f, const std::byte* value, std::uint32_t k) noexcept;
// Appends printed unit `u` of field `f` (exact decimal for fixed, slot:gen for Entity,
// true/false, integers).
void append_unit(std::string& out, const Field& f, const std::byte* value, std::uint32_t u);
// The whole field: one unit as is, several as "[a, b, ...]".
void append_field(std::string& out, const Field& f, const std::byte* value);
std::string field_text(const Field& f, const std::byte* value);

}  // namespace lockstep::inspect
