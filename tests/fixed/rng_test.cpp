// lockstep::Rng: golden sequences, algorithm cross-check, range/chance behaviour.
#include <lockstep/math/rng.h>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cstdint>

using lockstep::Rng;

namespace {
// Straight transcription of the published xoshiro256** and SplitMix64 reference code,
// kept independent of rng.h so the two cross-check each other.
struct RefXoshiro {
  std::uint64_t s[4];
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  explicit RefXoshiro(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& w : s) {
      std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      w = z ^ (z >> 31);
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s[1] * 5, 7) * 9;
    const std::uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }
};
}  // namespace

TEST(Rng, Layout) {
  static_assert(std::is_trivially_copyable_v<Rng>);
  static_assert(std::has_unique_object_representations_v<Rng>);
  lockstep::check_state_type<Rng>();
  const auto& d = lockstep::describe<Rng>();
  EXPECT_EQ(d.field_count, 1u);
  EXPECT_EQ(d.fields[0].count, 4u);
  EXPECT_EQ(d.fields[0].element_size, 8u);
  EXPECT_EQ(d.fields[0].kind, lockstep::FieldKind::UnsignedInt);
}

TEST(Rng, MatchesReferenceAlgorithm) {
  for (std::uint64_t seed : {0ull, 1ull, 42ull, 0xdeadbeefcafebabeull}) {
    Rng r(seed);
    RefXoshiro ref(seed);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(r.next_u64(), ref.next()) << seed << " @" << i;
  }
}

// Pinned outputs: changing any of these changes every replay. Do not update casually.
TEST(Rng, GoldenSequences) {
  Rng r(12345);
  const std::array<std::uint64_t, 4> u64 = {r.next_u64(), r.next_u64(), r.next_u64(), r.next_u64()};
  EXPECT_EQ(u64, (std::array<std::uint64_t, 4>{0xbe6a36374160d49bull, 0x214aaa0637a688c6ull, 0xf69d16de9954d388ull, 0x0c60048c4e96e033ull}));
  Rng r2(7);
  std::array<std::int64_t, 8> rng{};
  for (auto& v : rng) v = r2.range(-3, 9);
  EXPECT_EQ(rng, (std::array<std::int64_t, 8>{6, 0, 7, 9, 9, 8, -3, -2}));
  Rng r3(99);
  std::array<std::int64_t, 4> fx{};
  for (auto& v : fx) v = r3.next_fixed().raw();
  EXPECT_EQ(fx, (std::array<std::int64_t, 4>{22852, 36962, 24786, 56074}));
  Rng r4(2024);
  std::uint32_t bits = 0;
  for (int i = 0; i < 32; ++i) bits = (bits << 1) | (r4.chance(1, 3) ? 1u : 0u);
  EXPECT_EQ(bits, 0xb5418650u);
  Rng r5(5);
  EXPECT_EQ(r5.next_u32(), 0x49d55178u);
}

TEST(Rng, ConstexprAndCopy) {
  constexpr std::uint64_t first = [] {
    Rng r(12345);
    return r.next_u64();
  }();
  Rng a(12345);
  EXPECT_EQ(first, a.next_u64());
  Rng b = a;  // snapshot
  const auto x = a.next_u64();
  EXPECT_EQ(x, b.next_u64());
  EXPECT_EQ(a, b);
  EXPECT_EQ(Rng(), Rng(0));
  EXPECT_EQ(Rng::from_seed(3), Rng(3));
  EXPECT_EQ(Rng::from_state(0, 0, 0, 0), Rng(0));
  Rng c = Rng::from_state(1, 2, 3, 4);
  EXPECT_EQ(c.s[2], 3u);
}

TEST(Rng, RangeEdges) {
  Rng r(1);
  for (int i = 0; i < 1000; ++i) {
    const auto v = r.range(5, 5);
    ASSERT_EQ(v, 5);
    const auto w = r.range(10, -10);  // swapped bounds
    ASSERT_GE(w, -10);
    ASSERT_LE(w, 10);
  }
  // Full int64 span: one raw draw.
  Rng a(9), b(9);
  EXPECT_EQ(static_cast<std::uint64_t>(a.range(INT64_MIN, INT64_MAX)) - static_cast<std::uint64_t>(INT64_MIN),
            b.next_u64());
  // Fixed range.
  Rng f(3);
  for (int i = 0; i < 1000; ++i) {
    const auto v = f.range(lockstep::fixed::from_int(-1), lockstep::fixed::from_int(1));
    ASSERT_GE(v, lockstep::fixed::from_int(-1));
    ASSERT_LE(v, lockstep::fixed::from_int(1));
  }
}

TEST(Rng, RangeIsUnbiased) {
  // Chi-square over 6 buckets (die roll); 60000 draws, df = 5: 20.5 is the 0.1% critical value.
  Rng r(77);
  std::array<int, 6> n{};
  for (int i = 0; i < 60000; ++i) ++n[static_cast<std::size_t>(r.range(1, 6) - 1)];
  double chi = 0;
  for (int c : n) chi += (c - 10000.0) * (c - 10000.0) / 10000.0;
  EXPECT_LT(chi, 20.5);
  // A span just above 2^63 rejects almost half the draws: still in range and roughly uniform.
  Rng r2(78);
  const std::uint64_t span = (std::uint64_t{1} << 63) + 12345;
  int low = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t v = r2.below(span);
    ASSERT_LT(v, span);
    low += v < span / 2 ? 1 : 0;
  }
  EXPECT_NEAR(low, 10000, 500);
}

TEST(Rng, ChanceAndNextFixed) {
  Rng r(11);
  EXPECT_FALSE(r.chance(0, 5));
  EXPECT_TRUE(r.chance(5, 5));
  EXPECT_FALSE(r.chance(1, 0));
  EXPECT_FALSE(r.chance(-1, 3));
  int hits = 0;
  for (int i = 0; i < 30000; ++i) hits += r.chance(1, 3) ? 1 : 0;
  EXPECT_NEAR(hits, 10000, 400);
  for (int i = 0; i < 10000; ++i) {
    const auto f = r.next_fixed();
    ASSERT_GE(f.raw(), 0);
    ASSERT_LT(f.raw(), 65536);
  }
}

TEST(Rng, JumpGivesDistinctStreams) {
  Rng a(1);
  Rng b = a;
  b.jump();
  EXPECT_NE(a, b);
  // Pinned: first output after a jump from seed 1.
  EXPECT_EQ(b.next_u64(), 0x332802f81eaae9d0ull);
}

RC_GTEST_PROP(RngProps, RangeStaysInBounds, (std::uint64_t seed, std::int64_t lo, std::int64_t hi)) {
  Rng r(seed);
  const std::int64_t v = r.range(lo, hi);
  RC_ASSERT(v >= std::min(lo, hi));
  RC_ASSERT(v <= std::max(lo, hi));
}
RC_GTEST_PROP(RngProps, SameSeedSameStream, (std::uint64_t seed)) {
  Rng a(seed), b(seed);
  for (int i = 0; i < 16; ++i) RC_ASSERT(a.range(-100, 100) == b.range(-100, 100));
}
