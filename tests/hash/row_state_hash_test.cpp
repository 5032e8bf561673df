// Row state in the state hash (docs/hashing.md, "Row state"): absent → the bytes of before;
// present → the `entities` part (and total) change, component sub-hashes do not.
#include "hash/hash_test_support.h"

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/store/world.h>

#include <gtest/gtest.h>

using namespace hashtest;
using lockstep::HashPath;
using lockstep::StateHash;
using lockstep::World;

namespace {

lockstep::WorldConfig tracking_config() {
  lockstep::WorldConfig c = small_config();
  c.max_tracked_components = 2;
  return c;
}

void populate(World& w) {
  register_all(w);
  for (int i = 0; i < 5; ++i) {
    const Entity e = w.create();
    ASSERT_TRUE(w.addComponent(e, Pos{fixed::from_int(i), fixed::from_int(-i)}).ok());
    if (i % 2 == 0) {
      ASSERT_TRUE(w.addComponent(e, Health{i, 10}).ok());
    }
  }
  w.setTick(3);
}

}  // namespace

TEST(row_state_hash, EnableBitsFoldIntoEntitiesOnlyAndVanishWhenCleared) {
  World w(small_config());
  populate(w);
  const StateHash before = lockstep::hash_world(w);
  const Entity e{2, 1};
  ASSERT_TRUE(w.setEnabled<Health>(e, false).ok());
  const StateHash off = lockstep::hash_world(w);
  EXPECT_NE(off.total, before.total);
  EXPECT_NE(off.entities, before.entities);
  EXPECT_EQ(off.archetypes, before.archetypes);
  EXPECT_EQ(off.resources, before.resources);
  for (std::uint32_t c = 0; c < before.component_count; ++c) EXPECT_EQ(off.components[c], before.components[c]);
  // Another entity/component disabled hashes differently.
  ASSERT_TRUE(w.setEnabled<Health>(e, true).ok());
  ASSERT_TRUE(w.setEnabled<Pos>(e, false).ok());
  EXPECT_NE(lockstep::hash_world(w).total, off.total);
  ASSERT_TRUE(w.setEnabled<Pos>(e, true).ok());
  EXPECT_EQ(lockstep::hash_world(w), before);  // no bit set: exactly the bytes of before
}

TEST(row_state_hash, ChangeTicksAreHashedWhenTracked) {
  World plain(tracking_config()), tracked(tracking_config());
  populate(plain);
  populate(tracked);
  ASSERT_EQ(lockstep::hash_world(plain), lockstep::hash_world(tracked));  // capacity alone is not state
  ASSERT_TRUE(tracked.trackChanges<Health>().ok());
  const StateHash t0 = lockstep::hash_world(tracked);
  EXPECT_NE(t0.entities, lockstep::hash_world(plain).entities);
  tracked.setTick(4);
  ASSERT_NE(tracked.getMutable<Health>(Entity{0, 1}), nullptr);  // same value, new change tick
  tracked.setTick(3);
  const StateHash t1 = lockstep::hash_world(tracked);
  EXPECT_NE(t1.entities, t0.entities);
  for (std::uint32_t c = 0; c < t0.component_count; ++c) EXPECT_EQ(t1.components[c], t0.components[c]);
}

TEST(row_state_hash, FastPathSnapshotsAndCanonicalPathAgree) {
  World w(tracking_config());
  populate(w);
  ASSERT_TRUE(w.trackChanges<Pos>().ok());
  ASSERT_TRUE(w.setEnabled<Pos>(Entity{1, 1}, false).ok());
  w.setTick(9);
  ASSERT_TRUE(w.addComponent(Entity{1, 1}, Health{1, 1}).ok());
  const StateHash fast = lockstep::hash_world(w, HashPath::Auto);
  EXPECT_EQ(fast, lockstep::hash_world(w, HashPath::Canonical));
  lockstep::Snapshot snap(w);
  w.save(snap);
  EXPECT_EQ(lockstep::hash_storage(snap.view()), fast);
  World other(tracking_config());
  register_all(other);
  ASSERT_TRUE(other.trackChanges<Pos>().ok());
  ASSERT_TRUE(other.load(snap).ok());
  EXPECT_EQ(lockstep::hash_world(other), fast);
}

TEST(row_state_hash, SnapshotFilesRefuseRowStateWithAClearError) {
  World w(small_config());
  populate(w);
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(w.storage(), bytes).ok());
  ASSERT_TRUE(w.setEnabled<Pos>(Entity{0, 1}, false).ok());
  const lockstep::FileStatus st = lockstep::encode_snapshot(w.storage(), bytes);
  EXPECT_EQ(st.code, lockstep::ErrorCode::InvalidArgument);
  EXPECT_NE(st.message.find("1 disabled component(s)"), std::string::npos) << st.message;
}
