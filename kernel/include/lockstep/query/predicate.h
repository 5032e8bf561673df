#pragma once
// Field predicates (docs/query.md): comparisons on described component fields combined with
// AND / OR / NOT into a bounded disjunctive normal form, plus range helpers for vec2/vec3
// fields. One representation, two ways to build it:
//
//   typed:    Predicate p = field(&Team::owner) == 1 && field(&Health::hp) < 10;
//             Predicate q = within(field(&Position::p), vec2{0_fx, 0_fx}, 5_fx);
//   dynamic:  Predicate p;  PredicateError err;
//             Status s = compare(world, "Score.players[1].kills", CompareOp::Ge, "3", p, &err);
//
// and evaluated by the query layer (query_where.h: each_where, count_where, select).
//
// Semantics (exact, platform-independent):
//  * A comparison reads one leaf element and compares it mathematically with the constant:
//    integers in 64-bit signed or unsigned arithmetic (a constant outside the field's range
//    gives the mathematically right answer, e.g. `u8 < 300` is always true); `fixed` on its
//    raw value, so decimal text that is not a multiple of 2^-16 compares exactly too
//    (`x < 0.1` holds for every raw below the exact decimal); bool as 0/1; Entity by
//    (slot, generation), the order of Entity::operator<=>.
//  * inside(v, lo, hi): lo.k <= v.k <= hi.k for every component k (inclusive box).
//    within(v, c, r): Σ (v.k − c.k)² <= r², on raw values with a 128-bit sum — no rounding,
//    no overflow for ANY values; r < 0 matches nothing.
//  * An atom on a component the entity lacks is false; `!` is logical negation (so
//    `!(field(&Health::hp) < 10)` holds for an entity without Health). Predicates read the
//    stored value whether or not the component is enabled (use enabled<T> terms for that).
//  * Storage is fixed: at most kMaxPredicateAtoms distinct atoms and kMaxPredicateBranches
//    conjunctions after normalisation; a combination that would exceed either yields a
//    predicate whose status() is InvalidArgument (sticky through further combinations), and
//    evaluating it returns that status. Building, combining and evaluating never allocate.
#include <lockstep/store/component.h>
#include <lockstep/store/entity.h>
#include <lockstep/store/field.h>
#include <lockstep/math/fixed.h>
#include <lockstep/status.h>
#include <lockstep/math/vec.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace lockstep {

class World;

inline constexpr std::uint32_t kMaxPredicateAtoms = 32;
inline constexpr std::uint32_t kMaxPredicateBranches = 16;

enum class CompareOp : std::uint8_t { Eq = 0, Ne = 1, Lt = 2, Le = 3, Gt = 4, Ge = 5 };
const char* to_string(CompareOp op) noexcept;

// One leaf element (or, for range helpers, a whole vec2/vec3 field) of a component.
struct FieldRef {
  const TypeDescriptor* type = nullptr;  // the component; matched to a world by name
  std::uint32_t offset = 0;              // byte offset of the first element inside the component
  std::uint16_t element_size = 0;        // bytes per scalar element: 1, 2, 4 or 8
  std::uint16_t elements = 0;            // scalars read: 1; 2 for Entity (slot, gen); 2/3 for vectors
  FieldKind kind = FieldKind::UnsignedInt;
  friend constexpr bool operator==(const FieldRef&, const FieldRef&) = default;

  // A single comparable value (a scalar, or one Entity).
  constexpr bool scalar() const noexcept { return elements == (kind == FieldKind::Entity ? 2 : 1); }
  // Compared as signed 64-bit (SignedInt, Fixed) rather than unsigned 64-bit.
  constexpr bool is_signed() const noexcept { return kind == FieldKind::SignedInt || kind == FieldKind::Fixed; }
};

enum class AtomKind : std::uint8_t { Compare = 0, Box = 1, Radius = 2 };

struct PredicateAtom {
  FieldRef field;
  AtomKind kind = AtomKind::Compare;
  CompareOp op = CompareOp::Eq;
  std::uint64_t value = 0;  // Compare: int64 bits (signed fields) or uint64 (others; Entity: slot<<32|gen)
  std::int64_t a[3] = {};   // Box: inclusive lower corner; Radius: centre (raw fixed)
  std::int64_t b[3] = {};   // Box: inclusive upper corner; Radius: b[0] = radius (raw fixed)
  friend constexpr bool operator==(const PredicateAtom&, const PredicateAtom&) = default;
};

// One conjunction of the DNF: every atom in `pos` holds and no atom in `neg` holds.
struct PredicateTerm {
  std::uint32_t pos = 0;
  std::uint32_t neg = 0;
  friend constexpr bool operator==(const PredicateTerm&, const PredicateTerm&) = default;
};

class Predicate {
 public:
  // Default: always true (one empty conjunction).
  constexpr Predicate() noexcept = default;
  static Predicate always() noexcept { return Predicate{}; }
  static Predicate never() noexcept {
    Predicate p;
    p.term_count_ = 0;
    return p;
  }
  static Predicate atom(const PredicateAtom& a) noexcept;
  static Predicate failed(Status s) noexcept {
    Predicate p;
    p.status_ = s;
    return p;
  }

  Status status() const noexcept { return status_; }
  std::uint32_t atomCount() const noexcept { return atom_count_; }
  std::uint32_t termCount() const noexcept { return term_count_; }
  const PredicateAtom& atomAt(std::uint32_t i) const noexcept { return atoms_[i]; }
  const PredicateTerm& termAt(std::uint32_t i) const noexcept { return terms_[i]; }
  bool isAlways() const noexcept { return status_.ok() && term_count_ == 1 && terms_[0].pos == 0 && terms_[0].neg == 0; }

  friend Predicate operator&&(const Predicate& x, const Predicate& y) noexcept;
  friend Predicate operator||(const Predicate& x, const Predicate& y) noexcept;
  friend Predicate operator!(const Predicate& x) noexcept;

  // The DNF given per-atom truth values (bit i = atom i holds).
  bool evaluate(std::uint32_t atom_bits) const noexcept {
    for (std::uint32_t t = 0; t < term_count_; ++t)
      if ((atom_bits & terms_[t].pos) == terms_[t].pos && (atom_bits & terms_[t].neg) == 0) return true;
    return false;
  }

  // One row, by values: value_of(const TypeDescriptor&) returns the component's bytes or
  // null when the row lacks it. `canonical`: the bytes are canonical little-endian (an
  // inspect::State); else native (a live World).
  template <class ValueOf>
  bool test(ValueOf&& value_of, bool canonical) const;

 private:
  friend struct PredicateBuilder;
  PredicateAtom atoms_[kMaxPredicateAtoms];
  PredicateTerm terms_[kMaxPredicateBranches];
  std::uint32_t atom_count_ = 0;
  std::uint32_t term_count_ = 1;
  Status status_;
};

// ---- scalar evaluation (one row) --------------------------------------------------------

namespace detail {

// Element k (scalar index) of the value at `p` as zero-extended bits, native or canonical LE.
inline std::uint64_t load_element(const std::byte* p, std::uint32_t size, bool canonical) noexcept {
  std::uint64_t v = 0;
  if (canonical) {
    for (std::uint32_t i = size; i-- > 0;) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
    return v;
  }
  switch (size) {
    case 1: { std::uint8_t x; std::memcpy(&x, p, 1); return x; }
    case 2: { std::uint16_t x; std::memcpy(&x, p, 2); return x; }
    case 4: { std::uint32_t x; std::memcpy(&x, p, 4); return x; }
    default: { std::uint64_t x; std::memcpy(&x, p, 8); return x; }
  }
}

inline std::int64_t sign_extend(std::uint64_t bits, std::uint32_t size) noexcept {
  if (size >= 8) return static_cast<std::int64_t>(bits);
  const std::uint64_t sign = std::uint64_t{1} << (size * 8 - 1);
  return static_cast<std::int64_t>((bits ^ sign) - sign);
}

// The comparable 64-bit value of a scalar field element at `component + f.offset`:
// int64 bits for signed kinds, uint64 for the others (Entity: slot << 32 | generation).
inline std::uint64_t field_value(const FieldRef& f, const std::byte* component, bool canonical) noexcept {
  const std::byte* p = component + f.offset;
  if (f.kind == FieldKind::Entity)
    return (load_element(p, 4, canonical) << 32) | load_element(p + 4, 4, canonical);
  const std::uint64_t bits = load_element(p, f.element_size, canonical);
  return f.is_signed() ? static_cast<std::uint64_t>(sign_extend(bits, f.element_size)) : bits;
}

template <class C>
constexpr bool compare_values(C v, CompareOp op, C c) noexcept {
  switch (op) {
    case CompareOp::Eq: return v == c;
    case CompareOp::Ne: return v != c;
    case CompareOp::Lt: return v < c;
    case CompareOp::Le: return v <= c;
    case CompareOp::Gt: return v > c;
    default: return v >= c;
  }
}

// Exact: Σ (v_k − c_k)² <= r² over n raw int64 coordinates (128-bit, never overflows).
bool within_radius(const std::int64_t* v, const std::int64_t* c, std::uint32_t n, std::int64_t r) noexcept;
inline bool inside_box(const std::int64_t* v, const std::int64_t* lo, const std::int64_t* hi, std::uint32_t n) noexcept {
  for (std::uint32_t k = 0; k < n; ++k)
    if (v[k] < lo[k] || v[k] > hi[k]) return false;
  return true;
}

inline bool atom_holds(const PredicateAtom& a, const std::byte* component, bool canonical) noexcept {
  if (component == nullptr) return false;
  if (a.kind == AtomKind::Compare) {
    const std::uint64_t v = field_value(a.field, component, canonical);
    return a.field.is_signed()
               ? compare_values(static_cast<std::int64_t>(v), a.op, static_cast<std::int64_t>(a.value))
               : compare_values(v, a.op, a.value);
  }
  std::int64_t v[3] = {};
  for (std::uint32_t k = 0; k < a.field.elements && k < 3; ++k)
    v[k] = static_cast<std::int64_t>(load_element(component + a.field.offset + k * 8u, 8, canonical));
  return a.kind == AtomKind::Box ? inside_box(v, a.a, a.b, a.field.elements)
                                 : within_radius(v, a.a, a.field.elements, a.b[0]);
}

}  // namespace detail

template <class ValueOf>
bool Predicate::test(ValueOf&& value_of, bool canonical) const {
  if (!status_.ok() || term_count_ == 0) return false;
  std::uint32_t bits = 0;
  for (std::uint32_t i = 0; i < atom_count_; ++i)
    if (detail::atom_holds(atoms_[i], value_of(*atoms_[i].field.type), canonical)) bits |= std::uint32_t{1} << i;
  return evaluate(bits);
}

// ---- building atoms ----------------------------------------------------------------------

// A constant as written: an integer (sign + magnitude, so every int64 and uint64 is exact), a
// fixed-point value (raw, plus whether decimal text was exactly representable: when not,
// `floor_raw` is the raw just below it), or an Entity.
struct PredicateLiteral {
  enum class Kind : std::uint8_t { Integer, Fixed, Bool, Entity } kind = Kind::Integer;
  bool negative = false;
  std::uint64_t magnitude = 0;  // Integer
  std::int64_t raw = 0;         // Fixed: exact raw, or floor when !exact
  bool exact = true;
  bool flag = false;            // Bool
  Entity entity;                // Entity
};

// Comparison atom `f op literal`, normalised to exact 64-bit arithmetic (a constant outside
// the field's 64-bit domain becomes `always`/`never`). InvalidArgument when the literal's
// kind does not fit the field's kind (e.g. a decimal for an integer field) or f is not scalar.
Predicate compare(const FieldRef& f, CompareOp op, const PredicateLiteral& literal) noexcept;
// Range atoms on a whole vec2/vec3-shaped field (Fixed, 2 or 3 elements). Raw fixed values.
Predicate inside(const FieldRef& f, const std::int64_t* lo, const std::int64_t* hi) noexcept;
Predicate within(const FieldRef& f, const std::int64_t* centre, std::int64_t radius) noexcept;

// ---- dynamic form: field paths from strings ------------------------------------------------

// Where and why a path or literal was rejected (fixed storage: no allocation).
struct PredicateError {
  std::uint32_t column = 0;  // byte offset in the text that is wrong
  char message[160] = {};
};

// Resolves `path` (no type prefix) inside `type`: a leaf field name as the descriptor lists
// it (`hp`, `players[1].kills` for flattened nested fields), then optionally `[i]` for an
// element of an array field, `.x`/`.y`/`.z` for an element of a fixed vector (vec2/vec3),
// `.slot`/`.generation` for a part of an Entity. A vector field named whole resolves to a
// range-helper reference (elements 2 or 3). InvalidArgument with `err` filled otherwise.
Status resolve_field(const TypeDescriptor& type, std::string_view path, FieldRef& out,
                     PredicateError* err = nullptr) noexcept;
// "Type.path" against a world's registered components (NotRegistered for an unknown type).
Status resolve_field(const World& world, std::string_view path, FieldRef& out, PredicateError* err = nullptr) noexcept;

// Parses literal text for field `f`: integers (decimal, optional sign) for integer and enum
// fields, true/false for bool, exact decimals for fixed (`-12.5`, `1e3`), `SLOT:GEN` for
// Entity. InvalidArgument with `err` filled on anything else.
Status parse_literal(const FieldRef& f, std::string_view text, PredicateLiteral& out,
                     PredicateError* err = nullptr) noexcept;
// Exact decimal → floor raw Q47.16 and whether it was exact. False on bad syntax or a value
// outside the fixed range.
bool parse_fixed_exact(std::string_view text, std::int64_t& floor_raw, bool& exact) noexcept;

// Convenience: resolve + parse + compare. `out` = the atom predicate, or untouched on error.
Status compare(const World& world, std::string_view path, CompareOp op, std::string_view literal, Predicate& out,
               PredicateError* err = nullptr) noexcept;

// ---- typed form ----------------------------------------------------------------------------

namespace detail {
template <class T>
std::uint32_t member_offset_base(const T& probe, const void* member) noexcept {
  return static_cast<std::uint32_t>(reinterpret_cast<const unsigned char*>(member) -
                                    reinterpret_cast<const unsigned char*>(&probe));
}
template <class T>
const T& probe_object() noexcept {
  static_assert(std::is_default_constructible_v<T>, "field(): the component must be default-constructible");
  static const T probe{};
  return probe;
}
template <class T, class M>
FieldRef field_ref_of(std::uint32_t offset) noexcept {
  using U = std::remove_cv_t<M>;
  using E = std::remove_cv_t<typename ArrayElement<U>::type>;
  FieldRef r;
  r.type = &describe<T>();
  r.offset = offset;
  if constexpr (std::is_class_v<E> && !HasFieldKind<E>) {
    r.elements = 0;  // a nested struct (or an array of them): select a member first
  } else {
    using S = FieldShape<U>;
    r.element_size = static_cast<std::uint16_t>(S::element_size);
    r.elements = static_cast<std::uint16_t>(S::count);
    r.kind = S::kind;
  }
  return r;
}
template <class M>
constexpr bool is_vector_v = std::is_same_v<M, vec2> || std::is_same_v<M, vec3>;
}  // namespace detail

// A typed reference to member M of component T (possibly nested / an array element).
template <class T, class M>
struct TypedField {
  FieldRef ref;

  // Element i of an array member.
  template <class U = std::remove_cv_t<M>>
  auto at(std::uint32_t i) const noexcept {
    using E = std::remove_cv_t<typename std::remove_reference_t<decltype(std::declval<U&>()[0])>>;
    static_assert(std::is_array_v<U> || !std::is_same_v<U, E>, "at(): not an array member");
    TypedField<T, E> out;
    out.ref = detail::field_ref_of<T, E>(ref.offset + i * static_cast<std::uint32_t>(sizeof(E)));
    return out;
  }
  // Member N of the nested described struct (or vec2/vec3) M.
  template <class N, class MM = M>
    requires std::is_class_v<MM>
  TypedField<T, N> operator()(N MM::*member) const noexcept {
    const MM& probe = detail::probe_object<MM>();
    TypedField<T, N> out;
    out.ref = detail::field_ref_of<T, N>(ref.offset + detail::member_offset_base(probe, &(probe.*member)));
    return out;
  }
};


// field(&T::member): a typed field of component T.
template <class T, class M>
TypedField<T, M> field(M T::*member) noexcept {
  static_assert(Described<T>, "field(): the component must be declared with LOCKSTEP_COMPONENT");
  const T& probe = detail::probe_object<T>();
  TypedField<T, M> out;
  out.ref = detail::field_ref_of<T, M>(detail::member_offset_base(probe, &(probe.*member)));
  return out;
}

namespace detail {
template <class M, class V>
PredicateLiteral typed_literal(const V& v) noexcept {
  using U = std::remove_cv_t<M>;
  PredicateLiteral l;
  if constexpr (std::is_same_v<U, bool>) {
    static_assert(std::is_same_v<V, bool>, "compare a bool field with a bool");
    l.kind = PredicateLiteral::Kind::Bool;
    l.flag = v;
  } else if constexpr (std::is_same_v<U, fixed>) {
    static_assert(std::is_same_v<V, fixed>, "compare a fixed field with a fixed value (e.g. 10_fx)");
    l.kind = PredicateLiteral::Kind::Fixed;
    l.raw = v.raw();
  } else if constexpr (std::is_same_v<U, Entity>) {
    static_assert(std::is_same_v<V, Entity>, "compare an Entity field with an Entity");
    l.kind = PredicateLiteral::Kind::Entity;
    l.entity = v;
  } else if constexpr (std::is_enum_v<U>) {
    static_assert(std::is_same_v<V, U>, "compare an enum field with a value of the same enum");
    using Under = std::underlying_type_t<U>;
    const auto x = static_cast<Under>(v);
    l.negative = x < 0;
    l.magnitude = x < 0 ? 0 - static_cast<std::uint64_t>(x) : static_cast<std::uint64_t>(x);
  } else {
    static_assert(std::is_integral_v<U>, "comparisons need a scalar field (integer, enum, bool, fixed, Entity)");
    static_assert(std::is_integral_v<V> && !std::is_same_v<V, bool>, "compare an integer field with an integer");
    l.negative = v < 0;
    l.magnitude = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  }
  return l;
}
}  // namespace detail

#define LOCKSTEP_TYPED_COMPARE_(sym, opname)                                          \
  template <class T, class M, class V>                                                \
  Predicate operator sym(const TypedField<T, M>& f, const V& v) noexcept {           \
    return compare(f.ref, CompareOp::opname, detail::typed_literal<M>(v));            \
  }
LOCKSTEP_TYPED_COMPARE_(==, Eq)
LOCKSTEP_TYPED_COMPARE_(!=, Ne)
LOCKSTEP_TYPED_COMPARE_(<, Lt)
LOCKSTEP_TYPED_COMPARE_(<=, Le)
LOCKSTEP_TYPED_COMPARE_(>, Gt)
LOCKSTEP_TYPED_COMPARE_(>=, Ge)
#undef LOCKSTEP_TYPED_COMPARE_

template <class T, class M>
Predicate inside(const TypedField<T, M>& f, const M& lo, const M& hi) noexcept {
  static_assert(detail::is_vector_v<M>, "inside(): a vec2 or vec3 field");
  std::int64_t l[3] = {}, h[3] = {};
  l[0] = lo.x.raw(), l[1] = lo.y.raw(), h[0] = hi.x.raw(), h[1] = hi.y.raw();
  if constexpr (std::is_same_v<M, vec3>) l[2] = lo.z.raw(), h[2] = hi.z.raw();
  return inside(f.ref, l, h);
}
template <class T, class M>
Predicate within(const TypedField<T, M>& f, const M& centre, fixed radius) noexcept {
  static_assert(detail::is_vector_v<M>, "within(): a vec2 or vec3 field");
  std::int64_t c[3] = {};
  c[0] = centre.x.raw(), c[1] = centre.y.raw();
  if constexpr (std::is_same_v<M, vec3>) c[2] = centre.z.raw();
  return within(f.ref, c, radius.raw());
}

}  // namespace lockstep
