// RapidCheck properties of lockstep::fixed that must hold EXACTLY (wrapping two's complement
// algebra, ordering, rounding symmetry). Accuracy properties live in tests/fixed/.
#include <lockstep/math/fixed.h>
#include <lockstep/math/vec.h>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <limits>
#include <utility>

using lockstep::fixed;

namespace {
fixed F(std::int64_t raw) { return fixed::from_raw(raw); }
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
}  // namespace

RC_GTEST_PROP(FixedAlgebra, AddSubInverse, (std::int64_t a, std::int64_t b)) {
  RC_ASSERT(F(a) + F(b) - F(b) == F(a));  // holds under wrapping
  RC_ASSERT(F(a) - F(b) + F(b) == F(a));
}
RC_GTEST_PROP(FixedAlgebra, AddCommutativeAssociative, (std::int64_t a, std::int64_t b, std::int64_t c)) {
  RC_ASSERT(F(a) + F(b) == F(b) + F(a));
  RC_ASSERT((F(a) + F(b)) + F(c) == F(a) + (F(b) + F(c)));
}
RC_GTEST_PROP(FixedAlgebra, NegationInvolutive, (std::int64_t a)) {
  RC_ASSERT(-(-F(a)) == F(a));
  RC_ASSERT(F(a) + (-F(a)) == fixed::zero());
}
RC_GTEST_PROP(FixedAlgebra, Abs, (std::int64_t a)) {
  const fixed x = lockstep::abs(F(a));
  if (a == kMin) {
    RC_ASSERT(x == fixed::min());  // the one wrapped value, documented
  } else {
    RC_ASSERT(x >= fixed::zero());
    RC_ASSERT(x == F(a) || x == -F(a));
    RC_ASSERT(lockstep::abs(-F(a)) == x);
  }
}
RC_GTEST_PROP(FixedAlgebra, OrderingIsTotalAndMatchesRaw, (std::int64_t a, std::int64_t b)) {
  RC_ASSERT((F(a) < F(b)) == (a < b));
  RC_ASSERT((F(a) == F(b)) == (a == b));
  RC_ASSERT(((F(a) <=> F(b)) == 0) == (a == b));
  RC_ASSERT(lockstep::min(F(a), F(b)) <= lockstep::max(F(a), F(b)));
}
RC_GTEST_PROP(FixedAlgebra, MulCommutative, (std::int64_t a, std::int64_t b)) {
  RC_ASSERT(F(a) * F(b) == F(b) * F(a));
}
RC_GTEST_PROP(FixedAlgebra, MulDivByOneIdentity, (std::int64_t a)) {
  RC_ASSERT(F(a) * fixed::one() == F(a));
  RC_ASSERT(F(a) / fixed::one() == F(a));
  RC_ASSERT(F(a) * fixed::zero() == fixed::zero());
}
RC_GTEST_PROP(FixedAlgebra, RoundingIsSignSymmetric, (std::int64_t a, std::int64_t b)) {
  RC_PRE(a != kMin && b != kMin);
  RC_ASSERT((-F(a)) * F(b) == -(F(a) * F(b)));
  if (b != 0) {  // x / 0 saturates to max() or min(), which are not negations of each other
    RC_ASSERT((-F(a)) / F(b) == -(F(a) / F(b)));
    RC_ASSERT(F(a) / (-F(b)) == -(F(a) / F(b)));
  }
}
RC_GTEST_PROP(FixedAlgebra, IntegerMultiplyIsExact, (std::int32_t a, std::int16_t k)) {
  RC_ASSERT(fixed::from_int(a) * static_cast<int>(k) == fixed::from_int(static_cast<std::int64_t>(a) * k));
}
RC_GTEST_PROP(FixedAlgebra, ExactDivisionRoundTrips, ()) {
  // (q * d) / d == q whenever q*d is exact: |q|, |d| < 2^23 keeps |q*d| < 2^46.
  const auto q = *rc::gen::inRange<std::int64_t>(-(1 << 23), 1 << 23);
  const auto d = *rc::gen::inRange<std::int64_t>(-(1 << 23), 1 << 23);
  RC_PRE(d != 0);
  const fixed fq = fixed::from_int(q), fd = fixed::from_int(d);
  RC_ASSERT((fq * fd) / fd == fq);
  // and for fractional q: (q * d) / d == q when d is an integer (q*d exact).
  const fixed fr = fixed::from_raw(q);
  RC_ASSERT((fr * d) / fd == fr);
}
RC_GTEST_PROP(FixedAlgebra, FloorCeilRoundBracket, (std::int64_t a)) {
  RC_PRE(a < std::numeric_limits<std::int64_t>::max() - 0x10000);
  const fixed x = F(a);
  RC_ASSERT(lockstep::floor(x) <= x);
  RC_ASSERT(x <= lockstep::ceil(x));
  RC_ASSERT(lockstep::ceil(x) - lockstep::floor(x) <= fixed::one());
  const fixed r = lockstep::round(x);
  RC_ASSERT(r == lockstep::floor(x) || r == lockstep::ceil(x));
  RC_ASSERT(lockstep::frac(x) >= fixed::zero() && lockstep::frac(x) < fixed::one());
}
RC_GTEST_PROP(FixedAlgebra, SaturatingMatchesCheckedWhenInRange, (std::int64_t a, std::int64_t b)) {
  const auto c = lockstep::checked_mul(F(a), F(b));
  if (c) {
    RC_ASSERT(*c == F(a) * F(b));
    RC_ASSERT(lockstep::mul_sat(F(a), F(b)) == *c);
  }
  const auto s = lockstep::checked_add(F(a), F(b));
  if (s) RC_ASSERT(lockstep::add_sat(F(a), F(b)) == *s);
}
RC_GTEST_PROP(FixedAlgebra, ToStringParseRoundTrip, (std::int64_t a)) {
  RC_ASSERT(fixed::parse(lockstep::to_string(F(a))) == F(a));
}
RC_GTEST_PROP(FixedAlgebra, SqrtMonotonic, (std::int64_t a, std::int64_t b)) {
  if (a > b) std::swap(a, b);
  RC_ASSERT(lockstep::sqrt(F(a)) <= lockstep::sqrt(F(b)));
}
RC_GTEST_PROP(FixedAlgebra, VecAddSubInverse, (std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d)) {
  const lockstep::vec2 u{F(a), F(b)}, v{F(c), F(d)};
  RC_ASSERT(u + v - v == u);
  RC_ASSERT(lockstep::dot(u, v) == lockstep::dot(v, u));
  RC_ASSERT(lockstep::cross(u, v) == -lockstep::cross(v, u) || lockstep::cross(v, u) == fixed::min());
}
