// lockstep::vec2 / vec3.
#include <lockstep/store/component.h>
#include <lockstep/math/vec.h>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>

using lockstep::fixed;
using lockstep::vec2;
using lockstep::vec3;
using namespace lockstep::literals;

namespace {
struct Body {
  vec2 pos;
  vec3 vel;
  fixed mass;
};
LOCKSTEP_COMPONENT(Body, pos, vel, mass);

long double ld(fixed f) { return static_cast<long double>(f.raw()) / 65536.0L; }
}  // namespace

TEST(Vec, LayoutAndFieldDescriptor) {
  lockstep::check_state_type<Body>();
  const lockstep::TypeDescriptor& d = lockstep::describe<Body>();
  ASSERT_EQ(d.field_count, 3u);
  EXPECT_EQ(d.fields[0].kind, lockstep::FieldKind::Fixed);
  EXPECT_EQ(d.fields[0].element_size, 8u);
  EXPECT_EQ(d.fields[0].count, 2u);
  EXPECT_EQ(d.fields[1].count, 3u);
  EXPECT_EQ(d.fields[2].count, 1u);
  EXPECT_EQ(d.size, 48u);
}

TEST(Vec, Arithmetic) {
  constexpr vec2 a{1_fx, 2_fx}, b{3_fx, -4_fx};
  static_assert(a + b == vec2{4_fx, -2_fx});
  static_assert(a - b == vec2{-2_fx, 6_fx});
  static_assert(-a == vec2{-1_fx, -2_fx});
  static_assert(a * 2_fx == vec2{2_fx, 4_fx});
  static_assert(2_fx * a == vec2{2_fx, 4_fx});
  static_assert(b / 2_fx == vec2{1.5_fx, -2_fx});
  static_assert(lockstep::dot(a, b) == -5_fx);
  static_assert(lockstep::cross(a, b) == -10_fx);
  static_assert(lockstep::length(b) == 5_fx);
  static_assert(lockstep::length_squared(b) == 25_fx);
  constexpr vec3 c{1_fx, 0_fx, 0_fx}, d{0_fx, 1_fx, 0_fx};
  static_assert(lockstep::cross(c, d) == vec3{0_fx, 0_fx, 1_fx});
  static_assert(lockstep::dot(c, d) == 0_fx);
  static_assert(lockstep::length(vec3{2_fx, 3_fx, 6_fx}) == 7_fx);
  static_assert(lockstep::distance(vec2{1_fx, 1_fx}, vec2{4_fx, 5_fx}) == 5_fx);
  static_assert(lockstep::distance(vec3{}, vec3{2_fx, 3_fx, 6_fx}) == 7_fx);
  vec2 e = a;
  e += b;
  e -= a;
  e *= 2_fx;
  e /= 2_fx;
  EXPECT_EQ(e, b);
}

TEST(Vec, DotSingleRounding) {
  // Two products of half an ulp each: rounded separately they would give 2 ulp, exactly 1.
  const vec2 a{fixed::from_raw(1), fixed::from_raw(1)};
  const vec2 b{0.5_fx, 0.5_fx};
  EXPECT_EQ(lockstep::dot(a, b), fixed::from_raw(1));
}

TEST(Vec, LengthSquaredNoOverflow) {
  const fixed big = fixed::from_int((std::int64_t{1} << 23) - 1);
  const vec2 v{big, -big};
  EXPECT_EQ(lockstep::length_squared(v), fixed::from_int(2 * ((std::int64_t{1} << 23) - 1) * ((std::int64_t{1} << 23) - 1)));
  const vec3 w{5000000_fx, -5000000_fx, 5000000_fx};
  EXPECT_EQ(lockstep::length_squared(w), fixed::from_int(75000000000000));
  // Beyond the range: saturates, never wraps negative.
  const vec3 huge{fixed::from_int(std::int64_t{1} << 23), fixed::from_int(std::int64_t{1} << 23), fixed::from_int(std::int64_t{1} << 23)};
  EXPECT_EQ(lockstep::length_squared(huge), fixed::max());
  // length never overflows internally.
  EXPECT_EQ(lockstep::length(huge), fixed::from_raw(std::llround(std::sqrt(3.0L) * 8388608.0L * 65536.0L)));
  EXPECT_EQ(lockstep::length(vec2{fixed::max(), fixed::max()}), fixed::max());
}

TEST(Vec, Normalize) {
  EXPECT_EQ(lockstep::normalize(vec2{}), vec2{});
  EXPECT_EQ(lockstep::normalize(vec3{}), vec3{});
  EXPECT_EQ(lockstep::normalize(vec2{3_fx, 4_fx}), (vec2{0.6_fx, 0.8_fx}));
  EXPECT_EQ(lockstep::normalize(vec3{0_fx, -7_fx, 0_fx}), (vec3{0_fx, -1_fx, 0_fx}));
  EXPECT_EQ(lockstep::normalize(vec2{fixed::from_raw(1), 0_fx}), (vec2{1_fx, 0_fx}));
}

TEST(Vec, Rotate) {
  EXPECT_EQ(lockstep::rotate(vec2{1_fx, 0_fx}, fixed::half_pi()), (vec2{0_fx, 1_fx}));
  EXPECT_EQ(lockstep::rotate(vec2{1_fx, 0_fx}, fixed::pi()), (vec2{-1_fx, 0_fx}));
  EXPECT_EQ(lockstep::rotate(vec2{2_fx, 3_fx}, 0_fx), (vec2{2_fx, 3_fx}));
  const fixed angle = fixed::pi() / 4;  // 0.78540039..., not exactly pi/4
  const vec2 r = lockstep::rotate(vec2{10_fx, 0_fx}, angle);
  const long double ulp = 1.0L / 65536.0L;
  EXPECT_LE(std::fabs(ld(r.x) - 10.0L * std::cos(ld(angle))), ulp / 2);
  EXPECT_LE(std::fabs(ld(r.y) - 10.0L * std::sin(ld(angle))), ulp / 2);
}

RC_GTEST_PROP(VecProps, RotateWithinOneUlpPerComponent, ()) {
  const std::int64_t xr = *rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 36), std::int64_t{1} << 36);
  const std::int64_t yr = *rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 36), std::int64_t{1} << 36);
  const std::int64_t ar = *rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 24), std::int64_t{1} << 24);
  const vec2 v{fixed::from_raw(xr), fixed::from_raw(yr)};
  const vec2 r = lockstep::rotate(v, fixed::from_raw(ar));
  const long double a = static_cast<long double>(ar) / 65536.0L;
  const long double x = static_cast<long double>(xr), y = static_cast<long double>(yr);
  const long double ex = x * std::cos(a) - y * std::sin(a), ey = x * std::sin(a) + y * std::cos(a);
  RC_ASSERT(std::fabs(static_cast<long double>(r.x.raw()) - ex) <= 1.0L);
  RC_ASSERT(std::fabs(static_cast<long double>(r.y.raw()) - ey) <= 1.0L);
}

RC_GTEST_PROP(VecProps, NormalizedLengthIsOne, ()) {
  const std::int64_t lim = std::int64_t{1} << 40;
  const vec2 v{fixed::from_raw(*rc::gen::inRange<std::int64_t>(-lim, lim)),
               fixed::from_raw(*rc::gen::inRange<std::int64_t>(-lim, lim))};
  RC_PRE(lockstep::length(v) >= 1_fx);
  const fixed l = lockstep::length(lockstep::normalize(v));
  RC_ASSERT(lockstep::abs(l - 1_fx) <= fixed::from_raw(2));
}
