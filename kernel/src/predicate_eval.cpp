// Block evaluation of predicates (query_where.h): per atom, one tight loop over up to 64 rows
// of a column building a bit mask, specialised per element type and operator so the loop
// body is a load, a compare and an OR; the DNF is then combined on the masks. This keeps a
// one-field predicate close to a hand-written loop over the column (docs/query.md).
#include "access_check.h"

#include <lockstep/query/where.h>

#include <cstring>

namespace lockstep {

Status bind(const Predicate& p, const World& world, PredicateBinding& out) noexcept {
  for (std::uint32_t i = 0; i < p.atomCount(); ++i) {
    const std::int32_t id = world.componentIdByName(p.atomAt(i).field.type->name);
    out.component[i] = id < 0 ? PredicateBinding::kUnbound : static_cast<std::uint32_t>(id);
  }
  return p.status();
}

bool matches(const Predicate& p, const PredicateBinding& b, const World& world, Entity e) noexcept {
  if (!p.status().ok() || !world.alive(e)) return false;
  std::uint32_t bits = 0;
  for (std::uint32_t i = 0; i < p.atomCount(); ++i) {
    if (b.component[i] == PredicateBinding::kUnbound) continue;
    if (detail::atom_holds(p.atomAt(i), world.get_bytes(e, b.component[i]), false)) bits |= std::uint32_t{1} << i;
  }
  return p.evaluate(bits);
}

namespace detail {

Status check_predicate_access(const World& w, const Predicate& p, const PredicateBinding& b,
                              const FieldRef* order_field) noexcept {
  const AccessSet* a = w.access();
  if (a == nullptr) return Status::Ok();
  for (std::uint32_t i = 0; i < p.atomCount(); ++i) {
    const std::uint32_t id = b.component[i];
    if (id != PredicateBinding::kUnbound && !a->allows(AccessKind::ReadComponent, id))
      return AccessCheck::violation(w, AccessKind::ReadComponent, id, Entity::null());
  }
  if (order_field != nullptr) {
    const std::int32_t id = w.componentIdByName(order_field->type->name);
    if (id >= 0 && !a->allows(AccessKind::ReadComponent, static_cast<std::uint32_t>(id)))
      return AccessCheck::violation(w, AccessKind::ReadComponent, static_cast<std::uint32_t>(id), Entity::null());
  }
  return Status::Ok();
}

namespace {

template <class S, class C, CompareOp Op>
std::uint64_t mask_loop(const std::byte* base, std::size_t stride, std::uint32_t n, C c) noexcept {
  std::uint64_t m = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    S s;
    std::memcpy(&s, base + i * stride, sizeof s);
    const C v = static_cast<C>(s);
    bool t;
    if constexpr (Op == CompareOp::Eq) t = v == c;
    else if constexpr (Op == CompareOp::Ne) t = v != c;
    else if constexpr (Op == CompareOp::Lt) t = v < c;
    else if constexpr (Op == CompareOp::Le) t = v <= c;
    else if constexpr (Op == CompareOp::Gt) t = v > c;
    else t = v >= c;
    m |= std::uint64_t{t} << i;
  }
  return m;
}

template <class S, class C>
std::uint64_t by_op(CompareOp op, const std::byte* base, std::size_t stride, std::uint32_t n, C c) noexcept {
  switch (op) {
    case CompareOp::Eq: return mask_loop<S, C, CompareOp::Eq>(base, stride, n, c);
    case CompareOp::Ne: return mask_loop<S, C, CompareOp::Ne>(base, stride, n, c);
    case CompareOp::Lt: return mask_loop<S, C, CompareOp::Lt>(base, stride, n, c);
    case CompareOp::Le: return mask_loop<S, C, CompareOp::Le>(base, stride, n, c);
    case CompareOp::Gt: return mask_loop<S, C, CompareOp::Gt>(base, stride, n, c);
    default: return mask_loop<S, C, CompareOp::Ge>(base, stride, n, c);
  }
}

// One atom over rows [0, n) of the column block starting at `base` (the row's component).
std::uint64_t atom_mask(const PredicateAtom& a, const std::byte* base, std::size_t stride, std::uint32_t n) noexcept {
  const FieldRef& f = a.field;
  const std::byte* p = base + f.offset;
  if (a.kind == AtomKind::Compare) {
    if (f.kind == FieldKind::Entity) {
      std::uint64_t m = 0;
      for (std::uint32_t i = 0; i < n; ++i)
        m |= std::uint64_t{compare_values(field_value(f, base + i * stride, false), a.op, a.value)} << i;
      return m;
    }
    if (f.is_signed()) {
      const auto c = static_cast<std::int64_t>(a.value);
      switch (f.element_size) {
        case 1: return by_op<std::int8_t, std::int64_t>(a.op, p, stride, n, c);
        case 2: return by_op<std::int16_t, std::int64_t>(a.op, p, stride, n, c);
        case 4: return by_op<std::int32_t, std::int64_t>(a.op, p, stride, n, c);
        default: return by_op<std::int64_t, std::int64_t>(a.op, p, stride, n, c);
      }
    }
    switch (f.element_size) {
      case 1: return by_op<std::uint8_t, std::uint64_t>(a.op, p, stride, n, a.value);
      case 2: return by_op<std::uint16_t, std::uint64_t>(a.op, p, stride, n, a.value);
      case 4: return by_op<std::uint32_t, std::uint64_t>(a.op, p, stride, n, a.value);
      default: return by_op<std::uint64_t, std::uint64_t>(a.op, p, stride, n, a.value);
    }
  }
  std::uint64_t m = 0;
  for (std::uint32_t i = 0; i < n; ++i) m |= std::uint64_t{atom_holds(a, base + i * stride, false)} << i;
  return m;
}

}  // namespace

std::uint64_t predicate_block(const Predicate& p, const PredicateBinding& b, const Archetype& a, std::uint32_t begin,
                              std::uint32_t n) noexcept {
  if (!p.status().ok() || p.termCount() == 0) return 0;
  std::uint64_t atom[kMaxPredicateAtoms];
  for (std::uint32_t i = 0; i < p.atomCount(); ++i) {
    const std::uint32_t id = b.component[i];
    const std::uint8_t c = id == PredicateBinding::kUnbound ? kNoColumn : a.column_of[id];
    if (c == kNoColumn) {
      atom[i] = 0;
      continue;
    }
    const std::size_t stride = a.column_size[c];
    atom[i] = atom_mask(p.atomAt(i), a.column_ptr[c] + std::size_t{begin} * stride, stride, n);
  }
  const std::uint64_t all = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  std::uint64_t out = 0;
  for (std::uint32_t t = 0; t < p.termCount(); ++t) {
    std::uint64_t m = all;
    for (std::uint32_t bits = p.termAt(t).pos; bits != 0; bits &= bits - 1) m &= atom[std::countr_zero(bits)];
    for (std::uint32_t bits = p.termAt(t).neg; bits != 0; bits &= bits - 1) m &= ~atom[std::countr_zero(bits)];
    out |= m;
  }
  return out;
}

}  // namespace detail
}  // namespace lockstep
