// The portable (no __int128) arithmetic path, as used on 32-bit targets, compiled into
// this test executable under a different namespace name so it can run next to the native
// path. Everything in lockstep's headers becomes lockstep_portable:: in this file only.
// No lockstep header may be included before these lines.
#define LOCKSTEP_NO_INT128 1
#define lockstep lockstep_portable
#include <lockstep/math/rng.h>
#include <lockstep/math/vec.h>
#undef lockstep

#include <gtest/gtest.h>

#include <cstdint>

static_assert(LOCKSTEP_HAS_INT128 == 0, "this translation unit must use the portable path");

namespace portable_path {
namespace lockstep = ::lockstep_portable;
#include "golden_sweep.inc"
}  // namespace portable_path

std::uint64_t portable_golden_checksum() { return portable_path::golden_checksum(); }

TEST(FixedPortable, PortablePathMatchesPinnedChecksum) {
  EXPECT_EQ(portable_path::golden_checksum(), portable_path::kGoldenChecksum);
}

TEST(FixedPortable, BasicArithmetic) {
  using F = lockstep_portable::fixed;
  using namespace lockstep_portable::literals;
  EXPECT_EQ(1.5_fx * 1.5_fx, 2.25_fx);
  EXPECT_EQ(1_fx / 3_fx, F::from_raw(21845));
  EXPECT_EQ(F::min() / -1_fx, F::min());
  EXPECT_EQ(lockstep_portable::sqrt(2_fx).raw(), 92682);
  EXPECT_EQ(lockstep_portable::sin(F::half_pi()), 1_fx);
}
