// lockstep::xxh3_64 (and the state hash's long runs) may go through XXH3's AVX2 kernel
// (hash/src/xxh3_wide.h). It must return exactly what the baseline one-shot XXH3 returns, for
// every length around the kernel's threshold and its 64-byte stripes, at every alignment.
#include <lockstep/hash/state_hash.h>

#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace {

TEST(xxh3_kernel, AgreesWithTheBaselineOneShotAtEveryLengthAndAlignment) {
  std::vector<std::byte> buf(200000 + 64);
  std::uint64_t x = 0x9E3779B97F4A7C15u;
  for (std::byte& b : buf) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    b = static_cast<std::byte>(x >> 56);
  }
  const std::size_t lengths[] = {0,    1,    240,  241,  1023, 1024, 1025, 1087, 1088, 1089,
                                 4095, 4096, 4097, 9999, 65536 + 7, 200000};
  for (const std::size_t len : lengths) {
    for (const std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{13}, std::size_t{63}}) {
      const std::span<const std::byte> bytes(buf.data() + offset, len);
      EXPECT_EQ(lockstep::xxh3_64(bytes), XXH3_64bits(bytes.data(), bytes.size()))
          << "length " << len << ", offset " << offset;
    }
  }
}

}  // namespace
