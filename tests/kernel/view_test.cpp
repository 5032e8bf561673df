// Views with deltas (view.h, docs/query.md "Views"): exact Added / Removed / Modified lists
// after each kind of change, value-based Modified, slot reuse, enable bits, the command
// buffer, column-wide Write hand-outs, snapshots, the guard and system access.
#include "support/kernel_types.h"

#include <lockstep/query/view.h>

#include <gtest/gtest.h>

#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

using Ids = std::vector<Entity>;

Ids ids(std::span<const Entity> s) { return Ids(s.begin(), s.end()); }

struct Lists {
  Ids added, removed, modified;
  std::uint32_t members = 0;
};

Lists lists(const World& w, ViewId v) {
  ViewDeltas d;
  EXPECT_TRUE(viewDeltas(w, v, d).ok());
  return {ids(d.added), ids(d.removed), ids(d.modified), d.members};
}

struct ViewWorld : ::testing::Test {
  ViewWorld() {
    WorldConfig c;
    c.max_entities = 64;
    world = std::make_unique<World>(c);
    register_all(*world);
    world->setGuardPolicy(GuardPolicy::Reject);
  }
  World& w() { return *world; }
  Entity unit(std::int32_t hp) {
    const Entity e = w().create();
    EXPECT_TRUE(w().addComponent(e, Health{hp, 100}).ok());
    return e;
  }
  std::unique_ptr<World> world;
};

// View: entities with Health and Pos whose hp < 10 (the predicate reads Health).
struct WoundedView : ViewWorld {
  WoundedView() { EXPECT_TRUE(registerView(w(), q, field(&Health::hp) < 10, view).ok()); }
  CachedQuery<term::read<Health>> q;
  ViewId view;
};

TEST_F(WoundedView, AddedRemovedModifiedExactly) {
  const Entity a = unit(5), b = unit(50), c = unit(9), d = unit(3);
  ASSERT_TRUE(w().updateViews().ok());
  Lists l = lists(w(), view);
  EXPECT_EQ(l.added, (Ids{a, c, d}));
  EXPECT_TRUE(l.removed.empty());
  EXPECT_TRUE(l.modified.empty());
  EXPECT_EQ(l.members, 3u);

  w().getMutable<Health>(a)->hp = 4;   // stays a member, value differs: Modified
  w().getMutable<Health>(c)->hp = 9;   // written back unchanged: not Modified
  w().getMutable<Health>(d)->hp = 30;  // leaves
  w().getMutable<Health>(b)->hp = 1;   // enters
  ASSERT_TRUE(w().updateViews().ok());
  l = lists(w(), view);
  EXPECT_EQ(l.added, (Ids{b}));
  EXPECT_EQ(l.removed, (Ids{d}));
  EXPECT_EQ(l.modified, (Ids{a}));
  EXPECT_EQ(l.members, 3u);

  // No change: all lists empty (the lists describe one update interval only).
  ASSERT_TRUE(w().updateViews().ok());
  l = lists(w(), view);
  EXPECT_TRUE(l.added.empty() && l.removed.empty() && l.modified.empty());
  EXPECT_EQ(l.members, 3u);
}

TEST_F(WoundedView, EnteredAndLeftBetweenUpdatesIsInNoList) {
  ASSERT_TRUE(w().updateViews().ok());
  const Entity e = unit(1);
  ASSERT_TRUE(w().destroy(e).ok());
  const Entity f = unit(2);
  w().getMutable<Health>(f)->hp = 60;
  ASSERT_TRUE(w().updateViews().ok());
  const Lists l = lists(w(), view);
  EXPECT_TRUE(l.added.empty() && l.removed.empty() && l.modified.empty());
  EXPECT_EQ(l.members, 0u);
}

TEST_F(WoundedView, ReusedSlotIsRemovedWithTheOldHandleAndAddedWithTheNew) {
  const Entity a = unit(1);
  ASSERT_TRUE(w().updateViews().ok());
  ASSERT_TRUE(w().destroy(a).ok());
  const Entity b = unit(2);  // the only freed slot: a's, next generation
  ASSERT_EQ(b.slot, a.slot);
  ASSERT_EQ(b.generation, a.generation + 1);
  ASSERT_TRUE(w().updateViews().ok());
  const Lists l = lists(w(), view);
  EXPECT_EQ(l.removed, (Ids{a}));
  EXPECT_EQ(l.added, (Ids{b}));
  EXPECT_TRUE(l.modified.empty());
  EXPECT_TRUE(viewContains(w(), view, b));
  EXPECT_FALSE(viewContains(w(), view, a));
}

TEST_F(WoundedView, StructuralChangesEnableBitsAndTheCommandBuffer) {
  const Entity a = unit(1), b = unit(2), c = unit(3);
  ASSERT_TRUE(w().addComponent(c, Pos{1, 1}).ok());
  ASSERT_TRUE(w().updateViews().ok());
  ASSERT_EQ(lists(w(), view).added, (Ids{a, b, c}));

  ASSERT_TRUE(w().removeComponent<Health>(a).ok());       // leaves (lacks Health)
  ASSERT_TRUE(w().setEnabled<Health>(b, false).ok());     // leaves (required component disabled)
  ASSERT_TRUE(w().addComponent(c, Pos{2, 2}).ok());       // Pos is not watched: no Modified
  ASSERT_TRUE(w().updateViews().ok());
  Lists l = lists(w(), view);
  EXPECT_EQ(l.removed, (Ids{a, b}));
  EXPECT_TRUE(l.added.empty());
  EXPECT_TRUE(l.modified.empty());

  ASSERT_TRUE(w().setEnabled<Health>(b, true).ok());
  CommandBuffer& cmd = w().commands();
  ASSERT_TRUE(cmd.addComponent(a, Health{7, 100}).ok());  // re-enters through a flush
  ASSERT_TRUE(cmd.addComponent(c, Health{8, 100}).ok());  // in-place value change
  const Entity n = cmd.create();
  ASSERT_TRUE(cmd.addComponent(n, Health{0, 1}).ok());
  ASSERT_TRUE(w().flush().ok());
  ASSERT_TRUE(w().updateViews().ok());
  l = lists(w(), view);
  ASSERT_EQ(l.added.size(), 3u);
  EXPECT_EQ(l.added[0], a);
  EXPECT_EQ(l.added[1], b);
  EXPECT_EQ(l.added[2].slot, 3u);  // the buffered create took the next never-used slot
  EXPECT_EQ(l.modified, (Ids{c}));
  EXPECT_TRUE(l.removed.empty());
  EXPECT_EQ(l.members, 4u);
}

TEST_F(WoundedView, ColumnWideWriteHandOutsCompareEveryRowByValue) {
  std::vector<Entity> e;
  for (std::int32_t i = 0; i < 8; ++i) e.push_back(unit(i));  // hp 0..7: all members
  ASSERT_TRUE(w().updateViews().ok());
  // A Write loop that changes only odd slots (and hands out every row).
  ASSERT_TRUE(w().each<Health>([](Entity x, Health& h) {
                    if (x.slot % 2 == 1) h.max += 1;
                  }, Write{}).ok());
  ASSERT_TRUE(w().updateViews().ok());
  EXPECT_EQ(lists(w(), view).modified, (Ids{e[1], e[3], e[5], e[7]}));
  // The same through a typed query with a write term.
  CachedQuery<term::write<Health>> wq;
  ASSERT_TRUE(wq.each(w(), [](Entity x, Health& h) {
                  if (x.slot == 2) h.hp = 9;
                }).ok());
  ASSERT_TRUE(w().updateViews().ok());
  EXPECT_EQ(lists(w(), view).modified, (Ids{e[2]}));
}

TEST_F(WoundedView, ASnapshotRestoresMembershipShadowValuesListsAndJournal) {
  const Entity a = unit(1), b = unit(2);
  ASSERT_TRUE(w().updateViews().ok());
  w().getMutable<Health>(a)->hp = 20;  // pending change, not yet seen by an update
  Snapshot snap(w());
  w().save(snap);
  ASSERT_TRUE(w().updateViews().ok());
  const Lists first = lists(w(), view);
  EXPECT_EQ(first.removed, (Ids{a}));

  // Diverge: other changes, other updates.
  w().getMutable<Health>(b)->hp = 40;
  ASSERT_TRUE(w().destroy(a).ok());
  const Entity c = unit(3);
  ASSERT_TRUE(w().updateViews().ok());
  EXPECT_EQ(lists(w(), view).added, (Ids{c}));

  ASSERT_TRUE(w().load(snap).ok());
  // The lists of the update before the save are back (systems of the next tick read them).
  Lists l = lists(w(), view);
  EXPECT_EQ(l.added, (Ids{a, b}));
  EXPECT_EQ(l.members, 2u);
  // The pending change made before the save is reported exactly once, as it was.
  ASSERT_TRUE(w().updateViews().ok());
  l = lists(w(), view);
  EXPECT_EQ(l.removed, first.removed);
  EXPECT_EQ(l.added, first.added);
  EXPECT_EQ(l.modified, first.modified);
  EXPECT_EQ(l.members, 1u);
}

TEST_F(WoundedView, LateRegistrationReportsEveryMemberAsAdded) {
  const Entity a = unit(1);
  unit(50);
  const Entity c = unit(2);
  CachedQuery<term::read<Health>> q2;
  ViewId late;
  ASSERT_TRUE(registerView(w(), q2, late).ok());  // no predicate: every Health holder
  ASSERT_TRUE(w().updateViews().ok());
  EXPECT_EQ(lists(w(), late).added.size(), 3u);
  EXPECT_EQ(lists(w(), view).added, (Ids{a, c}));
  EXPECT_EQ(viewCount(w()), 2u);
}

TEST_F(WoundedView, BeginTickUpdatesTheViews) {
  const Entity a = unit(1);
  w().beginTick();
  EXPECT_EQ(lists(w(), view).added, (Ids{a}));
  w().advanceTick();
  w().beginTick();
  ViewDeltas d;
  ASSERT_TRUE(viewDeltas(w(), view, d).ok());
  EXPECT_EQ(d.tick, 1u);
  EXPECT_EQ(d.updates, 2u);
  EXPECT_TRUE(d.added.empty());
}

TEST_F(WoundedView, EachDeltaIsGuardedLikeAQuery) {
  const Entity a = unit(1), b = unit(2);
  ASSERT_TRUE(w().addComponent(b, Pos{0, 0}).ok());
  ASSERT_TRUE(w().updateViews().ok());
  std::vector<Entity> seen;
  Status destroy_status, write_status, nested_status, update_status;
  ASSERT_TRUE(eachDelta(w(), view, ViewList::Added, [&](Entity e) {
                seen.push_back(e);
                if (e == a) {
                  destroy_status = w().destroy(b);                        // b's archetype is the view's
                  write_status = w().addComponent(a, Health{3, 100});     // Health is read by the view
                  nested_status = w().each<Health>([](Entity, const Health&) {}, Read{});
                  update_status = w().updateViews();
                  EXPECT_TRUE(w().commands().destroy(b).ok());            // deferred: legal
                  EXPECT_NE(w().getMutable<Pos>(b), nullptr);             // Pos is not the view's
                }
              }).ok());
  EXPECT_EQ(seen, (Ids{a, b}));
  EXPECT_EQ(destroy_status.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(write_status.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(nested_status.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(update_status.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(w().alive(b));
  EXPECT_EQ(w().get<Health>(a)->hp, 1);
  ASSERT_TRUE(w().flush().ok());
  EXPECT_FALSE(w().alive(b));
}

TEST_F(WoundedView, ReadingAViewNeedsReadOfItsComponents) {
  unit(1);
  ASSERT_TRUE(w().updateViews().ok());
  AccessSet none, reads;
  ASSERT_TRUE(access_of(w(), Reads<Pos>{}, Writes<>{}, "no-health", none).ok());
  ASSERT_TRUE(access_of(w(), Reads<Health>{}, Writes<>{}, "health", reads).ok());
  ViewDeltas d;
  {
    const World::AccessScope scope(w(), &none);
    EXPECT_EQ(viewDeltas(w(), view, d).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(eachDelta(w(), view, ViewList::Added, [](Entity) { ADD_FAILURE(); }).code(), ErrorCode::InvalidArgument);
  }
  {
    const World::AccessScope scope(w(), &reads);
    ASSERT_TRUE(viewDeltas(w(), view, d).ok());
    EXPECT_EQ(d.added.size(), 1u);
  }
}

TEST_F(ViewWorld, RegistrationErrors) {
  CachedQuery<term::read<Health>, term::changed<Health>> changed;
  ViewId v;
  EXPECT_EQ(registerView(w(), changed, v).code(), ErrorCode::InvalidArgument);
  EXPECT_FALSE(v.valid());
  CachedQuery<term::read<Health>> q;
  Predicate unknown = field(&Counter::value) == 1;  // Counter is a resource, not a component here
  EXPECT_EQ(registerView(w(), q, unknown, v).code(), ErrorCode::NotRegistered);
  DynamicQuery unbuilt;
  EXPECT_EQ(registerView(w(), unbuilt, v).code(), ErrorCode::InvalidArgument);
  for (std::uint32_t i = 0; i < kMaxViews; ++i) ASSERT_TRUE(registerView(w(), q, v).ok()) << i;
  EXPECT_EQ(v.index, kMaxViews - 1);
  EXPECT_EQ(registerView(w(), q, v).code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(viewDeltas(w(), ViewId{kMaxViews}, *std::make_unique<ViewDeltas>()).code(), ErrorCode::InvalidArgument);
}

TEST_F(ViewWorld, DynamicQueryViewWithOptionalAndFilterTerms) {
  DynamicQuery dq;
  ASSERT_TRUE(QueryBuilder(w()).read("Pos").optRead("Vel").without("Flag").build(dq).ok());
  ViewId v;
  ASSERT_TRUE(registerView(w(), dq, v).ok());
  const Entity a = w().create(), b = w().create();
  ASSERT_TRUE(w().addComponent(a, Pos{1, 1}).ok());
  ASSERT_TRUE(w().addComponent(b, Pos{2, 2}).ok());
  ASSERT_TRUE(w().updateViews().ok());
  EXPECT_EQ(lists(w(), v).added, (Ids{a, b}));
  ASSERT_TRUE(w().addComponent(a, Vel{0, 0}).ok());   // optional watched component appears: Modified
  ASSERT_TRUE(w().addComponent(b, Flag{true}).ok());  // excluded by without<Flag>: Removed
  ASSERT_TRUE(w().updateViews().ok());
  Lists l = lists(w(), v);
  EXPECT_EQ(l.modified, (Ids{a}));
  EXPECT_EQ(l.removed, (Ids{b}));
  ASSERT_TRUE(w().setEnabled<Vel>(a, false).ok());    // a watched component's enable bit: Modified
  ASSERT_TRUE(w().updateViews().ok());
  EXPECT_EQ(lists(w(), v).modified, (Ids{a}));
  ASSERT_TRUE(w().clear().ok());
  ASSERT_TRUE(w().updateViews().ok());
  l = lists(w(), v);
  EXPECT_EQ(l.removed, (Ids{a}));
  EXPECT_EQ(l.members, 0u);
}

TEST_F(ViewWorld, ASnapshotOfAWorldWithOtherViewsIsRefused) {
  World other(w().config());
  register_all(other);
  Snapshot snap(other);
  other.save(snap);
  CachedQuery<term::read<Health>> q;
  ViewId v;
  ASSERT_TRUE(registerView(w(), q, v).ok());
  EXPECT_EQ(w().load(snap).code(), ErrorCode::Mismatch);
  Snapshot mine(w());
  w().save(mine);
  EXPECT_EQ(other.load(mine).code(), ErrorCode::Mismatch);
  EXPECT_TRUE(w().load(mine).ok());
}

}  // namespace

namespace {

// A getMutable pointer kept across an update and written after it changes a watched value
// without a journal entry: the view cannot see it. checkInvariants (run after every mutation
// in Debug trees) names it.
TEST_F(WoundedView, AWriteThroughAPointerKeptAcrossAnUpdateIsCaughtByTheInvariantCheck) {
  const Entity a = unit(1);
  Health* kept = w().getMutable<Health>(a);
  ASSERT_TRUE(w().updateViews().ok());
  ASSERT_TRUE(w().checkInvariants().ok());
  kept->hp = 2;  // the misuse
  const Status s = w().checkInvariants();
  EXPECT_EQ(s.code(), ErrorCode::Internal);
  EXPECT_STREQ(s.message(), "view: a watched value changed without a journal entry");
  kept->hp = 1;  // undone: consistent again
  EXPECT_TRUE(w().checkInvariants().ok());
  w().getMutable<Health>(a)->hp = 2;  // the right way: fetched again, journalled
  EXPECT_TRUE(w().checkInvariants().ok());
  ASSERT_TRUE(w().updateViews().ok());
  EXPECT_EQ(lists(w(), view).modified, (Ids{a}));
}

}  // namespace
