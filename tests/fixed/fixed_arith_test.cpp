// lockstep::fixed: construction, literals, parsing, printing, arithmetic policy, edge cases,
// and agreement of the portable 128-bit path with __int128.
#include <lockstep/math/fixed.h>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

using lockstep::fixed;
using namespace lockstep::literals;

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

fixed R(std::int64_t raw) { return fixed::from_raw(raw); }

#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 i128;
// Independent reference for a*b: truncating 128-bit division, then explicit rounding.
std::int64_t ref_mul(std::int64_t a, std::int64_t b) {
  const i128 p = static_cast<i128>(a) * b;
  i128 q = p / 65536;
  const i128 r = p % 65536;
  const i128 ar = r < 0 ? -r : r;
  if (2 * ar >= 65536) q += p < 0 ? -1 : 1;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(q));
}
std::int64_t ref_div(std::int64_t a, std::int64_t b) {
  if (b == 0) return a > 0 ? kMax : a < 0 ? kMin : 0;
  const i128 n = static_cast<i128>(a) * 65536;
  i128 q = n / b;
  const i128 r = n % b;
  const i128 ar = r < 0 ? -r : r;
  const i128 ab = b < 0 ? -static_cast<i128>(b) : static_cast<i128>(b);
  if (2 * ar >= ab) q += ((n < 0) != (b < 0)) ? -1 : 1;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(q));
}
#endif

// Interesting raw values: 0, +-1 ulp, +-0.5, +-1, extremes and their neighbours.
const std::int64_t kEdges[] = {0, 1, -1, 2, -2, 0x7FFF, 0x8000, 0x8001, -0x8000, -0x8001, 0xFFFF, 0x10000,
                               -0x10000, 0x10001, -0x10001, kMax, kMax - 1, kMin, kMin + 1,
                               std::int64_t{1} << 47, -(std::int64_t{1} << 47), (std::int64_t{1} << 31) + 5,
                               -(std::int64_t{1} << 31) - 7, 123456789, -987654321};

}  // namespace

TEST(Fixed, Layout) {
  static_assert(sizeof(fixed) == 8 && alignof(fixed) == 8);
  static_assert(std::is_trivially_copyable_v<fixed>);
  static_assert(std::has_unique_object_representations_v<fixed>);
  static_assert(fixed::lockstep_field_kind == lockstep::FieldKind::Fixed);
  static_assert(fixed::lockstep_element_size == 8);
  static_assert(fixed{}.raw() == 0);
}

TEST(Fixed, Construction) {
  static_assert(fixed::from_int(3).raw() == 3 * 65536);
  static_assert(fixed(-2).raw() == -2 * 65536);
  static_assert(fixed::from_raw(5).raw() == 5);
  static_assert(fixed::one().raw() == 65536 && fixed::zero().raw() == 0);
  static_assert(fixed::ratio(3, 2) == 1.5_fx);
  static_assert(fixed::ratio(1, 3).raw() == 21845);      // 21845.33 -> 21845
  static_assert(fixed::ratio(2, 3).raw() == 43691);      // 43690.67 -> 43691
  static_assert(fixed::ratio(-2, 3).raw() == -43691);    // symmetric
  static_assert(fixed::ratio(1, 131072).raw() == 1);     // exactly half an ulp: away from zero
  static_assert(fixed::ratio(-1, 131072).raw() == -1);
  static_assert(fixed::ratio(1, 131073).raw() == 0);
  static_assert(fixed::ratio(5, 0) == fixed::max() && fixed::ratio(-5, 0) == fixed::min());
  static_assert(fixed::ratio(0, 0) == fixed::zero());
  static_assert(fixed::ratio(kMax, kMax) == fixed::one());
  static_assert(fixed::ratio(kMin, kMin) == fixed::one());
  static_assert(fixed::ratio(kMin, kMax).raw() == -65536);  // -1.0000000000000000001 -> -1
  EXPECT_EQ(fixed::ratio(1000000007, 1000).raw(), 65536000459LL);  // 1000000.007 * 65536 = 65536000458.75
}

TEST(Fixed, Constants) {
  static_assert(fixed::pi().raw() == 205887);
  static_assert(fixed::two_pi().raw() == 411775);
  static_assert(fixed::half_pi().raw() == 102944);
  static_assert(fixed::e().raw() == 178145);
  static_assert(fixed::epsilon().raw() == 1);
  static_assert(fixed::max().raw() == kMax && fixed::min().raw() == kMin);
}

TEST(Fixed, Literals) {
  static_assert((1.25_fx).raw() == 81920);
  static_assert((0_fx).raw() == 0);
  static_assert((3_fx).raw() == 3 * 65536);
  static_assert((-1.5_fx).raw() == -98304);
  static_assert((0.5_fx).raw() == 32768);
  static_assert((.5_fx).raw() == 32768);
  static_assert((1._fx).raw() == 65536);
  static_assert((1e3_fx).raw() == 1000 * 65536);
  static_assert((12e5_fx).raw() == 1200000LL * 65536);
  static_assert((2.5e-1_fx).raw() == 16384);
  static_assert((1'000.5_fx).raw() == 1000 * 65536 + 32768);
  // 0.1 * 65536 = 6553.6 -> 6554; 0.3 -> 19660.8 -> 19661
  static_assert((0.1_fx).raw() == 6554);
  static_assert((0.3_fx).raw() == 19661);
  // Exactly half an ulp (2^-17 = 0.00000762939453125) rounds away from zero.
  static_assert((0.00000762939453125_fx).raw() == 1);
  static_assert((0.00000762939453124_fx).raw() == 0);
  static_assert((0.0000076293945312500000000001_fx).raw() == 1);
  static_assert((3.14159265358979323846264338327950288_fx) == fixed::pi());
  static_assert((140737488355327.99998474121093750_fx) == fixed::max());  // max exactly
  static_assert((140737488355327.9999923_fx) == fixed::max());           // rounds down to max
  static_assert((0.000000000000000000000000000000000000000000001_fx).raw() == 0);
  static_assert((1e-100_fx).raw() == 0);
  static_assert((0.000015258789062500_fx).raw() == 1);
  static_assert((1.0000076293945312_fx).raw() == 65536);  // below the tie
  static_assert((1.00000762939453125_fx).raw() == 65537);  // the tie
}

TEST(Fixed, Parse) {
  EXPECT_EQ(fixed::parse("1.25"), 1.25_fx);
  EXPECT_EQ(fixed::parse("-1.25"), -1.25_fx);
  EXPECT_EQ(fixed::parse("+7"), 7_fx);
  EXPECT_EQ(fixed::parse("-0.00000762939453125"), fixed::from_raw(-1));
  EXPECT_EQ(fixed::parse("-140737488355328"), fixed::min());
  EXPECT_EQ(fixed::parse("1e2"), 100_fx);
  EXPECT_FALSE(fixed::parse("140737488355328"));
  EXPECT_FALSE(fixed::parse("1e20"));
  EXPECT_FALSE(fixed::parse(""));
  EXPECT_FALSE(fixed::parse("-"));
  EXPECT_FALSE(fixed::parse("."));
  EXPECT_FALSE(fixed::parse("1.2.3"));
  EXPECT_FALSE(fixed::parse("1e"));
  EXPECT_FALSE(fixed::parse("abc"));
  EXPECT_FALSE(fixed::parse("1 "));
  EXPECT_FALSE(fixed::parse("1'000"));  // separators only in literals
  EXPECT_FALSE(fixed::parse("99999999999999999999999999"));
}

TEST(Fixed, ToString) {
  EXPECT_EQ(lockstep::to_string(1.25_fx), "1.25");
  EXPECT_EQ(lockstep::to_string(-1.25_fx), "-1.25");
  EXPECT_EQ(lockstep::to_string(0_fx), "0");
  EXPECT_EQ(lockstep::to_string(3_fx), "3");
  EXPECT_EQ(lockstep::to_string(R(1)), "0.0000152587890625");
  EXPECT_EQ(lockstep::to_string(R(-1)), "-0.0000152587890625");
  EXPECT_EQ(lockstep::to_string(fixed::max()), "140737488355327.9999847412109375");
  EXPECT_EQ(lockstep::to_string(fixed::min()), "-140737488355328");
  EXPECT_EQ(lockstep::to_string(fixed::pi()), "3.1415863037109375");
  EXPECT_LE(lockstep::to_string(R(kMin + 1)).size(), lockstep::fixed_max_chars);
  EXPECT_EQ(lockstep::to_double(1.25_fx), 1.25);
}

RC_GTEST_PROP(FixedProps, ToStringParseRoundTrip, (std::int64_t raw)) {
  const fixed f = R(raw);
  const auto back = fixed::parse(lockstep::to_string(f));
  RC_ASSERT(back.has_value());
  RC_ASSERT(back->raw() == raw);
}

TEST(Fixed, AddSubWrap) {
  EXPECT_EQ((fixed::max() + R(1)).raw(), kMin);
  EXPECT_EQ((fixed::min() - R(1)).raw(), kMax);
  EXPECT_EQ((-fixed::min()).raw(), kMin);
  EXPECT_EQ((1.5_fx + 2.25_fx), 3.75_fx);
  EXPECT_EQ((1.5_fx - 2.25_fx), -0.75_fx);
}

TEST(Fixed, MulRounding) {
  EXPECT_EQ(2_fx * 3_fx, 6_fx);
  EXPECT_EQ(-2_fx * 3_fx, -6_fx);
  EXPECT_EQ(1.5_fx * 1.5_fx, 2.25_fx);
  // 1 ulp * 0.5 = half an ulp: ties away from zero.
  EXPECT_EQ((R(1) * 0.5_fx).raw(), 1);
  EXPECT_EQ((R(-1) * 0.5_fx).raw(), -1);
  EXPECT_EQ((R(1) * R(0x7FFF)).raw(), 0);  // just under half
  EXPECT_EQ((R(3) * 0.5_fx).raw(), 2);      // 1.5 ulp -> 2
  EXPECT_EQ((R(-3) * 0.5_fx).raw(), -2);
  EXPECT_EQ((R(1) * R(1)).raw(), 0);
  EXPECT_EQ((fixed::max() * fixed::one()), fixed::max());
  EXPECT_EQ((fixed::min() * fixed::one()), fixed::min());
  EXPECT_EQ((fixed::min() * -fixed::one()), fixed::min());  // wraps
  EXPECT_EQ(3_fx * 4, 12_fx);
  EXPECT_EQ(4 * 3_fx, 12_fx);
  EXPECT_EQ(R(3) / 2, R(2));
  EXPECT_EQ(R(-3) / 2, R(-2));
  EXPECT_EQ(7_fx / 0, fixed::max());
}

TEST(Fixed, DivRounding) {
  EXPECT_EQ(6_fx / 3_fx, 2_fx);
  EXPECT_EQ(1_fx / 3_fx, R(21845));
  EXPECT_EQ(2_fx / 3_fx, R(43691));
  EXPECT_EQ(-2_fx / 3_fx, R(-43691));
  EXPECT_EQ(2_fx / -3_fx, R(-43691));
  EXPECT_EQ(R(1) / 2_fx, R(1));   // half ulp -> away
  EXPECT_EQ(R(-1) / 2_fx, R(-1));
  EXPECT_EQ(1_fx / 0_fx, fixed::max());
  EXPECT_EQ(-1_fx / 0_fx, fixed::min());
  EXPECT_EQ(0_fx / 0_fx, 0_fx);
  EXPECT_EQ(fixed::min() / -1_fx, fixed::min());  // wraps by the policy
  EXPECT_EQ(fixed::max() / fixed::max(), 1_fx);
  EXPECT_EQ(fixed::min() / fixed::min(), 1_fx);
  EXPECT_EQ(fixed::max() / 1_fx, fixed::max());
  EXPECT_EQ(R(1) / fixed::max(), 0_fx);
}

TEST(Fixed, RoundingFunctions) {
  EXPECT_EQ(lockstep::floor(1.5_fx), 1_fx);
  EXPECT_EQ(lockstep::floor(-1.5_fx), -2_fx);
  EXPECT_EQ(lockstep::ceil(1.5_fx), 2_fx);
  EXPECT_EQ(lockstep::ceil(-1.5_fx), -1_fx);
  EXPECT_EQ(lockstep::round(1.5_fx), 2_fx);
  EXPECT_EQ(lockstep::round(-1.5_fx), -2_fx);
  EXPECT_EQ(lockstep::round(2.5_fx), 3_fx);
  EXPECT_EQ(lockstep::round(-2.5_fx), -3_fx);
  EXPECT_EQ(lockstep::round(R(0x7FFF)), 0_fx);
  EXPECT_EQ(lockstep::round(R(-0x7FFF)), 0_fx);
  EXPECT_EQ(lockstep::trunc(-1.75_fx), -1_fx);
  EXPECT_EQ(lockstep::trunc(1.75_fx), 1_fx);
  EXPECT_EQ(lockstep::frac(-1.25_fx), 0.75_fx);
  EXPECT_EQ(lockstep::to_int(-1.75_fx), -1);
  EXPECT_EQ(lockstep::floor_int(-1.75_fx), -2);
  EXPECT_EQ(lockstep::round_int(-1.5_fx), -2);
  EXPECT_EQ(lockstep::floor(fixed::min()), fixed::min());
  EXPECT_EQ(lockstep::ceil(fixed::max()).raw(), kMin);  // wraps (2^47 is not representable)
}

TEST(Fixed, MinMaxClampLerpAbs) {
  EXPECT_EQ(lockstep::min(1_fx, 2_fx), 1_fx);
  EXPECT_EQ(lockstep::max(1_fx, 2_fx), 2_fx);
  EXPECT_EQ(lockstep::clamp(5_fx, 0_fx, 3_fx), 3_fx);
  EXPECT_EQ(lockstep::clamp(-5_fx, 0_fx, 3_fx), 0_fx);
  EXPECT_EQ(lockstep::clamp(1_fx, 0_fx, 3_fx), 1_fx);
  EXPECT_EQ(lockstep::clamp(1_fx, 3_fx, 0_fx), 3_fx);  // lo > hi -> lo
  EXPECT_EQ(lockstep::lerp(2_fx, 4_fx, 0.5_fx), 3_fx);
  EXPECT_EQ(lockstep::lerp(2_fx, 4_fx, 0_fx), 2_fx);
  EXPECT_EQ(lockstep::lerp(2_fx, 4_fx, 1_fx), 4_fx);
  EXPECT_EQ(lockstep::abs(-3_fx), 3_fx);
  EXPECT_EQ(lockstep::abs(fixed::min()), fixed::min());
  EXPECT_EQ(lockstep::sign(-3_fx), -1);
  EXPECT_EQ(lockstep::sign(0_fx), 0);
}

TEST(Fixed, Shifts) {
  EXPECT_EQ(1_fx << 3, 8_fx);
  EXPECT_EQ(8_fx >> 3, 1_fx);
  EXPECT_EQ(R(-1) >> 1, R(-1));  // arithmetic: floor
  EXPECT_EQ(R(-3) >> 1, R(-2));
  EXPECT_EQ(1_fx << 64, 0_fx);
  EXPECT_EQ(1_fx << -1, 0_fx);
  EXPECT_EQ(R(-5) >> 64, R(-1));
  EXPECT_EQ(R(5) >> 100, R(0));
  EXPECT_EQ(fixed::max() << 1, R(-2));  // wraps
}

TEST(Fixed, SaturatingAndChecked) {
  EXPECT_EQ(lockstep::add_sat(fixed::max(), R(1)), fixed::max());
  EXPECT_EQ(lockstep::add_sat(fixed::min(), R(-1)), fixed::min());
  EXPECT_EQ(lockstep::sub_sat(fixed::min(), R(1)), fixed::min());
  EXPECT_EQ(lockstep::sub_sat(fixed::max(), R(-1)), fixed::max());
  EXPECT_EQ(lockstep::mul_sat(fixed::max(), 2_fx), fixed::max());
  EXPECT_EQ(lockstep::mul_sat(fixed::max(), -2_fx), fixed::min());
  EXPECT_EQ(lockstep::mul_sat(fixed::min(), -1_fx), fixed::max());
  EXPECT_EQ(lockstep::mul_sat(3_fx, 4_fx), 12_fx);
  EXPECT_EQ(lockstep::div_sat(fixed::min(), -1_fx), fixed::max());
  EXPECT_EQ(lockstep::div_sat(fixed::max(), 0.5_fx), fixed::max());
  EXPECT_EQ(lockstep::div_sat(fixed::max(), -0.5_fx), fixed::min());
  EXPECT_EQ(lockstep::div_sat(1_fx, 0_fx), fixed::max());
  EXPECT_EQ(lockstep::div_sat(6_fx, 3_fx), 2_fx);
  EXPECT_FALSE(lockstep::checked_add(fixed::max(), R(1)));
  EXPECT_EQ(lockstep::checked_add(1_fx, 1_fx), 2_fx);
  EXPECT_FALSE(lockstep::checked_sub(fixed::min(), R(1)));
  EXPECT_FALSE(lockstep::checked_mul(fixed::min(), -1_fx));
  EXPECT_EQ(lockstep::checked_mul(fixed::min(), 1_fx), fixed::min());
  EXPECT_FALSE(lockstep::checked_div(1_fx, 0_fx));
  EXPECT_FALSE(lockstep::checked_div(fixed::min(), -1_fx));
  EXPECT_EQ(lockstep::checked_div(fixed::min(), 1_fx), fixed::min());
}

TEST(Fixed, Comparisons) {
  EXPECT_LT(-1_fx, 0_fx);
  EXPECT_LT(fixed::min(), fixed::max());
  EXPECT_EQ(1_fx <=> 1_fx, std::strong_ordering::equal);
  EXPECT_NE(R(1), R(2));
}

#if defined(__SIZEOF_INT128__)
TEST(Fixed, EdgeMulDivAgainstReference) {
  for (std::int64_t a : kEdges) {
    for (std::int64_t b : kEdges) {
      EXPECT_EQ((R(a) * R(b)).raw(), ref_mul(a, b)) << a << " * " << b;
      EXPECT_EQ((R(a) / R(b)).raw(), ref_div(a, b)) << a << " / " << b;
      EXPECT_EQ(lockstep::detail::mul_q16_portable(a, b), ref_mul(a, b)) << a << " * " << b;
      EXPECT_EQ(lockstep::detail::div_q16_portable(a, b), ref_div(a, b)) << a << " / " << b;
    }
  }
}

RC_GTEST_PROP(FixedProps, MulMatchesInt128Reference, (std::int64_t a, std::int64_t b)) {
  RC_ASSERT((R(a) * R(b)).raw() == ref_mul(a, b));
  RC_ASSERT(lockstep::detail::mul_q16_portable(a, b) == ref_mul(a, b));
}
RC_GTEST_PROP(FixedProps, DivMatchesInt128Reference, (std::int64_t a, std::int64_t b)) {
  RC_ASSERT((R(a) / R(b)).raw() == ref_div(a, b));
  RC_ASSERT(lockstep::detail::div_q16_portable(a, b) == ref_div(a, b));
}
RC_GTEST_PROP(FixedProps, DivSmallOperandsMatch, ()) {
  // Bias towards the 64-bit fast path and its boundary (|a| around 2^47).
  const auto a = *rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 48), std::int64_t{1} << 48);
  const auto b = *rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 20), std::int64_t{1} << 20);
  RC_ASSERT((R(a) / R(b)).raw() == ref_div(a, b));
  RC_ASSERT(lockstep::detail::div_q16_portable(a, b) == ref_div(a, b));
}
RC_GTEST_PROP(FixedProps, PortableU128MatchesNative, (std::uint64_t a, std::uint64_t b, std::uint64_t c)) {
  using namespace lockstep::detail;
  RC_ASSERT(umul64_portable(a, b) == umul64_native(a, b));
  // 128/64 division with hi < d.
  const std::uint64_t d = c == 0 ? 1 : c;
  const std::uint64_t hi = a % d;
  std::uint64_t r1 = 0, r2 = 0;
  RC_ASSERT(udiv128_64_portable(hi, b, d, r1) == udiv128_64_native(hi, b, d, r2));
  RC_ASSERT(r1 == r2);
}
RC_GTEST_PROP(FixedProps, PortableDivSmallDivisors, (std::uint64_t a, std::uint64_t b)) {
  using namespace lockstep::detail;
  // Small / single-limb divisors exercise the normalisation shift and correction loops.
  const std::uint64_t d = (*rc::gen::inRange<std::uint64_t>(1, 1u << 20)) << *rc::gen::inRange(0, 44);
  const std::uint64_t hi = a % d;
  std::uint64_t r1 = 0, r2 = 0;
  RC_ASSERT(udiv128_64_portable(hi, b, d, r1) == udiv128_64_native(hi, b, d, r2));
  RC_ASSERT(r1 == r2);
}
#endif

TEST(Fixed, ConstexprEverything) {
  constexpr fixed a = 2.5_fx * 4_fx / 5_fx - 1_fx + lockstep::abs(-1_fx);
  static_assert(a == 2_fx);
  constexpr auto p = fixed::parse("2.5");
  static_assert(p && *p == 2.5_fx);
  constexpr auto c = lockstep::checked_mul(2_fx, 3_fx);
  static_assert(c && *c == 6_fx);
}
