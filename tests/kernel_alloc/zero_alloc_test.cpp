// Zero allocation, proven: this executable replaces the global operator new/delete (and,
// outside sanitizer builds, malloc/calloc/realloc) with counting versions, then runs a
// window of world operations after construction and registration and requires that no
// allocation happened. The stats line is printed for CI logs:
//   lockstep-stats zero_alloc window=<name> allocations=<n> ...
#include "support/kernel_types.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "support/counting_allocator.inc"

using namespace lockstep;
using namespace lockstep_test;

namespace {

struct Window {
  const char* name;
  lockstep_test::AllocationWindow counts{};
  long news() const { return counts.allocations(); }
  long mallocs() const { return counts.mallocs(); }
  void report(long visits) const {
    std::printf("lockstep-stats zero_alloc window=%s allocations=%ld mallocs=%ld malloc_counted=%d visits=%ld\n", name,
                news(), mallocs(), lockstep_test::counts_malloc() ? 1 : 0, visits);
    std::fflush(stdout);
  }
};

// A counter that proves the counters work at all (a check that cannot fail is a defect).
TEST(ZeroAlloc, CountersSeeAllocations) {
  Window w{"self_check", {}};
  int* p = new int(3);
  asm volatile("" : : "g"(p) : "memory");  // keep the compiler from eliding the pair
  delete p;
  EXPECT_EQ(w.news(), 1);
  if (lockstep_test::counts_malloc()) {
    void* m = std::malloc(16);
    asm volatile("" : : "g"(m) : "memory");
    std::free(m);
    EXPECT_GE(w.mallocs(), 2);  // operator new's malloc + this one
  }
}

TEST(ZeroAlloc, WorldOperationsAfterConstructionAllocateNothing) {
  WorldConfig config;
  config.max_entities = 20000;
  World world(config);
  register_all(world);
  world.setGuardPolicy(GuardPolicy::Reject);
  Snapshot snapshot(world);  // reserved up front; save/load must then be free

  Window window{"world_ops", {}};
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

// Query layer II: building, matching (incl. new archetypes and rebuilds after load),
// iterating typed and dynamic queries with every term kind, enable bits and change ticks.
#include <lockstep/query/cached_query.h>
#include <lockstep/query/dynamic_query.h>

TEST(ZeroAlloc, QueriesEnableBitsAndChangeTicksAllocateNothing) {
  WorldConfig config;
  config.max_entities = 4096;
  config.max_tracked_components = 2;
  World world(config);
  register_all(world);
  ASSERT_TRUE(world.trackChanges<Pos>().ok());
  Snapshot snap(world);
  CachedQuery<term::write<Pos>, term::opt_read<Vel>, term::none<Flag>, term::any<Vel, Health>,
              term::or_<term::with<Health>, term::all_of<term::with<Vel>, term::none<Health>>>>
      typed;
  CachedQuery<term::read<Pos>, term::changed<Pos>, term::enabled<Vel>> changed;
  CachedQuery<term::read<Vel>, term::disabled<Vel>> off;
  DynamicQuery dyn;
  long visits = 0;
  Window w{"query_layer_ii", {}};
  for (std::uint32_t i = 0; i < 2000; ++i) {
    const Entity e = world.create();
    ASSERT_TRUE(world.addComponent(e, Pos{static_cast<std::int64_t>(i), 0}).ok());
    if (i % 2 == 0) {
      ASSERT_TRUE(world.addComponent(e, Vel{1, 1}).ok());
    }
    if (i % 3 == 0) {
      ASSERT_TRUE(world.addComponent(e, Health{1, 1}).ok());
    }
    if (i % 7 == 0) {
      ASSERT_TRUE(world.setEnabled<Pos>(e, false).ok());
    }
  }
  world.save(snap);
  ASSERT_TRUE(QueryBuilder(world).write("Pos").optRead("Vel").without("Flag").any({"Vel", "Health"}).beginOr()
                  .with("Health").orElse().with("Vel").without("Health").endOr().build(dyn).ok());
  for (int round = 0; round < 3; ++round) {
    world.advanceTick();
    ASSERT_TRUE(typed.each(world, [&](Entity, Pos& p, const Vel* v) { p.y += v ? v->x : 1; ++visits; }).ok());
    ASSERT_TRUE(dyn.each(world, [&](const DynamicRow& r) { visits += r.read(1) != nullptr ? 1 : 0; }).ok());
    ASSERT_TRUE(changed.since(world.tick()).each(world, [&](Entity, const Pos&) { ++visits; }).ok());
    ASSERT_TRUE(off.each(world, [&](Entity, const Vel&) { ++visits; }).ok());
    const Entity e = world.create();
    ASSERT_TRUE(world.addComponent(e, Flag{true}).ok());  // a new archetype: incremental match
    ASSERT_TRUE(world.addComponent(e, Pos{1, 1}).ok());
    ASSERT_TRUE(world.setEnabled<Vel>(Entity{2, 1}, round % 2 == 0).ok());
    ASSERT_TRUE(world.load(snap).ok());  // archetypes gone again: rebuild
  }
  w.report(visits);
  EXPECT_EQ(w.news(), 0);
  if (lockstep_test::counts_malloc()) {
    EXPECT_EQ(w.mallocs(), 0);
  }
  EXPECT_GT(visits, 3000);
}
