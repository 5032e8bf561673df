// Zero allocation with observers and system access guards on (docs/observers.md,
// docs/systems.md): after registration (which reserves the observers' follow-up buffers),
// ticks of guarded iteration, direct sets, buffered creates/destroys with observers firing
// and recording follow-up commands allocate nothing.
#include "support/counting_allocator.h"
#include "support/kernel_types.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/store/observers.h>
#include <lockstep/store/system_access.h>

#include <gtest/gtest.h>

#include <cstdio>

using namespace lockstep;
using namespace lockstep_test;

namespace {
void count_added(World& w, Entity) { ++w.resource<Counter>()->value; }
void tag_removed(World& w, Entity e) {
  // A follow-up command from inside a flush: a Flag entity per removed Pos (slot parity).
  if (e.slot % 2 == 0) (void)w.commands().addComponent(w.commands().create(), Flag{true});
}
void count_set(World& w, Entity) { w.resource<Counter>()->value += 2; }
}  // namespace

TEST(ZeroAlloc, ObserversAndAccessGuardsAllocateNothing) {
  WorldConfig config;
  config.max_entities = 4096;
  World world(config);
  register_all(world);
  AccessSet observer_access, system_access;
  ASSERT_TRUE(access_of(world, Reads<>{}, Writes<Counter, Flag, Commands>{}, "observer", observer_access).ok());
  ASSERT_TRUE(access_of(world, Reads<Vel>{}, Writes<Pos, Counter, Commands>{}, "system", system_access).ok());
  ASSERT_TRUE(world.observe<Pos>(ObserverEvent::OnAdd, count_added, observer_access).ok());
  ASSERT_TRUE(world.observe<Pos>(ObserverEvent::OnRemove, tag_removed, observer_access).ok());
  ASSERT_TRUE(world.observe<Pos>(ObserverEvent::OnSet, count_set, observer_access).ok());
  CachedQuery<term::write<Pos>, term::read<Vel>> move;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const Entity e = world.create();
    ASSERT_TRUE(world.addComponent(e, Pos{static_cast<std::int64_t>(i), 0}).ok());
    ASSERT_TRUE(world.addComponent(e, Vel{1, 1}).ok());
  }
  ASSERT_TRUE(move.refresh(world).ok());
  long visits = 0;
  lockstep_test::AllocationWindow counts{};
  for (int tick = 0; tick < 20; ++tick) {
    {
      World::AccessScope scope(world, &system_access);  // as replay::Runner installs it
      ASSERT_TRUE(move.each(world, [&](Entity, Pos& p, const Vel& v) { p.x += v.x; ++visits; }).ok());
      const Status culled = world.each<Pos, Vel>([&](Entity e, const Pos& p, const Vel&) {
        if (p.x % 50 == 0) (void)world.commands().destroy(e);
      }, Read{}, Read{});
      ASSERT_TRUE(culled.ok());
      CommandBuffer& cmd = world.commands();
      for (int k = 0; k < 10; ++k) {
        const Entity e = cmd.create();
        ASSERT_TRUE(cmd.addComponent(e, Pos{k, tick}).ok());
      }
      (void)world.readResource<Vel>();  // not a resource: null, no allocation either way
    }
    ASSERT_TRUE(world.flush().ok());
    world.advanceTick();
  }
  std::printf("lockstep-stats zero_alloc window=observers_access allocations=%ld mallocs=%ld visits=%ld\n",
              counts.allocations(), counts.mallocs(), visits);
  EXPECT_EQ(counts.allocations(), 0);
  if (lockstep_test::counts_malloc()) {
    EXPECT_EQ(counts.mallocs(), 0);
  }
  EXPECT_GT(visits, 15000);
  EXPECT_GT(std::as_const(world).resource<Counter>()->value, 600u);
}
