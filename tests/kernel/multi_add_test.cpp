// Several components in one structural move: World::addComponents / createWith and the
// command-buffer forms (docs/kernel.md, "Adding several components at once").
#include "support/kernel_types.h"

#include <lockstep/world.h>

#include <gtest/gtest.h>

using namespace lockstep;
using namespace lockstep_test;

namespace {

std::vector<std::uint8_t> components_of(const World& w, std::uint32_t archetype) {
  const StorageView v = w.storage();
  const auto ids = v.archetype_components(archetype);
  return {ids.begin(), ids.end()};
}

}  // namespace

TEST(MultiAdd, AddComponentsCreatesOnlyTheFinalArchetype) {
  World w;
  register_all(w);
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponents(e, Pos{1, 2}, Health{30, 40}, Vel{3, 4}).ok());
  EXPECT_EQ(w.archetypeCount(), 2u);  // {} and {Pos, Vel, Health}; no {Pos} or {Pos, Health}
  EXPECT_EQ(components_of(w, 1), (std::vector<std::uint8_t>{0, 1, 2}));
  EXPECT_EQ(w.get<Pos>(e)->y, 2);
  EXPECT_EQ(w.get<Vel>(e)->x, 3);
  EXPECT_EQ(w.get<Health>(e)->max, 40);
  EXPECT_EQ(w.usedRowBytes(), 4u + 16u + 16u + 8u);
  ASSERT_TRUE(w.checkInvariants().ok());
}

TEST(MultiAdd, OverwritesWhatTheEntityHasAndAddsTheRest) {
  World w;
  register_all(w);
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponent(e, Pos{1, 1}).ok());
  ASSERT_TRUE(w.addComponents(e, Pos{7, 8}, Vel{5, 6}).ok());
  EXPECT_EQ(w.archetypeCount(), 3u);  // {}, {Pos}, {Pos, Vel}
  EXPECT_EQ(w.get<Pos>(e)->x, 7);
  EXPECT_EQ(w.get<Vel>(e)->y, 6);
  // Only components it already has: an in-place overwrite, no structural move.
  ASSERT_TRUE(w.addComponents(e, Vel{9, 9}, Pos{0, 0}).ok());
  EXPECT_EQ(w.archetypeCount(), 3u);
  EXPECT_EQ(w.get<Vel>(e)->x, 9);
  EXPECT_EQ(w.get<Pos>(e)->x, 0);
}

TEST(MultiAdd, CreateWithPlacesTheEntityDirectly) {
  World w;
  register_all(w);
  const Entity a = w.create();
  const Entity b = w.createWith(Vel{1, 2}, Pos{3, 4});
  ASSERT_FALSE(b.is_null());
  EXPECT_EQ(b.slot, a.slot + 1);
  EXPECT_EQ(w.archetypeCount(), 2u);
  EXPECT_EQ(components_of(w, 1), (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ(w.get<Pos>(b)->y, 4);
  EXPECT_EQ(w.entityCount(), 2u);
  // A destroyed slot is reused first (FIFO), with its bumped generation.
  ASSERT_TRUE(w.destroy(a).ok());
  const Entity c = w.createWith(Health{5, 6});
  EXPECT_EQ(c.slot, a.slot);
  EXPECT_EQ(c.generation, a.generation + 1);
  ASSERT_TRUE(w.checkInvariants().ok());
}

TEST(MultiAdd, ErrorsChangeNothing) {
  WorldConfig c;
  c.max_entities = 4;
  c.row_bytes = 40;  // one {Pos, Vel} row (36 bytes) fits, one {Pos, Vel, Health} row (44) does not
  World w(c);
  register_all(w);
  const Entity e = w.create();
  EXPECT_EQ(w.addComponents(e, Pos{}, Vel{}, Health{}).code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(w.archetypeCount(), 1u);
  EXPECT_EQ(w.get<Pos>(e), nullptr);
  EXPECT_TRUE(w.addComponents(e, Pos{}, Vel{}).ok());
  EXPECT_EQ(w.addComponents(Entity{3, 1}, Pos{}).code(), ErrorCode::InvalidArgument);
  Entity out;
  EXPECT_EQ(w.tryCreateWith(out, Pos{}, Vel{}, Health{}).code(), ErrorCode::CapacityExceeded);
  EXPECT_TRUE(out.is_null());
  EXPECT_EQ(w.entityCount(), 1u);
  ASSERT_TRUE(w.checkInvariants().ok());
}

TEST(MultiAdd, GuardRejectsBeforeAnySideEffect) {
  World w;
  w.setGuardPolicy(GuardPolicy::Reject);
  CapturingSink sink;
  w.setEventSink(&sink);
  register_all(w);
  const Entity a = w.createWith(Pos{1, 1}, Health{1, 1});
  const Entity b = w.createWith(Pos{2, 2});
  const Entity d = w.createWith(Vel{2, 2});
  ASSERT_TRUE((w.each<Pos, Health>([&](Entity e, const Pos&, Health&) {
    // e's archetype is being visited: a structural move out of it is illegal.
    EXPECT_EQ(w.addComponents(e, Vel{}, Flag{}).code(), ErrorCode::InvalidArgument);
    // b is not visited, but overwriting its Pos (declared Read) is a write during read.
    EXPECT_EQ(w.addComponents(b, Pos{}, Vel{}).code(), ErrorCode::InvalidArgument);
    // d gaining Health (Write) and overwriting Vel (not listed), outside the matched set: legal.
    EXPECT_TRUE(w.addComponents(d, Health{3, 3}, Vel{4, 4}).ok());
  }, Read{}, Write{}).ok()));
  EXPECT_EQ(w.get<Vel>(a), nullptr);
  EXPECT_EQ(w.get<Vel>(b), nullptr);
  EXPECT_EQ(w.get<Pos>(b)->x, 2);
  EXPECT_EQ(w.get<Vel>(d)->x, 4);
  EXPECT_EQ(w.get<Health>(d)->hp, 3);
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.events[0].id, EventId::IterationMutation);
  EXPECT_EQ(sink.events[1].id, EventId::IterationWriteDuringRead);
  EXPECT_EQ(sink.events[1].component_id, 0);
}

TEST(MultiAdd, ChangeTicksAsIfAddedOneByOne) {
  WorldConfig c;
  c.max_tracked_components = 2;
  World w(c);
  register_all(w);
  ASSERT_TRUE(w.trackChanges<Pos>().ok());
  ASSERT_TRUE(w.trackChanges<Vel>().ok());
  w.setTick(5);
  const Entity e = w.createWith(Pos{});
  w.setTick(9);
  ASSERT_TRUE(w.addComponents(e, Pos{1, 1}, Vel{2, 2}).ok());
  std::uint64_t added = 0, changed = 0;
  ASSERT_TRUE(w.changeTicks<Pos>(e, added, changed));
  EXPECT_EQ(added, 5u);
  EXPECT_EQ(changed, 9u);
  ASSERT_TRUE(w.changeTicks<Vel>(e, added, changed));
  EXPECT_EQ(added, 9u);
  EXPECT_EQ(changed, 9u);
}

TEST(MultiAdd, CommandBufferGroupsPlanOneArchetype) {
  World w;
  register_all(w);
  const Entity existing = w.create();
  CommandBuffer& cb = w.commands();
  const Entity p = cb.createWith(Pos{1, 2}, Vel{3, 4}, Health{5, 6});
  ASSERT_TRUE(p.is_pending());
  ASSERT_TRUE(cb.addComponents(existing, Health{7, 8}, Vel{9, 10}).ok());
  EXPECT_EQ(cb.size(), 6u);
  ASSERT_TRUE(w.flush().ok());
  EXPECT_EQ(w.archetypeCount(), 3u);  // {}, {Pos, Vel, Health}, {Vel, Health}
  EXPECT_EQ(components_of(w, 1), (std::vector<std::uint8_t>{0, 1, 2}));
  EXPECT_EQ(components_of(w, 2), (std::vector<std::uint8_t>{1, 2}));
  const Entity made{existing.slot + 1, 1};
  EXPECT_EQ(w.get<Health>(made)->max, 6);
  EXPECT_EQ(w.get<Vel>(existing)->y, 10);
  ASSERT_TRUE(w.checkInvariants().ok());
}

TEST(MultiAdd, CommandBufferGroupIsAllOrNothing) {
  CommandBuffer cb(3, 64);
  const Entity p = cb.create();
  EXPECT_EQ(cb.addComponents(p, Pos{}, Vel{}, Health{}).code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(cb.size(), 1u);
  EXPECT_TRUE(cb.createWith(Pos{}, Vel{}).is_null());
  EXPECT_EQ(cb.size(), 1u);
  EXPECT_TRUE(cb.addComponents(p, Pos{}, Vel{}).ok());
  EXPECT_EQ(cb.size(), 3u);
}
