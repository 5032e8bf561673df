#pragma once
// LOCKSTEP_COMPONENT(Type, field1, field2, ...): declares a component's (or resource's, or
// input's) name and ordered field list next to the type. The world uses it for canonical
// (endian-independent) hashing, dumps, field-level diffs and schema hashes.
//
// Rules, all checked at compile time:
//  * Type is trivially copyable and has unique object representations (no padding bytes:
//    padding has indeterminate values, and hashing it would make peers disagree).
//  * The listed fields cover every byte of Type, in memory order, with no gaps.
//  * Each field is an integer, enum, bool, or a type with lockstep_field_kind (fixed, vec2,
//    vec3, Entity), or a C array / std::array of those. No float, double or plain char.
//  * A field may also be another type declared with LOCKSTEP_COMPONENT (declared first), or
//    an array of such types: `Input in[8]`. Its fields are flattened into the outer type's
//    descriptor as leaf fields with path names (`in[3].buttons`, `pos.x`), so hashing,
//    snapshots, dumps and diffs see ordinary leaf fields and their canonical bytes.
//
// Use it in the namespace of Type (found by argument-dependent lookup):
//   struct Pos { lockstep::fixed x, y; };
//   LOCKSTEP_COMPONENT(Pos, x, y)
#include <lockstep/store/field.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace lockstep {

// Satisfied by types declared with LOCKSTEP_COMPONENT.
template <class T>
concept Described = requires(const T* p) {
  { lockstep_describe(p) } -> std::same_as<const TypeDescriptor&>;
};

template <Described T>
const TypeDescriptor& describe() noexcept {
  return lockstep_describe(static_cast<const T*>(nullptr));
}

namespace detail {

template <class T, bool = std::is_enum_v<T>>
struct ScalarOf {
  using type = T;
};
template <class T>
struct ScalarOf<T, true> {
  using type = std::underlying_type_t<T>;
};

template <class T>
struct FieldShape {
  static_assert(!std::is_floating_point_v<T>,
                "lockstep: floating point is not allowed in simulation state "
                "(docs/determinism.md rule 1); use lockstep::fixed");
  static_assert(!std::is_same_v<T, char>,
                "lockstep: plain char has platform-dependent signedness; use int8_t or uint8_t");
  static constexpr bool known = std::is_integral_v<T> || std::is_enum_v<T>;
  static_assert(known, "lockstep: unsupported field type (integer, enum, bool, fixed, vec2, vec3, "
                       "Entity, or arrays of those)");
  using Scalar = typename ScalarOf<T>::type;
  static constexpr FieldKind kind = std::is_same_v<T, bool>  ? FieldKind::Bool
                                    : std::is_signed_v<Scalar> ? FieldKind::SignedInt
                                                               : FieldKind::UnsignedInt;
  static constexpr std::size_t element_size = sizeof(T);
  static constexpr std::size_t count = 1;
};

template <class T>
  requires requires {
    T::lockstep_field_kind;
    T::lockstep_element_size;
  }
struct FieldShape<T> {
  static constexpr FieldKind kind = T::lockstep_field_kind;
  static constexpr std::size_t element_size = T::lockstep_element_size;
  static constexpr std::size_t count = sizeof(T) / T::lockstep_element_size;
  static_assert(sizeof(T) % T::lockstep_element_size == 0);
};

template <class T, std::size_t N>
struct FieldShape<T[N]> {
  static constexpr FieldKind kind = FieldShape<T>::kind;
  static constexpr std::size_t element_size = FieldShape<T>::element_size;
  static constexpr std::size_t count = FieldShape<T>::count * N;
};

template <class T, std::size_t N>
struct FieldShape<std::array<T, N>> : FieldShape<T[N]> {
  static_assert(sizeof(std::array<T, N>) == sizeof(T[N]));
};

template <class T>
constexpr FieldDescriptor make_field(const char* name, std::size_t offset) noexcept {
  using S = FieldShape<std::remove_cv_t<T>>;
  static_assert(S::count <= 0xFFFF,
                "lockstep: a field may hold at most 65535 elements; split the array into several fields "
                "or several resources");
  return FieldDescriptor{name, static_cast<std::uint32_t>(offset),
                         static_cast<std::uint16_t>(S::element_size),
                         static_cast<std::uint16_t>(S::count), S::kind};
}

// True when the fields tile [0, size) exactly, in order.
template <std::size_t N>
constexpr bool fields_tile(const FieldDescriptor (&fields)[N], std::size_t size) noexcept {
  std::size_t at = 0;
  for (const FieldDescriptor& f : fields) {
    if (f.offset != at) return false;
    at += f.size();
  }
  return at == size;
}

// One listed field of a LOCKSTEP_COMPONENT before flattening: a leaf, or a described struct
// (or an array of them) whose own fields become leaves with path names.
struct FieldSpec {
  const char* name;
  std::uint32_t offset;
  std::uint32_t size;                             // bytes of the whole member
  FieldDescriptor leaf;                           // leaves only
  const TypeDescriptor& (*nested)() noexcept;     // described structs: their descriptor
  std::uint32_t nested_count;                     // number of struct elements
  bool nested_array;                              // name them name[i]
};

template <class T>
struct ArrayElement {
  using type = T;
  static constexpr std::size_t count = 1;
  static constexpr bool array = false;
};
template <class T, std::size_t N>
struct ArrayElement<T[N]> {
  using type = typename ArrayElement<T>::type;
  static constexpr std::size_t count = N * ArrayElement<T>::count;
  static constexpr bool array = true;
};
template <class T, std::size_t N>
struct ArrayElement<std::array<T, N>> : ArrayElement<T[N]> {
  static_assert(sizeof(std::array<T, N>) == sizeof(T[N]));
};

template <class T>
concept HasFieldKind = requires { T::lockstep_field_kind; };

template <class T>
constexpr FieldSpec make_spec(const char* name, std::size_t offset) noexcept {
  using U = std::remove_cv_t<T>;
  using E = std::remove_cv_t<typename ArrayElement<U>::type>;
  if constexpr (std::is_class_v<E> && !HasFieldKind<E> && Described<E>) {
    return FieldSpec{name, static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(sizeof(U)), FieldDescriptor{},
                     &describe<E>, static_cast<std::uint32_t>(ArrayElement<U>::count), ArrayElement<U>::array};
  } else {
    return FieldSpec{name, static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(sizeof(U)),
                     make_field<U>(name, offset), nullptr, 0, false};
  }
}

template <std::size_t N>
constexpr bool fields_tile(const FieldSpec (&fields)[N], std::size_t size) noexcept {
  std::size_t at = 0;
  for (const FieldSpec& f : fields) {
    if (f.offset != at) return false;
    at += f.size;
  }
  return at == size;
}

template <std::size_t N>
constexpr bool any_nested(const FieldSpec (&fields)[N]) noexcept {
  // nested_count, not the descriptor pointer: comparing a function's address with null is
  // not a constant expression under GCC's sanitizers.
  for (const FieldSpec& f : fields)
    if (f.nested_count != 0) return true;
  return false;
}

template <std::size_t N>
constexpr std::array<FieldDescriptor, N> leaf_fields(const FieldSpec (&fields)[N]) noexcept {
  std::array<FieldDescriptor, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = fields[i].leaf;
  return out;
}

// Builds the flattened descriptor of a type with nested described fields (once, at first
// use; kernel/src/flatten_fields.cpp). The storage lives as long as the program.
TypeDescriptor flatten_fields(const char* type_name, std::uint32_t size, std::uint32_t align, const FieldSpec* specs,
                              std::uint32_t count);

}  // namespace detail

// The checks every piece of simulation state must pass (components, resources, inputs).
template <class T>
constexpr void check_state_type() noexcept {
  static_assert(std::is_trivially_copyable_v<T>,
                "lockstep: simulation state must be trivially copyable (snapshots copy bytes)");
  static_assert(std::has_unique_object_representations_v<T>,
                "lockstep: this type has padding bytes (or floating-point members); padding holds "
                "indeterminate values, so hashes of equal states would differ between peers. "
                "Add explicit padding fields or reorder members (docs/determinism.md).");
  static_assert(Described<T>, "lockstep: declare the type's fields with LOCKSTEP_COMPONENT(Type, ...)");
}

}  // namespace lockstep

// ---- macro plumbing: apply M to each argument (up to 32) ----
#define LOCKSTEP_PP_CAT_(a, b) a##b
#define LOCKSTEP_PP_CAT(a, b) LOCKSTEP_PP_CAT_(a, b)
#define LOCKSTEP_PP_NARG(...) LOCKSTEP_PP_NARG_(__VA_ARGS__, LOCKSTEP_PP_RSEQ())
#define LOCKSTEP_PP_NARG_(...) LOCKSTEP_PP_ARG_N(__VA_ARGS__)
#define LOCKSTEP_PP_ARG_N(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \
                          _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30,  \
                          _31, _32, N, ...)                                                      \
  N
#define LOCKSTEP_PP_RSEQ()                                                                      \
  32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, \
      8, 7, 6, 5, 4, 3, 2, 1, 0
#define LOCKSTEP_PP_EACH_1(M, x) M(x)
#define LOCKSTEP_PP_EACH_2(M, x, ...) M(x), LOCKSTEP_PP_EACH_1(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_3(M, x, ...) M(x), LOCKSTEP_PP_EACH_2(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_4(M, x, ...) M(x), LOCKSTEP_PP_EACH_3(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_5(M, x, ...) M(x), LOCKSTEP_PP_EACH_4(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_6(M, x, ...) M(x), LOCKSTEP_PP_EACH_5(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_7(M, x, ...) M(x), LOCKSTEP_PP_EACH_6(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_8(M, x, ...) M(x), LOCKSTEP_PP_EACH_7(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_9(M, x, ...) M(x), LOCKSTEP_PP_EACH_8(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_10(M, x, ...) M(x), LOCKSTEP_PP_EACH_9(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_11(M, x, ...) M(x), LOCKSTEP_PP_EACH_10(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_12(M, x, ...) M(x), LOCKSTEP_PP_EACH_11(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_13(M, x, ...) M(x), LOCKSTEP_PP_EACH_12(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_14(M, x, ...) M(x), LOCKSTEP_PP_EACH_13(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_15(M, x, ...) M(x), LOCKSTEP_PP_EACH_14(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_16(M, x, ...) M(x), LOCKSTEP_PP_EACH_15(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_17(M, x, ...) M(x), LOCKSTEP_PP_EACH_16(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_18(M, x, ...) M(x), LOCKSTEP_PP_EACH_17(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_19(M, x, ...) M(x), LOCKSTEP_PP_EACH_18(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_20(M, x, ...) M(x), LOCKSTEP_PP_EACH_19(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_21(M, x, ...) M(x), LOCKSTEP_PP_EACH_20(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_22(M, x, ...) M(x), LOCKSTEP_PP_EACH_21(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_23(M, x, ...) M(x), LOCKSTEP_PP_EACH_22(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_24(M, x, ...) M(x), LOCKSTEP_PP_EACH_23(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_25(M, x, ...) M(x), LOCKSTEP_PP_EACH_24(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_26(M, x, ...) M(x), LOCKSTEP_PP_EACH_25(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_27(M, x, ...) M(x), LOCKSTEP_PP_EACH_26(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_28(M, x, ...) M(x), LOCKSTEP_PP_EACH_27(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_29(M, x, ...) M(x), LOCKSTEP_PP_EACH_28(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_30(M, x, ...) M(x), LOCKSTEP_PP_EACH_29(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_31(M, x, ...) M(x), LOCKSTEP_PP_EACH_30(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH_32(M, x, ...) M(x), LOCKSTEP_PP_EACH_31(M, __VA_ARGS__)
#define LOCKSTEP_PP_EACH(M, ...) \
  LOCKSTEP_PP_CAT(LOCKSTEP_PP_EACH_, LOCKSTEP_PP_NARG(__VA_ARGS__))(M, __VA_ARGS__)

#define LOCKSTEP_FIELD_ENTRY_(f) \
  ::lockstep::detail::make_spec<decltype(LockstepSelf_::f)>(#f, offsetof(LockstepSelf_, f))

// The descriptor's name is the type as written (`Pos`); it identifies the type in snapshot
// files, checkpoints, traces and replays, so a world refuses two types with the same name
// (World::registerComponent → AlreadyRegistered). Two same-named types in different
// namespaces take distinct names with LOCKSTEP_COMPONENT_NAMED(Pos, "physics.Pos", x, y).
#define LOCKSTEP_COMPONENT(Type, ...) LOCKSTEP_COMPONENT_NAMED(Type, #Type, __VA_ARGS__)
#define LOCKSTEP_COMPONENT_NAMED(Type, Name, ...)                                              \
  [[maybe_unused]] inline const ::lockstep::TypeDescriptor& lockstep_describe(const Type*) noexcept { \
    using LockstepSelf_ = Type;                                                                \
    static constexpr ::lockstep::detail::FieldSpec specs[] = {                                 \
        LOCKSTEP_PP_EACH(LOCKSTEP_FIELD_ENTRY_, __VA_ARGS__)};                                 \
    static_assert(::lockstep::detail::fields_tile(specs, sizeof(Type)),                        \
                  "LOCKSTEP_COMPONENT(" #Type "): the listed fields must cover every byte of "  \
                  "the type, in declaration order, with no gaps (padding breaks hashing)");    \
    constexpr std::uint32_t count = static_cast<std::uint32_t>(sizeof(specs) / sizeof(specs[0])); \
    if constexpr (!::lockstep::detail::any_nested(specs)) {                                    \
      static constexpr auto fields = ::lockstep::detail::leaf_fields(specs);                   \
      static constexpr ::lockstep::TypeDescriptor descriptor{                                  \
          Name, static_cast<std::uint32_t>(sizeof(Type)),                                     \
          static_cast<std::uint32_t>(alignof(Type)), fields.data(), count};                    \
      return descriptor;                                                                       \
    } else {                                                                                   \
      static const ::lockstep::TypeDescriptor descriptor = ::lockstep::detail::flatten_fields( \
          Name, static_cast<std::uint32_t>(sizeof(Type)),                                     \
          static_cast<std::uint32_t>(alignof(Type)), specs, count);                            \
      return descriptor;                                                                       \
    }                                                                                          \
  }                                                                                            \
  static_assert(true)
