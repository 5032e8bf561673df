// World::each: matching, references, visit order and the iteration-legality table
// (docs/kernel.md). Every row of the table is tested on both sides: rejected (or allowed)
// during iteration, and allowed again after each() returns.
#include "support/kernel_types.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

struct QueryWorld : ::testing::Test {
  World w;
  CapturingSink sink;
  Entity pv1, pv2, p1, v1, bare;

  void SetUp() override {
    register_all(w);
    w.setGuardPolicy(GuardPolicy::Reject);
    w.setEventSink(&sink);
    p1 = w.create();
    pv1 = w.create();
    v1 = w.create();
    pv2 = w.create();
    bare = w.create();
    ASSERT_TRUE(w.addComponent(p1, Pos{1, 0}).ok());     // archetype 1: {Pos}
    ASSERT_TRUE(w.addComponent(pv1, Pos{2, 0}).ok());
    ASSERT_TRUE(w.addComponent(pv1, Vel{20, 0}).ok());   // archetype 2: {Pos, Vel}
    ASSERT_TRUE(w.addComponent(v1, Vel{30, 0}).ok());    // archetype 3: {Vel}
    ASSERT_TRUE(w.addComponent(pv2, Pos{4, 0}).ok());
    ASSERT_TRUE(w.addComponent(pv2, Vel{40, 0}).ok());
  }
  void TearDown() override { w.setEventSink(nullptr); }

  // Runs fn inside a Read<Pos>/Write<Vel> iteration over {Pos, Vel} once (first row).
  template <class Fn>
  Status inside_pos_vel(Fn fn) {
    Status result = Status::Ok();
    bool first = true;
    const Status it = w.each<Pos, Vel>(
        [&](Entity, const Pos&, Vel&) {
          if (first) result = fn();
          first = false;
        },
        Read{}, Write{});
    EXPECT_TRUE(it.ok());
    return result;
  }
};

}  // namespace

TEST_F(QueryWorld, SupersetMatchInArchetypeThenSlotOrder) {
  std::vector<std::uint32_t> seen;
  ASSERT_TRUE(w.each<Pos>([&](Entity e, const Pos&) { seen.push_back(e.slot); }, Read{}).ok());
  // Archetype 1 {Pos}: p1 (slot 0); archetype 2 {Pos,Vel}: pv1 (1), pv2 (3).
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{0, 1, 3}));
  seen.clear();
  ASSERT_TRUE(w.each<Vel>([&](Entity e, const Vel&) { seen.push_back(e.slot); }, Read{}).ok());
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{1, 3, 2}));  // archetype 2 before archetype 3
}

TEST_F(QueryWorld, ReferencesHandOutLiveHandlesAndWritableColumns) {
  ASSERT_TRUE((w.each<Pos, Vel>(
                   [&](Entity e, const Pos& p, Vel& v) {
                     EXPECT_TRUE(w.alive(e));
                     v.y = p.x * 100;
                   },
                   Read{}, Write{})
                  .ok()));
  EXPECT_EQ(w.get<Vel>(pv1)->y, 200);
  EXPECT_EQ(w.get<Vel>(pv2)->y, 400);
  EXPECT_EQ(w.get<Vel>(v1)->y, 0);
  static_assert(std::is_same_v<detail::QueryRef<Pos, Read>, const Pos&>);
  static_assert(std::is_same_v<detail::QueryRef<Pos, Write>, Pos&>);
}

// A small trivially copyable Read component reaches fn as a reference to a copy made for the
// call (its loads come before fn's stores: clang vectorizes `pos += vel` on fixed, issue 37
// item 4); the values are the column's and `auto&` still binds. A Write component is the
// column itself, and so is a Read component over 32 bytes.
struct WideRead {
  std::int64_t v[5];
};
LOCKSTEP_COMPONENT(WideRead, v);

TEST_F(QueryWorld, ASmallReadComponentIsACopyOfTheColumnAndAWriteOneIsTheColumn) {
  static_assert(std::is_same_v<decltype(detail::RowArg<Pos, Read>(nullptr).get()), const Pos&>);
  static_assert(std::is_same_v<decltype(detail::RowArg<Pos, Write>(nullptr).get()), Pos&>);
  const Pos* column_pos = w.get<Pos>(pv1);
  const Vel* column_vel = w.get<Vel>(pv1);
  int rows = 0;
  ASSERT_TRUE((w.each<Pos, Vel>(
                   [&](Entity e, const auto& p, auto& v) {
                     if (e.slot != pv1.slot) return;
                     ++rows;
                     EXPECT_EQ(p.x, 2);
                     EXPECT_NE(&p, column_pos) << "a Read Pos is the call's copy";
                     EXPECT_EQ(&v, column_vel) << "a Write Vel is the column";
                     v.x = 7;
                   },
                   Read{}, Write{})
                  .ok()));
  EXPECT_EQ(rows, 1);
  EXPECT_EQ(w.get<Vel>(pv1)->x, 7);
  ASSERT_TRUE(w.registerComponent<WideRead>().ok());
  ASSERT_TRUE(w.addComponent(bare, WideRead{{1, 2, 3, 4, 5}}).ok());
  const WideRead* column_wide = w.get<WideRead>(bare);
  ASSERT_TRUE(w.each<WideRead>([&](Entity, const WideRead& r) {
                 EXPECT_EQ(&r, column_wide) << "a Read component over 32 bytes is the column";
                 EXPECT_EQ(r.v[4], 5);
               }, Read{}).ok());
}

TEST_F(QueryWorld, EmptyQueryVisitsEveryLiveEntityInSlotOrder) {
  ASSERT_TRUE(w.destroy(v1).ok());
  std::vector<std::uint32_t> seen;
  ASSERT_TRUE(w.each<>([&](Entity e) { seen.push_back(e.slot); }).ok());
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{0, 1, 3, 4}));
}

TEST_F(QueryWorld, UnregisteredTypeMatchesNothingAndCreatesNothing) {
  struct Unused {
    std::int32_t v;
  };
  const std::uint32_t archetypes = w.archetypeCount();
  int calls = 0;
  EXPECT_TRUE((w.each<Pos, Counter>([&](Entity, const Pos&, const Counter&) { ++calls; }, Read{}, Read{}).ok()));
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(w.archetypeCount(), archetypes);
}

// ---- legality table ------------------------------------------------------------------------

TEST_F(QueryWorld, InPlaceWriteOfWriteDeclaredComponentIsLegal) {
  EXPECT_TRUE(inside_pos_vel([&] { return w.addComponent(pv2, Vel{7, 7}); }).ok());
  EXPECT_EQ(w.get<Vel>(pv2)->x, 7);
  EXPECT_TRUE(sink.events.empty());
}

TEST_F(QueryWorld, InPlaceWriteOfUnlistedComponentIsLegal) {
  ASSERT_TRUE(w.addComponent(pv2, Health{1, 1}).ok());  // pv2 moves to {Pos,Vel,Health}
  EXPECT_TRUE(inside_pos_vel([&] { return w.addComponent(pv2, Health{5, 5}); }).ok());
  EXPECT_EQ(w.get<Health>(pv2)->hp, 5);
}

TEST_F(QueryWorld, InPlaceWriteOfReadDeclaredComponentIsRejectedThenLegalAfter) {
  const Status s = inside_pos_vel([&] { return w.addComponent(pv2, Pos{9, 9}); });
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(w.get<Pos>(pv2)->x, 4);  // skipped
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].id, EventId::IterationWriteDuringRead);
  EXPECT_EQ(sink.events[0].entity, pv2);
  EXPECT_EQ(sink.events[0].component_id, w.componentId<Pos>());
  EXPECT_TRUE(w.addComponent(pv2, Pos{9, 9}).ok());
  EXPECT_EQ(w.get<Pos>(pv2)->x, 9);
}

TEST_F(QueryWorld, StructuralMoveOutOfMatchedArchetypeIsRejectedThenLegalAfter) {
  const Status s = inside_pos_vel([&] { return w.addComponent(pv1, Health{1, 1}); });
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_FALSE(w.has<Health>(pv1));
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].id, EventId::IterationMutation);
  EXPECT_EQ(sink.events[0].source_archetype, 2);
  EXPECT_TRUE(w.addComponent(pv1, Health{1, 1}).ok());
  EXPECT_TRUE(w.removeComponent<Vel>(pv2).ok());
}

TEST_F(QueryWorld, StructuralRemoveFromMatchedArchetypeIsRejected) {
  EXPECT_EQ(inside_pos_vel([&] { return w.removeComponent<Vel>(pv1); }).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(w.has<Vel>(pv1));
}

TEST_F(QueryWorld, StructuralMoveIntoMatchedArchetypeIsRejectedThenLegalAfter) {
  // v1 {Vel} -> {Pos, Vel}: target archetype is matched.
  EXPECT_EQ(inside_pos_vel([&] { return w.addComponent(v1, Pos{1, 1}); }).code(), ErrorCode::InvalidArgument);
  EXPECT_FALSE(w.has<Pos>(v1));
  EXPECT_EQ(sink.events.back().target_archetype, 2);
  EXPECT_TRUE(w.addComponent(v1, Pos{1, 1}).ok());
}

TEST_F(QueryWorld, StructuralMoveBetweenUnmatchedArchetypesIsLegal) {
  // p1 {Pos} -> {Pos, Health}, neither matched by each<Pos, Vel>.
  EXPECT_TRUE(inside_pos_vel([&] { return w.addComponent(p1, Health{3, 3}); }).ok());
  EXPECT_TRUE(w.has<Health>(p1));
  EXPECT_TRUE(inside_pos_vel([&] { return w.removeComponent<Health>(p1); }).ok());
  EXPECT_TRUE(sink.events.empty());
}

TEST_F(QueryWorld, DestroyInsideMatchedArchetypeIsRejectedOutsideLegal) {
  EXPECT_EQ(inside_pos_vel([&] { return w.destroy(pv2); }).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(w.alive(pv2));
  EXPECT_TRUE(inside_pos_vel([&] { return w.destroy(v1); }).ok());
  EXPECT_FALSE(w.alive(v1));
  EXPECT_TRUE(inside_pos_vel([&] { return w.destroy(bare); }).ok());
  EXPECT_TRUE(w.destroy(pv2).ok());
}

TEST_F(QueryWorld, ClearIsRejectedWhileMatchedRowsExistThenLegalAfter) {
  EXPECT_EQ(inside_pos_vel([&] { return w.clear(); }).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(w.entityCount(), 5u);
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].id, EventId::IterationClear);
  EXPECT_EQ(sink.events[0].rows, 2u);
  EXPECT_TRUE(w.clear().ok());
  EXPECT_EQ(w.entityCount(), 0u);
}

TEST_F(QueryWorld, ClearIsLegalWhenMatchedArchetypesAreEmpty) {
  // each<Health> matches no archetype with rows (no entity has Health).
  Status inner = Status::Ok();
  ASSERT_TRUE(w.registerComponent<Counter>().ok());
  const Entity h = w.create();
  ASSERT_TRUE(w.addComponent(h, Counter{1}).ok());
  ASSERT_TRUE(w.each<Counter>([&](Entity, const Counter&) { inner = w.clear(); }, Read{}).ok());
  EXPECT_EQ(inner.code(), ErrorCode::InvalidArgument);  // the visited row is in a matched archetype
  ASSERT_TRUE(w.removeComponent<Counter>(h).ok());
  int calls = 0;
  ASSERT_TRUE(w.each<>([&](Entity) {
                 if (calls++ == 0) inner = w.clear();
               })
                  .ok());
  EXPECT_TRUE(inner.ok());  // the empty query matches no archetype
}

TEST_F(QueryWorld, CreateIsAlwaysLegal) {
  EXPECT_TRUE(inside_pos_vel([&] {
                Entity e;
                return w.tryCreate(e);
              }).ok());
  EXPECT_EQ(w.entityCount(), 6u);
}

TEST_F(QueryWorld, NestedEachIsRejectedThenLegalAfter) {
  Status nested = Status::Ok();
  int inner_calls = 0;
  ASSERT_TRUE(w.each<Pos>(
                   [&](Entity, const Pos&) {
                     nested = w.each<Vel>([&](Entity, const Vel&) { ++inner_calls; }, Read{});
                   },
                   Read{})
                  .ok());
  EXPECT_EQ(nested.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(inner_calls, 0);
  EXPECT_EQ(sink.events.front().id, EventId::IterationNested);
  EXPECT_TRUE(w.each<Vel>([&](Entity, const Vel&) { ++inner_calls; }, Read{}).ok());
  EXPECT_EQ(inner_calls, 3);
}

TEST_F(QueryWorld, FlushInsideEachIsRejected) {
  w.commands().destroy(v1).ok();
  Status inner = Status::Ok();
  ASSERT_TRUE(w.each<Pos>([&](Entity, const Pos&) { inner = w.flush(); }, Read{}).ok());
  EXPECT_EQ(inner.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(w.alive(v1));
  EXPECT_TRUE(w.flush().ok());
  EXPECT_FALSE(w.alive(v1));
}

TEST_F(QueryWorld, RejectedMutationIsSkippedAndIterationContinues) {
  int visits = 0;
  ASSERT_TRUE((w.each<Pos, Vel>(
                   [&](Entity e, const Pos&, Vel&) {
                     ++visits;
                     EXPECT_FALSE(w.destroy(e).ok());
                   },
                   Read{}, Write{})
                  .ok()));
  EXPECT_EQ(visits, 2);
  EXPECT_EQ(w.entityCount(), 5u);
}

TEST_F(QueryWorld, EventsAreRateLimitedWithASummary) {
  for (int i = 0; i < 3; ++i) (void)inside_pos_vel([&] { return w.destroy(pv1); });
  ASSERT_EQ(sink.events.size(), 1u);
  w.flushEventSummary();
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.events[1].id, EventId::RateLimited);
  EXPECT_EQ(sink.events[1].summarised, EventId::IterationMutation);
  EXPECT_EQ(sink.events[1].suppressed, 2u);
}

TEST_F(QueryWorld, LegalStructuralChangeDuringIterationThatCompactsTheArenaIsSafe) {
  // Growing an unmatched archetype many times forces relocations while iterating.
  std::vector<Entity> extra;
  for (int i = 0; i < 200; ++i) extra.push_back(w.create());
  std::size_t next = 0;
  std::int64_t sum = 0;
  ASSERT_TRUE((w.each<Pos, Vel>(
                   [&](Entity, const Pos& p, Vel& v) {
                     for (int k = 0; k < 100 && next < extra.size(); ++k)
                       ASSERT_TRUE(w.addComponent(extra[next++], Health{k, k}).ok());
                     sum += p.x + v.x;
                   },
                   Read{}, Write{})
                  .ok()));
  EXPECT_EQ(sum, 2 + 20 + 4 + 40);
  EXPECT_TRUE(w.checkInvariants().ok());
}

TEST(QueryAbortPolicy, ViolationAbortsWithFileAndLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        World w;
        register_all(w);
        w.setGuardPolicy(GuardPolicy::Abort);
        const Entity e = w.create();
        (void)w.addComponent(e, Pos{1, 1});
        (void)w.each<Pos>([&](Entity x, const Pos&) { (void)w.destroy(x); }, Read{});
      },
      "lockstep assertion failed: iteration_mutation");
}

TEST_F(QueryWorld, GetMutableIsGuardedLikeAnInPlaceWrite) {
  Vel* target = nullptr;
  Pos* read_declared = reinterpret_cast<Pos*>(1);
  ASSERT_TRUE((w.each<Pos, Vel>(
                   [&](Entity, const Pos&, Vel&) {
                     target = w.getMutable<Vel>(v1);          // Write-declared: allowed
                     read_declared = w.getMutable<Pos>(pv2);  // Read-declared: refused
                   },
                   Read{}, Write{})
                   .ok()));
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(read_declared, nullptr);
  EXPECT_EQ(sink.events.back().id, EventId::IterationWriteDuringRead);
  target = w.getMutable<Vel>(v1);
  target->y = 99;
  EXPECT_EQ(w.get<Vel>(v1)->y, 99);
  EXPECT_NE(w.getMutable<Pos>(pv2), nullptr);  // legal again after each returns
  EXPECT_EQ(w.getMutable<Health>(pv2), nullptr);
}

TEST_F(QueryWorld, ConstWorldRunsReadOnlyQueries) {
  const World& cw = w;
  std::vector<std::uint32_t> seen;
  ASSERT_TRUE(cw.each<Pos>([&](Entity e, const Pos&) { seen.push_back(e.slot); }, Read{}).ok());
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{0, 1, 3}));
}
