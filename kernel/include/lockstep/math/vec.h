#pragma once
// lockstep::vec2 / vec3: aggregates of lockstep::fixed (public x, y[, z]); usable as
// component fields (FieldKind::Fixed, 8-byte elements).
//
// Precision: dot, cross and length_squared sum exact 128-bit products and round ONCE
// (nearest, ties away from zero). dot/cross wrap like fixed::operator*; length_squared
// saturates at fixed::max() instead (it is never negative). For vec2 with |components| < 2^23
// and vec3 with |components| < 2^22.5 (~5.9e6) the squared length fits and is exact-rounded.
// length/distance are correctly rounded for ANY components (128-bit sum, saturating at
// max()). normalize(0) == 0. rotate() uses Q62 sin/cos and rounds once per component.
#include <lockstep/store/field.h>
#include <lockstep/math/fixed.h>
#include <lockstep/math/fixed_math.h>

#include <type_traits>

namespace lockstep {

struct vec2 {
  fixed x;
  fixed y;

  static constexpr FieldKind lockstep_field_kind = FieldKind::Fixed;
  static constexpr std::size_t lockstep_element_size = 8;

  static constexpr vec2 zero() noexcept { return {}; }

  friend constexpr vec2 operator+(vec2 a, vec2 b) noexcept { return {a.x + b.x, a.y + b.y}; }
  friend constexpr vec2 operator-(vec2 a, vec2 b) noexcept { return {a.x - b.x, a.y - b.y}; }
  friend constexpr vec2 operator-(vec2 a) noexcept { return {-a.x, -a.y}; }
  friend constexpr vec2 operator*(vec2 a, fixed s) noexcept { return {a.x * s, a.y * s}; }
  friend constexpr vec2 operator*(fixed s, vec2 a) noexcept { return {a.x * s, a.y * s}; }
  friend constexpr vec2 operator/(vec2 a, fixed s) noexcept { return {a.x / s, a.y / s}; }
  constexpr vec2& operator+=(vec2 o) noexcept { return *this = *this + o; }
  constexpr vec2& operator-=(vec2 o) noexcept { return *this = *this - o; }
  constexpr vec2& operator*=(fixed s) noexcept { return *this = *this * s; }
  constexpr vec2& operator/=(fixed s) noexcept { return *this = *this / s; }
  friend constexpr bool operator==(const vec2&, const vec2&) = default;
};

struct vec3 {
  fixed x;
  fixed y;
  fixed z;

  static constexpr FieldKind lockstep_field_kind = FieldKind::Fixed;
  static constexpr std::size_t lockstep_element_size = 8;

  static constexpr vec3 zero() noexcept { return {}; }

  friend constexpr vec3 operator+(vec3 a, vec3 b) noexcept { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
  friend constexpr vec3 operator-(vec3 a, vec3 b) noexcept { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
  friend constexpr vec3 operator-(vec3 a) noexcept { return {-a.x, -a.y, -a.z}; }
  friend constexpr vec3 operator*(vec3 a, fixed s) noexcept { return {a.x * s, a.y * s, a.z * s}; }
  friend constexpr vec3 operator*(fixed s, vec3 a) noexcept { return {a.x * s, a.y * s, a.z * s}; }
  friend constexpr vec3 operator/(vec3 a, fixed s) noexcept { return {a.x / s, a.y / s, a.z / s}; }
  constexpr vec3& operator+=(vec3 o) noexcept { return *this = *this + o; }
  constexpr vec3& operator-=(vec3 o) noexcept { return *this = *this - o; }
  constexpr vec3& operator*=(fixed s) noexcept { return *this = *this * s; }
  constexpr vec3& operator/=(fixed s) noexcept { return *this = *this / s; }
  friend constexpr bool operator==(const vec3&, const vec3&) = default;
};

static_assert(sizeof(vec2) == 16 && sizeof(vec3) == 24);
static_assert(std::is_trivially_copyable_v<vec2> && std::is_trivially_copyable_v<vec3>);
static_assert(std::has_unique_object_representations_v<vec2> && std::has_unique_object_representations_v<vec3>);
static_assert(std::is_aggregate_v<vec2> && std::is_aggregate_v<vec3>);

namespace detail::fm {
constexpr u128 prod(fixed a, fixed b) noexcept { return smul64(a.raw(), b.raw()); }
// Round a Q32 128-bit sum to Q16, wrapping to 64 bits.
constexpr fixed q32_to_fixed_wrap(u128 v) noexcept { return fixed::from_raw(low_i64(round_shr128(v, 16))); }
// Round a non-negative Q32 128-bit sum to Q16, saturating.
constexpr fixed q32_to_fixed_sat(u128 v) noexcept {
  const u128 r = round_shr128(v, 16);
  if (r.hi != 0 || (r.lo >> 63) != 0) return fixed::max();
  return fixed::from_raw(static_cast<std::int64_t>(r.lo));
}
// round((x c - y s) / 2^62) with c, s in Q62.
constexpr fixed rot_component(fixed x, std::int64_t c, fixed y, std::int64_t s, bool minus) noexcept {
  const u128 a = smul64(x.raw(), c);
  const u128 b = smul64(y.raw(), s);
  return fixed::from_raw(low_i64(round_shr128(minus ? sub128(a, b) : add128(a, b), 62)));
}
}  // namespace detail::fm

constexpr fixed dot(vec2 a, vec2 b) noexcept {
  using namespace detail::fm;
  return q32_to_fixed_wrap(add128(prod(a.x, b.x), prod(a.y, b.y)));
}
constexpr fixed dot(vec3 a, vec3 b) noexcept {
  using namespace detail::fm;
  return q32_to_fixed_wrap(add128(add128(prod(a.x, b.x), prod(a.y, b.y)), prod(a.z, b.z)));
}
// 2D cross product (z of the 3D cross): a.x b.y - a.y b.x.
constexpr fixed cross(vec2 a, vec2 b) noexcept {
  using namespace detail::fm;
  return q32_to_fixed_wrap(sub128(prod(a.x, b.y), prod(a.y, b.x)));
}
constexpr vec3 cross(vec3 a, vec3 b) noexcept {
  using namespace detail::fm;
  return {q32_to_fixed_wrap(sub128(prod(a.y, b.z), prod(a.z, b.y))),
          q32_to_fixed_wrap(sub128(prod(a.z, b.x), prod(a.x, b.z))),
          q32_to_fixed_wrap(sub128(prod(a.x, b.y), prod(a.y, b.x)))};
}
constexpr fixed length_squared(vec2 a) noexcept {
  using namespace detail::fm;
  return q32_to_fixed_sat(add128(prod(a.x, a.x), prod(a.y, a.y)));
}
constexpr fixed length_squared(vec3 a) noexcept {
  using namespace detail::fm;
  return q32_to_fixed_sat(add128(add128(prod(a.x, a.x), prod(a.y, a.y)), prod(a.z, a.z)));
}
constexpr fixed length(vec2 a) noexcept { return hypot(a.x, a.y); }
constexpr fixed length(vec3 a) noexcept { return hypot(a.x, a.y, a.z); }
// Note: computed on the wrapped difference b - a.
constexpr fixed distance(vec2 a, vec2 b) noexcept { return length(b - a); }
constexpr fixed distance(vec3 a, vec3 b) noexcept { return length(b - a); }

// Unit vector in the direction of a (each component rounded once); zero stays zero.
constexpr vec2 normalize(vec2 a) noexcept {
  const fixed l = length(a);
  if (l.raw() == 0) return vec2{};
  return {a.x / l, a.y / l};
}
constexpr vec3 normalize(vec3 a) noexcept {
  const fixed l = length(a);
  if (l.raw() == 0) return vec3{};
  return {a.x / l, a.y / l, a.z / l};
}

// Rotate counter-clockwise by `angle` radians: (x cos - y sin, x sin + y cos).
constexpr vec2 rotate(vec2 v, fixed angle) noexcept {
  using namespace detail::fm;
  const std::uint64_t t = turns_q64(angle.raw());
  const std::int64_t s = sin_turns_q62(t);
  const std::int64_t c = sin_turns_q62(t + (std::uint64_t{1} << 62));
  return {rot_component(v.x, c, v.y, s, true), rot_component(v.x, s, v.y, c, false)};
}

constexpr vec2 lerp(vec2 a, vec2 b, fixed t) noexcept { return {lerp(a.x, b.x, t), lerp(a.y, b.y, t)}; }
constexpr vec3 lerp(vec3 a, vec3 b, fixed t) noexcept {
  return {lerp(a.x, b.x, t), lerp(a.y, b.y, t), lerp(a.z, b.z, t)};
}

}  // namespace lockstep
