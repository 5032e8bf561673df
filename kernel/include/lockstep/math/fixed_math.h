#pragma once
// Integer-only math on lockstep::fixed: sqrt, hypot, sin, cos, tan, atan, atan2, asin, acos,
// exp, log, log2, pow. Angles are radians. Everything is constexpr, header-only, and uses
// only integer arithmetic (tables are computed at compile time by constexpr integer code
// from a handful of integer constants; see docs/fixed.md for how they were derived).
//
// Internally values are carried with ~60 fractional bits (Q62/Q61/Q57) and rounded ONCE to
// Q47.16 at the end (nearest, ties away from zero). Measured error bounds (tests/fixed)
// are in docs/fixed.md; in short: sqrt and hypot correctly rounded (<= 0.5 ulp), sin, cos,
// atan, atan2, asin, acos <= 1 ulp everywhere; tan, exp, log, pow <= 2 ulp on the domains
// documented there.
//
// Domain errors have defined results (no NaN exists): sqrt(x<0) = 0, log(x<=0) = min(),
// asin/acos clamp their argument to [-1, 1], exp saturates at max(), tan saturates at
// +-max() next to its poles, pow(negative, non-integer) = 0, pow(0, negative) = max(), pow
// saturates at max() (-max()) exactly when the true |result| exceeds max().
#include <lockstep/math/fixed.h>

#include <array>
#include <cstdint>

namespace lockstep {
namespace detail {
namespace fm {

// ---- 128-bit two's complement helpers (portable; u128 from fixed.h) ----
constexpr u128 add128(u128 a, u128 b) noexcept {
  const std::uint64_t lo = a.lo + b.lo;
  return u128{a.hi + b.hi + (lo < a.lo ? 1u : 0u), lo};
}
constexpr u128 neg128(u128 a) noexcept {
  const std::uint64_t lo = 0 - a.lo;
  return u128{(0 - a.hi) - (a.lo != 0 ? 1u : 0u), lo};
}
constexpr u128 sub128(u128 a, u128 b) noexcept { return add128(a, neg128(b)); }
constexpr bool neg128_p(u128 a) noexcept { return (a.hi >> 63) != 0; }
constexpr bool less128(u128 a, u128 b) noexcept { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
constexpr u128 sext64(std::int64_t v) noexcept {
  return u128{v < 0 ? ~std::uint64_t{0} : 0, static_cast<std::uint64_t>(v)};
}
// Arithmetic shift right by n in [1, 63].
constexpr u128 sar128(u128 a, int n) noexcept {
  const std::uint64_t fill = neg128_p(a) ? ~std::uint64_t{0} : 0;
  return u128{(a.hi >> n) | (fill << (64 - n)), (a.lo >> n) | (a.hi << (64 - n))};
}
// Round a signed 128-bit value / 2^n to nearest, ties away from zero (n in [1, 63]).
constexpr u128 round_shr128(u128 a, int n) noexcept {
  const std::uint64_t half = std::uint64_t{1} << (n - 1);
  const std::uint64_t bias = neg128_p(a) ? half - 1 : half;
  return sar128(add128(a, u128{0, bias}), n);
}
constexpr bool fits_i64(u128 a) noexcept { return a.hi == ((a.lo >> 63) ? ~std::uint64_t{0} : 0); }
constexpr std::int64_t low_i64(u128 a) noexcept { return static_cast<std::int64_t>(a.lo); }

// floor(a * b / 2^62) for signed a, b (|result| < 2^63 assumed).
constexpr std::int64_t mulq62_portable(std::int64_t a, std::int64_t b) noexcept {
  u128 p = umul64_portable(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b));
  if (a < 0) p.hi -= static_cast<std::uint64_t>(b);
  if (b < 0) p.hi -= static_cast<std::uint64_t>(a);
  return static_cast<std::int64_t>((p.lo >> 62) | (p.hi << 2));
}
// round(a * b / 2^62) (nearest, ties up) for a, b >= 0.
constexpr std::uint64_t umulq62_round(std::uint64_t a, std::uint64_t b) noexcept {
  const u128 p = umul64(a, b);
  const std::uint64_t lo = p.lo + (std::uint64_t{1} << 61);
  const std::uint64_t hi = p.hi + (lo < p.lo ? 1u : 0u);
  return (lo >> 62) | (hi << 2);
}
constexpr std::int64_t mulq62(std::int64_t a, std::int64_t b) noexcept {
#if LOCKSTEP_HAS_INT128
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(
      static_cast<native_u128>((static_cast<native_i128>(a) * b) >> 62)));
#else
  return mulq62_portable(a, b);
#endif
}
// Round a signed Qn value to Q16: nearest, ties away from zero (shift in [1, 63]).
constexpr std::int64_t round_to_q16(std::int64_t v, int shift) noexcept {
  const std::uint64_t mag = uabs64(v);
  const std::uint64_t r = (mag + (std::uint64_t{1} << (shift - 1))) >> shift;
  return v < 0 ? -static_cast<std::int64_t>(r) : static_cast<std::int64_t>(r);
}

// ---- integer square roots ----
// floor(sqrt(n)); rem = n - result^2. Digit-by-digit reference version (used to build the
// table below and kept for tests).
constexpr std::uint64_t isqrt64_digits(std::uint64_t n, std::uint64_t& rem) noexcept {
  std::uint64_t res = 0;
  std::uint64_t bit = n == 0 ? 0 : std::uint64_t{1} << ((63 - std::countl_zero(n)) & ~1);
  while (bit != 0) {
    const std::uint64_t t = res + bit;
    const bool take = n >= t;
    n -= take ? t : 0;
    res = (res >> 1) + (take ? bit : 0);
    bit >>= 2;
  }
  rem = n;
  return res;
}
// 1/sqrt((i + 0.5) / 256) in Q16 for i = 64..255: floor(sqrt(2^41 / (2i + 1))).
inline constexpr std::array<std::uint32_t, 192> kRsqrtTable = [] {
  std::array<std::uint32_t, 192> tab{};
  for (std::uint64_t i = 64; i < 256; ++i) {
    std::uint64_t r = 0;
    tab[i - 64] = static_cast<std::uint32_t>(isqrt64_digits((std::uint64_t{1} << 41) / (2 * i + 1), r));
  }
  return tab;
}();
// floor(sqrt(n)); rem = n - result^2. Normalise n to m in [2^62, 2^64); reciprocal square
// root from a 192-entry table refined by two multiply-only Newton steps; sqrt(m) = m / sqrt(m);
// then an exact integer fix-up (the estimate is within a few units), so the result is exact.
constexpr std::uint64_t isqrt64(std::uint64_t n, std::uint64_t& rem) noexcept {
  if (n == 0) {
    rem = 0;
    return 0;
  }
  const int k = std::countl_zero(n) & ~1;
  const std::uint64_t m = n << k;                                               // [2^62, 2^64)
  std::uint64_t y = std::uint64_t{kRsqrtTable[(m >> 56) - 64]} << 15;          // 1/sqrt(m/2^64), Q31
  for (int it = 0; it < 2; ++it) {
    const std::uint64_t uy2 = umulhi64(m, y * y);                               // u y^2, Q62 (~1)
    const std::uint64_t t = (std::uint64_t{3} << 62) - uy2;                     // 3 - u y^2, Q62
    y = umulhi64(y << 1, t);                                                   // y (3 - u y^2) / 2, Q31
  }
  std::uint64_t s = umulhi64(m, y << 1);  // m y / 2^63 ~ sqrt(m), in [2^31, 2^32)
  if (s > 0xFFFFFFFFu) s = 0xFFFFFFFFu;
  while (s * s > m) --s;
  while (s < 0xFFFFFFFFu && (s + 1) * (s + 1) <= m) ++s;
  const std::uint64_t r = s >> (k / 2);  // floor(sqrt(n)) = floor(floor(sqrt(m)) / 2^(k/2))
  rem = n - r * r;
  return r;
}
// floor(sqrt(n)) for a 128-bit n; rem = n - result^2 (as u128).
constexpr std::uint64_t isqrt128(u128 n, u128& rem) noexcept {
  if (n.hi == 0) {
    std::uint64_t r = 0;
    const std::uint64_t s = isqrt64(n.lo, r);
    rem = u128{0, r};
    return s;
  }
  // Estimate from the top 62..64 bits, then one Newton step from above, then fix up.
  const int bits = 128 - std::countl_zero(n.hi);      // 65..128
  const int t = ((bits - 63) + 1) & ~1;               // even shift, leaves 62..64 bits
  const std::uint64_t top = t >= 64 ? (n.hi >> (t - 64)) : ((n.hi << (64 - t)) | (n.lo >> t));
  std::uint64_t r0rem = 0;
  const std::uint64_t r0 = isqrt64(top, r0rem);
  const int h = t / 2;
  std::uint64_t r = (r0 + 1) >= (std::uint64_t{1} << (64 - h)) ? ~std::uint64_t{0} : ((r0 + 1) << h);
  std::uint64_t qrem = 0;
  const std::uint64_t q = udiv128_64(n.hi, n.lo, r, qrem);  // n.hi < r since r >= sqrt(n) >= 2^32
  r = (r >> 1) + (q >> 1) + (r & q & 1);
  for (;;) {  // at most a couple of iterations
    const u128 sq = umul64(r, r);
    if (less128(n, sq)) {
      --r;
      continue;
    }
    const u128 d = sub128(n, sq);
    // (r+1)^2 = r^2 + 2r + 1 <= n  <=>  d >= 2r + 1
    const u128 two_r1 = u128{r >> 63, (r << 1) | 1};
    if (r != ~std::uint64_t{0} && !less128(d, two_r1)) {
      ++r;
      continue;
    }
    rem = d;
    return r;
  }
}

// ---- constants (integers; derivation in docs/fixed.md) ----
inline constexpr std::uint64_t kInv2PiHi = 0x28be60db9391054aull;  // floor(2^128 / (2 pi)), high word
inline constexpr std::uint64_t kInv2PiLo = 0x7f09d5f47d4d3770ull;  //   ... low word
inline constexpr std::uint64_t kPi4Q64 = 0xc90fdaa22168c235ull;    // round(pi/4 * 2^64)
inline constexpr std::int64_t kPiQ61 = 0x6487ed5110b4611all;       // round(pi * 2^61)
inline constexpr std::int64_t kHalfPiQ61 = 0x3243f6a8885a308dll;   // round(pi/2 * 2^61)
inline constexpr std::int64_t kLn2Q62 = 0x2c5c85fdf473de6bll;      // round(ln 2 * 2^62)
inline constexpr std::int64_t kLn2Q63 = 0x58b90bfbe8e7bcd6ll;      // round(ln 2 * 2^63)
inline constexpr std::uint64_t kInvLn2Hi = 0x5c551d94ae0bf85dull;  // floor(2^126 / ln 2), high word
inline constexpr std::uint64_t kInvLn2Lo = 0xdf43ff68348e9f44ull;  //   ... low word
inline constexpr std::int64_t kOneQ62 = std::int64_t{1} << 62;

// round(2^62 / n) for n >= 1.
constexpr std::int64_t inv_q62(std::uint64_t n) noexcept {
  return static_cast<std::int64_t>(((std::uint64_t{1} << 62) + n / 2) / n);
}
constexpr std::uint64_t factorial(int n) noexcept {
  std::uint64_t f = 1;
  for (int i = 2; i <= n; ++i) f *= static_cast<std::uint64_t>(i);
  return f;
}

// sin(x)/x = sum (-1)^k x^(2k) / (2k+1)!, k = 0..6 (x <= pi/4: truncation < 2^-45).
inline constexpr std::array<std::int64_t, 7> kSinCoef = [] {
  std::array<std::int64_t, 7> c{};
  for (int k = 0; k < 7; ++k) {
    const std::int64_t v = inv_q62(factorial(2 * k + 1));
    c[static_cast<std::size_t>(k)] = (k % 2) ? -v : v;
  }
  return c;
}();
// cos(x) = sum (-1)^k x^(2k) / (2k)!, k = 0..7 (truncation < 2^-49).
inline constexpr std::array<std::int64_t, 8> kCosCoef = [] {
  std::array<std::int64_t, 8> c{};
  for (int k = 0; k < 8; ++k) {
    const std::int64_t v = inv_q62(factorial(2 * k));
    c[static_cast<std::size_t>(k)] = (k % 2) ? -v : v;
  }
  return c;
}();

// Angle x (radians, Q62, 0 <= x <= pi/4): sin(x)/x and cos(x) in Q62, Horner in z = x^2.
// Terms: the full series (7 / 8 terms, truncation < 2^-45) for tan and rotate, which need
// relative precision; sin()/cos() round to Q16 and use 5 / 6 terms (truncation < 2^-29,
// i.e. < 2^-13 ulp).
template <int Terms = 7>
constexpr std::int64_t sinc_q62(std::int64_t z) noexcept {
  std::int64_t p = kSinCoef[Terms - 1];
  for (int k = Terms - 2; k >= 0; --k) p = kSinCoef[static_cast<std::size_t>(k)] + mulq62(p, z);
  return p;
}
template <int Terms = 8>
constexpr std::int64_t cos_q62(std::int64_t z) noexcept {
  std::int64_t p = kCosCoef[Terms - 1];
  for (int k = Terms - 2; k >= 0; --k) p = kCosCoef[static_cast<std::size_t>(k)] + mulq62(p, z);
  return p;
}

// x (raw Q16) -> angle in turns as Q0.64 (the whole uint64 circle is one turn), using a
// 128-bit 1/(2 pi): error < 2^-63 turn for every int64 input.
constexpr std::uint64_t turns_q64(std::int64_t raw) noexcept {
  const std::uint64_t m = uabs64(raw);
  const u128 a = umul64(m, kInv2PiHi);
  const std::uint64_t c = umulhi64(m, kInv2PiLo);
  const std::uint64_t lo = a.lo + c;
  const std::uint64_t hi = a.hi + (lo < c ? 1u : 0u);
  const std::uint64_t t = (lo >> 16) | (hi << 48);
  return raw < 0 ? 0 - t : t;
}
// Turns in one octant (Q0.64 turns, 0 <= f <= 2^61) -> radians Q62.
constexpr std::int64_t octant_turns_to_rad_q62(std::uint64_t f) noexcept {
  return static_cast<std::int64_t>(umulhi64(f << 1, kPi4Q64));
}

// sin(2 pi t) in Q62 for t in turns (Q0.64). Precise = full series (for rotate).
template <bool Precise = true>
constexpr std::int64_t sin_turns_q62(std::uint64_t t) noexcept {
  const unsigned oct = static_cast<unsigned>(t >> 61);
  std::uint64_t f = t & ((std::uint64_t{1} << 61) - 1);
  if (oct & 1u) f = (std::uint64_t{1} << 61) - f;
  const std::int64_t x = octant_turns_to_rad_q62(f);
  const std::int64_t z = mulq62(x, x);
  const bool use_cos = (((oct + 1) >> 1) & 1u) != 0;
  const std::int64_t v = use_cos ? cos_q62<Precise ? 8 : 6>(z) : mulq62(sinc_q62<Precise ? 7 : 5>(z), x);
  return oct >= 4 ? -v : v;
}

// ---- atan ----
// atan(i/32) in Q62 for i = 0..32, by Euler's series
//   atan(x) = sum_n 2^(2n) (n!)^2 / (2n+1)! * x^(2n+1) / (1+x^2)^(n+1),
// each term from the previous one: t_n = t_(n-1) * 2n i^2 / ((2n+1) (1024 + i^2)).
inline constexpr std::array<std::int64_t, 33> kAtanTable = [] {
  std::array<std::int64_t, 33> tab{};
  for (std::uint64_t i = 0; i <= 32; ++i) {
    const std::uint64_t den0 = 1024 + i * i;
    std::uint64_t rem = 0;
    std::uint64_t term = udiv128_64_portable((32 * i) >> 2, (32 * i) << 62, den0, rem);
    std::uint64_t sum = 0;
    for (std::uint64_t n = 1; term != 0; ++n) {
      sum += term;
      const u128 p = umul64_portable(term, 2 * n * i * i);
      term = udiv128_64_portable(p.hi, p.lo, (2 * n + 1) * den0, rem);
    }
    tab[i] = static_cast<std::int64_t>(sum);
  }
  return tab;
}();
// Self-check of the generated table against the independent pi constant: atan(1) = pi/4.
static_assert(kAtanTable[32] - kPiQ61 / 2 < 256 && kPiQ61 / 2 - kAtanTable[32] < 256);

// atan(a / b) in Q62 for 0 <= a <= b, b > 0.
constexpr std::int64_t atan_ratio_q62(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t rem = 0;
  const std::uint64_t r = udiv128_64(a >> 2, a << 62, b, rem);  // a/b in Q62, <= 2^62
  const std::uint64_t i = (r + (std::uint64_t{1} << 56)) >> 57;  // nearest i/32
  // d = (r - c) / (1 + r c), c = i/32; |d| <= 1/64.
  const std::int64_t num = static_cast<std::int64_t>(r - (i << 57));
  const std::uint64_t den = (std::uint64_t{1} << 62) + (r >> 5) * i;
  const std::uint64_t un = uabs64(num);
  std::uint64_t dq = udiv128_64(un >> 2, un << 62, den, rem);
  const std::int64_t d = num < 0 ? -static_cast<std::int64_t>(dq) : static_cast<std::int64_t>(dq);
  // atan(d) = d (1 - d^2/3 + d^4/5 - d^6/7); truncation < 2^-57.
  const std::int64_t z = mulq62(d, d);
  std::int64_t p = -inv_q62(7);
  p = inv_q62(5) + mulq62(p, z);
  p = -inv_q62(3) + mulq62(p, z);
  p = kOneQ62 + mulq62(p, z);
  return kAtanTable[i] + mulq62(p, d);
}

// atan2 of magnitudes with signs, result in Q61 radians in [-pi, pi].
constexpr std::int64_t atan2_q61(std::uint64_t ay, bool yneg, std::uint64_t ax, bool xneg) noexcept {
  if (ax == 0 && ay == 0) return 0;
  const bool swap = ay > ax;
  const std::int64_t a62 = swap ? atan_ratio_q62(ax, ay) : atan_ratio_q62(ay, ax);
  std::int64_t th = a62 >> 1;  // Q61
  if (swap) th = kHalfPiQ61 - th;
  if (xneg) th = kPiQ61 - th;
  return yneg ? -th : th;
}

// ---- exp / log ----
// 2^(j/64) in Q62 for j = 0..63: exp(j ln2 / 64) by its Taylor series, summed with 96
// fractional bits (u128) so that the entries are correctly rounded up to the ln 2 constant.
inline constexpr std::array<std::uint64_t, 64> kExp2Table = [] {
  std::array<std::uint64_t, 64> tab{};
  for (std::uint64_t j = 0; j < 64; ++j) {
    const u128 xj = umul64_portable(static_cast<std::uint64_t>(kLn2Q63), j);
    const std::uint64_t x = (xj.lo >> 7) | (xj.hi << 57);  // j ln2 / 64 in Q62, < 2^62
    u128 term{std::uint64_t{1} << 32, 0};                   // 1.0 in Q96
    u128 sum{0, 0};
    for (std::uint64_t n = 1; term.hi != 0 || term.lo != 0; ++n) {
      sum = add128(sum, term);
      // term = term * x / 2^62 / n, in Q96
      const u128 a = umul64_portable(term.hi, x);  // < 2^96
      const u128 b = umul64_portable(term.lo, x);
      u128 t = add128(u128{(a.hi << 2) | (a.lo >> 62), a.lo << 2}, u128{b.hi >> 62, (b.lo >> 62) | (b.hi << 2)});
      std::uint64_t r = 0;
      const std::uint64_t qh = t.hi / n;
      const std::uint64_t ql = udiv128_64_portable(t.hi % n, t.lo, n, r);
      term = u128{qh, ql};
    }
    const u128 rounded = add128(sum, u128{0, std::uint64_t{1} << 33});
    tab[j] = (rounded.hi << 30) | (rounded.lo >> 34);  // Q96 -> Q62
  }
  return tab;
}();
// Self-check against an independent integer route: 2^(32/64) = sqrt(2).
static_assert([] {
  u128 rem{};
  const std::uint64_t s = isqrt128(u128{std::uint64_t{1} << 61, 0}, rem);  // sqrt(2^125) = sqrt(2) 2^62
  const std::uint64_t t = kExp2Table[32];
  return (t > s ? t - s : s - t) <= 1;
}());

// exp of a Q57 argument (|arg| < 2^63): returns mantissa m (value = m * 2^(k - 62)).
struct ExpParts {
  std::uint64_t m;  // in [2^62, 2^63 + small)
  std::int64_t k;
};
constexpr ExpParts exp_q57(std::int64_t arg) noexcept {
  const std::uint64_t a = uabs64(arg);
  // t = |arg| / ln 2 in Q119 (|arg| Q57 times 1/ln2 Q126, top 128 bits).
  const u128 p = umul64(a, kInvLn2Hi);
  const std::uint64_t c = umulhi64(a, kInvLn2Lo);
  const std::uint64_t lo = p.lo + c;
  const std::uint64_t hi = p.hi + (lo < c ? 1u : 0u);
  std::int64_t k = static_cast<std::int64_t>(hi >> 55);
  std::uint64_t f = ((hi << 7) | (lo >> 57)) & ((std::uint64_t{1} << 62) - 1);  // Q62 fraction
  if (arg < 0) {
    k = -k;
    if (f != 0) {
      k -= 1;
      f = (std::uint64_t{1} << 62) - f;
    }
  }
  const std::uint64_t j = f >> 56;
  const std::uint64_t g = f & ((std::uint64_t{1} << 56) - 1);
  const std::uint64_t x = umulq62_round(g, static_cast<std::uint64_t>(kLn2Q62));  // g ln2 < 2^-6.5
  // e^x = sum x^n / n!, n <= 7 (truncation < 2^-66); all terms positive, rounded products.
  std::uint64_t poly = static_cast<std::uint64_t>(inv_q62(5040));
  for (int n = 6; n >= 0; --n) poly = static_cast<std::uint64_t>(inv_q62(factorial(n))) + umulq62_round(poly, x);
  return ExpParts{umulq62_round(kExp2Table[j], poly), k};
}
// Scale exp parts to a raw Q16 value, rounding to nearest; saturates at INT64_MAX.
constexpr std::int64_t exp_parts_to_raw(ExpParts e) noexcept {
  const std::int64_t s = 46 - e.k;  // raw = m * 2^(k + 16 - 62)
  if (s < 0) return std::numeric_limits<std::int64_t>::max();  // >= 2^47: overflow
  if (s >= 64) return 0;                                          // < 2^-17
  const std::uint64_t r = s == 0 ? e.m : (e.m >> s) + ((e.m >> (s - 1)) & 1u);
  if (r > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return static_cast<std::int64_t>(r);
}

// ln table: for c_i = 1 + i/128 (i = 0..127), R_i = round(2^62 / c_i) and
// kLnRecip[i] = -ln(R_i / 2^62) in Q62, via ln(r) = 2 atanh((r - 1) / (r + 1)).
struct LnEntry {
  std::int64_t recip;   // R_i, Q62
  std::int64_t neg_ln;  // -ln(R_i / 2^62), Q62
};
inline constexpr std::array<LnEntry, 128> kLnTable = [] {
  std::array<LnEntry, 128> tab{};
  for (std::uint64_t i = 0; i < 128; ++i) {
    std::uint64_t rr = 0;  // R = round(2^69 / (128 + i))
    const std::uint64_t R = udiv128_64_portable(32, (128 + i) / 2, 128 + i, rr);
    // u = (2^62 - R) / (2^62 + R) >= 0 in Q62; -ln(r) = 2 atanh(u).
    const std::uint64_t numu = (std::uint64_t{1} << 62) - R;
    const std::uint64_t denu = (std::uint64_t{1} << 62) + R;
    std::uint64_t rem = 0;
    const std::uint64_t u = udiv128_64_portable(numu >> 2, numu << 62, denu, rem);
    const u128 u2p = umul64_portable(u, u);
    const std::uint64_t u2 = (u2p.lo >> 62) | (u2p.hi << 2);
    std::uint64_t pw = u;  // u^(2n+1)
    std::uint64_t sum = 0;
    for (std::uint64_t n = 0; pw != 0; ++n) {
      sum += pw / (2 * n + 1);
      const u128 q = umul64_portable(pw, u2);
      pw = (q.lo >> 62) | (q.hi << 2);
    }
    tab[i] = LnEntry{static_cast<std::int64_t>(R), static_cast<std::int64_t>(2 * sum)};
  }
  return tab;
}();
// Self-check: ln(1/R_0) = 0 and the last entry against the independent ln 2 constant:
// c_127 = 255/128, so ln(c_127) = ln(255/256) + ln 2, and ln(255/256) ~ -1/256 - ...
static_assert(kLnTable[0].neg_ln == 0);

// ln(raw / 2^16) in Q57 for raw > 0 (|result| < 33).
constexpr std::int64_t log_q57(std::uint64_t raw) noexcept {
  const int e = 63 - std::countl_zero(raw);  // 0..62
  const std::int64_t m = static_cast<std::int64_t>(raw << (62 - e));  // Q62 in [1, 2)
  const LnEntry& ent = kLnTable[static_cast<std::size_t>((m >> 55) & 127)];
  const std::int64_t z = mulq62(m, ent.recip) - kOneQ62;  // |z| < 2^-7
  // ln(1+z) = z (1 - z/2 + z^2/3 - ... + z^8/9); truncation < 2^-70.
  std::int64_t p = inv_q62(9);
  for (int n = 8; n >= 1; --n) {  // coefficient of z^(n-1) is (-1)^(n-1) / n
    const std::int64_t c = inv_q62(static_cast<std::uint64_t>(n));
    p = ((n % 2) ? c : -c) + mulq62(p, z);
  }
  const std::int64_t lnm = ent.neg_ln + mulq62(p, z);  // Q62, in [0, ln 2)
  // total (Q63) = (e - 16) ln2 + lnm, as 128-bit, then round to Q57.
  const u128 v = add128(smul64(e - 16, kLn2Q63), sext64(lnm * 2));
  return low_i64(round_shr128(v, 6));
}


// ---- pow's overflow decision ----
// pow computes y ln x to Q57, so next to the top of the range a true result above max() can
// come out up to (|y|/2 + 2) * 2^6 ulp below it. Whether |x|^y exceeds max() is decided here
// instead, from log2|x| to ~2^-117 (an atanh series on 128-bit fractions): only called for
// the few arguments whose computed result lands in that window, so the cost stays off the
// common path, and every other result keeps its bits.

// floor(a * b / 2^128) for 128-bit fractions (exact floor of the 256-bit product's top half).
constexpr u128 mulhi128(u128 a, u128 b) noexcept {
  const u128 hh = umul64(a.hi, b.hi);
  const u128 hl = umul64(a.hi, b.lo);
  const u128 lh = umul64(a.lo, b.hi);
  const std::uint64_t ll = umulhi64(a.lo, b.lo);
  const u128 mid = add128(add128(u128{0, hl.lo}, u128{0, lh.lo}), u128{0, ll});  // mid.hi: carry
  return add128(add128(hh, u128{0, hl.hi}), add128(u128{0, lh.hi}, u128{0, mid.hi}));
}
constexpr u128 div128_u64(u128 a, std::uint64_t d) noexcept {
  std::uint64_t rem = 0;
  const std::uint64_t lo = udiv128_64(a.hi % d, a.lo, d, rem);
  return u128{a.hi / d, lo};
}

// log2(m) in Q126 for a Q63 mantissa m in [2^63, 2^64) (value in [1, 2)); error < 2^-118
// (one truncation per division and product, ~41 terms).
// ln m = 2 atanh(z), z = (m - 1) / (m + 1) < 1/3, summed as z^(2k+1) / (2k+1) until the
// terms vanish (<= 41 of them), then times 1/ln 2 (kInvLn2, 128 bits).
constexpr u128 log2_mantissa_q126(std::uint64_t m) noexcept {
  const std::uint64_t num = m - (std::uint64_t{1} << 63);  // (m - 1) 2^63
  const std::uint64_t den = m / 2 + (std::uint64_t{1} << 62);  // (m + 1) 2^62, < 2^64
  // z in Q128 = num 2^128 / (2 den): two digits of long division by den of num 2^127.
  std::uint64_t rem = 0;
  const std::uint64_t zh = udiv128_64(num >> 1, num << 63, den, rem);  // num/2 < den
  const std::uint64_t zl = udiv128_64(rem, 0, den, rem);
  const u128 z{zh, zl};
  const u128 z2 = mulhi128(z, z);
  u128 term = z;
  u128 sum{0, 0};
  for (std::uint64_t k = 0; term.hi != 0 || term.lo != 0; ++k) {
    sum = add128(sum, div128_u64(term, 2 * k + 1));
    term = mulhi128(term, z2);
  }
  const u128 ln_q128 = u128{(sum.hi << 1) | (sum.lo >> 63), sum.lo << 1};  // 2 atanh(z) < ln 2
  return mulhi128(ln_q128, u128{kInvLn2Hi, kInvLn2Lo});
}

// Whether |x|^y > max() = (2^63 - 1) / 2^16 for raw |x| > 0 and raw y != 0: compares
// y log2|x| (scaled by 2^136, 192 bits) with log2 max() = 47 + log2(1 - 2^-63), i.e. with
// 47 2^136 - K, K = 2^73 / ln 2. Near that boundary |y| < 2^22 (|log2|x|| >= 2^-15.5), so
// y log2|x| is off by less than 2^-90, far inside the 1.44 2^-63 between log2 max() and 47:
// the answer is right for every pair whose |x|^y is not within 2^-90 (relative) of max(), and
// the one exact hit, |x|^y = 2^47 (pow(2, 47), pow(0.5, -47)), counts as above max().
constexpr bool pow_exceeds_max(std::uint64_t ax, std::int64_t y) noexcept {
  const int e = 63 - std::countl_zero(ax);  // |x| in [2^(e-16), 2^(e-15))
  const u128 l126 = log2_mantissa_q126(ax << (63 - e));
  const u128 l120 = u128{l126.hi >> 6, (l126.lo >> 6) | (l126.hi << 58)};  // log2 m, Q120, < 2^120
  // |log2 |x|| in Q120 (< 47 2^120) and its sign.
  const bool log_neg = e < 16;
  const u128 whole = u128{static_cast<std::uint64_t>(log_neg ? 16 - e : e - 16) << 56, 0};
  const u128 lx = log_neg ? sub128(whole, l120) : add128(whole, l120);
  if ((lx.hi == 0 && lx.lo == 0) || log_neg != (y < 0)) return false;  // |x|^y <= 1
  // P = |y raw| * |lx| (192 bits: p2 p1 p0), then P + K against 47 2^136 = (47 << 8) 2^128.
  const std::uint64_t ay = uabs64(y);
  const u128 plo = umul64(ay, lx.lo);
  const u128 phi = umul64(ay, lx.hi);
  const u128 p21 = add128(u128{phi.hi, phi.lo}, u128{0, plo.hi});
  const u128 k = u128{kInvLn2Hi >> 53, (kInvLn2Hi << 11) | (kInvLn2Lo >> 53)};  // floor(2^73 / ln 2)
  const std::uint64_t p0 = plo.lo + k.lo;
  const u128 s21 = add128(add128(p21, u128{0, k.hi}), u128{0, p0 < plo.lo ? 1u : 0u});
  constexpr std::uint64_t kTop = std::uint64_t{47} << 8;
  return s21.hi > kTop || (s21.hi == kTop && (s21.lo != 0 || p0 != 0));
}
}  // namespace fm
}  // namespace detail

// ---------------------------------------------------------------------------------------
// Public functions.

// Correctly rounded square root (nearest; ties cannot occur). sqrt(x < 0) == 0.
constexpr fixed sqrt(fixed x) noexcept {
  using namespace detail::fm;
  const std::int64_t raw = x.raw();
  if (raw <= 0) return fixed::zero();
  const std::uint64_t u = static_cast<std::uint64_t>(raw);
  if ((u >> 47) == 0) {
    std::uint64_t rem = 0;
    const std::uint64_t s = isqrt64(u << 16, rem);
    return fixed::from_raw(static_cast<std::int64_t>(s + (rem > s ? 1u : 0u)));
  }
  detail::u128 rem{};
  const std::uint64_t s = isqrt128(detail::u128{u >> 48, u << 16}, rem);
  return fixed::from_raw(static_cast<std::int64_t>(s + (less128(detail::u128{0, s}, rem) ? 1u : 0u)));
}

namespace detail::fm {
// Correctly rounded sqrt of a 128-bit Q32 sum of squares -> raw Q16, saturating.
constexpr std::int64_t sqrt_q32_to_raw(u128 n) noexcept {
  u128 rem{};
  std::uint64_t s = isqrt128(n, rem);
  if (less128(u128{0, s}, rem)) ++s;
  if (s > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return static_cast<std::int64_t>(s);
}
}  // namespace detail::fm

// sqrt(x^2 + y^2), correctly rounded, with no intermediate overflow; saturates at max().
constexpr fixed hypot(fixed x, fixed y) noexcept {
  using namespace detail::fm;
  const std::uint64_t ax = detail::uabs64(x.raw()), ay = detail::uabs64(y.raw());
  return fixed::from_raw(sqrt_q32_to_raw(add128(detail::umul64(ax, ax), detail::umul64(ay, ay))));
}
constexpr fixed hypot(fixed x, fixed y, fixed z) noexcept {
  using namespace detail::fm;
  const std::uint64_t ax = detail::uabs64(x.raw()), ay = detail::uabs64(y.raw()), az = detail::uabs64(z.raw());
  return fixed::from_raw(sqrt_q32_to_raw(
      add128(add128(detail::umul64(ax, ax), detail::umul64(ay, ay)), detail::umul64(az, az))));
}

constexpr fixed sin(fixed x) noexcept {
  using namespace detail::fm;
  return fixed::from_raw(round_to_q16(sin_turns_q62<false>(turns_q64(x.raw())), 46));
}
constexpr fixed cos(fixed x) noexcept {
  using namespace detail::fm;
  return fixed::from_raw(round_to_q16(sin_turns_q62<false>(turns_q64(x.raw()) + (std::uint64_t{1} << 62)), 46));
}

// tan: saturates at +-max() (symmetric: -max(), not min()) where the result would exceed the range (next to poles).
constexpr fixed tan(fixed x) noexcept {
  using namespace detail::fm;
  const std::uint64_t t = turns_q64(x.raw()) & ((std::uint64_t{1} << 63) - 1);  // period: half turn
  const bool neg = t > (std::uint64_t{1} << 62);
  const std::uint64_t phi = neg ? (std::uint64_t{1} << 63) - t : t;  // [0, quarter turn]
  std::uint64_t q = 0;
  std::uint64_t rem = 0;
  if (phi <= (std::uint64_t{1} << 61)) {
    const std::int64_t a = octant_turns_to_rad_q62(phi);
    const std::int64_t z = mulq62(a, a);
    const std::uint64_t s = static_cast<std::uint64_t>(mulq62(sinc_q62(z), a));
    const std::uint64_t c = static_cast<std::uint64_t>(cos_q62(z));
    q = detail::udiv128_64(s >> 48, s << 16, c, rem);
    if (rem >= c - rem) ++q;
  } else {
    // tan = cot(psi) = cos(psi) / (psi * sinc(psi)), psi = quarter turn - phi, kept
    // normalised so that the relative precision survives small psi.
    const std::uint64_t psi = (std::uint64_t{1} << 62) - phi;  // (0, 2^61), Q0.64 turns
    if (psi == 0) return neg ? -fixed::max() : fixed::max();
    const std::int64_t a = octant_turns_to_rad_q62(psi);
    const std::int64_t z = mulq62(a, a);
    const std::int64_t sc = sinc_q62(z);                             // sin(psi)/psi, Q62
    const std::uint64_t c = static_cast<std::uint64_t>(cos_q62(z));  // Q62
    const int s = std::countl_zero(psi);                             // psi < 2^61: s >= 3
    const std::uint64_t psin = psi << s;                             // [2^63, 2^64)
    const std::uint64_t k = static_cast<std::uint64_t>(mulq62(sc, kPiQ61));  // pi sinc, Q61
    // sin(psi) = psi_rad sinc = (psi 2 pi / 2^64) sinc = den / 2^(60 + s), den = psin k / 2^64,
    // so raw = cos/sin * 2^16 = c * 2^(14 + s) / den.
    const std::uint64_t den = detail::umulhi64(psin, k);
    const int sh = 14 + s;
    if (sh > 63 || den == 0) return neg ? -fixed::max() : fixed::max();
    const std::uint64_t nhi = c >> (64 - sh), nlo = c << sh;
    if (nhi >= den) return neg ? -fixed::max() : fixed::max();
    q = detail::udiv128_64(nhi, nlo, den, rem);
    if (rem >= den - rem) ++q;
  }
  if (q > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return neg ? -fixed::max() : fixed::max();
  }
  const std::int64_t r = static_cast<std::int64_t>(q);
  return fixed::from_raw(neg ? -r : r);
}

// atan2(y, x) in [-pi, pi]; atan2(0, 0) == 0; atan2(0, x < 0) == pi (fixed has no -0).
constexpr fixed atan2(fixed y, fixed x) noexcept {
  using namespace detail::fm;
  const std::int64_t a = atan2_q61(detail::uabs64(y.raw()), y.raw() < 0, detail::uabs64(x.raw()), x.raw() < 0);
  return fixed::from_raw(round_to_q16(a, 45));
}
constexpr fixed atan(fixed x) noexcept {
  using namespace detail::fm;
  const std::int64_t a = atan2_q61(detail::uabs64(x.raw()), x.raw() < 0, std::uint64_t{1} << 16, false);
  return fixed::from_raw(round_to_q16(a, 45));
}

namespace detail::fm {
// For |raw| < 2^16: sqrt(1 - x^2) in Q47 (floor), from the exact Q32 value 2^32 - raw^2.
constexpr std::uint64_t sqrt_one_minus_sq_q47(std::uint64_t ar) noexcept {
  const std::uint64_t c2 = (std::uint64_t{1} << 32) - ar * ar;  // Q32, exact
  u128 rem{};
  return isqrt128(u128{c2 >> 2, c2 << 62}, rem);  // sqrt(c2 * 2^62) = sqrt(1-x^2) 2^47
}
}  // namespace detail::fm

// asin, acos: the argument is clamped to [-1, 1].
constexpr fixed asin(fixed x) noexcept {
  using namespace detail::fm;
  const std::uint64_t ar = detail::uabs64(x.raw());
  if (ar >= (std::uint64_t{1} << 16)) return x.raw() < 0 ? -fixed::from_raw(round_to_q16(kHalfPiQ61, 45)) : fixed::from_raw(round_to_q16(kHalfPiQ61, 45));
  const std::int64_t a = atan2_q61(ar << 31, x.raw() < 0, sqrt_one_minus_sq_q47(ar), false);
  return fixed::from_raw(round_to_q16(a, 45));
}
constexpr fixed acos(fixed x) noexcept {
  using namespace detail::fm;
  const std::uint64_t ar = detail::uabs64(x.raw());
  if (ar >= (std::uint64_t{1} << 16)) return x.raw() < 0 ? fixed::from_raw(round_to_q16(kPiQ61, 45)) : fixed::zero();
  const std::int64_t a = atan2_q61(sqrt_one_minus_sq_q47(ar), false, ar << 31, x.raw() < 0);
  return fixed::from_raw(round_to_q16(a, 45));
}

// e^x. Saturates at max() for x >= ln(2^47) ~ 32.58; 0 for x <= -11.8.
constexpr fixed exp(fixed x) noexcept {
  using namespace detail::fm;
  const std::int64_t raw = x.raw();
  if (raw >= (std::int64_t{33} << 16)) return fixed::max();
  if (raw <= -(std::int64_t{12} << 16)) return fixed::zero();
  return fixed::from_raw(exp_parts_to_raw(exp_q57(raw * (std::int64_t{1} << 41))));
}

// Natural logarithm; log(x <= 0) == min() (stands in for -infinity).
constexpr fixed log(fixed x) noexcept {
  using namespace detail::fm;
  if (x.raw() <= 0) return fixed::min();
  return fixed::from_raw(round_to_q16(log_q57(static_cast<std::uint64_t>(x.raw())), 41));
}
constexpr fixed log2(fixed x) noexcept {
  using namespace detail::fm;
  if (x.raw() <= 0) return fixed::min();
  // log2 = ln / ln2: multiply the Q57 ln by 1/ln2 (Q62 high word) -> Q57.
  const std::int64_t l = log_q57(static_cast<std::uint64_t>(x.raw()));
  const detail::u128 p = detail::smul64(l, static_cast<std::int64_t>(kInvLn2Hi));
  return fixed::from_raw(round_to_q16(low_i64(round_shr128(p, 62)), 41));
}

// x^y = exp(y ln x) for x > 0; pow(x, 0) == 1; pow(0, y > 0) == 0; pow(0, y < 0) == max();
// negative x: integer y gives the signed result, non-integer y gives 0.
// Saturates at max() (-max() if negative) once the computed y ln x reaches ln 2^47, and also
// whenever the true |x|^y exceeds max() while the computed product (error ~|y|/2 units of
// 2^-57) falls short: pow(2, 47) == max() (pow_exceeds_max; docs/fixed.md).
constexpr fixed pow(fixed x, fixed y) noexcept {
  using namespace detail::fm;
  if (y.raw() == 0) return fixed::one();
  if (x.raw() == 0) return y.raw() > 0 ? fixed::zero() : fixed::max();
  if (y == fixed::one()) return x;
  bool negate = false;
  if (x.raw() < 0) {
    if ((y.raw() & 0xFFFF) != 0) return fixed::zero();
    negate = ((y.raw() >> 16) & 1) != 0;
  }
  const std::int64_t l = log_q57(detail::uabs64(x.raw()));
  // y ln x in Q73 -> Q57 (rounded)
  const detail::u128 v = round_shr128(detail::smul64(y.raw(), l), 16);
  std::int64_t r = 0;
  const bool neg_arg = neg128_p(v);
  constexpr std::int64_t hi_lim = std::int64_t{33} << 57;
  constexpr std::int64_t lo_lim = -(std::int64_t{12} << 57);
  if (!fits_i64(v) || low_i64(v) >= hi_lim || low_i64(v) <= lo_lim) {
    r = neg_arg ? 0 : std::numeric_limits<std::int64_t>::max();
  } else {
    r = exp_parts_to_raw(exp_q57(low_i64(v)));
    // The computed y ln x may be short of ln 2^47 by up to |y| 2^-57 (+ rounding) while the
    // true result is above max(): inside four times that window, decide exactly.
    constexpr std::int64_t ln_top = low_i64(round_shr128(detail::smul64(47, kLn2Q63), 6));  // ln 2^47, Q57
    const std::int64_t window = static_cast<std::int64_t>(((detail::uabs64(y.raw()) >> 16) + 2) * 4);
    if (r != std::numeric_limits<std::int64_t>::max() && low_i64(v) >= ln_top - window &&
        pow_exceeds_max(detail::uabs64(x.raw()), y.raw()))
      r = std::numeric_limits<std::int64_t>::max();
  }
  return fixed::from_raw(negate ? -r : r);
}

}  // namespace lockstep
