#include "support/kernel_types.h"

#include <gtest/gtest.h>

using namespace lockstep;
using namespace lockstep_test;

TEST(CommandBuffer, FlushAppliesInRecordingOrder) {
  World w;
  register_all(w);
  const Entity e = w.create();
  CommandBuffer& cb = w.commands();
  ASSERT_TRUE(cb.addComponent(e, Pos{1, 1}).ok());
  ASSERT_TRUE(cb.addComponent(e, Pos{2, 2}).ok());
  ASSERT_TRUE(cb.addComponent(e, Vel{3, 3}).ok());
  ASSERT_TRUE(cb.removeComponent<Pos>(e).ok());
  ASSERT_TRUE(cb.addComponent(e, Pos{4, 4}).ok());
  EXPECT_FALSE(w.has<Pos>(e));  // nothing happens before the flush
  ASSERT_TRUE(w.flush().ok());
  EXPECT_TRUE(cb.empty());
  ASSERT_NE(w.get<Pos>(e), nullptr);
  EXPECT_EQ(w.get<Pos>(e)->x, 4);
  EXPECT_EQ(w.get<Vel>(e)->x, 3);
  EXPECT_TRUE(w.checkInvariants().ok());
}

TEST(CommandBuffer, PendingHandlesAreUsableByLaterCommandsAndInsideValues) {
  World w;
  register_all(w);
  const Entity owner = w.create();
  CommandBuffer& cb = w.commands();
  const Entity a = cb.create();
  const Entity b = cb.create();
  ASSERT_TRUE(a.is_pending());
  ASSERT_TRUE(cb.addComponent(a, Pos{10, 0}).ok());
  ASSERT_TRUE(cb.addComponent(b, Link{a}).ok());
  ASSERT_TRUE(cb.addComponent(owner, Link{b}).ok());
  ASSERT_TRUE(w.flush().ok());
  const Link* ol = w.get<Link>(owner);
  ASSERT_NE(ol, nullptr);
  ASSERT_TRUE(w.alive(ol->target));
  const Link* bl = w.get<Link>(ol->target);
  ASSERT_NE(bl, nullptr);
  ASSERT_TRUE(w.alive(bl->target));
  EXPECT_EQ(w.get<Pos>(bl->target)->x, 10);
  EXPECT_EQ(w.entityCount(), 3u);
}

// A buffer must leave the world exactly as the same calls made directly would.
TEST(CommandBuffer, EquivalentToDirectCalls) {
  World direct, buffered;
  register_all(direct);
  register_all(buffered);
  std::vector<Entity> de, be;
  for (int i = 0; i < 50; ++i) {
    de.push_back(direct.create());
    be.push_back(buffered.create());
  }
  for (int i = 0; i < 50; i += 3) {
    ASSERT_TRUE(direct.destroy(de[i]).ok());
    ASSERT_TRUE(buffered.destroy(be[i]).ok());
  }
  CommandBuffer& cb = buffered.commands();
  for (int i = 1; i < 50; i += 3) {
    ASSERT_TRUE(direct.addComponent(de[i], Vel{i, i}).ok());
    ASSERT_TRUE(cb.addComponent(be[i], Vel{i, i}).ok());
  }
  for (int i = 1; i < 50; i += 6) {
    ASSERT_TRUE(direct.destroy(de[i]).ok());
    ASSERT_TRUE(cb.destroy(be[i]).ok());
  }
  for (int k = 0; k < 5; ++k) {
    const Entity d = direct.create();
    const Entity p = cb.create();
    ASSERT_TRUE(direct.addComponent(d, Health{k, k}).ok());
    ASSERT_TRUE(cb.addComponent(p, Health{k, k}).ok());
  }
  for (int i = 2; i < 50; i += 3) {
    ASSERT_TRUE(direct.addComponent(de[i], Pos{i, -i}).ok());
    ASSERT_TRUE(cb.addComponent(be[i], Pos{i, -i}).ok());
    ASSERT_TRUE(direct.addComponent(de[i], Vel{0, i}).ok());
    ASSERT_TRUE(cb.addComponent(be[i], Vel{0, i}).ok());
  }
  ASSERT_TRUE(buffered.flush().ok());
  EXPECT_EQ(dump(direct), dump(buffered));
  EXPECT_TRUE(buffered.checkInvariants().ok());
}

TEST(CommandBuffer, InvalidHandlesSkipTheirCommandOnly) {
  World w;
  register_all(w);
  const Entity a = w.create();
  const Entity gone = w.create();
  ASSERT_TRUE(w.destroy(gone).ok());
  CommandBuffer& cb = w.commands();
  ASSERT_TRUE(cb.addComponent(gone, Pos{1, 1}).ok());
  ASSERT_TRUE(cb.addComponent(a, Pos{2, 2}).ok());
  ASSERT_TRUE(cb.removeComponent<Vel>(a).ok());
  const Status s = w.flush();
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);  // the first failure is reported
  EXPECT_EQ(w.get<Pos>(a)->x, 2);
  EXPECT_TRUE(w.alive(a));
}

TEST(CommandBuffer, RecordingOverflowIsACapacityError) {
  WorldConfig c;
  c.command_capacity = 3;
  c.command_bytes = 20;
  World w(c);
  register_all(w);
  const Entity e = w.create();
  CommandBuffer& cb = w.commands();
  ASSERT_TRUE(cb.addComponent(e, Pos{1, 1}).ok());
  EXPECT_EQ(cb.addComponent(e, Vel{1, 1}).code(), ErrorCode::CapacityExceeded);  // 32 > 20 bytes
  ASSERT_TRUE(cb.destroy(e).ok());
  EXPECT_FALSE(cb.create().is_null());
  EXPECT_TRUE(cb.create().is_null());
  EXPECT_EQ(cb.size(), 3u);
}

TEST(CommandBuffer, FlushOverCapacityAppliesNothingAndKeepsTheBuffer) {
  WorldConfig c;
  c.max_entities = 5;
  World w(c);
  register_all(w);
  const Entity e = w.create();
  const auto before = dump(w);
  CommandBuffer& cb = w.commands();
  ASSERT_TRUE(cb.addComponent(e, Pos{1, 1}).ok());
  for (int i = 0; i < 5; ++i) (void)cb.create();  // 6 live > 5
  EXPECT_EQ(w.flush().code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(dump(w), before);
  EXPECT_EQ(cb.size(), 6u);
}

TEST(CommandBuffer, CreateDestroyWithinOneFlushRecyclesTheSlot) {
  World direct, buffered;
  register_all(direct);
  register_all(buffered);
  const Entity d0 = direct.create();
  const Entity b0 = buffered.create();
  CommandBuffer& cb = buffered.commands();
  const Entity p = cb.create();
  ASSERT_TRUE(cb.addComponent(p, Pos{1, 1}).ok());
  ASSERT_TRUE(cb.destroy(p).ok());
  ASSERT_TRUE(cb.destroy(b0).ok());
  const Entity q = cb.create();
  ASSERT_TRUE(cb.addComponent(q, Vel{2, 2}).ok());
  const Entity d1 = direct.create();
  ASSERT_TRUE(direct.addComponent(d1, Pos{1, 1}).ok());
  ASSERT_TRUE(direct.destroy(d1).ok());
  ASSERT_TRUE(direct.destroy(d0).ok());
  const Entity d2 = direct.create();
  ASSERT_TRUE(direct.addComponent(d2, Vel{2, 2}).ok());
  ASSERT_TRUE(buffered.flush().ok());
  EXPECT_EQ(dump(direct), dump(buffered));
}

TEST(CommandBuffer, BatchFlushKeepsRowsSorted) {
  World w;
  register_all(w);
  std::vector<Entity> es;
  for (int i = 0; i < 1000; ++i) {
    es.push_back(w.create());
    ASSERT_TRUE(w.addComponent(es.back(), Pos{i, i}).ok());
  }
  CommandBuffer& cb = w.commands();
  for (int i = 999; i >= 0; i -= 7) ASSERT_TRUE(cb.addComponent(es[i], Vel{i, 0}).ok());
  for (int i = 3; i < 1000; i += 11) ASSERT_TRUE(cb.destroy(es[i]).ok());
  const Status s = w.flush();
  EXPECT_TRUE(s.ok() || s.code() == ErrorCode::InvalidArgument);
  EXPECT_TRUE(w.checkInvariants().ok());
  for (int i = 999; i >= 0; i -= 7) {
    if (!w.alive(es[i])) continue;
    ASSERT_NE(w.get<Vel>(es[i]), nullptr);
    EXPECT_EQ(w.get<Vel>(es[i])->x, i);
    EXPECT_EQ(w.get<Pos>(es[i])->x, i);
  }
}

// The flush visits its entities in slot order whatever the recording order: by a scan of the
// slot table when most slots in the range are touched, by a radix sort when few are. Either
// way the last recorded value of a component wins, for entities that arrive in another
// archetype (one add, several adds) and for those that stay (an in-place overwrite).
TEST(CommandBuffer, ScrambledRecordingDenseOrSparseEqualsDirectCallsAndLastValueWins) {
  for (const int stride : {1, 37}) {  // every entity (dense: scan) or one in 37 (sparse: sort)
    World direct, buffered;
    register_all(direct);
    register_all(buffered);
    constexpr int kEntities = 600;
    std::vector<Entity> de, be;
    for (int i = 0; i < kEntities; ++i) {
      de.push_back(direct.create());
      be.push_back(buffered.create());
      ASSERT_TRUE(direct.addComponent(de.back(), Pos{i, i}).ok());
      ASSERT_TRUE(buffered.addComponent(be.back(), Pos{i, i}).ok());
    }
    CommandBuffer& cb = buffered.commands();
    for (int k = 0; k < kEntities; k += stride) {
      const int i = (k * 241 + 17) % kEntities;  // 241 is prime to 600: a permutation
      switch (i % 3) {
        case 0:  // arrives with Vel, recorded twice: the second value wins
          ASSERT_TRUE(direct.addComponent(de[i], Vel{1, i}).ok());
          ASSERT_TRUE(direct.addComponent(de[i], Vel{2, i}).ok());
          ASSERT_TRUE(cb.addComponent(be[i], Vel{1, i}).ok());
          ASSERT_TRUE(cb.addComponent(be[i], Vel{2, i}).ok());
          break;
        case 1:  // arrives with Health, one add
          ASSERT_TRUE(direct.addComponent(de[i], Health{i, -i}).ok());
          ASSERT_TRUE(cb.addComponent(be[i], Health{i, -i}).ok());
          break;
        default:  // stays: Pos overwritten in place
          ASSERT_TRUE(direct.addComponent(de[i], Pos{-i, 3}).ok());
          ASSERT_TRUE(cb.addComponent(be[i], Pos{-i, 3}).ok());
          break;
      }
    }
    ASSERT_TRUE(buffered.flush().ok());
    EXPECT_EQ(dump(direct), dump(buffered)) << "stride " << stride;
    EXPECT_TRUE(buffered.checkInvariants().ok());
    const int i0 = 17 % kEntities, i1 = (241 + 17) % kEntities, i2 = (2 * 241 + 17) % kEntities;  // k = 0, 1, 2
    ASSERT_EQ(i0 % 3, 2);
    EXPECT_EQ(buffered.get<Pos>(be[i0])->x, -i0);
    if (stride == 1) {
      ASSERT_EQ(i1 % 3, 0);
      ASSERT_EQ(i2 % 3, 1);
      EXPECT_EQ(buffered.get<Vel>(be[i1])->x, 2);
      EXPECT_EQ(buffered.get<Vel>(be[i1])->y, i1);
      EXPECT_EQ(buffered.get<Health>(be[i2])->hp, i2);
      EXPECT_EQ(buffered.get<Health>(be[i2])->max, -i2);
    }
  }
}
