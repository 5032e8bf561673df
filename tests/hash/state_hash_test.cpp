// Unit tests of the state hash: layout details, breakdown, helpers, snapshots through views.
#include "hash/hash_test_support.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/store/world.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace hashtest;
using lockstep::HashPath;
using lockstep::StateHash;
using lockstep::World;

namespace {

// A fixed little world used by golden values (pins the byte layout across hosts).
void build_golden(World& w) {
  register_all(w);
  const Entity a = w.create();
  const Entity b = w.create();
  const Entity c = w.create();
  ASSERT_TRUE(w.addComponent(a, Pos{fixed::from_int(1), fixed::from_raw(-5)}).ok());
  ASSERT_TRUE(w.addComponent(a, Vel{fixed::from_raw(3), fixed::from_raw(4)}).ok());
  ASSERT_TRUE(w.addComponent(b, Health{100, 120}).ok());
  ASSERT_TRUE(w.addComponent(c, Tag{7, true, 0x1234, 0xDEADBEEF, a}).ok());
  ASSERT_TRUE(w.addComponent(c, Pos{fixed::from_raw(-1), fixed::from_raw(0x7FFFFFFFFFFFFFFF)}).ok());
  ASSERT_TRUE(w.destroy(b).ok());
  w.resource<Score>()->values[2] = -7;
  w.setTick(42);
}

}  // namespace

TEST(state_hash, EmptyWorldsHashEqualAndStable) {
  World a(small_config()), b(small_config());
  register_all(a);
  register_all(b);
  const StateHash ha = hash_of(a), hb = hash_of(b);
  EXPECT_EQ(ha, hb);
  EXPECT_EQ(ha.component_count, 4u);
  EXPECT_EQ(ha.tick, 0u);
  EXPECT_EQ(hash_of(a), ha);  // hashing does not change anything
}

TEST(state_hash, TickIsInTotalOnly) {
  World w(small_config());
  register_all(w);
  const StateHash h0 = hash_of(w);
  w.advanceTick();
  const StateHash h1 = hash_of(w);
  EXPECT_NE(h0.total, h1.total);
  EXPECT_EQ(h1.tick, 1u);
  EXPECT_EQ(h0.entities, h1.entities);
  EXPECT_EQ(h0.archetypes, h1.archetypes);
  EXPECT_EQ(h0.resources, h1.resources);
  const lockstep::HashDiff d = lockstep::diff_hashes(h0, h1);
  EXPECT_EQ(d.parts, lockstep::kPartTotal | lockstep::kPartTick);
  EXPECT_EQ(d.component_count, 0u);
}

TEST(state_hash, GoldenValuesPinTheLayout) {
  World w(small_config());
  build_golden(w);
  const StateHash h = hash_of(w);
  EXPECT_EQ(h, lockstep::hash_world(w, HashPath::Canonical));
  // Printed so a layout change is easy to review; update docs/hashing.md's version with it.
  std::printf("golden: %s", lockstep::format_state_hash(h, w.storage()).c_str());
  EXPECT_EQ(lockstep::to_hex(h.total), "acf6e2fdfcfe06f5");
}

TEST(state_hash, EmptyComponentHashesTheEmptyString) {
  World w(small_config());
  register_all(w);
  const StateHash h = hash_of(w);
  // No archetype holds any component yet: each sub-hash is XXH3 of "".
  const std::uint64_t empty = lockstep::xxh3_64({});
  for (std::uint32_t c = 0; c < h.component_count; ++c) EXPECT_EQ(h.components[c], empty);
}

TEST(state_hash, CanonicalByteCountMatchesLayout) {
  World w(small_config());
  register_all(w);
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponent(e, Pos{}).ok());
  const lockstep::StorageView v = w.storage();
  // entities: 4 + 1 slot * 5 + 4 + 0 free; archetypes header 4
  std::uint64_t expect = 4 + 5 + 4 + 4;
  for (std::uint32_t a = 0; a < v.archetype_count(); ++a) {
    expect += 12 + v.archetype_components(a).size() + 4 * v.archetype_rows(a);
    for (std::uint8_t c : v.archetype_components(a)) expect += 8 + v.archetype_rows(a) * v.component(c).size;
  }
  expect += 4 + (8 + sizeof(Rng)) + (8 + sizeof(Score));
  EXPECT_EQ(lockstep::canonical_byte_count(v), expect);
}

TEST(state_hash, DiffNamesTheComponent) {
  World w(small_config());
  register_all(w);
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponent(e, Health{1, 2}).ok());
  ASSERT_TRUE(w.addComponent(e, Pos{}).ok());
  const StateHash before = hash_of(w);
  ASSERT_TRUE(w.addComponent(e, Health{1, 3}).ok());
  const StateHash after = hash_of(w);
  const lockstep::HashDiff d = lockstep::diff_hashes(before, after);
  ASSERT_EQ(d.component_count, 1u);
  EXPECT_EQ(d.components[0], w.componentId<Health>());
  EXPECT_EQ(d.parts, lockstep::kPartTotal);
  const std::string text = lockstep::describe_hash_diff(before, after, w.storage());
  EXPECT_NE(text.find("components: Health"), std::string::npos) << text;
  EXPECT_EQ(text.find("Pos"), std::string::npos) << text;
  EXPECT_NE(lockstep::describe_hash_diff(before, before, w.storage()).find("hashes equal"), std::string::npos);
}

TEST(state_hash, HexFormatting) {
  char buf[16];
  lockstep::format_hex(0x0123456789ABCDEFull, buf);
  EXPECT_EQ(std::string(buf, 16), "0123456789abcdef");
  EXPECT_EQ(lockstep::to_hex(0), "0000000000000000");
  EXPECT_EQ(lockstep::to_hex(~0ull), "ffffffffffffffff");
}

TEST(state_hash, DestroyRecreateSameSlotChangesOnlyEntityTable) {
  World w(small_config());
  register_all(w);
  const Entity a = w.create();
  ASSERT_TRUE(w.addComponent(a, Pos{fixed::from_int(3), fixed::from_int(4)}).ok());
  const StateHash before = hash_of(w);
  ASSERT_TRUE(w.destroy(a).ok());
  const Entity b = w.create();
  ASSERT_EQ(b.slot, a.slot);  // FIFO reuse of the only free slot
  ASSERT_NE(b.generation, a.generation);
  ASSERT_TRUE(w.addComponent(b, Pos{fixed::from_int(3), fixed::from_int(4)}).ok());
  const StateHash after = hash_of(w);
  EXPECT_NE(before.total, after.total);
  EXPECT_NE(before.entities, after.entities);
  EXPECT_EQ(before.archetypes, after.archetypes);
  for (std::uint32_t c = 0; c < after.component_count; ++c) EXPECT_EQ(before.components[c], after.components[c]);
}

TEST(state_hash, FreeSlotOrderIsHashed) {
  // Same live set, same generations, different free-list order.
  World a(small_config()), b(small_config());
  register_all(a);
  register_all(b);
  Entity ea[3], eb[3];
  for (int i = 0; i < 3; ++i) {
    ea[i] = a.create();
    eb[i] = b.create();
  }
  ASSERT_TRUE(a.destroy(ea[0]).ok());
  ASSERT_TRUE(a.destroy(ea[1]).ok());
  ASSERT_TRUE(b.destroy(eb[1]).ok());
  ASSERT_TRUE(b.destroy(eb[0]).ok());
  const StateHash ha = hash_of(a), hb = hash_of(b);
  EXPECT_NE(ha.total, hb.total);
  EXPECT_NE(ha.entities, hb.entities);
  EXPECT_EQ(ha.archetypes, hb.archetypes);
}

TEST(state_hash, ArchetypeCreationOrderIsHashed) {
  World a(small_config()), b(small_config());
  register_all(a);
  register_all(b);
  const Entity x = a.create(), y = b.create();
  // a creates {Pos} then {Health}; b the other way round; both end with an entity in {Pos}.
  ASSERT_TRUE(a.addComponent(x, Pos{}).ok());
  ASSERT_TRUE(a.removeComponent<Pos>(x).ok());
  ASSERT_TRUE(a.addComponent(x, Health{}).ok());
  ASSERT_TRUE(a.removeComponent<Health>(x).ok());
  ASSERT_TRUE(a.addComponent(x, Pos{}).ok());
  ASSERT_TRUE(b.addComponent(y, Health{}).ok());
  ASSERT_TRUE(b.removeComponent<Health>(y).ok());
  ASSERT_TRUE(b.addComponent(y, Pos{}).ok());
  const StateHash ha = hash_of(a), hb = hash_of(b);
  EXPECT_NE(ha.total, hb.total);
  EXPECT_NE(ha.archetypes, hb.archetypes);
  EXPECT_EQ(ha.entities, hb.entities);
}

TEST(state_hash, CapacitiesAreNotHashed) {
  lockstep::WorldConfig big = small_config();
  big.max_entities = 1000;
  big.row_bytes = 1000u * 64u;
  big.max_archetypes = 100;
  World a(small_config()), b(big);
  register_all(a);
  register_all(b);
  for (World* w : {&a, &b}) {
    for (int i = 0; i < 10; ++i) {
      const Entity e = w->create();
      ASSERT_TRUE(w->addComponent(e, Pos{fixed::from_int(i), fixed::from_int(-i)}).ok());
      if (i % 3 == 0) {
        ASSERT_TRUE(w->addComponent(e, Health{i, i}).ok());
      }
    }
  }
  EXPECT_EQ(hash_of(a), hash_of(b));
}

TEST(state_hash, SnapshotViewHashesLikeTheWorld) {
  World w(small_config());
  register_all(w);
  Driver d(w);
  for (std::uint32_t i = 0; i < 40; ++i)
    (void)d.apply(Op{static_cast<std::uint8_t>(i % kOpKinds), i * 7u, static_cast<std::int64_t>(i) * 1000003,
                     -static_cast<std::int64_t>(i)});
  lockstep::SnapshotRing ring(w, 4);
  ring.save(w);
  const lockstep::Snapshot* s = ring.find(w.tick());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(lockstep::hash_storage(s->view()), hash_of(w));
  EXPECT_EQ(lockstep::hash_storage(s->view(), HashPath::Canonical), hash_of(w));
}
