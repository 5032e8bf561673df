// Counts heap allocations (replaced global operator new) around hashing, save, load and the
// snapshot ring. This executable's only translation unit replaces operator new.
#include "hash/hash_test_support.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> g_counting{false};
std::atomic<std::uint64_t> g_allocations{0};

void* counted_alloc(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* counted_alloc_aligned(std::size_t n, std::align_val_t al) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t a = static_cast<std::size_t>(al);
  void* p = std::aligned_alloc(a, (n + a - 1) / a * a);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

struct Counting {
  Counting() {
    g_allocations = 0;
    g_counting = true;
  }
  ~Counting() { g_counting = false; }
  std::uint64_t count() const { return g_allocations.load(); }
};
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_alloc_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_alloc_aligned(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

using namespace hashtest;

TEST(hash_alloc, CounterWorks) {
  std::uint64_t n = 0;
  {
    Counting c;
    auto* p = new int(3);
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
