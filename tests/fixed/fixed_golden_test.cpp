// Bit-for-bit pinning of the numerics (native 128-bit path); see golden_sweep.inc.
#include <lockstep/math/rng.h>
#include <lockstep/math/vec.h>

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>

namespace native_path {
#include "golden_sweep.inc"
}

// Implemented in fixed_portable_test.cpp (portable 128-bit path).
std::uint64_t portable_golden_checksum();

TEST(FixedGolden, NativePathMatchesPinnedChecksum) {
  std::uint64_t n = 0;
  const std::uint64_t h = native_path::golden_checksum(&n);
  std::printf("[golden] native path (LOCKSTEP_HAS_INT128=%d): %" PRIu64 " results, checksum 0x%016" PRIx64 "\n",
              LOCKSTEP_HAS_INT128, n, h);
  EXPECT_EQ(h, native_path::kGoldenChecksum);
}

TEST(FixedGolden, PortablePathMatchesNativeBitForBit) {
  EXPECT_EQ(portable_golden_checksum(), native_path::golden_checksum());
}
