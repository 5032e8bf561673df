#include "support/kernel_types.h"

#include <gtest/gtest.h>

using namespace lockstep;
using namespace lockstep_test;

TEST(Registry, DenseIdsInRegistrationOrder) {
  World w;
  EXPECT_EQ(w.componentId<Vel>(), -1);
  ASSERT_TRUE(w.registerComponent<Vel>().ok());
  ASSERT_TRUE(w.registerComponent<Pos>().ok());
  EXPECT_EQ(w.componentId<Vel>(), 0);
  EXPECT_EQ(w.componentId<Pos>(), 1);
  EXPECT_EQ(w.registerComponent<Pos>().code(), ErrorCode::AlreadyRegistered);
  EXPECT_STREQ(w.componentDescriptor(1).name, "Pos");
  EXPECT_EQ(w.componentIdByName("Vel"), 0);
  // Another world registers in another order: ids follow that world's order.
  World other;
  ASSERT_TRUE(other.registerComponent<Pos>().ok());
  EXPECT_EQ(other.componentId<Pos>(), 0);
}

TEST(Registry, DescriptorListsFieldsInOrder) {
  const TypeDescriptor& d = describe<Health>();
  EXPECT_STREQ(d.name, "Health");
  ASSERT_EQ(d.field_count, 2u);
  EXPECT_STREQ(d.fields[0].name, "hp");
  EXPECT_EQ(d.fields[0].offset, 0u);
  EXPECT_EQ(d.fields[0].kind, FieldKind::SignedInt);
  EXPECT_EQ(d.fields[1].offset, 4u);
  const TypeDescriptor& l = describe<Link>();
  EXPECT_EQ(l.fields[0].kind, FieldKind::Entity);
  EXPECT_EQ(l.fields[0].element_size, 4u);
  EXPECT_EQ(l.fields[0].count, 2u);
}

TEST(Registry, MaxComponentsIsEnforced) {
  WorldConfig c;
  c.max_components = 2;
  World w(c);
  ASSERT_TRUE(w.registerComponent<Pos>().ok());
  ASSERT_TRUE(w.registerComponent<Vel>().ok());
  EXPECT_EQ(w.registerComponent<Health>().code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(w.componentId<Health>(), -1);
}

TEST(Components, AddIsCreateOrOverwrite) {
  World w;
  register_all(w);
  const Entity e = w.create();
  EXPECT_FALSE(w.has<Pos>(e));
  ASSERT_TRUE(w.addComponent(e, Pos{1, 2}).ok());
  const std::uint32_t archetypes = w.archetypeCount();
  ASSERT_TRUE(w.addComponent(e, Pos{3, 4}).ok());  // overwrite: no structural move
  EXPECT_EQ(w.archetypeCount(), archetypes);
  EXPECT_EQ(w.get<Pos>(e)->x, 3);
  EXPECT_EQ(w.get<Pos>(e)->y, 4);
}

TEST(Components, StructuralMovesKeepOtherValues) {
  World w;
  register_all(w);
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponent(e, Pos{1, 2}).ok());
  ASSERT_TRUE(w.addComponent(e, Vel{5, 6}).ok());
  ASSERT_TRUE(w.addComponent(e, Health{7, 8}).ok());
  ASSERT_TRUE(w.removeComponent<Vel>(e).ok());
  EXPECT_FALSE(w.has<Vel>(e));
  EXPECT_EQ(w.get<Pos>(e)->y, 2);
  EXPECT_EQ(w.get<Health>(e)->max, 8);
  EXPECT_EQ(w.removeComponent<Vel>(e).code(), ErrorCode::NotFound);
  ASSERT_TRUE(w.removeComponent<Pos>(e).ok());
  ASSERT_TRUE(w.removeComponent<Health>(e).ok());
  EXPECT_TRUE(w.alive(e));  // component-less entities are allowed
  EXPECT_TRUE(w.checkInvariants().ok());
}

TEST(Components, UnregisteredTypeIsReported) {
  World w;
  const Entity e = w.create();
  EXPECT_EQ(w.addComponent(e, Pos{1, 1}).code(), ErrorCode::NotRegistered);
  EXPECT_EQ(w.removeComponent<Pos>(e).code(), ErrorCode::NotRegistered);
  EXPECT_EQ(w.get<Pos>(e), nullptr);
}

TEST(Archetypes, IdsFollowCreationOrderAndRowsStaySlotOrdered) {
  World w;
  register_all(w);
  std::vector<Entity> es;
  for (int i = 0; i < 10; ++i) es.push_back(w.create());
  // Reverse order adds: rows must still be ascending by slot.
  for (int i = 9; i >= 0; --i) ASSERT_TRUE(w.addComponent(es[i], Vel{i, i}).ok());
  for (int i = 0; i < 10; i += 2) ASSERT_TRUE(w.addComponent(es[i], Pos{i, 0}).ok());
  const StorageView v = w.storage();
  ASSERT_EQ(v.archetype_count(), 3u);  // {}, {Vel}, {Pos, Vel}
  EXPECT_EQ(v.archetype_components(1).size(), 1u);
  EXPECT_EQ(v.archetype_components(1)[0], 1u);
  ASSERT_EQ(v.archetype_components(2).size(), 2u);
  EXPECT_EQ(v.archetype_components(2)[0], 0u);
  const auto slots = v.archetype_slots(1);
  ASSERT_EQ(slots.size(), 5u);
  for (std::size_t i = 1; i < slots.size(); ++i) EXPECT_LT(slots[i - 1], slots[i]);
  EXPECT_TRUE(w.checkInvariants().ok());
}

TEST(Archetypes, MaxArchetypesIsACapacityErrorThatChangesNothing) {
  WorldConfig c;
  c.max_archetypes = 2;  // {} and one more
  World w(c);
  register_all(w);
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponent(e, Pos{1, 1}).ok());
  const auto before = dump(w);
  EXPECT_EQ(w.addComponent(e, Vel{1, 1}).code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(dump(w), before);
  EXPECT_EQ(w.archetypeCount(), 2u);
  EXPECT_TRUE(w.removeComponent<Pos>(e).ok());  // back to archetype 0, which exists
}

namespace {
template <int I>
struct Many {
  std::int32_t v;
};
template <int I>
inline const lockstep::TypeDescriptor& lockstep_describe(const Many<I>*) noexcept {
  static constexpr lockstep::FieldDescriptor fields[] = {lockstep::detail::make_field<std::int32_t>("v", 0)};
  // Distinct names: a world refuses two types with the same name (they key snapshot files).
  static constexpr char name[] = {'M', 'a', 'n', 'y', static_cast<char>('0' + I / 10), static_cast<char>('0' + I % 10), '\0'};
  static constexpr lockstep::TypeDescriptor d{name, 4, 4, fields, 1};
  return d;
}
template <int... I>
void add_many(World& w, Entity e, std::integer_sequence<int, I...>, std::vector<Status>& out) {
  ((out.push_back(w.registerComponent<Many<I>>())), ...);
  ((out.push_back(w.addComponent(e, Many<I>{I}))), ...);
}
}  // namespace

TEST(Archetypes, ThirtyThreeComponentsRejected) {
  World w;
  const Entity e = w.create();
  std::vector<Status> results;
  add_many(w, e, std::make_integer_sequence<int, 33>{}, results);
  ASSERT_EQ(results.size(), 66u);
  for (int i = 0; i < 33; ++i) EXPECT_TRUE(results[i].ok());
  for (int i = 33; i < 65; ++i) EXPECT_TRUE(results[i].ok()) << i;
  EXPECT_EQ(results[65].code(), ErrorCode::CapacityExceeded);
  EXPECT_TRUE(w.checkInvariants().ok());
}

TEST(Capacity, RowBudgetIsEnforcedAndLeavesTheWorldUnchanged) {
  WorldConfig c;
  c.max_entities = 1000;
  c.row_bytes = 4 * 10 + 16 * 2;  // ten bare entities, then two Pos rows' worth
  World w(c);
  register_all(w);
  std::vector<Entity> es;
  for (int i = 0; i < 10; ++i) es.push_back(w.create());
  ASSERT_TRUE(w.addComponent(es[0], Pos{1, 1}).ok());
  ASSERT_TRUE(w.addComponent(es[1], Pos{1, 1}).ok());
  EXPECT_EQ(w.usedRowBytes(), c.row_bytes);
  EXPECT_TRUE(w.create().is_null());
  const auto before = dump(w);
  EXPECT_EQ(w.addComponent(es[2], Pos{1, 1}).code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(dump(w), before);
  ASSERT_TRUE(w.destroy(es[0]).ok());
  EXPECT_TRUE(w.addComponent(es[2], Pos{1, 1}).ok());
}

TEST(Capacity, ArenaSurvivesHeavyChurnWithinBudget) {
  // Many archetypes growing and shrinking force relocation and compaction.
  WorldConfig c;
  c.max_entities = 4096;
  c.row_bytes = 4096 * 60;
  World w(c);
  register_all(w);
  std::vector<Entity> es;
  for (int i = 0; i < 4000; ++i) es.push_back(w.create());
  std::uint64_t x = 12345;
  for (int step = 0; step < 20000; ++step) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    Entity e = es[(x >> 33) % es.size()];
    switch ((x >> 20) % 6) {
      case 0: (void)w.addComponent(e, Pos{step, 1}); break;
      case 1: (void)w.addComponent(e, Vel{step, 2}); break;
      case 2: (void)w.addComponent(e, Health{step, 3}); break;
      case 3: (void)w.removeComponent<Pos>(e); break;
      case 4: (void)w.removeComponent<Vel>(e); break;
      case 5: (void)w.removeComponent<Health>(e); break;
    }
  }
  EXPECT_TRUE(w.checkInvariants().ok());
  EXPECT_LE(w.usedRowBytes(), c.row_bytes);
}

TEST(Clear, DestroysEveryEntityAndKeepsArchetypesAndResources) {
  World w;
  register_all(w);
  const Entity a = w.create();
  const Entity b = w.create();
  ASSERT_TRUE(w.addComponent(a, Pos{1, 1}).ok());
  w.resource<Counter>()->value = 42;
  const std::uint32_t archetypes = w.archetypeCount();
  ASSERT_TRUE(w.clear().ok());
  EXPECT_FALSE(w.alive(a));
  EXPECT_FALSE(w.alive(b));
  EXPECT_EQ(w.entityCount(), 0u);
  EXPECT_EQ(w.archetypeCount(), archetypes);
  EXPECT_EQ(w.resource<Counter>()->value, 42u);
  // Freed in ascending slot order.
  EXPECT_EQ(w.create().slot, 0u);
  EXPECT_EQ(w.create().slot, 1u);
}

TEST(Resources, OneInstancePerWorldInitialisedAndMutable) {
  World w;
  EXPECT_EQ(w.resource<Counter>(), nullptr);
  ASSERT_TRUE(w.registerResource(Counter{7}).ok());
  EXPECT_EQ(w.registerResource(Counter{8}).code(), ErrorCode::AlreadyRegistered);
  ASSERT_NE(w.resource<Counter>(), nullptr);
  EXPECT_EQ(w.resource<Counter>()->value, 7u);
  w.resource<Counter>()->value = 9;
  const World& cw = w;
  EXPECT_EQ(cw.resource<Counter>()->value, 9u);
  EXPECT_EQ(w.storage().resource_count(), 1u);
  EXPECT_EQ(w.storage().resource_bytes(0).size(), sizeof(Counter));
}

TEST(Tick, IsPartOfTheState) {
  World w;
  EXPECT_EQ(w.tick(), 0u);
  w.advanceTick();
  w.advanceTick();
  EXPECT_EQ(w.tick(), 2u);
  EXPECT_EQ(w.storage().tick(), 2u);
}
