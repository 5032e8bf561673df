// Counts heap allocations (replaced global operator new) around hashing, save, load and the
// snapshot ring. This executable's only translation unit replaces operator new.
#include "hash/hash_test_support.h"

#include <lockstep/hash/incremental_hash.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "support/counting_allocator.inc"

namespace {
using Counting = lockstep_test::AllocationWindow;
}  // namespace

using namespace hashtest;

TEST(hash_alloc, CounterWorks) {
  std::uint64_t n = 0;
  {
    Counting c;
    auto* p = new int(3);
    asm volatile("" : : "g"(p) : "memory");  // the compiler may not elide the pair
    n = c.count();
    delete p;
  }
  EXPECT_EQ(n, 1u);
}

TEST(hash_alloc, HashSaveLoadAndRingAllocateNothing) {
  lockstep::WorldConfig cfg = small_config();
  lockstep::World w(cfg);
  register_all(w);
  Driver d(w);
  for (std::uint32_t i = 0; i < 200; ++i)
    (void)d.apply(Op{static_cast<std::uint8_t>(i % kOpKinds), i * 13u, static_cast<std::int64_t>(i) * 7919,
                     static_cast<std::int64_t>(i) - 50});
  ASSERT_GT(w.entityCount(), 0u);
  lockstep::Snapshot snap(w);
  lockstep::SnapshotRing ring(w, 8);
  lockstep::StateHash h1, h2, h3, h4;
  lockstep::Status loaded;
  std::uint64_t allocations = 0;
  {
    Counting c;
    h1 = lockstep::hash_world(w);
    h2 = lockstep::hash_world(w, lockstep::HashPath::Canonical);
    w.save(snap);
    h3 = lockstep::hash_storage(snap.view());
    for (int t = 0; t < 20; ++t) {
      ring.save(w);
      w.advanceTick();
    }
    loaded = w.load(snap);
    h4 = lockstep::hash_world(w);
    const lockstep::HashDiff diff = lockstep::diff_hashes(h1, h4);
    (void)diff;
    allocations = c.count();
  }
  EXPECT_EQ(allocations, 0u);
  EXPECT_TRUE(loaded.ok());
  EXPECT_EQ(h1, h2);
  EXPECT_EQ(h1, h3);
  EXPECT_EQ(h1, h4);
}

// The incremental hasher and the per-tick scratch zeroing allocate nothing either (the
// scratch block is allocated once, at registration).
TEST(hash_alloc, IncrementalHashAndScratchZeroingAllocateNothing) {
  lockstep::World w(small_config());
  register_all(w);
  ASSERT_TRUE(w.registerScratch<Score>(32).ok());
  Driver d(w);
  d.handles.reserve(1024);  // the driver's own bookkeeping must not count
  lockstep::IncrementalHasher hasher;
  lockstep::StateHash inc, full;
  std::uint64_t allocations = 0;
  {
    Counting c;
    for (std::uint32_t i = 0; i < 200; ++i) {
      w.beginTick();
      (void)d.apply(Op{static_cast<std::uint8_t>(i % kOpKinds), i * 13u, static_cast<std::int64_t>(i) * 7919, 3});
      inc = hasher.hash(w);
    }
    allocations = c.count();
  }
  full = lockstep::hash_world(w);
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(inc, full);
}
