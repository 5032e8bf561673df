// Enable bits and change ticks (docs/kernel.md, "Enable bits", "Change detection"): no
// structural move, query semantics, guard, structural changes, flush, snapshots.
#include "support/kernel_types.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/query/dynamic_query.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

WorldConfig tracking_config(std::uint32_t entities = 64, std::uint32_t tracked = 2) {
  WorldConfig c;
  c.max_entities = entities;
  c.max_tracked_components = tracked;
  return c;
}

struct RowWorld : ::testing::Test {
  World w{tracking_config()};
  CapturingSink sink;
  Entity e0, e1, e2, e3;

  void SetUp() override {
    register_all(w);  // Pos 0, Vel 1, Health 2, Flag 3, Link 4
    w.setGuardPolicy(GuardPolicy::Reject);
    w.setEventSink(&sink);
    e0 = w.create();
    e1 = w.create();
    e2 = w.create();
    e3 = w.create();
    for (Entity e : {e0, e1, e2, e3}) {
      ASSERT_TRUE(w.addComponent(e, Pos{static_cast<std::int64_t>(e.slot), 0}).ok());
      ASSERT_TRUE(w.addComponent(e, Vel{1, 1}).ok());
    }
    ASSERT_TRUE(w.addComponent(e3, Health{3, 3}).ok());  // e3 in {Pos,Vel,Health}
  }
  void TearDown() override { w.setEventSink(nullptr); }

  template <class Q>
  std::vector<std::uint32_t> visit(Q& q) {
    std::vector<std::uint32_t> out;
    const Status s = q.each(w, [&](Entity e, auto&&...) { out.push_back(e.slot); });
    EXPECT_TRUE(s.ok()) << s.message();
    return out;
  }
};

}  // namespace

TEST_F(RowWorld, DisablingIsNotAStructuralMove) {
  const std::uint32_t archetypes = w.archetypeCount();
  const auto before = w.storage().archetype_slots(2);
  ASSERT_EQ(before.size(), 3u);
  ASSERT_TRUE(w.setEnabled<Vel>(e1, false).ok());
  EXPECT_EQ(w.archetypeCount(), archetypes);
  EXPECT_EQ(w.storage().archetype_slots(2).size(), 3u);
  EXPECT_FALSE(w.isEnabled<Vel>(e1));
  EXPECT_TRUE(w.isEnabled<Pos>(e1));
  EXPECT_TRUE(w.has<Vel>(e1));  // get/has see the component; only queries skip it
  EXPECT_EQ(w.disabledCount(), 1u);
  ASSERT_TRUE(w.setEnabled<Vel>(e1, false).ok());  // idempotent
  EXPECT_EQ(w.disabledCount(), 1u);
  EXPECT_TRUE(w.checkInvariants().ok());
}

TEST_F(RowWorld, QueriesSkipDisabledUnlessAsked) {
  ASSERT_TRUE(w.setEnabled<Vel>(e1, false).ok());
  std::vector<std::uint32_t> each_slots;
  const Status st = w.each<Pos, Vel>([&](Entity e, const Pos&, const Vel&) { each_slots.push_back(e.slot); }, Read{}, Read{});
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(each_slots, (std::vector<std::uint32_t>{0, 2, 3}));
  std::vector<std::uint32_t> pos_only;
  ASSERT_TRUE(w.each<Pos>([&](Entity e, const Pos&) { pos_only.push_back(e.slot); }, Read{}).ok());
  EXPECT_EQ(pos_only, (std::vector<std::uint32_t>{0, 1, 2, 3}));  // Vel not asked for

  CachedQuery<term::read<Pos>, term::read<Vel>> both;
  EXPECT_EQ(visit(both), (std::vector<std::uint32_t>{0, 2, 3}));
  CachedQuery<term::read<Pos>, term::with<Vel>> with_vel;
  EXPECT_EQ(visit(with_vel), (std::vector<std::uint32_t>{0, 2, 3}));
  CachedQuery<term::read<Pos>, term::disabled<Vel>> off;
  EXPECT_EQ(visit(off), (std::vector<std::uint32_t>{1}));
  CachedQuery<term::read<Pos>, term::read<Vel>, term::disabled<Vel>> off_fetch;  // hands the value out
  std::int64_t vx = 0;
  ASSERT_TRUE(off_fetch.each(w, [&](Entity, const Pos&, const Vel& v) { vx += v.x; }).ok());
  EXPECT_EQ(vx, 1);
  CachedQuery<term::read<Pos>, term::enabled<Vel>> on;
  EXPECT_EQ(visit(on), (std::vector<std::uint32_t>{0, 2, 3}));
  CachedQuery<term::read<Pos>, term::opt_read<Vel>> opt;
  std::vector<bool> has;
  ASSERT_TRUE(opt.each(w, [&](Entity, const Pos&, const Vel* v) { has.push_back(v != nullptr); }).ok());
  EXPECT_EQ(has, (std::vector<bool>{true, false, true, true}));

  DynamicQuery dq;
  ASSERT_TRUE(QueryBuilder(w).read("Pos").optRead("Vel").build(dq).ok());
  std::vector<bool> dhas;
  ASSERT_TRUE(dq.each(w, [&](const DynamicRow& r) { dhas.push_back(r.read(1) != nullptr); }).ok());
  EXPECT_EQ(dhas, has);
  DynamicQuery dd;
  ASSERT_TRUE(QueryBuilder(w).read("Pos").disabled("Vel").build(dd).ok());
  std::vector<std::uint32_t> dslots;
  ASSERT_TRUE(dd.each(w, [&](const DynamicRow& r) { dslots.push_back(r.entity().slot); }).ok());
  EXPECT_EQ(dslots, (std::vector<std::uint32_t>{1}));

  ASSERT_TRUE(w.setEnabled<Vel>(e1, true).ok());
  EXPECT_EQ(visit(both), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(w.disabledCount(), 0u);
}

TEST_F(RowWorld, EnableBitErrors) {
  EXPECT_EQ(w.setEnabled<Health>(e0, false).code(), ErrorCode::NotFound);
  EXPECT_EQ(w.setEnabled<Vel>(Entity{40, 1}, false).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(w.set_enabled(e0, 99, false).code(), ErrorCode::NotRegistered);
  // Switching a component the live query reads is a write of it: rejected.
  CachedQuery<term::read<Pos>, term::read<Vel>> q;
  Status inside = Status::Ok(), other = Status::Ok();
  ASSERT_TRUE(q.each(w, [&](Entity e, const Pos&, const Vel&) {
                 if (e.slot != 0) return;
                 inside = w.setEnabled<Vel>(e2, false);
                 other = w.setEnabled<Health>(e3, false);  // not listed: legal
               }).ok());
  EXPECT_EQ(inside.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(other.ok());
  EXPECT_TRUE(w.isEnabled<Vel>(e2));
  EXPECT_FALSE(w.isEnabled<Health>(e3));
}

TEST_F(RowWorld, StructuralChangesKeepOrDropBits) {
  ASSERT_TRUE(w.setEnabled<Vel>(e3, false).ok());
  ASSERT_TRUE(w.setEnabled<Pos>(e3, false).ok());
  ASSERT_TRUE(w.removeComponent<Health>(e3).ok());  // move: Vel/Pos bits stay
  EXPECT_FALSE(w.isEnabled<Vel>(e3));
  EXPECT_EQ(w.disabledCount(), 2u);
  ASSERT_TRUE(w.removeComponent<Vel>(e3).ok());  // the removed component's bit goes
  EXPECT_EQ(w.disabledCount(), 1u);
  ASSERT_TRUE(w.addComponent(e3, Vel{5, 5}).ok());  // re-added: enabled
  EXPECT_TRUE(w.isEnabled<Vel>(e3));
  ASSERT_TRUE(w.destroy(e3).ok());
  EXPECT_EQ(w.disabledCount(), 0u);
  ASSERT_TRUE(w.setEnabled<Vel>(e0, false).ok());
  ASSERT_TRUE(w.clear().ok());
  EXPECT_EQ(w.disabledCount(), 0u);
  EXPECT_TRUE(w.checkInvariants().ok());
}

TEST_F(RowWorld, FlushKeepsSurvivorBitsAndClearsNewIncarnations) {
  ASSERT_TRUE(w.setEnabled<Vel>(e0, false).ok());
  ASSERT_TRUE(w.setEnabled<Vel>(e1, false).ok());
  ASSERT_TRUE(w.setEnabled<Pos>(e2, false).ok());
  ASSERT_TRUE(w.commands().addComponent(e0, Flag{true}).ok());  // moves, keeps Vel disabled
  ASSERT_TRUE(w.commands().removeComponent<Vel>(e1).ok());      // loses the disabled component
  ASSERT_TRUE(w.commands().destroy(e2).ok());                   // bits gone with the entity
  ASSERT_TRUE(w.flush().ok());
  EXPECT_FALSE(w.isEnabled<Vel>(e0));
  EXPECT_TRUE(w.isEnabled<Flag>(e0));
  EXPECT_EQ(w.disabledCount(), 1u);
  const Entity again = w.create();  // slot 2 reused
  ASSERT_EQ(again.slot, 2u);
  ASSERT_TRUE(w.addComponent(again, Pos{0, 0}).ok());
  EXPECT_TRUE(w.isEnabled<Pos>(again));
  EXPECT_TRUE(w.checkInvariants().ok());
}

TEST_F(RowWorld, SnapshotsRestoreBits) {
  Snapshot snap(w);
  w.save(snap);  // nothing disabled
  ASSERT_TRUE(w.setEnabled<Vel>(e2, false).ok());
  Snapshot with_bit(w);
  w.save(with_bit);
  EXPECT_EQ(with_bit.view().disabled_count(), 1u);
  EXPECT_EQ(with_bit.view().disabled_bits()[2], std::uint64_t{1} << 1);
  ASSERT_TRUE(w.load(snap).ok());
  EXPECT_TRUE(w.isEnabled<Vel>(e2));
  EXPECT_EQ(w.disabledCount(), 0u);
  EXPECT_TRUE(w.storage().disabled_bits().empty());
  ASSERT_TRUE(w.load(with_bit).ok());
  EXPECT_FALSE(w.isEnabled<Vel>(e2));
  EXPECT_EQ(w.disabledCount(), 1u);
  EXPECT_TRUE(w.checkInvariants().ok());
}

// ---- change ticks ----

TEST_F(RowWorld, TrackingStampsAddsAndWrites) {
  w.setTick(10);
  ASSERT_TRUE(w.trackChanges<Pos>().ok());  // existing rows stamped with the current tick
  std::uint64_t added = 0, changed = 0;
  ASSERT_TRUE(w.changeTicks<Pos>(e0, added, changed));
  EXPECT_EQ(added, 10u);
  EXPECT_EQ(changed, 10u);
  EXPECT_FALSE(w.changeTicks<Vel>(e0, added, changed));  // untracked

  w.setTick(11);
  ASSERT_TRUE(w.addComponent(e1, Pos{7, 7}).ok());  // set (overwrite): changed
  w.setTick(12);
  ASSERT_NE(w.getMutable<Pos>(e2), nullptr);  // getMutable: changed
  w.setTick(13);
  const Entity fresh = w.create();
  ASSERT_TRUE(w.addComponent(fresh, Pos{0, 0}).ok());  // structural add: added + changed
  w.setTick(14);
  const Status wrote = w.each<Pos, Health>([](Entity, Pos&, const Health&) {}, Write{}, Read{});  // e3 written
  ASSERT_TRUE(wrote.ok());
  ASSERT_TRUE(w.each<Pos>([](Entity, const Pos&) {}, Read{}).ok());  // reads stamp nothing

  auto ticks = [&](Entity e) {
    std::uint64_t a = 0, c = 0;
    EXPECT_TRUE(w.changeTicks<Pos>(e, a, c));
    return std::pair{a, c};
  };
  EXPECT_EQ(ticks(e0), (std::pair<std::uint64_t, std::uint64_t>{10, 10}));
  EXPECT_EQ(ticks(e1), (std::pair<std::uint64_t, std::uint64_t>{10, 11}));
  EXPECT_EQ(ticks(e2), (std::pair<std::uint64_t, std::uint64_t>{10, 12}));
  EXPECT_EQ(ticks(fresh), (std::pair<std::uint64_t, std::uint64_t>{13, 13}));
  EXPECT_EQ(ticks(e3), (std::pair<std::uint64_t, std::uint64_t>{10, 14}));

  CachedQuery<term::read<Pos>, term::changed<Pos>> changed_q;
  EXPECT_EQ(visit(changed_q.since(12)), (std::vector<std::uint32_t>{fresh.slot, 2, 3}));
  CachedQuery<term::read<Pos>, term::added<Pos>> added_q;
  EXPECT_EQ(visit(added_q.since(11)), (std::vector<std::uint32_t>{fresh.slot}));
  DynamicQuery dq;
  ASSERT_TRUE(QueryBuilder(w).read("Pos").changed("Pos").build(dq).ok());
  std::vector<std::uint32_t> dslots;
  ASSERT_TRUE(dq.since(14).each(w, [&](const DynamicRow& r) { dslots.push_back(r.entity().slot); }).ok());
  EXPECT_EQ(dslots, (std::vector<std::uint32_t>{3}));
}

TEST_F(RowWorld, QueryWriteHandOutsStampAndFlushStamps) {
  ASSERT_TRUE(w.trackChanges<Pos>().ok());
  w.setTick(20);
  CachedQuery<term::write<Pos>, term::with<Health>> writer;
  ASSERT_TRUE(writer.each(w, [](Entity, Pos& p) { p.y = 1; }).ok());
  w.setTick(21);
  DynamicQuery dw;
  ASSERT_TRUE(QueryBuilder(w).optWrite("Pos").with("Vel").without("Health").build(dw).ok());
  ASSERT_TRUE(dw.each(w, [](const DynamicRow& r) {
                 if (r.entity().slot == 0) r.write(0)[0] = std::byte{9};
               }).ok());
  std::uint64_t a = 0, c = 0;
  ASSERT_TRUE(w.changeTicks<Pos>(e3, a, c));
  EXPECT_EQ(c, 20u);
  ASSERT_TRUE(w.changeTicks<Pos>(e1, a, c));
  EXPECT_EQ(c, 21u);  // every Write hand-out stamps, written or not
  w.setTick(22);
  ASSERT_TRUE(w.commands().addComponent(e0, Pos{1, 1}).ok());     // in place: changed
  ASSERT_TRUE(w.commands().removeComponent<Pos>(e1).ok());
  ASSERT_TRUE(w.commands().addComponent(e1, Pos{2, 2}).ok());     // removed then re-added: moves, still present -> changed
  ASSERT_TRUE(w.flush().ok());
  ASSERT_TRUE(w.changeTicks<Pos>(e0, a, c));
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(c, 22u);
  ASSERT_TRUE(w.changeTicks<Pos>(e1, a, c));
  EXPECT_EQ(c, 22u);
}

TEST_F(RowWorld, UntrackedChangeTermIsAClearError) {
  CachedQuery<term::read<Pos>, term::changed<Vel>> q;
  EXPECT_EQ(q.each(w, [](Entity, const Pos&) {}).code(), ErrorCode::InvalidArgument);
  DynamicQuery dq;
  EXPECT_EQ(QueryBuilder(w).read("Pos").added("Vel").build(dq).code(), ErrorCode::InvalidArgument);
  World small;  // max_tracked_components = 0
  register_all(small);
  EXPECT_EQ(small.trackChanges<Pos>().code(), ErrorCode::CapacityExceeded);
}

TEST_F(RowWorld, SnapshotsRestoreTicksAndRefuseOtherTracking) {
  ASSERT_TRUE(w.trackChanges<Vel>().ok());
  w.setTick(5);
  Snapshot snap(w);
  w.save(snap);
  w.setTick(6);
  ASSERT_NE(w.getMutable<Vel>(e0), nullptr);
  std::uint64_t a = 0, c = 0;
  ASSERT_TRUE(w.changeTicks<Vel>(e0, a, c));
  EXPECT_EQ(c, 6u);
  ASSERT_TRUE(w.load(snap).ok());
  ASSERT_TRUE(w.changeTicks<Vel>(e0, a, c));
  EXPECT_EQ(c, 0u);
  ASSERT_TRUE(w.trackChanges<Pos>().ok());
  EXPECT_EQ(w.load(snap).code(), ErrorCode::Mismatch);
}

TEST(RowStateChunks, CleanAndDirtyRunsOfALargeArchetype) {
  WorldConfig c;
  c.max_entities = 1024;
  World w(c);
  register_all(w);
  CachedQuery<term::read<Pos>, term::disabled<Vel>> off;
  std::uint32_t visited = 0;
  for (std::uint32_t i = 0; i < 300; ++i) {
    const Entity e = w.create();
    ASSERT_TRUE(w.addComponent(e, Pos{static_cast<std::int64_t>(i), 0}).ok());
    ASSERT_TRUE(w.addComponent(e, Vel{1, 1}).ok());
  }
  ASSERT_TRUE(off.each(w, [&](Entity, const Pos&) { ++visited; }).ok());
  EXPECT_EQ(visited, 0u);  // no bit set anywhere: disabled<Vel> matches nobody
  ASSERT_TRUE(w.setEnabled<Vel>(Entity{130, 1}, false).ok());
  ASSERT_TRUE(w.setEnabled<Vel>(Entity{131, 1}, false).ok());
  ASSERT_TRUE(w.setEnabled<Vel>(Entity{131, 1}, true).ok());
  std::vector<std::uint32_t> on, disabled;
  CachedQuery<term::read<Pos>, term::read<Vel>> both;
  ASSERT_TRUE(both.each(w, [&](Entity e, const Pos&, const Vel&) { on.push_back(e.slot); }).ok());
  ASSERT_TRUE(off.each(w, [&](Entity e, const Pos&) { disabled.push_back(e.slot); }).ok());
  EXPECT_EQ(on.size(), 299u);
  EXPECT_EQ(std::count(on.begin(), on.end(), 130u), 0);
  EXPECT_EQ(on.front(), 0u);
  EXPECT_EQ(on.back(), 299u);
  EXPECT_EQ(disabled, (std::vector<std::uint32_t>{130}));
  EXPECT_TRUE(w.checkInvariants().ok());
}

// n entities with Pos{i, 0} and Vel in one archetype, slots 0..n-1, into `ents`.
static void add_pos_vel_entities(World& w, std::int64_t n, std::vector<Entity>& ents) {
  for (std::int64_t i = 0; i < n; ++i) {
    const Entity e = w.create();
    ASSERT_TRUE(w.addComponent(e, Pos{i, 0}).ok());
    ASSERT_TRUE(w.addComponent(e, Vel{1, 1}).ok());
    ents.push_back(e);
  }
}

// Changed ticks are kept with a summary per 64 slots (whole blocks stamped at once, a mask of
// the slots at the block's latest tick). Every step below is checked against a plain model — a
// tick per slot — through changeTicks, changed<Pos> queries (typed per row, typed by runs,
// dynamic) at every `since`, the world's invariants, and a save/load round trip.
TEST(ChangeTickBlocks, EveryPathAgreesWithATickPerSlot) {
  const WorldConfig c = tracking_config(400, 1);
  World w(c);
  register_all(w);
  std::vector<Entity> ents;
  add_pos_vel_entities(w, 300, ents);
  std::vector<std::int64_t> model(400, -1);  // changed tick of slot s's Pos, -1: no Pos
  auto expect_model = [&](const char* step) {
    SCOPED_TRACE(step);
    ASSERT_TRUE(w.checkInvariants().ok()) << w.checkInvariants().message();
    for (std::uint32_t s = 0; s < 300; ++s) {
      std::uint64_t a = 0, ch = 0;
      const Entity e = ents[s];
      const bool has = w.alive(e) && w.changeTicks<Pos>(e, a, ch);
      ASSERT_EQ(has, model[s] >= 0) << "slot " << s;
      if (has) {
        ASSERT_EQ(ch, static_cast<std::uint64_t>(model[s])) << "slot " << s;
      }
    }
    for (std::uint64_t since = 0; since <= 8; ++since) {
      std::vector<std::uint32_t> want;
      for (std::uint32_t s = 0; s < 400; ++s)
        if (model[s] >= 0 && static_cast<std::uint64_t>(model[s]) >= since) want.push_back(s);
      CachedQuery<term::read<Pos>, term::changed<Pos>> q;
      std::vector<std::uint32_t> rows, runs, dyn;
      ASSERT_TRUE(q.since(since).each(w, [&](Entity e, const Pos&) { rows.push_back(e.slot); }).ok());
      ASSERT_TRUE(q.since(since)
                      .eachChunk(w, [&](const QueryChunk& ch, const Pos*) {
                        for (std::uint32_t i = 0; i < ch.size(); ++i) runs.push_back(ch.entity(i).slot);
                      })
                      .ok());
      DynamicQuery dq;
      ASSERT_TRUE(QueryBuilder(w).read("Pos").changed("Pos").build(dq).ok());
      ASSERT_TRUE(dq.since(since).each(w, [&](const DynamicRow& r) { dyn.push_back(r.entity().slot); }).ok());
      for (auto* v : {&rows, &runs, &dyn}) std::sort(v->begin(), v->end());  // visit order: archetype, slot
      EXPECT_EQ(rows, want) << "since " << since;
      EXPECT_EQ(runs, want) << "since " << since;
      EXPECT_EQ(dyn, want) << "since " << since;
    }
  };

  w.setTick(1);
  ASSERT_TRUE(w.trackChanges<Pos>().ok());
  for (std::uint32_t s = 0; s < 300; ++s) model[s] = 1;
  expect_model("trackChanges stamps every holder");

  w.setTick(2);
  ASSERT_TRUE(w.each<Pos>([](Entity, Pos& p) { p.y = 2; }, Write{}).ok());  // blocks 0-3 whole, 256-299 per slot
  for (std::uint32_t s = 0; s < 300; ++s) model[s] = 2;
  expect_model("a write loop over every row");

  w.setTick(3);
  for (std::uint32_t s : {5u, 70u, 71u, 290u}) {
    ASSERT_NE(w.getMutable<Pos>(ents[s]), nullptr);
    model[s] = 3;
  }
  ASSERT_TRUE(w.removeComponent<Vel>(ents[100]).ok());  // leaves the {Pos, Vel} archetype, keeps its tick
  expect_model("single writes into stamped blocks, one row moves away");

  w.setTick(4);
  const Status wrote = w.each<Pos, Vel>([](Entity, Pos& p, const Vel&) { p.y = 4; }, Write{}, Read{});
  ASSERT_TRUE(wrote.ok());
  for (std::uint32_t s = 0; s < 300; ++s)
    if (s != 100) model[s] = 4;  // block 1 is partial now: slot 100 is in the other archetype
  expect_model("a write loop over an archetype that misses one slot of a block");

  w.setTick(3);  // the tick goes back, as after setTick in a tool
  for (std::uint32_t s : {10u, 64u, 100u}) {
    ASSERT_NE(w.getMutable<Pos>(ents[s]), nullptr);
    model[s] = 3;
  }
  expect_model("writes below a block's max");

  w.setTick(5);
  CachedQuery<term::write<Pos>, term::read<Vel>> writer;
  ASSERT_TRUE(writer.eachChunk(w, [](const QueryChunk&, Pos*, const Vel*) {}).ok());  // stamps by runs
  for (std::uint32_t s = 0; s < 300; ++s)
    if (s != 100) model[s] = 5;
  ASSERT_TRUE(w.destroy(ents[200]).ok());
  model[200] = -1;
  const Entity fresh = w.create();
  ASSERT_TRUE(w.addComponent(fresh, Pos{0, 0}).ok());
  model[fresh.slot] = 5;
  if (fresh.slot < 300) ents[fresh.slot] = fresh;
  expect_model("a write by runs, a destroy and a fresh holder");

  w.setTick(6);
  DynamicQuery dyn_writer;
  ASSERT_TRUE(QueryBuilder(w).write("Pos").with("Vel").build(dyn_writer).ok());
  ASSERT_TRUE(dyn_writer.each(w, [](const DynamicRow&) {}).ok());  // rows stamped before the visit
  for (std::uint32_t s = 0; s < 300; ++s)
    if (model[s] >= 0 && s != 100 && s != fresh.slot) model[s] = 6;
  expect_model("a dynamic write over one archetype");
  w.setTick(7);
  CachedQuery<term::write<Pos>, term::none<Vel>> lone_writer;
  ASSERT_TRUE(lone_writer.each(w, [](Entity, Pos&) {}).ok());
  model[100] = 7;
  model[fresh.slot] = 7;
  expect_model("a typed write over the other archetype");
  ASSERT_NE(w.getMutable<Pos>(ents[7]), nullptr);
  model[7] = 7;
  Snapshot snap(w);
  w.save(snap);
  World copy(c);
  register_all(copy);
  ASSERT_TRUE(copy.trackChanges<Pos>().ok());
  ASSERT_TRUE(copy.load(snap).ok());
  for (std::uint32_t s = 0; s < 300; ++s) {
    if (model[s] < 0) continue;
    std::uint64_t a = 0, ch = 0;
    ASSERT_TRUE(copy.changeTicks<Pos>(ents[s], a, ch));
    EXPECT_EQ(ch, static_cast<std::uint64_t>(model[s])) << "loaded slot " << s;
    EXPECT_EQ(copy.storage().changed_tick(s, 0), static_cast<std::uint64_t>(model[s])) << "slot " << s;
    EXPECT_EQ(w.storage().changed_tick(s, 0), static_cast<std::uint64_t>(model[s])) << "slot " << s;
  }
  ASSERT_TRUE(w.load(snap).ok());
  expect_model("after a load of its own save");
}

// A Write each<> with no enable bit set stamps an archetype's rows before fn visits them (one
// word per whole block of 64 slots); with a bit set somewhere it stamps each row it visits.
TEST(ChangeTickBlocks, WhenAWriteLoopStampsItsRows) {
  World w(tracking_config(200, 1));
  register_all(w);
  ASSERT_TRUE(w.trackChanges<Pos>().ok());
  std::vector<Entity> ents;
  add_pos_vel_entities(w, 130, ents);
  // What the visit of row 0 reads as the changed tick of the last row, in a Write loop.
  auto last_row_seen_from_first = [&] {
    std::uint64_t seen = 0;
    const Status s = w.each<Pos>(
        [&](Entity e, Pos&) {
          std::uint64_t a = 0, ch = 0;
          if (e.slot == 0 && w.changeTicks<Pos>(ents[129], a, ch)) seen = ch;
        },
        Write{});
    EXPECT_TRUE(s.ok());
    return seen;
  };
  w.setTick(9);
  EXPECT_EQ(last_row_seen_from_first(), 9u);  // stamped before the loop reached it
  ASSERT_TRUE(w.setEnabled<Vel>(ents[50], false).ok());
  w.setTick(10);
  EXPECT_EQ(last_row_seen_from_first(), 9u);  // per row as visited: not yet
  std::uint64_t a = 0, ch = 0;
  ASSERT_TRUE(w.changeTicks<Pos>(ents[129], a, ch));
  EXPECT_EQ(ch, 10u);
  EXPECT_TRUE(w.checkInvariants().ok());
}
