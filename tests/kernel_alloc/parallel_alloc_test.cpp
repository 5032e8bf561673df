// Parallel loops, and beginTick's clearing of scratch on the pool, allocate nothing after
// warm-up: the pool's workers are started once, a batch is a function pointer and a context
// pointer, and the partition lives on the caller's stack.
// The counting allocator counts every thread's allocations (worker threads included).
#include "support/counting_allocator.h"
#include "support/kernel_types.h"

#include <lockstep/exec/thread_pool.h>

#include <gtest/gtest.h>

#include <cstdio>

using namespace lockstep;
using namespace lockstep_test;

namespace {

struct Hot {
  std::uint32_t v;
};
LOCKSTEP_COMPONENT(Hot, v);

TEST(ParallelAlloc, ParallelEachOnTwoAndFourThreadsAllocatesNothingAfterWarmUp) {
  for (const std::uint32_t threads : {2u, 4u}) {
    WorldConfig config;
    config.max_entities = 20000;
    config.max_tracked_components = 1;
    World world(config);
    register_all(world);
    ASSERT_TRUE(world.trackChanges<Pos>().ok());
    for (int i = 0; i < 10000; ++i) {
      const Entity e = world.create();
      ASSERT_TRUE(world.addComponent(e, Pos{i, i}).ok());
      ASSERT_TRUE(world.addComponent(e, Vel{1, -1}).ok());
    }
    ASSERT_TRUE(world.registerScratch<Hot>(40000).ok());  // 160 KB: beginTick clears it on the pool
    ThreadPool pool(threads);
    world.setThreadPool(&pool);
    auto move = [](Entity, Pos& p, const Vel& v) {
      p.x += v.x;
      p.y += v.y;
    };
    ASSERT_TRUE((world.parallelEach<Pos, Vel>(move, Write{}, Read{}).ok()));  // warm-up
    std::int64_t partial[64] = {};
    ASSERT_LE((world.parallelChunkCount<Pos, Vel>()), 64u);
    AllocationWindow window;
    for (int tick = 0; tick < 100; ++tick) {
      world.advanceTick();
      world.beginTick();
      ASSERT_TRUE((world.parallelEach<Pos, Vel>(move, Write{}, Read{}).ok()));
      ASSERT_TRUE((world.parallelEachChunk<Pos, Vel>(
                       [&](std::uint32_t chunk, Entity, const Pos& p, const Vel&) { partial[chunk] += p.x; }, Read{},
                       Read{})
                       .ok()));
    }
    const long news = window.allocations(), mallocs = window.mallocs();
    std::printf("lockstep-stats zero_alloc window=parallel_each_%u allocations=%ld mallocs=%ld\n", threads, news, mallocs);
    EXPECT_EQ(news, 0);
    EXPECT_EQ(mallocs, 0);
    EXPECT_NE(partial[0], 0);  // the loops ran
    const Pos* p = world.get<Pos>(Entity{9999, 1});
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->x, 9999 + 101);
  }
}

// A concurrent stage (world.h, ConcurrentStage and Lane): two lanes on the pool, each with its
// own access set and queries, allocate nothing either.
TEST(ParallelAlloc, ConcurrentStageOfTwoLanesAllocatesNothing) {
  WorldConfig config;
  config.max_entities = 4096;
  World world(config);
  register_all(world);
  for (int i = 0; i < 3000; ++i) (void)world.createWith(Pos{i, i}, Vel{1, -1}, Health{i, 100});
  AccessSet moves, heals;
  ASSERT_TRUE(moves.declare(world, "Pos", true).ok());
  ASSERT_TRUE(moves.declare(world, "Vel", false).ok());
  ASSERT_TRUE(heals.declare(world, "Health", true).ok());
  ASSERT_TRUE(heals.declare(world, "Counter", true).ok());
  const AccessSet* sets[2] = {&moves, &heals};
  ThreadPool pool(2);
  world.setThreadPool(&pool);
  auto task = [&](std::uint32_t k) {
    const World::Lane lane(world, sets[k]);
    if (k == 0) {
      (void)world.parallelEach<Pos, Vel>([](Entity, Pos& p, const Vel& v) { p.x += v.x; }, Write{}, Read{});
    } else {
      (void)world.each<Health>([](Entity, Health& h) { h.hp += 1; }, Write{});
      world.resource<Counter>()->value += 1;
    }
  };
  {
    World::ConcurrentStage warm(world, sets, 2);
    ASSERT_TRUE(warm.active());
    pool.for_each(2, task);
  }
  AllocationWindow window;
  for (int tick = 0; tick < 100; ++tick) {
    world.advanceTick();
    world.beginTick();
    const World::ConcurrentStage stage(world, sets, 2);
    pool.for_each(2, task);
  }
  const long news = window.allocations(), mallocs = window.mallocs();
  std::printf("lockstep-stats zero_alloc window=concurrent_stage allocations=%ld mallocs=%ld\n", news, mallocs);
  EXPECT_EQ(news, 0);
  EXPECT_EQ(mallocs, 0);
  EXPECT_EQ(world.readResource<Counter>()->value, 101u);
  EXPECT_EQ(world.get<Pos>(Entity{2999, 1})->x, 2999 + 101);
}

}  // namespace
