#include "support/kernel_types.h"

#include <gtest/gtest.h>

using namespace lockstep;
using namespace lockstep_test;

namespace {
void churn(World& w, std::vector<Entity>& es, std::uint64_t seed, int steps) {
  std::uint64_t x = seed;
  for (int i = 0; i < steps; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint32_t r = static_cast<std::uint32_t>(x >> 33);
    if (es.empty() || r % 7 == 0) {
      es.push_back(w.create());
      continue;
    }
    Entity& e = es[r % es.size()];
    switch (r % 5) {
      case 0: (void)w.destroy(e); break;
      case 1: (void)w.addComponent(e, Pos{i, i}); break;
      case 2: (void)w.addComponent(e, Vel{i, -i}); break;
      case 3: (void)w.removeComponent<Pos>(e); break;
      case 4: (void)w.addComponent(e, Link{es[(r / 5) % es.size()]}); break;
    }
  }
  w.resource<Counter>()->value += static_cast<std::uint64_t>(steps);
  w.advanceTick();
}
}  // namespace

TEST(Snapshot, LoadRestoresAnIndistinguishableWorld) {
  World a;
  register_all(a);
  std::vector<Entity> es;
  churn(a, es, 1, 500);
  Snapshot snap(a);
  a.save(snap);
  const auto saved = dump(a);
  EXPECT_EQ(snap.tick(), a.tick());

  std::vector<Entity> es_a = es;
  churn(a, es_a, 2, 500);
  const auto after_a = dump(a);
  ASSERT_NE(after_a, saved);

  ASSERT_TRUE(a.load(snap).ok());
  EXPECT_EQ(dump(a), saved);
  for (const Entity e : es) EXPECT_EQ(a.alive(e), true == a.alive(e));
  std::vector<Entity> es_b = es;
  churn(a, es_b, 2, 500);  // same future operations, same result
  EXPECT_EQ(dump(a), after_a);
  EXPECT_TRUE(a.checkInvariants().ok());
}

TEST(Snapshot, HandlesCreatedAfterTheSnapshotAreStaleAfterLoad) {
  World w;
  register_all(w);
  const Entity kept = w.create();
  Snapshot snap(w);
  w.save(snap);
  const Entity later = w.create();
  ASSERT_TRUE(w.destroy(kept).ok());
  ASSERT_TRUE(w.load(snap).ok());
  EXPECT_TRUE(w.alive(kept));
  EXPECT_FALSE(w.alive(later));
  // The never-used slot comes back as generation 1, exactly as in the saved world.
  const Entity again = w.create();
  EXPECT_EQ(again, later);
}

TEST(Snapshot, SnapshotViewMatchesTheWorldView) {
  World w;
  register_all(w);
  std::vector<Entity> es;
  churn(w, es, 9, 300);
  Snapshot snap(w);
  w.save(snap);
  const StorageView sv = snap.view();
  const StorageView wv = w.storage();
  ASSERT_EQ(sv.archetype_count(), wv.archetype_count());
  for (std::uint32_t a = 0; a < sv.archetype_count(); ++a) {
    ASSERT_EQ(sv.archetype_rows(a), wv.archetype_rows(a));
    for (std::uint32_t c = 0; c < sv.archetype_components(a).size(); ++c) {
      const auto x = sv.column_bytes(a, c);
      const auto y = wv.column_bytes(a, c);
      ASSERT_EQ(x.size(), y.size());
      EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin()));
    }
  }
  EXPECT_GT(snap.live_bytes(), 0u);
}

TEST(Snapshot, LoadIntoAWorldWithOtherRegistrationsIsAMismatch) {
  World a, b;
  register_all(a);
  (void)b.registerComponent<Vel>();
  Snapshot snap(a);
  a.save(snap);
  const auto before = dump(b);
  EXPECT_EQ(b.load(snap).code(), ErrorCode::Mismatch);
  EXPECT_EQ(dump(b), before);
}

TEST(Snapshot, UntrustedPartsAreValidatedBeforeAnyChange) {
  World w;
  register_all(w);
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponent(e, Flag{true}).ok());
  const auto before = dump(w);
  auto good = [] {
    SnapshotParts p;
    p.generations = {1, 2};
    p.alive = {1, 0};
    p.free_slots = {1};
    p.archetypes.resize(2);
    p.archetypes[1].component_ids = {3};  // Flag
    p.archetypes[1].slots = {0};
    p.archetypes[1].columns = {{std::byte{1}}};
    p.resources = {std::vector<std::byte>(sizeof(Counter))};
    return p;
  };
  {
    Snapshot s;
    ASSERT_TRUE(s.assign(w, good()).ok());
    World fresh;
    register_all(fresh);
    EXPECT_TRUE(fresh.load(s).ok());
    EXPECT_TRUE(fresh.checkInvariants().ok());
  }
  struct Case {
    const char* what;
    void (*mutate)(SnapshotParts&);
  };
  const Case cases[] = {
      {"bool field 2", [](SnapshotParts& p) { p.archetypes[1].columns[0][0] = std::byte{2}; }},
      {"live slot in free list", [](SnapshotParts& p) { p.free_slots = {0}; }},
      {"free slot missing", [](SnapshotParts& p) { p.free_slots.clear(); }},
      {"row holds a free slot", [](SnapshotParts& p) { p.archetypes[1].slots = {1}; }},
      {"zero generation", [](SnapshotParts& p) { p.generations[0] = 0; }},
      {"liveness 7", [](SnapshotParts& p) { p.alive[1] = 7; }},
      {"duplicate archetype", [](SnapshotParts& p) { p.archetypes[1].component_ids = {}; p.archetypes[1].columns = {}; }},
      {"live slot in no archetype", [](SnapshotParts& p) { p.archetypes[1].slots = {}; p.archetypes[1].columns = {{}}; }},
  };
  for (const Case& c : cases) {
    SnapshotParts p = good();
    c.mutate(p);
    Snapshot s;
    const Status assigned = s.assign(w, p);
    const Status loaded = assigned.ok() ? w.load(s) : assigned;
    EXPECT_FALSE(loaded.ok()) << c.what;
    EXPECT_EQ(dump(w), before) << c.what;
  }
}

TEST(SnapshotRing, FindsByTickAndForgetsOverwrittenTicks) {
  World w;
  register_all(w);
  SnapshotRing ring(w, 4);
  for (int t = 0; t < 10; ++t) {
    ring.save(w);
    (void)w.create();
    w.advanceTick();
  }
  EXPECT_EQ(ring.find(5), nullptr);
  ASSERT_NE(ring.find(9), nullptr);
  ASSERT_NE(ring.find(6), nullptr);
  ASSERT_TRUE(w.load(*ring.find(6)).ok());
  EXPECT_EQ(w.tick(), 6u);
  EXPECT_EQ(w.entityCount(), 6u);
}

// live_bytes() is what save copies: per slot 4 (generation) + 1 (liveness) + 4 (row) + 2
// (archetype) bytes, 4 per free-list entry, row bytes (columns + 4-byte slot id) of every
// row, and the resource block.
TEST(Snapshot, LiveBytesCountsEveryByteSaveCopies) {
  World w;
  (void)w.registerComponent<Pos>();
  (void)w.registerComponent<Vel>();
  (void)w.registerResource<Counter>();
  const Entity a = w.create(), b = w.create(), c = w.create();
  ASSERT_TRUE(w.addComponent(a, Pos{1, 2}).ok());
  ASSERT_TRUE(w.addComponent(b, Pos{3, 4}).ok());
  ASSERT_TRUE(w.addComponent(b, Vel{5, 6}).ok());
  ASSERT_TRUE(w.destroy(c).ok());
  Snapshot snap(w);
  w.save(snap);
  // 3 slots × 11 + 1 free × 4 + a (Pos: 16 + 4) + b (Pos, Vel: 32 + 4) + Counter (8).
  EXPECT_EQ(snap.live_bytes(), 3u * 11u + 4u + 20u + 36u + 8u);
}
