#pragma once
// Field kinds: how one field of a component is read as canonical bytes, printed and diffed.
// A type opts in as a field by declaring, next to its data:
//   static constexpr lockstep::FieldKind lockstep_field_kind = lockstep::FieldKind::Fixed;
//   static constexpr std::size_t lockstep_element_size = 8;   // bytes of one scalar element
// (see fixed.h, vec.h, entity.h). Built-in integers, enums and bool are recognised directly.
#include <cstddef>
#include <cstdint>

namespace lockstep {

enum class FieldKind : std::uint8_t {
  SignedInt = 1,    // two's complement, little-endian in canonical form
  UnsignedInt = 2,  // little-endian in canonical form
  Fixed = 3,        // lockstep::fixed raw value (int64, 16 fractional bits)
  Bool = 4,         // one byte, 0 or 1
  Entity = 5,       // lockstep::Entity: two uint32 elements (slot, generation)
};

const char* to_string(FieldKind kind) noexcept;

// One field of a component/resource/input type, in declaration (= memory) order.
struct FieldDescriptor {
  const char* name;
  std::uint32_t offset;        // byte offset inside the type
  std::uint16_t element_size;  // 1, 2, 4 or 8: the unit that is byte-swapped for canonical form
  std::uint16_t count;         // number of elements (arrays, vectors); size = element_size * count
  FieldKind kind;

  constexpr std::uint32_t size() const noexcept { return std::uint32_t{element_size} * count; }
};

// The full description of a type declared with LOCKSTEP_COMPONENT.
struct TypeDescriptor {
  const char* name;
  std::uint32_t size;
  std::uint32_t align;
  const FieldDescriptor* fields;
  std::uint32_t field_count;
};

}  // namespace lockstep
