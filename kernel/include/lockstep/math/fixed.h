#pragma once
// lockstep::fixed — signed Q47.16 fixed point (int64 raw value, 16 fractional bits).
//
// Policy (full text in docs/fixed.md):
//  * Range: raw in [INT64_MIN, INT64_MAX], i.e. about ±1.4e14, step 2^-16 (one "ulp").
//  * + - unary- and integer * : wrap in two's complement (computed in uint64_t, never UB).
//  * * and / : exact 128-bit intermediate, then ONE rounding: to nearest, ties away from
//    zero (so (-a)*b == -(a*b) and (-a)/b == -(a/b) for every a but min(), whose negation
//    wraps to itself). A result that does not fit
//    in 64 bits wraps (the low 64 bits of the correctly rounded result are kept).
//  * x / 0 == fixed::max() for x > 0, fixed::min() for x < 0, 0 for x == 0.
//    fixed::min() / -1 wraps to fixed::min() (the wrap rule above). Nothing traps.
//  * Saturating (add_sat, sub_sat, mul_sat, div_sat) and checked (checked_add, ...,
//    returning std::optional) variants exist for code that must not wrap.
//  * >> is an arithmetic shift (rounds toward -inf), << wraps; shift counts >= 64
//    (or negative) give 0 for << and the sign fill (0 or -ulp) for >>.
//  * floor/ceil/trunc as usual; round() is to nearest, ties away from zero.
//  * Literals (1.25_fx) and fixed::parse() convert the exact decimal with the same
//    rounding rule, at compile time for literals; to_string() prints the exact decimal.
// No floating point is used on any path except to_double(), which is for display only.
//
// 128-bit arithmetic uses unsigned __int128 where the compiler has it and a portable
// implementation otherwise (define LOCKSTEP_NO_INT128 to force the portable path).
// Both are always compiled; tests check they agree bit for bit.
#include <lockstep/store/field.h>

#include <bit>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#if defined(__SIZEOF_INT128__) && !defined(LOCKSTEP_NO_INT128)
#define LOCKSTEP_HAS_INT128 1
#else
#define LOCKSTEP_HAS_INT128 0
#endif

namespace lockstep {

namespace detail {

#if LOCKSTEP_HAS_INT128
__extension__ typedef unsigned __int128 native_u128;
__extension__ typedef __int128 native_i128;
#endif

// Unsigned 128-bit value as two 64-bit halves (portable arithmetic helper).
struct u128 {
  std::uint64_t hi;
  std::uint64_t lo;
  friend constexpr bool operator==(const u128&, const u128&) = default;
};

// Full 64x64 -> 128 unsigned product, portable (32-bit limbs only).
constexpr u128 umul64_portable(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32;
  const std::uint64_t b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  return u128{p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & 0xFFFFFFFFu)};
}

// (hi:lo) / d for hi < d (so the quotient fits in 64 bits); portable two-digit long
// division in base 2^32 (normalised divisor, at most two corrections per digit).
constexpr std::uint64_t udiv128_64_portable(std::uint64_t hi, std::uint64_t lo, std::uint64_t d,
                                            std::uint64_t& rem) noexcept {
  constexpr std::uint64_t base = std::uint64_t{1} << 32;
  const int s = std::countl_zero(d);  // d != 0, hi < d
  d <<= s;
  const std::uint64_t dn1 = d >> 32, dn0 = d & 0xFFFFFFFFu;
  const std::uint64_t n32 = s == 0 ? hi : (hi << s) | (lo >> (64 - s));
  const std::uint64_t n10 = lo << s;
  const std::uint64_t n1 = n10 >> 32, n0 = n10 & 0xFFFFFFFFu;
  std::uint64_t q1 = n32 / dn1;
  std::uint64_t rhat = n32 - q1 * dn1;
  while (q1 >= base || q1 * dn0 > ((rhat << 32) | n1)) {
    --q1;
    rhat += dn1;
    if (rhat >= base) break;
  }
  const std::uint64_t n21 = ((n32 << 32) | n1) - q1 * d;  // fits: < d
  std::uint64_t q0 = n21 / dn1;
  rhat = n21 - q0 * dn1;
  while (q0 >= base || q0 * dn0 > ((rhat << 32) | n0)) {
    --q0;
    rhat += dn1;
    if (rhat >= base) break;
  }
  rem = (((n21 << 32) | n0) - q0 * d) >> s;
  return (q1 << 32) | q0;
}

#if LOCKSTEP_HAS_INT128
constexpr u128 umul64_native(std::uint64_t a, std::uint64_t b) noexcept {
  const native_u128 p = static_cast<native_u128>(a) * b;
  return u128{static_cast<std::uint64_t>(p >> 64), static_cast<std::uint64_t>(p)};
}
constexpr std::uint64_t udiv128_64_native(std::uint64_t hi, std::uint64_t lo, std::uint64_t d,
                                          std::uint64_t& rem) noexcept {
  const native_u128 n = (static_cast<native_u128>(hi) << 64) | lo;
  rem = static_cast<std::uint64_t>(n % d);
  return static_cast<std::uint64_t>(n / d);
}
#endif

constexpr u128 umul64(std::uint64_t a, std::uint64_t b) noexcept {
#if LOCKSTEP_HAS_INT128
  return umul64_native(a, b);
#else
  return umul64_portable(a, b);
#endif
}
constexpr std::uint64_t umulhi64(std::uint64_t a, std::uint64_t b) noexcept { return umul64(a, b).hi; }

// Requires hi < d.
constexpr std::uint64_t udiv128_64(std::uint64_t hi, std::uint64_t lo, std::uint64_t d,
                                   std::uint64_t& rem) noexcept {
#if LOCKSTEP_HAS_INT128
  return udiv128_64_native(hi, lo, d, rem);
#else
  return udiv128_64_portable(hi, lo, d, rem);
#endif
}

constexpr std::uint64_t uabs64(std::int64_t v) noexcept {
  const std::uint64_t u = static_cast<std::uint64_t>(v);
  return v < 0 ? 0 - u : u;
}

// Signed 64x64 -> 128 product as a two's complement (hi, lo) pair.
constexpr u128 smul64(std::int64_t a, std::int64_t b) noexcept {
  u128 p = umul64(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b));
  if (a < 0) p.hi -= static_cast<std::uint64_t>(b);
  if (b < 0) p.hi -= static_cast<std::uint64_t>(a);
  return p;
}

// round(a * b / 2^16), nearest, ties away from zero, low 64 bits (wrapping).
// `full_hi` receives bits 64..127 of the rounded 128-bit result (for overflow checks).
constexpr std::int64_t mul_q16_portable(std::int64_t a, std::int64_t b, std::int64_t* full_hi = nullptr) noexcept {
  u128 p = umul64_portable(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b));
  if (a < 0) p.hi -= static_cast<std::uint64_t>(b);
  if (b < 0) p.hi -= static_cast<std::uint64_t>(a);
  const bool neg = (p.hi >> 63) != 0;
  const std::uint64_t bias = neg ? 0x7FFFu : 0x8000u;  // ties away from zero
  const std::uint64_t lo = p.lo + bias;
  const std::uint64_t hi = p.hi + (lo < bias ? 1u : 0u);
  if (full_hi) {
    // arithmetic shift of hi by 16
    *full_hi = static_cast<std::int64_t>((hi >> 16) | ((hi >> 63) ? ~(~std::uint64_t{0} >> 16) : 0));
  }
  return static_cast<std::int64_t>((lo >> 16) | (hi << 48));
}

constexpr std::int64_t mul_q16(std::int64_t a, std::int64_t b) noexcept {
#if LOCKSTEP_HAS_INT128
  native_i128 p = static_cast<native_i128>(a) * b;
  p += 0x8000 - (p < 0 ? 1 : 0);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<native_u128>(p >> 16)));
#else
  return mul_q16_portable(a, b);
#endif
}

// round(a * 2^16 / b), nearest, ties away from zero; low 64 bits (wrapping).
// b == 0 gives max/min/0 by the sign of a. `overflow` (if given) is set when the
// rounded quotient does not fit in int64.
template <bool Portable = false>
constexpr std::int64_t div_q16_impl(std::int64_t a, std::int64_t b, bool* overflow = nullptr) noexcept {
  if (b == 0) {
    if (overflow) *overflow = a != 0;
    return a > 0 ? std::numeric_limits<std::int64_t>::max() : a < 0 ? std::numeric_limits<std::int64_t>::min() : 0;
  }
  const bool neg = (a < 0) != (b < 0);
  const std::uint64_t ua = uabs64(a), ub = uabs64(b);
  std::uint64_t q = 0, r = 0, qhi = 0;
  if ((ua >> 47) == 0) {
    const std::uint64_t n = ua << 16;
    q = n / ub;
    r = n % ub;
  } else {
    const std::uint64_t hi = ua >> 48, lo = ua << 16;
    qhi = hi / ub;
    const std::uint64_t rh = hi % ub;
    if constexpr (Portable) {
      q = udiv128_64_portable(rh, lo, ub, r);
    } else {
      q = udiv128_64(rh, lo, ub, r);
    }
  }
  if (r >= ub - r) {  // 2r >= ub: round half away from zero (on the magnitude)
    ++q;
    if (q == 0) ++qhi;
  }
  if (overflow) {
    *overflow = qhi != 0 || (neg ? q > (std::uint64_t{1} << 63) : q > (std::uint64_t{1} << 63) - 1);
  }
  return static_cast<std::int64_t>(neg ? 0 - q : q);
}

constexpr std::int64_t div_q16(std::int64_t a, std::int64_t b) noexcept { return div_q16_impl<false>(a, b); }
constexpr std::int64_t div_q16_portable(std::int64_t a, std::int64_t b) noexcept { return div_q16_impl<true>(a, b); }

// Result of parsing a decimal (literal or string) into a raw Q47.16 value.
struct ParseResult {
  bool ok;
  std::int64_t raw;
};

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// Exact decimal -> nearest Q47.16 (ties away from zero). Grammar:
//   [sign] digits [ '.' [digits] ] [ (e|E) [sign] digits ]   or   [sign] '.' digits [...]
// `separators` allows C++ digit separators (') between digits (for literals).
constexpr ParseResult parse_decimal(const char* s, std::size_t n, bool allow_sign, bool separators) noexcept {
  std::size_t i = 0;
  bool neg = false;
  if (allow_sign && i < n && (s[i] == '+' || s[i] == '-')) {
    neg = s[i] == '-';
    ++i;
  }
  // Mantissa extent.
  const std::size_t mant_begin = i;
  std::size_t ndigits = 0;
  std::int64_t int_digits = -1;  // digits before the point
  for (; i < n; ++i) {
    const char c = s[i];
    if (is_digit(c)) {
      ++ndigits;
    } else if (c == '.' && int_digits < 0) {
      int_digits = static_cast<std::int64_t>(ndigits);
    } else if (c == '\'' && separators) {
      continue;
    } else {
      break;
    }
  }
  const std::size_t mant_end = i;
  if (ndigits == 0) return {false, 0};
  if (int_digits < 0) int_digits = static_cast<std::int64_t>(ndigits);
  std::int64_t exp10 = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
      eneg = s[i] == '-';
      ++i;
    }
    if (i >= n || !is_digit(s[i])) return {false, 0};
    // The exponent is accumulated exactly up to 10^18 and saturates there: every digit sits
    // within the string's length (< 10^18) of the point, so beyond that bound each nonzero
    // digit is already past 2^47 (overflow) or past the 18th fractional digit (ignored), the
    // same answer as with the true exponent. (Accumulation used to stop once the exponent
    // reached 100000, cutting 7-digit exponents short: "1", a million zeros, "e-1000000"
    // was out of range instead of 1.)
    constexpr std::int64_t exp_cap = 1000000000000000000;
    for (; i < n; ++i) {
      if (is_digit(s[i])) {
        exp10 = exp10 >= exp_cap / 10 ? exp_cap : exp10 * 10 + (s[i] - '0');
      } else if (!(s[i] == '\'' && separators)) {
        return {false, 0};
      }
    }
    if (eneg) exp10 = -exp10;
  }
  if (i != n) return {false, 0};
  // Digit k (0-based, among ndigits) has decimal weight 10^(int_digits - 1 - k + exp10).
  constexpr std::uint64_t int_limit = std::uint64_t{1} << 47;  // 2^47 itself only for min()
  std::uint64_t ip = 0;
  std::uint64_t frac18 = 0;  // first 18 fractional digits (enough for exactness: docs/fixed.md)
  std::int64_t k = 0;
  bool overflow = false;
  for (std::size_t j = mant_begin; j < mant_end; ++j) {
    const char c = s[j];
    if (!is_digit(c)) continue;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    const std::int64_t pos = int_digits - 1 - k + exp10;
    ++k;
    if (pos >= 0) {
      if (!overflow) {
        ip = ip * 10 + d;
        if (ip > int_limit) overflow = true;
      }
      // The last mantissa digit may still sit left of the point (e.g. 12e5).
      if (k == static_cast<std::int64_t>(ndigits) && ip != 0) {
        for (std::int64_t z = 0; z < pos && !overflow; ++z) {
          ip *= 10;
          if (ip > int_limit) overflow = true;
        }
      }
    } else {
      const std::int64_t fi = -pos - 1;  // 0-based fractional digit index
      if (fi < 18) {
        std::uint64_t w = d;
        for (std::int64_t z = fi; z < 17; ++z) w *= 10;
        frac18 += w;
      }
    }
  }
  if (overflow) return {false, 0};
  // floor(F * 2^17) where F = frac18 / 10^18; then (x + 1) >> 1 rounds half up.
  constexpr std::uint64_t ten18 = 1000000000000000000ull;
  const u128 p = umul64_portable(frac18, std::uint64_t{1} << 17);
  std::uint64_t rem = 0;
  const std::uint64_t f17 = udiv128_64_portable(p.hi, p.lo, ten18, rem);
  const std::uint64_t mag = (ip << 16) + ((f17 + 1) >> 1);
  constexpr std::uint64_t top = std::uint64_t{1} << 63;
  if (mag > top || (mag == top && !neg)) return {false, 0};
  return {true, static_cast<std::int64_t>(neg ? 0 - mag : mag)};
}

// Not constexpr: referenced only to turn a bad literal into a compile error.
void lockstep_fixed_literal_is_malformed_or_out_of_range();

}  // namespace detail

class fixed {
 public:
  static constexpr int frac_bits = 16;
  static constexpr std::int64_t one_raw = std::int64_t{1} << frac_bits;

  // Field descriptor hooks (lockstep/store/field.h): one int64 element of kind Fixed.
  static constexpr FieldKind lockstep_field_kind = FieldKind::Fixed;
  static constexpr std::size_t lockstep_element_size = 8;

  constexpr fixed() noexcept = default;
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  constexpr explicit fixed(I v) noexcept : v_(from_int(static_cast<std::int64_t>(v)).v_) {}

  static constexpr fixed from_raw(std::int64_t raw) noexcept {
    fixed f;
    f.v_ = raw;
    return f;
  }
  // Wraps if |i| >= 2^47.
  static constexpr fixed from_int(std::int64_t i) noexcept {
    return from_raw(static_cast<std::int64_t>(static_cast<std::uint64_t>(i) << frac_bits));
  }
  // num / den, correctly rounded (nearest, ties away from zero); den == 0 as for operator/.
  // Exact for any int64 num, den (wraps only if |num/den| >= 2^47).
  static constexpr fixed ratio(std::int64_t num, std::int64_t den) noexcept {
    return from_raw(ratio_raw(num, den));
  }
  // Exact decimal -> nearest value; nullopt on syntax error or out of range.
  static constexpr std::optional<fixed> parse(std::string_view s) noexcept {
    const detail::ParseResult r = detail::parse_decimal(s.data(), s.size(), true, false);
    if (!r.ok) return std::nullopt;
    return from_raw(r.raw);
  }

  constexpr std::int64_t raw() const noexcept { return v_; }

  static constexpr fixed zero() noexcept { return from_raw(0); }
  static constexpr fixed one() noexcept { return from_raw(one_raw); }
  static constexpr fixed half() noexcept { return from_raw(one_raw / 2); }
  static constexpr fixed epsilon() noexcept { return from_raw(1); }  // one ulp, 2^-16
  static constexpr fixed max() noexcept { return from_raw(std::numeric_limits<std::int64_t>::max()); }
  static constexpr fixed min() noexcept { return from_raw(std::numeric_limits<std::int64_t>::min()); }  // most negative
  // Constants, correctly rounded to 2^-16.
  static constexpr fixed pi() noexcept { return from_raw(205887); }
  static constexpr fixed two_pi() noexcept { return from_raw(411775); }
  static constexpr fixed half_pi() noexcept { return from_raw(102944); }
  static constexpr fixed e() noexcept { return from_raw(178145); }
  static constexpr fixed ln2() noexcept { return from_raw(45426); }

  // ---- arithmetic (policy at the top of this file) ----
  friend constexpr fixed operator+(fixed a, fixed b) noexcept {
    return from_raw(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.v_) + static_cast<std::uint64_t>(b.v_)));
  }
  friend constexpr fixed operator-(fixed a, fixed b) noexcept {
    return from_raw(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.v_) - static_cast<std::uint64_t>(b.v_)));
  }
  constexpr fixed operator-() const noexcept {
    return from_raw(static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v_)));
  }
  constexpr fixed operator+() const noexcept { return *this; }
  friend constexpr fixed operator*(fixed a, fixed b) noexcept { return from_raw(detail::mul_q16(a.v_, b.v_)); }
  friend constexpr fixed operator/(fixed a, fixed b) noexcept { return from_raw(detail::div_q16(a.v_, b.v_)); }
  // Scaling by an integer: * is exact (wrapping), / rounds like fixed / fixed.
  template <std::integral I>
  friend constexpr fixed operator*(fixed a, I i) noexcept {
    return from_raw(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.v_) *
                                              static_cast<std::uint64_t>(static_cast<std::int64_t>(i))));
  }
  template <std::integral I>
  friend constexpr fixed operator*(I i, fixed a) noexcept {
    return a * i;
  }
  template <std::integral I>
  friend constexpr fixed operator/(fixed a, I i) noexcept {
    return from_raw(ratio_raw_scaled(a.v_, static_cast<std::int64_t>(i)));
  }
  friend constexpr fixed operator<<(fixed a, int n) noexcept {
    if (n < 0 || n >= 64) return from_raw(0);
    return from_raw(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.v_) << n));
  }
  friend constexpr fixed operator>>(fixed a, int n) noexcept {
    if (n < 0 || n >= 64) return from_raw(a.v_ < 0 ? -1 : 0);
    return from_raw(a.v_ >> n);  // arithmetic shift (defined in C++20)
  }

  // Compound assignments store the raw int64 member, never the whole object: clang (14)
  // emits `*this = value` (the trivial copy assignment) as a memcpy whose load/store keep only
  // !tbaa.struct, i.e. no type, so every such store may alias anything — the column pointers
  // and bounds an each() row loop reads, which are then reloaded every row and the loop stays
  // scalar (1.6-1.9x the raw loop). A store to v_ is typed (int64) and cannot alias a pointer.
  // Same values, same bits.
  constexpr fixed& operator+=(fixed o) noexcept { return set_raw((*this + o).v_); }
  constexpr fixed& operator-=(fixed o) noexcept { return set_raw((*this - o).v_); }
  constexpr fixed& operator*=(fixed o) noexcept { return set_raw((*this * o).v_); }
  constexpr fixed& operator/=(fixed o) noexcept { return set_raw((*this / o).v_); }
  template <std::integral I>
  constexpr fixed& operator*=(I i) noexcept { return set_raw((*this * i).v_); }
  template <std::integral I>
  constexpr fixed& operator/=(I i) noexcept { return set_raw((*this / i).v_); }
  constexpr fixed& operator<<=(int n) noexcept { return set_raw((*this << n).v_); }
  constexpr fixed& operator>>=(int n) noexcept { return set_raw((*this >> n).v_); }

  friend constexpr bool operator==(const fixed&, const fixed&) = default;
  friend constexpr std::strong_ordering operator<=>(const fixed&, const fixed&) = default;

 private:
  // round(num * 2^16 / den) for integer num (128-bit exact).
  static constexpr std::int64_t ratio_raw(std::int64_t num, std::int64_t den) noexcept {
    if (den == 0) return detail::div_q16(num, 0);
    const bool neg = (num < 0) != (den < 0);
    const std::uint64_t un = detail::uabs64(num), ud = detail::uabs64(den);
    // n = un * 2^16 as 128 bits; quotient low 64 bits, remainder for rounding.
    const std::uint64_t hi = un >> 48, lo = un << 16;
    const std::uint64_t rh = hi % ud;
    std::uint64_t r = 0;
    std::uint64_t q = detail::udiv128_64(rh, lo, ud, r);
    if (r >= ud - r) ++q;
    return static_cast<std::int64_t>(neg ? 0 - q : q);
  }
  // round(raw / i) for a raw value and an integer divisor.
  static constexpr std::int64_t ratio_raw_scaled(std::int64_t raw, std::int64_t i) noexcept {
    if (i == 0) return detail::div_q16(raw, 0);
    const bool neg = (raw < 0) != (i < 0);
    const std::uint64_t un = detail::uabs64(raw), ud = detail::uabs64(i);
    std::uint64_t q = un / ud;
    const std::uint64_t r = un % ud;
    if (r >= ud - r) ++q;
    return static_cast<std::int64_t>(neg ? 0 - q : q);
  }

  constexpr fixed& set_raw(std::int64_t raw) noexcept {
    v_ = raw;
    return *this;
  }

  std::int64_t v_ = 0;
};

static_assert(sizeof(fixed) == 8);
static_assert(std::is_trivially_copyable_v<fixed>);
static_assert(std::has_unique_object_representations_v<fixed>);

inline namespace literals {
// 1.25_fx, 3_fx, 1e-3_fx, 1'000.5_fx: the exact decimal, rounded to nearest (ties away
// from zero) at compile time. Hex/binary/octal-looking literals are rejected.
template <char... Cs>
consteval fixed operator""_fx() {
  constexpr char chars[] = {Cs...};
  constexpr std::size_t n = sizeof...(Cs);
  if constexpr (n >= 2 && chars[0] == '0' &&
                (chars[1] == 'x' || chars[1] == 'X' || chars[1] == 'b' || chars[1] == 'B')) {
    detail::lockstep_fixed_literal_is_malformed_or_out_of_range();
  }
  bool plain_int = true;
  for (char c : chars) plain_int = plain_int && (detail::is_digit(c) || c == '\'');
  if (plain_int && n >= 2 && chars[0] == '0') detail::lockstep_fixed_literal_is_malformed_or_out_of_range();
  const detail::ParseResult r = detail::parse_decimal(chars, n, false, true);
  if (!r.ok) detail::lockstep_fixed_literal_is_malformed_or_out_of_range();
  return fixed::from_raw(r.raw);
}
}  // namespace literals

// ---- free functions on fixed ----
constexpr fixed abs(fixed a) noexcept { return a.raw() < 0 ? -a : a; }  // abs(min()) == min() (wraps)
constexpr fixed min(fixed a, fixed b) noexcept { return b < a ? b : a; }
constexpr fixed max(fixed a, fixed b) noexcept { return a < b ? b : a; }
// Clamp to [lo, hi]; if lo > hi the result is lo.
constexpr fixed clamp(fixed v, fixed lo, fixed hi) noexcept { return v < lo ? lo : (hi < v ? (hi < lo ? lo : hi) : v); }
constexpr fixed floor(fixed a) noexcept {
  return fixed::from_raw(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.raw()) & ~std::uint64_t{0xFFFF}));
}
constexpr fixed ceil(fixed a) noexcept {
  return fixed::from_raw(static_cast<std::int64_t>((static_cast<std::uint64_t>(a.raw()) + 0xFFFFu) & ~std::uint64_t{0xFFFF}));
}
constexpr fixed trunc(fixed a) noexcept { return a.raw() < 0 ? ceil(a) : floor(a); }
// Nearest integer, ties away from zero.
constexpr fixed round(fixed a) noexcept {
  const std::uint64_t bias = a.raw() < 0 ? 0x7FFFu : 0x8000u;
  return fixed::from_raw(static_cast<std::int64_t>((static_cast<std::uint64_t>(a.raw()) + bias) & ~std::uint64_t{0xFFFF}));
}
constexpr fixed frac(fixed a) noexcept { return a - floor(a); }  // in [0, 1)
// Integer conversions.
constexpr std::int64_t to_int(fixed a) noexcept { return trunc(a).raw() >> 16; }  // toward zero
constexpr std::int64_t floor_int(fixed a) noexcept { return a.raw() >> 16; }
constexpr std::int64_t round_int(fixed a) noexcept { return round(a).raw() >> 16; }
// a + (b - a) * t, with the wrapping/rounding rules of - and *. Exact at t == 0 and t == 1.
constexpr fixed lerp(fixed a, fixed b, fixed t) noexcept { return a + (b - a) * t; }
constexpr int sign(fixed a) noexcept { return (a.raw() > 0) - (a.raw() < 0); }

// Saturating variants: clamp to [min(), max()] instead of wrapping.
constexpr fixed add_sat(fixed a, fixed b) noexcept {
  const fixed s = a + b;
  if (a.raw() >= 0 && b.raw() >= 0 && s.raw() < 0) return fixed::max();
  if (a.raw() < 0 && b.raw() < 0 && s.raw() >= 0) return fixed::min();
  return s;
}
constexpr fixed sub_sat(fixed a, fixed b) noexcept {
  const fixed s = a - b;
  if (a.raw() >= 0 && b.raw() < 0 && s.raw() < 0) return fixed::max();
  if (a.raw() < 0 && b.raw() >= 0 && s.raw() >= 0) return fixed::min();
  return s;
}
constexpr fixed mul_sat(fixed a, fixed b) noexcept {
  std::int64_t hi = 0;
  const std::int64_t lo = detail::mul_q16_portable(a.raw(), b.raw(), &hi);
  if (hi == (lo < 0 ? -1 : 0)) return fixed::from_raw(lo);
  return hi < 0 ? fixed::min() : fixed::max();
}
constexpr fixed div_sat(fixed a, fixed b) noexcept {
  bool overflow = false;
  const std::int64_t q = detail::div_q16_impl<false>(a.raw(), b.raw(), &overflow);
  if (!overflow) return fixed::from_raw(q);
  return ((a.raw() < 0) != (b.raw() < 0)) ? fixed::min() : fixed::max();
}
// Checked variants: nullopt when the exact (rounded) result does not fit, or on / 0.
constexpr std::optional<fixed> checked_add(fixed a, fixed b) noexcept {
  const fixed s = add_sat(a, b);
  if (s != a + b) return std::nullopt;
  return s;
}
constexpr std::optional<fixed> checked_sub(fixed a, fixed b) noexcept {
  const fixed s = sub_sat(a, b);
  if (s != a - b) return std::nullopt;
  return s;
}
constexpr std::optional<fixed> checked_mul(fixed a, fixed b) noexcept {
  std::int64_t hi = 0;
  const std::int64_t lo = detail::mul_q16_portable(a.raw(), b.raw(), &hi);
  if (hi != (lo < 0 ? -1 : 0)) return std::nullopt;
  return fixed::from_raw(lo);
}
constexpr std::optional<fixed> checked_div(fixed a, fixed b) noexcept {
  if (b.raw() == 0) return std::nullopt;
  bool overflow = false;
  const std::int64_t q = detail::div_q16_impl<false>(a.raw(), b.raw(), &overflow);
  if (overflow) return std::nullopt;
  return fixed::from_raw(q);
}

// Exact decimal text: "-1.25", "3", "0.0000152587890625". At most max_chars characters.
inline constexpr std::size_t fixed_max_chars = 34;
// Writes the exact decimal into out (no terminator); returns the number of chars written.
// Allocation-free; `out` must hold fixed_max_chars chars.
constexpr std::size_t to_chars(fixed f, char* out) noexcept {
  std::size_t n = 0;
  const std::uint64_t mag = detail::uabs64(f.raw());
  if (f.raw() < 0) out[n++] = '-';
  std::uint64_t ip = mag >> 16;
  std::uint32_t frac_part = static_cast<std::uint32_t>(mag & 0xFFFFu);
  char digits[20] = {};
  int nd = 0;
  do {
    digits[nd++] = static_cast<char>('0' + ip % 10);
    ip /= 10;
  } while (ip != 0);
  while (nd > 0) out[n++] = digits[--nd];
  if (frac_part != 0) {
    out[n++] = '.';
    while (frac_part != 0) {  // at most 16 digits: 2^-16 = 5^16 / 10^16
      frac_part *= 10;
      out[n++] = static_cast<char>('0' + (frac_part >> 16));
      frac_part &= 0xFFFFu;
    }
  }
  return n;
}
inline std::string to_string(fixed f) {
  char buf[fixed_max_chars];
  return std::string(buf, to_chars(f, buf));
}
// For display and statistics only; never feed the result back into a simulation.
// lockstep: allow(float) display only: printing and statistics, never fed back into a sim
constexpr double to_double(fixed f) noexcept { return static_cast<double>(f.raw()) / 65536.0; }

}  // namespace lockstep
