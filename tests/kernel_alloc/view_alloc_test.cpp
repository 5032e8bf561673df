// Zero heap allocations per tick with views, an observer and system access guards on
// (docs/query.md "Views"): after registration and one snapshot reserve, ticks of structural
// changes, single-entity writes, Write loops, flushes (firing the observer), view updates
// (beginTick), delta reads under an installed AccessSet (spans and eachDelta), save and load
// allocate nothing.
#include "support/counting_allocator.h"
#include "support/kernel_types.h"

#include <lockstep/store/observers.h>
#include <lockstep/store/system_access.h>
#include <lockstep/query/view.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <utility>

using namespace lockstep;
using namespace lockstep_test;

namespace {
void count_health(World& w, Entity) { ++w.resource<Counter>()->value; }
}  // namespace

TEST(ZeroAlloc, ViewUpdatesAndReadsAllocateNothing) {
  WorldConfig config;
  config.max_entities = 4096;
  World world(config);
  register_all(world);
  CachedQuery<term::read<Health>> q0;
  DynamicQuery q1;
  ASSERT_TRUE(QueryBuilder(world).read("Pos").optRead("Vel").build(q1).ok());
  ViewId wounded, moving;
  ASSERT_TRUE(registerView(world, q0, field(&Health::hp) < 20, wounded).ok());
  ASSERT_TRUE(registerView(world, q1, moving).ok());
  for (std::uint32_t i = 0; i < 3000; ++i) {
    const Entity e = world.create();
    ASSERT_TRUE(world.addComponent(e, Pos{static_cast<std::int64_t>(i % 97), 0}).ok());
    if (i % 2 == 0) {
      ASSERT_TRUE(world.addComponent(e, Health{static_cast<std::int32_t>(i % 50), 100}).ok());
    }
  }
  AccessSet observer_access, reader;
  ASSERT_TRUE(access_of(world, Reads<>{}, Writes<Counter>{}, "observer", observer_access).ok());
  ASSERT_TRUE(access_of(world, Reads<Health, Pos, Vel>{}, Writes<>{}, "reader", reader).ok());
  ASSERT_TRUE(world.observe<Health>(ObserverEvent::OnAdd, count_health, observer_access).ok());
  Snapshot snap(world);  // reserved before the window, as a rollback ring is
  world.beginTick();
  std::uint64_t seen = 0;

  const AllocationWindow window;
  for (std::uint64_t tick = 0; tick < 20; ++tick) {
    world.beginTick();  // updates the views
    {
      const World::AccessScope scope(world, &reader);  // as replay::Runner installs a system's set
      ViewDeltas d;
      ASSERT_TRUE(viewDeltas(world, wounded, d).ok());
      seen += d.added.size() + d.removed.size() + d.modified.size();
      ASSERT_TRUE(eachDelta(world, moving, ViewList::Modified, [&](Entity) { ++seen; }).ok());
    }
    for (std::uint32_t k = 0; k < 30; ++k) {
      const Entity e{static_cast<std::uint32_t>((tick * 131 + k * 17) % 3000), 1};
      if (Health* h = world.getMutable<Health>(e)) h->hp = (h->hp + 7) % 50;
    }
    ASSERT_TRUE(world.each<Vel>([](Entity, Vel& v) { v.x += 1; }, Write{}).ok());
    const Entity n = world.commands().create();
    ASSERT_TRUE(world.commands().addComponent(n, Health{1, 1}).ok());
    ASSERT_TRUE(world.commands().addComponent(Entity{static_cast<std::uint32_t>(tick * 7 % 3000), 1}, Vel{1, 1}).ok());
    ASSERT_TRUE(world.flush().ok());
    world.advanceTick();
    if (tick == 5) world.save(snap);
    if (tick == 15) {
      ASSERT_TRUE(world.load(snap).ok());
    }
  }
  const long news = window.allocations(), mallocs = window.mallocs();
  std::printf("lockstep-stats zero_alloc window=views allocations=%ld mallocs=%ld malloc_counted=%d deltas=%llu\n", news,
              mallocs, counts_malloc() ? 1 : 0, static_cast<unsigned long long>(seen));
  EXPECT_EQ(news, 0);
  if (counts_malloc()) {
    EXPECT_EQ(mallocs, 0);
  }
  EXPECT_GT(seen, 250u);
  // The observer fired once per tick (one buffered Health add): 6 by the save after tick 5,
  // 16 before the load after tick 15 brought 6 back, then ticks 16..19.
  EXPECT_EQ(std::as_const(world).resource<Counter>()->value, 10u);  // the window did real view work (319 at the time of writing)
}
