// Zero allocation, proven: this executable replaces the global operator new/delete (and,
// outside sanitizer builds, malloc/calloc/realloc) with counting versions, then runs a
// window of world operations after construction and registration and requires that no
// allocation happened. The stats line is printed for CI logs:
//   lockstep-stats zero_alloc window=<name> allocations=<n> ...
#include "support/kernel_types.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

// The replacement operator delete frees what the replacement operator new malloc()ed.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<long> g_news{0};
std::atomic<long> g_mallocs{0};
}  // namespace

void* operator new(std::size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  const std::size_t al = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(al, (n + al - 1) / al * al)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

#if !defined(LOCKSTEP_SANITIZED) && defined(__GLIBC__)
// glibc: count C-level allocations too (sanitizers own these symbols, so not there).
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* malloc(std::size_t n) {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t a, std::size_t b) {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(a, b);
}
void* realloc(void* p, std::size_t n) {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
}
#define LOCKSTEP_COUNTS_MALLOC 1
#else
#define LOCKSTEP_COUNTS_MALLOC 0
#endif

using namespace lockstep;
using namespace lockstep_test;

namespace {

struct Window {
  const char* name;
  long news0 = g_news.load();
  long mallocs0 = g_mallocs.load();
  long news() const { return g_news.load() - news0; }
  long mallocs() const { return g_mallocs.load() - mallocs0; }
  void report(long visits) const {
    std::printf("lockstep-stats zero_alloc window=%s allocations=%ld mallocs=%ld malloc_counted=%d visits=%ld\n", name,
                news(), mallocs(), LOCKSTEP_COUNTS_MALLOC, visits);
    std::fflush(stdout);
  }
};

// A counter that proves the counters work at all (a check that cannot fail is a defect).
TEST(ZeroAlloc, CountersSeeAllocations) {
  Window w{"self_check"};
  int* p = new int(3);
  asm volatile("" : : "g"(p) : "memory");  // keep the compiler from eliding the pair
  delete p;
  EXPECT_EQ(w.news(), 1);
#if LOCKSTEP_COUNTS_MALLOC
  void* m = std::malloc(16);
  std::free(m);
  EXPECT_GE(w.mallocs(), 2);  // operator new's malloc + this one
#endif
}

TEST(ZeroAlloc, WorldOperationsAfterConstructionAllocateNothing) {
  WorldConfig config;
  config.max_entities = 20000;
  World world(config);
  register_all(world);
  world.setGuardPolicy(GuardPolicy::Reject);
  Snapshot snapshot(world);  // reserved up front; save/load must then be free

  Window window{"world_ops"};
  long visits = 0;
  Entity es[10000];
  for (int i = 0; i < 10000; ++i) {
    es[i] = world.create();
    ASSERT_FALSE(es[i].is_null());
    ASSERT_TRUE(world.addComponent(es[i], Pos{i, i}).ok());  // first time: new archetype
    ASSERT_TRUE(world.addComponent(es[i], Vel{1, -1}).ok());
  }
  // Read/Write pass with a legal in-place write per visit.
  ASSERT_TRUE((world.each<Pos, Vel>(
                   [&](Entity e, const Pos& p, Vel& v) {
                     ++visits;
                     v.x += p.x & 3;
                     (void)world.addComponent(e, Vel{v.x, v.y});  // in-place, Write-declared
                   },
                   Read{}, Write{})
                   .ok()));
  // Read/Read pass.
  std::int64_t sum = 0;
  ASSERT_TRUE((world.each<Pos, Vel>([&](Entity, const Pos& p, const Vel& v) { sum += p.x + v.x; ++visits; }, Read{},
                                    Read{})
                   .ok()));
  EXPECT_NE(sum, 0);
  // Structural moves, first-time archetype creation and destroys.
  for (int i = 0; i < 10000; i += 10) ASSERT_TRUE(world.addComponent(es[i], Health{i, i}).ok());
  for (int i = 0; i < 10000; i += 20) ASSERT_TRUE(world.removeComponent<Vel>(es[i]).ok());
  for (int i = 5; i < 10000; i += 50) ASSERT_TRUE(world.destroy(es[i]).ok());
  // Command-buffer flushes: deaths, spawns with pending handles, moves.
  CommandBuffer& cb = world.commands();
  ASSERT_TRUE((world.each<Pos, Vel>(
                   [&](Entity e, const Pos& p, const Vel&) {
                     if (p.x % 89 == 0) {
                       const Entity spawn = cb.create();
                       (void)cb.addComponent(spawn, Pos{p.x, 0});
                       (void)cb.addComponent(spawn, Link{e});
                     }
                     if (p.x % 97 == 0) {
                       (void)cb.destroy(e);
                     } else if (p.x % 83 == 0) {
                       (void)cb.addComponent(e, Flag{true});
                     }
                   },
                   Read{}, Read{})
                   .ok()));
  const Status flushed = world.flush();
  ASSERT_TRUE(flushed.ok()) << flushed.message();
  // Snapshot save and load.
  world.save(snapshot);
  ASSERT_TRUE(world.destroy(es[1]).ok());
  ASSERT_TRUE(world.load(snapshot).ok());
  ASSERT_TRUE(world.clear().ok());

  window.report(visits);
  EXPECT_EQ(visits, 20000);
  EXPECT_EQ(window.news(), 0) << "heap allocations inside the window";
  EXPECT_EQ(window.mallocs(), 0) << "malloc calls inside the window";
}

}  // namespace
