// DynamicQuery / QueryBuilder (docs/kernel.md, "Queries II"): queries from ids and names, the
// same visit order and guard as typed queries, and clear errors for bad queries.
#include "support/kernel_types.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/query/dynamic_query.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

struct DynWorld : ::testing::Test {
  World w;
  CapturingSink sink;
  Entity p, pv, v, ph, pv2;

  void SetUp() override {
    register_all(w);  // Pos 0, Vel 1, Health 2, Flag 3, Link 4
    w.setGuardPolicy(GuardPolicy::Reject);
    w.setEventSink(&sink);
    p = w.create();
    pv = w.create();
    v = w.create();
    ph = w.create();
    pv2 = w.create();
    ASSERT_TRUE(w.addComponent(p, Pos{1, 0}).ok());
    ASSERT_TRUE(w.addComponent(pv, Pos{2, 0}).ok());
    ASSERT_TRUE(w.addComponent(pv, Vel{20, 0}).ok());
    ASSERT_TRUE(w.addComponent(v, Vel{30, 0}).ok());
    ASSERT_TRUE(w.addComponent(ph, Pos{4, 0}).ok());
    ASSERT_TRUE(w.addComponent(ph, Health{40, 40}).ok());
    ASSERT_TRUE(w.addComponent(pv2, Pos{5, 0}).ok());
    ASSERT_TRUE(w.addComponent(pv2, Vel{50, 0}).ok());
  }
  void TearDown() override { w.setEventSink(nullptr); }
};

}  // namespace

TEST_F(DynWorld, NamesResolveAndRowsHandOutColumnPointersWithDescriptors) {
  DynamicQuery q;
  ASSERT_TRUE(QueryBuilder(w).write("Pos").read("Vel").build(q).ok());
  ASSERT_EQ(q.fetchCount(), 2u);
  EXPECT_EQ(q.componentId(0), 0u);
  EXPECT_EQ(q.access(0), Access::Write);
  std::vector<std::uint32_t> slots;
  ASSERT_TRUE(q.each(w, [&](const DynamicRow& row) {
                 slots.push_back(row.entity().slot);
                 EXPECT_STREQ(row.descriptor(0).name, "Pos");
                 EXPECT_STREQ(row.descriptor(1).name, "Vel");
                 EXPECT_EQ(row.write(1), nullptr);  // Read term: not writable
                 Pos pos;
                 Vel vel;
                 std::memcpy(&pos, row.read(0), sizeof pos);
                 std::memcpy(&vel, row.read(1), sizeof vel);
                 pos.x += vel.x;
                 std::memcpy(row.write(0), &pos, sizeof pos);
               }).ok());
  EXPECT_EQ(slots, (std::vector<std::uint32_t>{1, 4}));
  EXPECT_EQ(w.get<Pos>(pv)->x, 22);
  EXPECT_EQ(w.get<Pos>(pv2)->x, 55);
}

TEST_F(DynWorld, SameOrderAsTheTypedQuery) {
  DynamicQuery q;
  ASSERT_TRUE(QueryBuilder(w).read(0u).optRead(2u).without(3u).any({1u, 2u}).build(q).ok());
  CachedQuery<term::read<Pos>, term::opt_read<Health>, term::none<Flag>, term::any<Vel, Health>> typed;
  std::vector<std::uint32_t> dyn, tq;
  std::vector<bool> dyn_has;
  ASSERT_TRUE(q.each(w, [&](const DynamicRow& row) {
                 dyn.push_back(row.entity().slot);
                 dyn_has.push_back(row.read(1) != nullptr);
               }).ok());
  ASSERT_TRUE(typed.each(w, [&](Entity e, const Pos&, const Health*) { tq.push_back(e.slot); }).ok());
  EXPECT_EQ(dyn, tq);
  EXPECT_EQ(dyn, (std::vector<std::uint32_t>{1, 4, 3}));
  EXPECT_EQ(dyn_has, (std::vector<bool>{false, false, true}));
}

TEST_F(DynWorld, OrGroups) {
  DynamicQuery q;
  // Pos ∧ ((Vel ∧ ¬Health) ∨ Health)
  ASSERT_TRUE(QueryBuilder(w).read("Pos").beginOr().with("Vel").without("Health").orElse().with("Health").endOr().build(q).ok());
  std::vector<std::uint32_t> slots;
  ASSERT_TRUE(q.each(w, [&](const DynamicRow& row) { slots.push_back(row.entity().slot); }).ok());
  EXPECT_EQ(slots, (std::vector<std::uint32_t>{1, 4, 3}));
}

TEST_F(DynWorld, UnknownNameIsAClearError) {
  DynamicQuery q;
  QueryBuilder b(w);
  b.read("Pos").read("Velocity").write("Health");
  const Status s = b.build(q);
  EXPECT_EQ(s.code(), ErrorCode::NotRegistered);
  EXPECT_STREQ(b.unknownName(), "Velocity");
  EXPECT_FALSE(q.built());
  EXPECT_EQ(q.each(w, [](const DynamicRow&) {}).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(QueryBuilder(w).read(17u).build(q).code(), ErrorCode::NotRegistered);
}

TEST_F(DynWorld, ConflictingReadWriteIsRejected) {
  DynamicQuery q;
  const Status s = QueryBuilder(w).read("Pos").write("Pos").build(q);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::strstr(s.message(), "conflicting Read/Write"), nullptr);
}

TEST_F(DynWorld, TooManyOrBranchesIsRejected) {
  DynamicQuery q;
  // any of 4 × any of 4 = 16 branches: accepted; a third 2-way group makes 32: rejected.
  ASSERT_TRUE(QueryBuilder(w).read(0u).any({1u, 2u, 3u, 4u}).any({1u, 2u, 3u, 4u}).build(q).ok());
  const Status s = QueryBuilder(w).read(0u).any({1u, 2u, 3u, 4u}).any({1u, 2u, 3u, 4u}).any({1u, 2u}).build(q);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::strstr(s.message(), "16"), nullptr);
}

TEST_F(DynWorld, MisplacedTermsAndUnclosedGroups) {
  DynamicQuery q;
  EXPECT_EQ(QueryBuilder(w).beginOr().read("Pos").endOr().build(q).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(QueryBuilder(w).beginOr().with("Pos").build(q).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(QueryBuilder(w).orElse().build(q).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(QueryBuilder(w).endOr().build(q).code(), ErrorCode::InvalidArgument);
}

TEST_F(DynWorld, GuardIsTheSameAsForTypedQueries) {
  DynamicQuery q;
  ASSERT_TRUE(QueryBuilder(w).read("Pos").optWrite("Vel").build(q).ok());
  Status read_write = Status::Ok(), opt_write = Status::Ok(), destroy = Status::Ok(), destroy_outside = Status::Ok();
  ASSERT_TRUE(q.each(w, [&](const DynamicRow& row) {
                 if (row.entity().slot != 0) return;
                 read_write = w.addComponent(pv, Pos{9, 9});   // Read: rejected
                 opt_write = w.addComponent(pv, Vel{9, 9});    // Write: legal in place
                 destroy = w.destroy(ph);                      // matched archetype: rejected
                 destroy_outside = w.destroy(v);               // {Vel} unmatched: legal
               }).ok());
  EXPECT_EQ(read_write.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(opt_write.ok());
  EXPECT_EQ(destroy.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(destroy_outside.ok());
  EXPECT_EQ(w.get<Pos>(pv)->x, 2);
  EXPECT_EQ(w.get<Vel>(pv)->x, 9);
  EXPECT_TRUE(w.alive(ph));
  EXPECT_FALSE(w.alive(v));
}

TEST_F(DynWorld, ConstWorldRejectsWriteTerms) {
  const World& cw = w;
  DynamicQuery rw, ro;
  ASSERT_TRUE(QueryBuilder(w).write("Pos").build(rw).ok());
  ASSERT_TRUE(QueryBuilder(w).read("Pos").build(ro).ok());
  EXPECT_EQ(rw.each(cw, [](const DynamicRow&) {}).code(), ErrorCode::InvalidArgument);
  std::uint32_t n = 0;
  EXPECT_TRUE(ro.each(cw, [&](const DynamicRow&) { ++n; }).ok());
  EXPECT_EQ(n, 4u);
}

TEST_F(DynWorld, IncrementalAndRebuiltAfterLoad) {
  DynamicQuery q;
  ASSERT_TRUE(QueryBuilder(w).read("Flag").build(q).ok());
  Snapshot snap(w);
  w.save(snap);
  ASSERT_TRUE(q.refresh(w).ok());
  const std::uint64_t before = q.archetypeTests();
  ASSERT_TRUE(w.addComponent(p, Flag{true}).ok());
  ASSERT_TRUE(q.refresh(w).ok());
  EXPECT_EQ(q.archetypeTests(), before + 1);
  EXPECT_EQ(q.matchedArchetypeCount(), 1u);
  ASSERT_TRUE(w.load(snap).ok());
  std::uint32_t n = 0;
  ASSERT_TRUE(q.each(w, [&](const DynamicRow&) { ++n; }).ok());
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(q.matchedArchetypeCount(), 0u);
}

TEST_F(DynWorld, UsingAQueryOnAWorldWithOtherIdsIsAMismatch) {
  DynamicQuery q;
  ASSERT_TRUE(QueryBuilder(w).read("Health").build(q).ok());  // id 2 here
  World other;
  (void)other.registerComponent<Pos>();
  (void)other.registerComponent<Vel>();
  (void)other.registerComponent<Flag>();  // id 2 is Flag there
  (void)other.registerComponent<Health>();
  EXPECT_EQ(q.each(other, [](const DynamicRow&) {}).code(), ErrorCode::Mismatch);
  std::uint32_t n = 0;
  EXPECT_TRUE(q.each(w, [&](const DynamicRow&) { ++n; }).ok());  // back on its own world
  EXPECT_EQ(n, 1u);
}

// ---- eachChunk: runs of rows with column bases -------------------------------------------

TEST_F(DynWorld, EachChunkHandsOutOneRunPerArchetypeWithColumnBases) {
  DynamicQuery q;
  ASSERT_TRUE(QueryBuilder(w).write("Pos").read("Vel").build(q).ok());
  std::uint32_t chunks = 0;
  ASSERT_TRUE(q.eachChunk(w, [&](const DynamicChunk& c) {
                 ++chunks;
                 ASSERT_EQ(c.size(), 2u);
                 EXPECT_EQ(c.entity(0), pv);
                 EXPECT_EQ(c.entity(1), pv2);
                 EXPECT_EQ(c.fetchCount(), 2u);
                 EXPECT_EQ(c.stride(0), sizeof(Pos));
                 EXPECT_EQ(c.componentId(1), 1u);
                 EXPECT_STREQ(c.descriptor(0).name, "Pos");
                 EXPECT_EQ(c.write(1), nullptr);  // Read term: not writable
                 Pos* pos = c.write<Pos>(0);
                 const Vel* vel = c.read<Vel>(1);
                 ASSERT_NE(pos, nullptr);
                 EXPECT_EQ(pos[0].x, 2);
                 EXPECT_EQ(pos[1].x, 5);
                 for (std::uint32_t i = 0; i < c.size(); ++i) pos[i].x += vel[i].x;
               }).ok());
  EXPECT_EQ(chunks, 1u);
  EXPECT_EQ(w.get<Pos>(pv)->x, 22);
  EXPECT_EQ(w.get<Pos>(pv2)->x, 55);
  EXPECT_EQ(w.get<Pos>(p)->x, 1);  // not matched
}

TEST_F(DynWorld, EachChunkSplitsRunsWhereAnOptionalFetchIsDisabledAndSkipsDisabledRequiredRows) {
  ASSERT_TRUE(w.setEnabled<Vel>(pv, false).ok());
  DynamicQuery opt;
  ASSERT_TRUE(QueryBuilder(w).read("Pos").optRead("Vel").build(opt).ok());
  std::vector<std::tuple<std::uint32_t, std::uint32_t, bool>> runs;  // first slot, size, Vel present
  ASSERT_TRUE(opt.eachChunk(w, [&](const DynamicChunk& c) {
                   runs.emplace_back(c.entity(0).slot, c.size(), c.read(1) != nullptr);
                 }).ok());
  // Archetype {Pos}: p; {Pos,Vel}: pv (Vel off), pv2; {Pos,Health}: ph — in archetype id order.
  const std::vector<std::tuple<std::uint32_t, std::uint32_t, bool>> expected = {
      {p.slot, 1u, false}, {pv.slot, 1u, false}, {pv2.slot, 1u, true}, {ph.slot, 1u, false}};
  EXPECT_EQ(runs, expected);

  DynamicQuery req;
  ASSERT_TRUE(QueryBuilder(w).read("Pos").read("Vel").build(req).ok());
  std::vector<Entity> seen;
  ASSERT_TRUE(req.eachChunk(w, [&](const DynamicChunk& c) {
                   for (std::uint32_t i = 0; i < c.size(); ++i) seen.push_back(c.entity(i));
                 }).ok());
  EXPECT_EQ(seen, std::vector<Entity>{pv2});
}

TEST(DynamicQueryChunks, ChangedRunsHoldOnlyChangedRowsAndWriteTermsStampEveryRowOfARun) {
  World w(one_tracked_component());
  const std::vector<Entity> es = tracked_pos_entities(w, 10, false);
  ASSERT_EQ(es.size(), 10u);
  w.setTick(5);
  for (std::size_t i : {3u, 4u, 8u}) w.getMutable<Pos>(es[i])->y = 1;
  DynamicQuery changed;
  ASSERT_TRUE(QueryBuilder(w).read("Pos").changed("Pos").build(changed).ok());
  changed.since(5);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;  // first slot, size
  ASSERT_TRUE(changed.eachChunk(w, [&](const DynamicChunk& ch) { runs.emplace_back(ch.entity(0).slot, ch.size()); }).ok());
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> expected = {{es[3].slot, 2u}, {es[8].slot, 1u}};
  EXPECT_EQ(runs, expected);

  w.setTick(9);
  DynamicQuery writer;
  ASSERT_TRUE(QueryBuilder(w).write("Pos").build(writer).ok());
  ASSERT_TRUE(writer.eachChunk(w, [](const DynamicChunk&) {}).ok());
  for (const Entity e : es) {
    std::uint64_t added = 0, last = 0;
    ASSERT_TRUE(w.changeTicks<Pos>(e, added, last));
    EXPECT_EQ(added, 0u);
    EXPECT_EQ(last, 9u);
  }
}

TEST_F(DynWorld, EachChunkRefusesAnUnbuiltQueryWritesOnAConstWorldAndNesting) {
  DynamicQuery unbuilt;
  const Status s = unbuilt.eachChunk(w, [](const DynamicChunk&) {});
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_STREQ(s.message(), "DynamicQuery::eachChunk: the query was not built");

  DynamicQuery writes;
  ASSERT_TRUE(QueryBuilder(w).write("Pos").build(writes).ok());
  const World& cw = w;
  const Status sc = writes.eachChunk(cw, [](const DynamicChunk&) {});
  EXPECT_EQ(sc.code(), ErrorCode::InvalidArgument);
  EXPECT_STREQ(sc.message(), "DynamicQuery::eachChunk on a const World: the query has Write terms");

  DynamicQuery reads;
  ASSERT_TRUE(QueryBuilder(w).read("Vel").build(reads).ok());
  Status inner;
  ASSERT_TRUE(writes.eachChunk(w, [&](const DynamicChunk&) { inner = reads.eachChunk(w, [](const DynamicChunk&) {}); }).ok());
  EXPECT_EQ(inner.code(), ErrorCode::InvalidArgument);
}
