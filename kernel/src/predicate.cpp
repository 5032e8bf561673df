// Field predicates (predicate.h): building atoms with exact constants, the bounded DNF
// combinators, field paths and literals from text. Nothing here allocates.
#include <lockstep/query/predicate.h>
#include <lockstep/store/world.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>

namespace lockstep {

const char* to_string(CompareOp op) noexcept {
  switch (op) {
    case CompareOp::Eq: return "==";
    case CompareOp::Ne: return "!=";
    case CompareOp::Lt: return "<";
    case CompareOp::Le: return "<=";
    case CompareOp::Gt: return ">";
    default: return ">=";
  }
}

namespace detail {

namespace {
struct Wide {  // unsigned 128-bit (hi, lo)
  std::uint64_t hi = 0, lo = 0;
};
Wide square(std::uint64_t d) noexcept {
  const u128 p = umul64(d, d);
  return {p.hi, p.lo};
}
bool wide_less(Wide a, Wide b) noexcept { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }
Wide wide_sub(Wide a, Wide b) noexcept {  // a >= b
  const std::uint64_t borrow = a.lo < b.lo ? 1 : 0;
  return {a.hi - b.hi - borrow, a.lo - b.lo};
}
Wide wide_add(Wide a, Wide b) noexcept {  // no overflow (checked by the caller)
  const std::uint64_t lo = a.lo + b.lo;
  return {a.hi + b.hi + (lo < a.lo ? 1 : 0), lo};
}
}  // namespace

bool within_radius(const std::int64_t* v, const std::int64_t* c, std::uint32_t n, std::int64_t r) noexcept {
  if (r < 0) return false;
  // |v − c| as an unsigned magnitude is exact (the true difference is below 2^64); each
  // square fits 128 bits; the running sum never exceeds r² < 2^126, so nothing overflows.
  const Wide r2 = square(static_cast<std::uint64_t>(r));
  Wide sum;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint64_t a = static_cast<std::uint64_t>(v[k]), b = static_cast<std::uint64_t>(c[k]);
    const std::uint64_t d = v[k] >= c[k] ? a - b : b - a;
    const Wide sq = square(d);
    if (wide_less(wide_sub(r2, sum), sq)) return false;
    sum = wide_add(sum, sq);
  }
  return true;
}

}  // namespace detail

// ---- DNF combinators -----------------------------------------------------------------------

struct PredicateBuilder {
  static Predicate fail(const char* why) noexcept { return Predicate::failed({ErrorCode::InvalidArgument, why}); }

  // Adds `a` to p's atom table (deduplicated); returns its index or -1 when full.
  static int intern(Predicate& p, const PredicateAtom& a) noexcept {
    for (std::uint32_t i = 0; i < p.atom_count_; ++i)
      if (p.atoms_[i] == a) return static_cast<int>(i);
    if (p.atom_count_ == kMaxPredicateAtoms) return -1;
    p.atoms_[p.atom_count_] = a;
    return static_cast<int>(p.atom_count_++);
  }
  static std::uint32_t remap(std::uint32_t bits, const int* map) noexcept {
    std::uint32_t out = 0;
    while (bits != 0) {
      const int i = std::countr_zero(bits);
      bits &= bits - 1;
      out |= std::uint32_t{1} << map[i];
    }
    return out;
  }
  // x's table extended with y's atoms; map[i] = index of y's atom i. False when over the cap.
  static bool merge_atoms(Predicate& out, const Predicate& y, int* map) noexcept {
    for (std::uint32_t i = 0; i < y.atom_count_; ++i) {
      map[i] = intern(out, y.atoms_[i]);
      if (map[i] < 0) return false;
    }
    return true;
  }
  // Adds a term unless contradictory, subsumed or a duplicate; drops terms it subsumes.
  // False when the result would exceed kMaxPredicateBranches.
  static bool add_term(PredicateTerm* terms, std::uint32_t& n, PredicateTerm t) noexcept {
    if ((t.pos & t.neg) != 0) return true;
    for (std::uint32_t i = 0; i < n; ++i)
      if ((terms[i].pos & t.pos) == terms[i].pos && (terms[i].neg & t.neg) == terms[i].neg) return true;
    std::uint32_t kept = 0;
    for (std::uint32_t i = 0; i < n; ++i)
      if (!((t.pos & terms[i].pos) == t.pos && (t.neg & terms[i].neg) == t.neg)) terms[kept++] = terms[i];
    n = kept;
    if (n == kMaxPredicateBranches) return false;
    terms[n++] = t;
    return true;
  }
  // Drops atoms no term references (keeps the table and the evaluation small).
  static void compact(Predicate& p) noexcept {
    std::uint32_t used = 0;
    for (std::uint32_t t = 0; t < p.term_count_; ++t) used |= p.terms_[t].pos | p.terms_[t].neg;
    int map[kMaxPredicateAtoms];
    std::uint32_t n = 0;
    for (std::uint32_t i = 0; i < p.atom_count_; ++i) {
      if ((used >> i) & 1u) {
        map[i] = static_cast<int>(n);
        p.atoms_[n++] = p.atoms_[i];
      } else {
        map[i] = -1;
      }
    }
    p.atom_count_ = n;
    for (std::uint32_t t = 0; t < p.term_count_; ++t)
      p.terms_[t] = {remap(p.terms_[t].pos, map), remap(p.terms_[t].neg, map)};
  }

  static Predicate conj(const Predicate& x, const Predicate& y) noexcept {
    if (!x.status_.ok()) return x;
    if (!y.status_.ok()) return y;
    Predicate out = x;
    int map[kMaxPredicateAtoms];
    if (!merge_atoms(out, y, map)) return fail("predicate: more than kMaxPredicateAtoms (32) distinct atoms");
    PredicateTerm terms[kMaxPredicateBranches];
    std::uint32_t n = 0;
    for (std::uint32_t i = 0; i < x.term_count_; ++i)
      for (std::uint32_t j = 0; j < y.term_count_; ++j) {
        const PredicateTerm t{x.terms_[i].pos | remap(y.terms_[j].pos, map), x.terms_[i].neg | remap(y.terms_[j].neg, map)};
        if (!add_term(terms, n, t)) return fail("predicate: normalises to more than kMaxPredicateBranches (16) DNF branches");
      }
    std::memcpy(out.terms_, terms, sizeof(PredicateTerm) * n);
    out.term_count_ = n;
    compact(out);
    return out;
  }

  static Predicate disj(const Predicate& x, const Predicate& y) noexcept {
    if (!x.status_.ok()) return x;
    if (!y.status_.ok()) return y;
    Predicate out = x;
    int map[kMaxPredicateAtoms];
    if (!merge_atoms(out, y, map)) return fail("predicate: more than kMaxPredicateAtoms (32) distinct atoms");
    PredicateTerm terms[kMaxPredicateBranches];
    std::uint32_t n = 0;
    for (std::uint32_t i = 0; i < x.term_count_; ++i) (void)add_term(terms, n, x.terms_[i]);
    for (std::uint32_t j = 0; j < y.term_count_; ++j)
      if (!add_term(terms, n, {remap(y.terms_[j].pos, map), remap(y.terms_[j].neg, map)}))
        return fail("predicate: normalises to more than kMaxPredicateBranches (16) DNF branches");
    std::memcpy(out.terms_, terms, sizeof(PredicateTerm) * n);
    out.term_count_ = n;
    compact(out);
    return out;
  }

  // De Morgan: ¬(t₁ ∨ … ∨ tₙ) = ∧ᵢ ∨_{ℓ ∈ tᵢ} ¬ℓ, distributed back into a DNF.
  static Predicate negate(const Predicate& x) noexcept {
    if (!x.status_.ok()) return x;
    PredicateTerm acc[kMaxPredicateBranches];
    std::uint32_t n = 1;
    acc[0] = {};
    for (std::uint32_t i = 0; i < x.term_count_; ++i) {
      const PredicateTerm t = x.terms_[i];
      PredicateTerm next[kMaxPredicateBranches];
      std::uint32_t m = 0;
      for (std::uint32_t k = 0; k < n; ++k) {
        for (std::uint32_t bits = t.pos; bits != 0; bits &= bits - 1)
          if (!add_term(next, m, {acc[k].pos, acc[k].neg | (std::uint32_t{1} << std::countr_zero(bits))}))
            return fail("predicate: normalises to more than kMaxPredicateBranches (16) DNF branches");
        for (std::uint32_t bits = t.neg; bits != 0; bits &= bits - 1)
          if (!add_term(next, m, {acc[k].pos | (std::uint32_t{1} << std::countr_zero(bits)), acc[k].neg}))
            return fail("predicate: normalises to more than kMaxPredicateBranches (16) DNF branches");
      }
      std::memcpy(acc, next, sizeof(PredicateTerm) * m);
      n = m;
    }
    Predicate out = x;
    std::memcpy(out.terms_, acc, sizeof(PredicateTerm) * n);
    out.term_count_ = n;
    compact(out);
    return out;
  }
};

Predicate Predicate::atom(const PredicateAtom& a) noexcept {
  Predicate p;
  p.atoms_[0] = a;
  p.atom_count_ = 1;
  p.terms_[0] = {1u, 0u};
  return p;
}

Predicate operator&&(const Predicate& x, const Predicate& y) noexcept { return PredicateBuilder::conj(x, y); }
Predicate operator||(const Predicate& x, const Predicate& y) noexcept { return PredicateBuilder::disj(x, y); }
Predicate operator!(const Predicate& x) noexcept { return PredicateBuilder::negate(x); }

// ---- atoms -----------------------------------------------------------------------------------

namespace {

Predicate invalid(const char* why) noexcept { return Predicate::failed({ErrorCode::InvalidArgument, why}); }

// "Every present value is below / above the constant": an in-domain comparison that is
// always / never true for a present value, so an absent component still fails the atom.
Predicate every(const FieldRef& f, bool value_below_constant, CompareOp op) noexcept {
  bool truth = false;
  switch (op) {
    case CompareOp::Eq: truth = false; break;
    case CompareOp::Ne: truth = true; break;
    case CompareOp::Lt:
    case CompareOp::Le: truth = value_below_constant; break;
    default: truth = !value_below_constant; break;
  }
  PredicateAtom a;
  a.field = f;
  a.op = truth ? CompareOp::Le : CompareOp::Gt;
  a.value = f.is_signed() ? static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                          : std::numeric_limits<std::uint64_t>::max();
  return Predicate::atom(a);
}

Predicate atom_of(const FieldRef& f, CompareOp op, std::uint64_t value) noexcept {
  PredicateAtom a;
  a.field = f;
  a.op = op;
  a.value = value;
  return Predicate::atom(a);
}

constexpr std::uint64_t kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

}  // namespace

Predicate compare(const FieldRef& f, CompareOp op, const PredicateLiteral& l) noexcept {
  using K = PredicateLiteral::Kind;
  if (f.type == nullptr) return invalid("predicate: field without a type");
  if (!f.scalar()) return invalid("predicate: comparisons need one scalar element (index an array or vector)");
  switch (f.kind) {
    case FieldKind::SignedInt:
    case FieldKind::UnsignedInt: {
      if (l.kind != K::Integer) return invalid("predicate: an integer field needs an integer constant");
      if (f.kind == FieldKind::UnsignedInt) {
        if (l.negative && l.magnitude != 0) return every(f, false, op);
        return atom_of(f, op, l.magnitude);
      }
      if (l.negative) {
        if (l.magnitude > kInt64Max + 1) return every(f, false, op);
        return atom_of(f, op, 0 - l.magnitude);
      }
      if (l.magnitude > kInt64Max) return every(f, true, op);
      return atom_of(f, op, l.magnitude);
    }
    case FieldKind::Bool: {
      if (l.kind == K::Bool) return atom_of(f, op, l.flag ? 1u : 0u);
      if (l.kind == K::Integer && (l.magnitude <= 1) && !(l.negative && l.magnitude != 0))
        return atom_of(f, op, l.magnitude);
      return invalid("predicate: a bool field needs true or false");
    }
    case FieldKind::Fixed: {
      std::int64_t raw = 0;
      bool exact = true;
      if (l.kind == K::Fixed) {
        raw = l.raw;
        exact = l.exact;
      } else if (l.kind == K::Integer) {
        // Integers outside ±2^47 are outside the fixed range: every value is below/above.
        if (l.magnitude > (std::uint64_t{1} << 47) || (!l.negative && l.magnitude == (std::uint64_t{1} << 47)))
          return every(f, !l.negative, op);
        const std::int64_t i = l.negative ? -static_cast<std::int64_t>(l.magnitude) : static_cast<std::int64_t>(l.magnitude);
        raw = static_cast<std::int64_t>(static_cast<std::uint64_t>(i) << 16);
      } else {
        return invalid("predicate: a fixed field needs a number");
      }
      if (exact) return atom_of(f, op, static_cast<std::uint64_t>(raw));
      // The constant lies strictly between raw and raw + 1.
      switch (op) {
        case CompareOp::Eq: return every(f, true, CompareOp::Eq);
        case CompareOp::Ne: return every(f, true, CompareOp::Ne);
        case CompareOp::Lt:
        case CompareOp::Le: return atom_of(f, CompareOp::Le, static_cast<std::uint64_t>(raw));
        default:
          if (raw == std::numeric_limits<std::int64_t>::max()) return every(f, true, CompareOp::Gt);
          return atom_of(f, CompareOp::Ge, static_cast<std::uint64_t>(raw + 1));
      }
    }
    case FieldKind::Entity: {
      if (l.kind != K::Entity) return invalid("predicate: an Entity field needs an entity constant (SLOT:GEN)");
      return atom_of(f, op, (std::uint64_t{l.entity.slot} << 32) | l.entity.generation);
    }
  }
  return invalid("predicate: unknown field kind");
}

namespace {
bool vector_shaped(const FieldRef& f) noexcept {
  return f.type != nullptr && f.kind == FieldKind::Fixed && f.element_size == 8 && (f.elements == 2 || f.elements == 3);
}
}  // namespace

Predicate inside(const FieldRef& f, const std::int64_t* lo, const std::int64_t* hi) noexcept {
  if (!vector_shaped(f)) return invalid("predicate: inside() needs a vec2/vec3 field (2 or 3 fixed elements)");
  PredicateAtom a;
  a.field = f;
  a.kind = AtomKind::Box;
  for (std::uint32_t k = 0; k < f.elements; ++k) a.a[k] = lo[k], a.b[k] = hi[k];
  return Predicate::atom(a);
}

Predicate within(const FieldRef& f, const std::int64_t* centre, std::int64_t radius) noexcept {
  if (!vector_shaped(f)) return invalid("predicate: within() needs a vec2/vec3 field (2 or 3 fixed elements)");
  PredicateAtom a;
  a.field = f;
  a.kind = AtomKind::Radius;
  for (std::uint32_t k = 0; k < f.elements; ++k) a.a[k] = centre[k];
  a.b[0] = radius;
  return Predicate::atom(a);
}

// ---- text: paths and literals ----------------------------------------------------------------

namespace {

Status path_error(PredicateError* err, std::uint32_t column, ErrorCode code, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
Status path_error(PredicateError* err, std::uint32_t column, ErrorCode code, const char* fmt, ...) {
  if (err != nullptr) {
    err->column = column;
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(err->message, sizeof err->message, fmt, args);
    va_end(args);
  }
  return {code, code == ErrorCode::NotRegistered ? "predicate: unknown component" : "predicate: bad field path or constant"};
}

const FieldDescriptor* find_field(const TypeDescriptor& t, std::string_view name) noexcept {
  for (std::uint32_t i = 0; i < t.field_count; ++i)
    if (name == t.fields[i].name) return &t.fields[i];
  return nullptr;
}

FieldRef whole(const TypeDescriptor& t, const FieldDescriptor& f) noexcept {
  FieldRef r;
  r.type = &t;
  r.offset = f.offset;
  r.element_size = f.element_size;
  r.elements = f.count;
  r.kind = f.kind;
  return r;
}

bool parse_u64(std::string_view s, std::uint64_t& out) noexcept {
  if (s.empty()) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

void list_fields(const TypeDescriptor& t, char* out, std::size_t size) noexcept {
  std::size_t at = 0;
  out[0] = '\0';
  for (std::uint32_t i = 0; i < t.field_count && at + 1 < size; ++i) {
    const int n = std::snprintf(out + at, size - at, "%s%s", i == 0 ? "" : ", ", t.fields[i].name);
    if (n < 0) break;
    at += static_cast<std::size_t>(n);
  }
}

}  // namespace

Status resolve_field(const TypeDescriptor& type, std::string_view path, FieldRef& out, PredicateError* err) noexcept {
  if (const FieldDescriptor* f = find_field(type, path)) {
    out = whole(type, *f);
    return Status::Ok();
  }
  const std::uint32_t len = static_cast<std::uint32_t>(path.size());
  // NAME[i]: one element (one Entity for Entity arrays).
  if (!path.empty() && path.back() == ']') {
    const std::size_t open = path.rfind('[');
    if (open != std::string_view::npos && open > 0) {
      const FieldDescriptor* f = find_field(type, path.substr(0, open));
      if (f != nullptr) {
        std::uint64_t i = 0;
        const std::string_view digits = path.substr(open + 1, path.size() - open - 2);
        if (!parse_u64(digits, i))
          return path_error(err, static_cast<std::uint32_t>(open + 1), ErrorCode::InvalidArgument,
                            "expected an element index (digits) in '%.*s'", static_cast<int>(len), path.data());
        const std::uint32_t unit = f->kind == FieldKind::Entity ? 2u : 1u;
        const std::uint32_t units = f->count / unit;
        if (i >= units)
          return path_error(err, static_cast<std::uint32_t>(open + 1), ErrorCode::InvalidArgument,
                            "index %llu out of range: %s.%s has %u element(s)", static_cast<unsigned long long>(i),
                            type.name, f->name, units);
        out = whole(type, *f);
        out.offset = f->offset + static_cast<std::uint32_t>(i) * unit * f->element_size;
        out.elements = static_cast<std::uint16_t>(unit);
        return Status::Ok();
      }
    }
  }
  // NAME.x / .y / .z (fixed vectors), NAME.slot / .generation (Entity).
  const std::size_t dot = path.rfind('.');
  if (dot != std::string_view::npos && dot > 0) {
    const FieldDescriptor* f = find_field(type, path.substr(0, dot));
    const std::string_view part = path.substr(dot + 1);
    if (f != nullptr) {
      if (f->kind == FieldKind::Fixed && (f->count == 2 || f->count == 3) && part.size() == 1 &&
          part[0] >= 'x' && part[0] <= 'z' && static_cast<std::uint32_t>(part[0] - 'x') < f->count) {
        out = whole(type, *f);
        out.offset = f->offset + static_cast<std::uint32_t>(part[0] - 'x') * 8u;
        out.elements = 1;
        return Status::Ok();
      }
      if (f->kind == FieldKind::Entity && f->count == 2 && (part == "slot" || part == "generation" || part == "gen")) {
        out = whole(type, *f);
        out.kind = FieldKind::UnsignedInt;
        out.offset = f->offset + (part == "slot" ? 0u : 4u);
        out.elements = 1;
        return Status::Ok();
      }
      return path_error(err, static_cast<std::uint32_t>(dot + 1), ErrorCode::InvalidArgument,
                        "%s.%s has no part '%.*s' (x/y/z for a vector, slot/generation for an Entity)", type.name,
                        f->name, static_cast<int>(part.size()), part.data());
    }
  }
  char fields[120];
  list_fields(type, fields, sizeof fields);
  return path_error(err, 0, ErrorCode::InvalidArgument, "%s has no field '%.*s' (fields: %s)", type.name,
                    static_cast<int>(len), path.data(), fields);
}

Status resolve_field(const World& world, std::string_view path, FieldRef& out, PredicateError* err) noexcept {
  // Type names may contain dots ("physics.Pos"): the first registered prefix wins.
  char name[128];
  for (std::size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.', dot + 1)) {
    if (dot >= sizeof name) break;
    std::memcpy(name, path.data(), dot);
    name[dot] = '\0';
    const std::int32_t id = world.componentIdByName(name);
    if (id < 0) continue;
    const Status s = resolve_field(world.componentDescriptor(static_cast<std::uint32_t>(id)), path.substr(dot + 1), out, err);
    if (!s.ok() && err != nullptr) err->column += static_cast<std::uint32_t>(dot + 1);
    return s;
  }
  const std::size_t dot = path.find('.');
  const std::size_t n = dot == std::string_view::npos ? path.size() : dot;
  if (dot == std::string_view::npos)
    return path_error(err, 0, ErrorCode::InvalidArgument, "expected Component.field, got '%.*s'",
                      static_cast<int>(path.size()), path.data());
  return path_error(err, 0, ErrorCode::NotRegistered, "no component named '%.*s'", static_cast<int>(n), path.data());
}

bool parse_fixed_exact(std::string_view s, std::int64_t& floor_raw, bool& exact) noexcept {
  std::size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  // Mantissa digits (leading zeros dropped) and the position of the point.
  constexpr std::size_t kMaxDigits = 96;
  char digits[kMaxDigits];
  std::size_t nd = 0;
  long point = -1;  // digits before the point, -1 = no point yet
  bool any = false;
  long dropped_leading = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (nd == 0 && c == '0') {
        if (point < 0) ++dropped_leading;  // integer-part leading zero: irrelevant
        else digits[nd++] = c;             // fraction zero: keeps the position
        continue;
      }
      if (nd == kMaxDigits) return false;
      digits[nd++] = c;
    } else if (c == '.' && point < 0) {
      point = static_cast<long>(nd);
    } else {
      break;
    }
  }
  if (!any) return false;
  if (point < 0) point = static_cast<long>(nd);
  long exp10 = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    std::uint64_t e = 0;
    if (!parse_u64(s.substr(i), e) || e > 400) return false;
    exp10 = eneg ? -static_cast<long>(e) : static_cast<long>(e);
    i = s.size();
  }
  if (i != s.size()) return false;
  point += exp10;  // digits[0, point) are the integer part (point may be < 0 or > nd)
  // Integer part.
  std::uint64_t ip = 0;
  for (long k = 0; k < point; ++k) {
    const std::uint64_t d = k < static_cast<long>(nd) ? static_cast<std::uint64_t>(digits[k] - '0') : 0;
    if (ip > ((std::uint64_t{1} << 48) - d) / 10) return false;  // far outside the range anyway
    ip = ip * 10 + d;
  }
  // Fraction × 65536 by long multiplication over the fraction digits (right to left).
  std::uint64_t carry = 0;
  bool nonzero_rest = false;
  const long first = point < 0 ? 0 : point;
  const long lead_zeros = point < 0 ? -point : 0;  // fraction digits before digits[0]
  if (lead_zeros > static_cast<long>(kMaxDigits) * 4) {
    for (std::size_t k = 0; k < nd; ++k) nonzero_rest |= digits[k] != '0';
  } else {
    for (long k = static_cast<long>(nd) - 1; k >= first; --k) {
      const std::uint64_t prod = static_cast<std::uint64_t>(digits[k] - '0') * 65536u + carry;
      nonzero_rest |= (prod % 10) != 0;
      carry = prod / 10;
    }
    for (long k = 0; k < lead_zeros; ++k) {
      nonzero_rest |= (carry % 10) != 0;
      carry /= 10;
    }
  }
  const std::uint64_t frac = carry;  // floor(fraction × 65536), < 65536
  exact = !nonzero_rest;
  if (ip > (std::uint64_t{1} << 47)) return false;
  const std::uint64_t mag = (ip << 16) + frac;  // exact magnitude floor, < 2^64
  if (!neg) {
    if (mag > kInt64Max) return false;
    floor_raw = static_cast<std::int64_t>(mag);
    return true;
  }
  // −(mag + ε): floor is −mag when exact, −mag − 1 otherwise.
  const std::uint64_t m = mag + (exact ? 0 : 1);
  if (m > kInt64Max + 1) return false;
  floor_raw = static_cast<std::int64_t>(0 - m);
  return true;
}

Status parse_literal(const FieldRef& f, std::string_view t, PredicateLiteral& out, PredicateError* err) noexcept {
  PredicateLiteral l;
  const int n = static_cast<int>(t.size());
  switch (f.kind) {
    case FieldKind::SignedInt:
    case FieldKind::UnsignedInt: {
      std::string_view d = t;
      if (!d.empty() && (d[0] == '-' || d[0] == '+')) {
        l.negative = d[0] == '-';
        d.remove_prefix(1);
      }
      if (!parse_u64(d, l.magnitude))
        return path_error(err, 0, ErrorCode::InvalidArgument, "expected an integer (at most 20 digits), got '%.*s'", n,
                          t.data());
      break;
    }
    case FieldKind::Bool:
      l.kind = PredicateLiteral::Kind::Bool;
      if (t == "true" || t == "1") l.flag = true;
      else if (t == "false" || t == "0") l.flag = false;
      else return path_error(err, 0, ErrorCode::InvalidArgument, "expected true or false, got '%.*s'", n, t.data());
      break;
    case FieldKind::Fixed:
      l.kind = PredicateLiteral::Kind::Fixed;
      if (!parse_fixed_exact(t, l.raw, l.exact))
        return path_error(err, 0, ErrorCode::InvalidArgument,
                          "expected a decimal number within the fixed range (about ±1.4e14), got '%.*s'", n, t.data());
      break;
    case FieldKind::Entity: {
      l.kind = PredicateLiteral::Kind::Entity;
      const std::size_t colon = t.find(':');
      std::uint64_t s = 0, g = 0;
      if (t == "null") break;
      if (colon == std::string_view::npos || !parse_u64(t.substr(0, colon), s) || !parse_u64(t.substr(colon + 1), g) ||
          s > 0xFFFFFFFFu || g > 0xFFFFFFFFu)
        return path_error(err, 0, ErrorCode::InvalidArgument, "expected an entity SLOT:GEN (or null), got '%.*s'", n,
                          t.data());
      l.entity = Entity{static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(g)};
      break;
    }
  }
  out = l;
  return Status::Ok();
}

Status compare(const World& world, std::string_view path, CompareOp op, std::string_view literal, Predicate& out,
               PredicateError* err) noexcept {
  FieldRef f;
  if (Status s = resolve_field(world, path, f, err); !s.ok()) return s;
  if (!f.scalar())
    return path_error(err, 0, ErrorCode::InvalidArgument,
                      "'%.*s' has %u elements: compare one of them ([i], or .x/.y/.z for a vector)",
                      static_cast<int>(path.size()), path.data(), static_cast<unsigned>(f.elements));
  PredicateLiteral l;
  if (Status s = parse_literal(f, literal, l, err); !s.ok()) return s;
  Predicate p = compare(f, op, l);
  if (!p.status().ok()) return p.status();
  out = p;
  return Status::Ok();
}

}  // namespace lockstep
