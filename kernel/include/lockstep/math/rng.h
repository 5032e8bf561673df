#pragma once
// lockstep::Rng — deterministic xoshiro256** generator (Blackman & Vigna), 256-bit state.
//
// * Trivially copyable, no padding, fields described with LOCKSTEP_COMPONENT: it lives in
//   the world as a resource, so snapshots, hashes and rollback cover it automatically.
// * Seeding: the four state words are the first four outputs of SplitMix64 started at the
//   seed (any seed, including 0, gives a valid non-zero state).
// * range(lo, hi) is inclusive on both ends and unbiased: Lemire's multiply-shift method
//   with rejection (a draw is rejected only when the low 64 bits of the 128-bit product fall
//   below 2^64 mod span; at most a handful of draws even in the worst case, expected < 2).
//   range(lo, hi) with hi < lo swaps the bounds. The full int64 range takes one raw draw.
// * next_fixed() is uniform on [0, 1) with 2^-16 resolution (the top 16 bits of one draw).
// * chance(num, den) is true with probability num/den exactly (one range draw when
//   0 < num < den; no draw when den <= 0 (false), num <= 0 (false) or num >= den (true)).
// Everything is constexpr. Sequences are pinned by golden tests (tests/fixed/rng_test.cpp);
// changing any of this is a breaking change to replays.
#include <lockstep/store/component.h>
#include <lockstep/math/fixed.h>

#include <cstdint>
#include <type_traits>

namespace lockstep {

struct Rng {
  std::uint64_t s[4];

  constexpr Rng() noexcept : Rng(0) {}
  constexpr explicit Rng(std::uint64_t seed) noexcept : s{} {
    std::uint64_t x = seed;
    for (std::uint64_t& w : s) w = splitmix64(x);
  }
  static constexpr Rng from_seed(std::uint64_t seed) noexcept { return Rng(seed); }
  // Restore an exact state (e.g. from a file). An all-zero state is replaced by Rng(0).
  static constexpr Rng from_state(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2, std::uint64_t s3) noexcept {
    Rng r;
    if ((s0 | s1 | s2 | s3) != 0) {
      r.s[0] = s0;
      r.s[1] = s1;
      r.s[2] = s2;
      r.s[3] = s3;
    }
    return r;
  }

  constexpr std::uint64_t next_u64() noexcept {
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
  constexpr std::uint32_t next_u32() noexcept { return static_cast<std::uint32_t>(next_u64() >> 32); }

  // Uniform integer in [lo, hi] (inclusive), unbiased.
  constexpr std::int64_t range(std::int64_t lo, std::int64_t hi) noexcept {
    if (hi < lo) {
      const std::int64_t t = lo;
      lo = hi;
      hi = t;
    }
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;  // 0: 2^64
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + below(span));
  }
  // Uniform fixed in [lo, hi] (inclusive, 2^-16 resolution), unbiased.
  constexpr fixed range(fixed lo, fixed hi) noexcept { return fixed::from_raw(range(lo.raw(), hi.raw())); }
  // Uniform in [0, n) for n > 0; n == 0 stands for 2^64 (one raw draw).
  constexpr std::uint64_t below(std::uint64_t n) noexcept {
    if (n == 0) return next_u64();  // span 2^64 (used by range over all of int64)
    detail::u128 m = detail::umul64(next_u64(), n);
    if (m.lo < n) {
      const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
      while (m.lo < threshold) m = detail::umul64(next_u64(), n);
    }
    return m.hi;
  }

  // Uniform on [0, 1) in steps of 2^-16.
  constexpr fixed next_fixed() noexcept { return fixed::from_raw(static_cast<std::int64_t>(next_u64() >> 48)); }

  // True with probability num / den.
  constexpr bool chance(std::int64_t num, std::int64_t den) noexcept {
    if (den <= 0 || num <= 0) return false;
    if (num >= den) return true;
    return below(static_cast<std::uint64_t>(den)) < static_cast<std::uint64_t>(num);
  }

  // Advance by 2^128 draws: gives non-overlapping streams (e.g. one per player) from one seed.
  constexpr void jump() noexcept {
    constexpr std::uint64_t kJump[4] = {0x180ec6d33cfd0abaull, 0xd5a61266f0c9392cull, 0xa9582618e03fc9aaull,
                                        0x39abdc4529b1661cull};
    std::uint64_t t[4] = {0, 0, 0, 0};
    for (std::uint64_t j : kJump) {
      for (int b = 0; b < 64; ++b) {
        if ((j >> b) & 1u) {
          for (int i = 0; i < 4; ++i) t[i] ^= s[i];
        }
        next_u64();
      }
    }
    for (int i = 0; i < 4; ++i) s[i] = t[i];
  }

  friend constexpr bool operator==(const Rng&, const Rng&) = default;

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  static constexpr std::uint64_t splitmix64(std::uint64_t& x) noexcept {
    x += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

LOCKSTEP_COMPONENT(Rng, s);

static_assert(sizeof(Rng) == 32);
static_assert(std::is_trivially_copyable_v<Rng>);
static_assert(std::has_unique_object_representations_v<Rng>);

}  // namespace lockstep
