// CachedQuery and query terms (docs/kernel.md, "Queries II"): all/any/none/optional/OR terms,
// the DNF branch cap, the incremental match cache, rebuild after load, and the unchanged
// iteration-legality guard.
#include "support/kernel_types.h"

#include <lockstep/query/cached_query.h>

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

struct Dead {
  std::uint8_t yes;
};
LOCKSTEP_COMPONENT(Dead, yes);

// Pos (0), Vel (1), Health (2), Flag (3), Link (4), Dead (5).
struct TermsWorld : ::testing::Test {
  World w;
  CapturingSink sink;
  Entity a, b, c, d, h, f;

  void SetUp() override {
    register_all(w);
    ASSERT_TRUE(w.registerComponent<Dead>().ok());
    w.setGuardPolicy(GuardPolicy::Reject);
    w.setEventSink(&sink);
    a = w.create();  // slot 0: {Pos}                  archetype 1
    b = w.create();  // slot 1: {Pos, Vel}             archetype 2
    c = w.create();  // slot 2: {Vel}                  archetype 3
    d = w.create();  // slot 3: {Pos, Vel, Dead}       archetype 4
    h = w.create();  // slot 4: {Pos, Health}          archetype 5
    f = w.create();  // slot 5: {Pos, Vel}             archetype 2
    ASSERT_TRUE(w.addComponent(a, Pos{1, 0}).ok());
    ASSERT_TRUE(w.addComponent(b, Pos{2, 0}).ok());
    ASSERT_TRUE(w.addComponent(b, Vel{20, 0}).ok());
    ASSERT_TRUE(w.addComponent(c, Vel{30, 0}).ok());
    ASSERT_TRUE(w.addComponent(d, Pos{4, 0}).ok());
    ASSERT_TRUE(w.addComponent(d, Vel{40, 0}).ok());
    ASSERT_TRUE(w.addComponent(d, Dead{1}).ok());
    ASSERT_TRUE(w.addComponent(h, Pos{5, 0}).ok());
    ASSERT_TRUE(w.addComponent(h, Health{50, 50}).ok());
    ASSERT_TRUE(w.addComponent(f, Pos{6, 0}).ok());
    ASSERT_TRUE(w.addComponent(f, Vel{60, 0}).ok());
    ASSERT_EQ(w.archetypeCount(), 6u);  // {}, {Pos}, {Pos,Vel}, {Vel}, {Pos,Vel,Dead}, {Pos,Health}
  }
  void TearDown() override { w.setEventSink(nullptr); }
};

template <class Q>
std::vector<std::uint32_t> slots_of(Q& q, World& w) {
  std::vector<std::uint32_t> out;
  const Status s = q.each(w, [&](Entity e, auto&&...) { out.push_back(e.slot); });
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

}  // namespace

TEST_F(TermsWorld, AllOnlyQueryVisitsLikeEachAndWritesThroughWriteTerms) {
  CachedQuery<term::write<Pos>, term::read<Vel>> q;
  std::vector<std::uint32_t> expected;
  const Status each_status =
      w.each<Pos, Vel>([&](Entity e, const Pos&, const Vel&) { expected.push_back(e.slot); }, Read{}, Read{});
  ASSERT_TRUE(each_status.ok());
  std::vector<std::uint32_t> got;
  ASSERT_TRUE(q.each(w, [&](Entity e, Pos& p, const Vel& v) {
                 got.push_back(e.slot);
                 p.x += v.x;
               }).ok());
  EXPECT_EQ(got, expected);
  EXPECT_EQ(got, (std::vector<std::uint32_t>{1, 5, 3}));  // archetype 2 (slots 1, 5), then 4 (slot 3)
  EXPECT_EQ(w.get<Pos>(b)->x, 22);
  EXPECT_EQ(w.get<Pos>(f)->x, 66);
  EXPECT_EQ(w.get<Pos>(d)->x, 44);
  EXPECT_EQ(w.get<Pos>(a)->x, 1);
}

TEST_F(TermsWorld, NoneExcludesArchetypes) {
  CachedQuery<term::read<Pos>, term::none<Dead>> q;
  EXPECT_EQ(slots_of(q, w), (std::vector<std::uint32_t>{0, 1, 5, 4}));
}

TEST_F(TermsWorld, AnyNeedsAtLeastOne) {
  CachedQuery<term::read<Pos>, term::any<Vel, Health>> q;
  EXPECT_EQ(slots_of(q, w), (std::vector<std::uint32_t>{1, 5, 3, 4}));
}

TEST_F(TermsWorld, OptionalHandsOutNullWhenAbsent) {
  CachedQuery<term::read<Pos>, term::opt_write<Vel>> q;
  std::vector<std::pair<std::uint32_t, std::int64_t>> got;
  ASSERT_TRUE(q.each(w, [&](Entity e, const Pos&, Vel* v) {
                 got.emplace_back(e.slot, v == nullptr ? -1 : v->x);
                 if (v != nullptr) v->y = 7;
               }).ok());
  EXPECT_EQ(got, (std::vector<std::pair<std::uint32_t, std::int64_t>>{{0, -1}, {1, 20}, {5, 60}, {3, 40}, {4, -1}}));
  EXPECT_EQ(w.get<Vel>(b)->y, 7);
  EXPECT_EQ(w.get<Vel>(c)->y, 0);  // {Vel} alone is not matched (Pos required)
}

TEST_F(TermsWorld, OrGroupOfConjunctions) {
  // (Vel ∧ ¬Dead) ∨ Health, over entities with Pos.
  CachedQuery<term::read<Pos>, term::or_<term::all_of<term::with<Vel>, term::none<Dead>>, term::with<Health>>> q;
  EXPECT_EQ(slots_of(q, w), (std::vector<std::uint32_t>{1, 5, 4}));
}

struct Ghost {
  std::uint32_t v;
};
LOCKSTEP_COMPONENT(Ghost, v);

TEST_F(TermsWorld, UnregisteredTypes) {
  CachedQuery<term::read<Pos>, term::none<Ghost>> ignore_none;  // excluding the unknown: no effect
  EXPECT_EQ(slots_of(ignore_none, w), (std::vector<std::uint32_t>{0, 1, 5, 3, 4}));
  CachedQuery<term::read<Pos>, term::with<Ghost>> need;  // requiring the unknown: nothing
  EXPECT_TRUE(slots_of(need, w).empty());
  CachedQuery<term::read<Ghost>> fetch;
  EXPECT_TRUE(slots_of(fetch, w).empty());
  CachedQuery<term::read<Vel>, term::opt_read<Ghost>> opt;  // optional unknown: always null
  std::uint32_t nulls = 0;
  ASSERT_TRUE(opt.each(w, [&](Entity, const Vel&, const Ghost* g) { nulls += g == nullptr ? 1 : 0; }).ok());
  EXPECT_EQ(nulls, 4u);
  CachedQuery<term::read<Pos>, term::any<Ghost, Health>> any;  // unknown alternative dropped
  EXPECT_EQ(slots_of(any, w), (std::vector<std::uint32_t>{4}));
  EXPECT_EQ(w.archetypeCount(), 6u);  // queries create nothing
}

TEST_F(TermsWorld, DnfBranchCapIsEnforcedAtRunTime) {
  detail::QueryFilter filter;
  detail::QueryConjunction four[4];
  for (std::uint32_t k = 0; k < 4; ++k) four[k].with.insert(k);
  ASSERT_TRUE(filter.and_disjunction(four, 4).ok());
  ASSERT_TRUE(filter.and_disjunction(four, 4).ok());  // 16 branches (some contradiction-free duplicates)
  EXPECT_EQ(filter.branch_count, 16u);
  detail::QueryConjunction two[2];
  two[0].with.insert(5);
  two[1].with.insert(6);
  const Status s = filter.and_disjunction(two, 2);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(filter.branch_count, 16u);  // unchanged on error
}

TEST_F(TermsWorld, MatchSetGrowsIncrementallyWithoutRescanning) {
  CachedQuery<term::read<Pos>, term::none<Dead>> q;
  ASSERT_TRUE(q.refresh(w).ok());
  EXPECT_EQ(q.archetypeTests(), 6u);
  EXPECT_EQ(q.matchedArchetypeCount(), 3u);  // {Pos}, {Pos,Vel}, {Pos,Health}
  ASSERT_TRUE(q.refresh(w).ok());
  EXPECT_EQ(q.archetypeTests(), 6u);  // nothing new: no archetype tested again
  ASSERT_TRUE(w.addComponent(h, Flag{true}).ok());  // new archetype 6 {Pos, Health, Flag}
  std::vector<std::uint32_t> got = slots_of(q, w);
  EXPECT_EQ(q.archetypeTests(), 7u);  // only the new archetype was tested
  EXPECT_TRUE(q.matchesArchetype(6));
  EXPECT_EQ(got, (std::vector<std::uint32_t>{0, 1, 5, 4}));
}

TEST_F(TermsWorld, LoadRebuildsTheMatchSet) {
  Snapshot early(w);
  w.save(early);  // 6 archetypes
  CachedQuery<term::read<Pos>, term::with<Flag>> q;
  EXPECT_TRUE(slots_of(q, w).empty());
  ASSERT_TRUE(w.addComponent(a, Flag{true}).ok());  // archetype 6 {Pos, Flag}
  EXPECT_EQ(slots_of(q, w), (std::vector<std::uint32_t>{0}));
  ASSERT_TRUE(w.load(early).ok());  // archetype 6 is gone
  EXPECT_TRUE(slots_of(q, w).empty());
  EXPECT_FALSE(q.matchesArchetype(6));
  // A different archetype 6 appears: {Vel, Flag}; then {Pos, Flag} as 7.
  ASSERT_TRUE(w.addComponent(c, Flag{true}).ok());
  ASSERT_TRUE(w.addComponent(a, Flag{true}).ok());
  EXPECT_EQ(slots_of(q, w), (std::vector<std::uint32_t>{0}));
  EXPECT_FALSE(q.matchesArchetype(6));
  EXPECT_TRUE(q.matchesArchetype(7));
}

TEST_F(TermsWorld, QueryOnAnotherWorldRebuilds) {
  CachedQuery<term::read<Pos>> q;
  EXPECT_EQ(slots_of(q, w).size(), 5u);
  World other;
  register_all(other);
  const Entity x = other.create();
  ASSERT_TRUE(other.addComponent(x, Pos{9, 9}).ok());
  EXPECT_EQ(slots_of(q, other), (std::vector<std::uint32_t>{0}));
}

TEST_F(TermsWorld, RegistrationAfterFirstUseIsSeen) {
  struct Late {
    std::uint32_t v;
  };
  World fresh;
  (void)fresh.registerComponent<Pos>();
  CachedQuery<term::read<Pos>, term::read<Vel>> q;
  EXPECT_TRUE(slots_of(q, fresh).empty());  // Vel unknown: matches nothing
  (void)fresh.registerComponent<Vel>();
  const Entity x = fresh.create();
  ASSERT_TRUE(fresh.addComponent(x, Pos{1, 1}).ok());
  ASSERT_TRUE(fresh.addComponent(x, Vel{1, 1}).ok());
  EXPECT_EQ(slots_of(q, fresh), (std::vector<std::uint32_t>{0}));
}

TEST_F(TermsWorld, GuardRejectsWritesToReadTermsAndStructuralChangesInMatchedArchetypes) {
  CachedQuery<term::read<Pos>, term::opt_read<Vel>, term::none<Dead>> q;
  Status write_read = Status::Ok(), write_opt = Status::Ok(), move = Status::Ok(), outside = Status::Ok();
  ASSERT_TRUE(q.each(w, [&](Entity ent, const Pos&, const Vel*) {
                 if (ent.slot != 0) return;
                 write_read = w.addComponent(b, Pos{0, 0});      // Read term: rejected
                 write_opt = w.addComponent(b, Vel{0, 0});       // optional Read term: rejected
                 move = w.addComponent(b, Health{1, 1});         // source archetype matched: rejected
                 outside = w.addComponent(c, Health{1, 1});      // {Vel} -> {Vel,Health}: unmatched, legal
               }).ok());
  EXPECT_EQ(write_read.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(write_opt.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(move.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(outside.ok());
  EXPECT_EQ(w.get<Pos>(b)->x, 2);
  EXPECT_EQ(w.get<Vel>(b)->x, 20);
  EXPECT_FALSE(w.has<Health>(b));
  EXPECT_TRUE(w.has<Health>(c));
  // Afterwards the same mutations are legal.
  EXPECT_TRUE(w.addComponent(b, Pos{0, 0}).ok());
}

TEST_F(TermsWorld, NestedIterationIsRejected) {
  CachedQuery<term::read<Pos>> outer;
  CachedQuery<term::read<Vel>> inner;
  Status nested = Status::Ok();
  ASSERT_TRUE(outer.each(w, [&](Entity, const Pos&) { nested = inner.each(w, [](Entity, const Vel&) {}); }).ok());
  EXPECT_EQ(nested.code(), ErrorCode::InvalidArgument);
  Status nested_each = Status::Ok();
  ASSERT_TRUE(outer.each(w, [&](Entity, const Pos&) { nested_each = w.each<>([](Entity) {}); }).ok());
  EXPECT_EQ(nested_each.code(), ErrorCode::InvalidArgument);
}

TEST_F(TermsWorld, ConstWorldRunsReadOnlyQueries) {
  const World& cw = w;
  CachedQuery<term::read<Pos>, term::opt_read<Health>> q;
  std::int64_t sum = 0;
  ASSERT_TRUE(q.each(cw, [&](Entity, const Pos& p, const Health* hp) { sum += p.x + (hp ? hp->hp : 0); }).ok());
  EXPECT_EQ(sum, 1 + 2 + 6 + 4 + 5 + 50);
}

// A row filter is judged when the loop reaches the row: a write fn makes to a later row (legal:
// Pos is not fetched) brings that row into the same pass; one to an earlier row does not.
TEST(CachedQueryRowFilter, ChangedIsJudgedWhenTheLoopReachesTheRow) {
  World w(one_tracked_component());
  const std::vector<Entity> es = tracked_pos_entities(w, 200, true);
  ASSERT_EQ(es.size(), 200u);
  w.setTick(3);
  w.getMutable<Pos>(es[100])->y = 1;
  CachedQuery<term::read<Vel>, term::changed<Pos>> q;
  q.since(3);
  std::vector<std::uint32_t> seen;
  ASSERT_TRUE(q.each(w, [&](Entity e, const Vel&) {
                 seen.push_back(e.slot);
                 if (e == es[100]) {
                   ASSERT_NE(w.getMutable<Pos>(es[150]), nullptr);  // ahead: visited in this pass
                   ASSERT_NE(w.getMutable<Pos>(es[20]), nullptr);   // behind: not
                 }
               }).ok());
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{es[100].slot, es[150].slot}));
  seen.clear();
  ASSERT_TRUE(q.each(w, [&](Entity e, const Vel&) { seen.push_back(e.slot); }).ok());
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{es[20].slot, es[100].slot, es[150].slot}));
}

// eachChunk: the same rows as each, as runs with column pointers; optional columns null where
// the run lacks them or an enable bit nulls them; the guard as in each.
TEST_F(TermsWorld, EachChunkHandsOutRunsWithTypedColumnPointers) {
  CachedQuery<term::write<Pos>, term::opt_read<Vel>, term::none<Dead>> q;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, bool>> runs;  // archetype, first slot, size, Vel
  ASSERT_TRUE(q.eachChunk(w, [&](const QueryChunk& ch, Pos* p, const Vel* v) {
                 runs.emplace_back(ch.archetype(), ch.entity(0).slot, ch.size(), v != nullptr);
                 for (std::uint32_t i = 0; i < ch.size(); ++i) p[i].y = v == nullptr ? -1 : v[i].x;
               }).ok());
  const std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, bool>> expected = {
      {1u, a.slot, 1u, false}, {2u, b.slot, 2u, true}, {5u, h.slot, 1u, false}};
  EXPECT_EQ(runs, expected);
  EXPECT_EQ(w.get<Pos>(a)->y, -1);
  EXPECT_EQ(w.get<Pos>(b)->y, 20);
  EXPECT_EQ(w.get<Pos>(f)->y, 60);
  EXPECT_EQ(w.get<Pos>(d)->y, 0);  // Dead: not matched

  // Vel switched off on b: archetype 2 splits into a run without Vel (b) and one with it (f).
  ASSERT_TRUE(w.setEnabled<Vel>(b, false).ok());
  runs.clear();
  ASSERT_TRUE(q.eachChunk(w, [&](const QueryChunk& ch, Pos*, const Vel* v) {
                 runs.emplace_back(ch.archetype(), ch.entity(0).slot, ch.size(), v != nullptr);
               }).ok());
  const std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, bool>> split = {
      {1u, a.slot, 1u, false}, {2u, b.slot, 1u, false}, {2u, f.slot, 1u, true}, {5u, h.slot, 1u, false}};
  EXPECT_EQ(runs, split);

  // While fn holds column pointers nothing may move the columns: structural changes are
  // refused in every archetype (c's {Vel} is not matched: each would allow it), and so are
  // creates; nested visits as in each. In-place writes through the World stay legal.
  const std::uint32_t events_before = static_cast<std::uint32_t>(sink.events.size());
  Status in_matched, elsewhere, nested, in_place;
  Entity made = Entity::null();
  ASSERT_TRUE(q.eachChunk(w, [&](const QueryChunk& ch, Pos*, const Vel*) {
                 if (ch.archetype() != 1) return;
                 in_matched = w.removeComponent<Pos>(a);
                 elsewhere = w.removeComponent<Vel>(c);
                 made = w.create();
                 nested = q.each(w, [](Entity, Pos&, const Vel*) {});
                 in_place = w.addComponent(a, Pos{9, 9});
               }).ok());
  EXPECT_EQ(in_matched.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(elsewhere.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(made, Entity::null());
  EXPECT_EQ(nested.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(in_place.ok());
  EXPECT_TRUE(w.has<Pos>(a));
  EXPECT_TRUE(w.has<Vel>(c));
  EXPECT_EQ(w.get<Pos>(a)->x, 9);
  EXPECT_EQ(w.entityCount(), 6u);
  bool reported = false;  // refusals are reported (an event kind once per world: rate-limited)
  for (std::size_t k = events_before; k < sink.events.size(); ++k)
    reported = reported || sink.events[k].id == EventId::IterationMutation;
  EXPECT_TRUE(reported);
  // After the visit the same calls are legal again.
  EXPECT_TRUE(w.removeComponent<Vel>(c).ok());

  // A read-only typed query runs by runs on a const World.
  const World& cw = w;
  CachedQuery<term::read<Pos>> reader;
  std::uint32_t rows = 0;
  ASSERT_TRUE(reader.eachChunk(cw, [&](const QueryChunk& ch, const Pos*) { rows += ch.size(); }).ok());
  EXPECT_EQ(rows, 5u);  // a, b, d, h, f
}

TEST(CachedQueryChunks, ChangedRunsAndWriteStampsMatchEach) {
  World w(one_tracked_component());
  const std::vector<Entity> es = tracked_pos_entities(w, 300, false);
  ASSERT_EQ(es.size(), 300u);
  w.setTick(4);
  for (std::size_t i : {7u, 8u, 9u, 130u, 299u}) w.getMutable<Pos>(es[i])->y = 1;
  CachedQuery<term::read<Pos>, term::changed<Pos>> q;
  q.since(4);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
  std::int64_t sum = 0;
  ASSERT_TRUE(q.eachChunk(w, [&](const QueryChunk& ch, const Pos* p) {
                 runs.emplace_back(ch.entity(0).slot, ch.size());
                 for (std::uint32_t i = 0; i < ch.size(); ++i) sum += p[i].x;
               }).ok());
  EXPECT_EQ(runs, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{es[7].slot, 3u}, {es[130].slot, 1u}, {es[299].slot, 1u}}));
  EXPECT_EQ(sum, 7 + 8 + 9 + 130 + 299);

  w.setTick(6);
  CachedQuery<term::write<Pos>> writer;
  ASSERT_TRUE(writer.eachChunk(w, [](const QueryChunk&, Pos*) {}).ok());
  std::uint64_t added = 0, changed = 0;
  for (const Entity e : es) {
    ASSERT_TRUE(w.changeTicks<Pos>(e, added, changed));
    ASSERT_EQ(changed, 6u);
  }
}
