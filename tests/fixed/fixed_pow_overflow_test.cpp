// pow next to the top of the range (docs/fixed.md, "Domain errors"): a result whose true value
// exceeds max() is max() exactly (-max() when negative), also where the computed y·ln x falls
// short of ln 2^47; results below max() keep the bits they had.
#include <lockstep/math/fixed.h>
#include <lockstep/math/fixed_math.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

using lockstep::fixed;

namespace {
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
fixed F(std::int64_t raw) { return fixed::from_raw(raw); }
}  // namespace

// The decision is constexpr like the rest of the math library.
static_assert(lockstep::pow(fixed::from_int(2), fixed::from_int(47)) == fixed::max());
static_assert(lockstep::pow(fixed::from_int(-2), fixed::from_int(47)) == -fixed::max());

// Every power of two 2^k (k = -16..46, the representable ones) against every y within 4096 raw
// steps of 47 / k: (2^k)^y = 2^(k y) exactly, above max() iff k·y >= 47 (2^(47 - 2^-16) is
// far below max()). Negative x with integer y: the sign of (-1)^y, magnitude the same.
TEST(FixedPowOverflow, PowersOfTwoAroundTheTop) {
  std::uint64_t overflowing = 0, below = 0;
  for (int k = -16; k <= 46; ++k) {
    if (k == 0) continue;
    const std::int64_t x = std::int64_t{1} << (16 + k);
    const std::int64_t centre = (std::int64_t{47} << 16) / k;
    for (std::int64_t y = centre - 4096; y <= centre + 4096; ++y) {
      if (y == 0) continue;
      const fixed r = lockstep::pow(F(x), F(y));
      if (static_cast<std::int64_t>(k) * y >= (std::int64_t{47} << 16)) {
        ++overflowing;
        ASSERT_EQ(r, fixed::max()) << "pow(2^" << k << ", raw " << y << ")";
        if ((y & 0xFFFF) == 0) {
          const fixed n = lockstep::pow(F(-x), F(y));
          ASSERT_EQ(n, ((y >> 16) & 1) != 0 ? -fixed::max() : fixed::max()) << "pow(-2^" << k << ", raw " << y << ")";
        }
      } else {
        ++below;
        ASSERT_LT(r.raw(), kMax) << "pow(2^" << k << ", raw " << y << ") below the top saturated";
      }
    }
  }
  EXPECT_EQ(overflowing, 253963u);
  EXPECT_EQ(below, 254003u);
}

// Pairs next to the boundary that are not powers of two (found with 60-digit decimal logarithms):
// the exact decision agrees with the true side, and pow with it.
TEST(FixedPowOverflow, ExactDecisionNextToTheBoundary) {
  using lockstep::detail::fm::pow_exceeds_max;
  // 65808 raw ^ (515482549 raw) is above max() by 7.0e-12 (relative).
  EXPECT_TRUE(pow_exceeds_max(65808, 515482549));
  EXPECT_FALSE(pow_exceeds_max(65808, 515482548));
  EXPECT_EQ(lockstep::pow(F(65808), F(515482549)), fixed::max());
  // (1 + 2^-16)^(139922157686 raw) is 1.2e-12 below max(): not an overflow. Its computed value
  // reaches max() all the same (within the documented error of |y| 2^-57 in y·ln x) and stays so.
  EXPECT_FALSE(pow_exceeds_max(65537, 139922157686));
  EXPECT_EQ(lockstep::pow(F(65537), F(139922157686)), fixed::max());
  // 0.5^-47 = 2^47, 0.5^(-47 + 2^-16) < 2^47 - 2^31 ulp.
  EXPECT_TRUE(pow_exceeds_max(32768, -(std::int64_t{47} << 16)));
  EXPECT_FALSE(pow_exceeds_max(32768, -(std::int64_t{47} << 16) + 1));
  // x = max() itself: y = 1 + 2^-16 is above it, y = 1 - 2^-16 below.
  EXPECT_TRUE(pow_exceeds_max(static_cast<std::uint64_t>(kMax), 65537));
  EXPECT_FALSE(pow_exceeds_max(static_cast<std::uint64_t>(kMax), 65535));
  EXPECT_EQ(lockstep::pow(fixed::max(), F(65537)), fixed::max());
  // |x|^y <= 1 never overflows: x < 1 with y > 0, x > 1 with y < 0, x = 1.
  EXPECT_FALSE(pow_exceeds_max(32768, std::int64_t{1} << 40));
  EXPECT_FALSE(pow_exceeds_max(std::uint64_t{1} << 40, -(std::int64_t{1} << 40)));
  EXPECT_FALSE(pow_exceeds_max(65536, kMax));
}
