// Observers (observers.h, docs/observers.md): what fires when, in which order, what an
// observer may do (structural changes only through the command buffer, applied by a
// follow-up round of the same flush) and its access check.
#include "support/kernel_types.h"

#include <lockstep/store/observers.h>
#include <lockstep/store/system_access.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

// The test's log lives outside the world: observers of a sim keep their state in the world.
struct Fired {
  std::string what;
  std::uint32_t slot;
  std::uint32_t generation;
  std::int64_t seen;  // Pos.x at the time of the call (or -1 when absent)
  friend bool operator==(const Fired&, const Fired&) = default;
};
std::vector<Fired> g_log;

std::int64_t pos_x(World& w, Entity e) {
  const Pos* p = w.get<Pos>(e);
  return p != nullptr ? p->x : -1;
}
template <const char* Name>
void logger(World& w, Entity e) {
  g_log.push_back({Name, e.slot, e.generation, pos_x(w, e)});
}
constexpr char kAddPos[] = "add Pos", kRemovePos[] = "remove Pos", kSetPos[] = "set Pos";
constexpr char kAddVel[] = "add Vel", kRemoveVel[] = "remove Vel", kSetVel[] = "set Vel";

struct ObserverWorld : ::testing::Test {
  World w;
  CapturingSink sink;
  AccessSet reads_pos;

  void SetUp() override {
    g_log.clear();
    register_all(w);
    w.setGuardPolicy(GuardPolicy::Reject);
    w.setEventSink(&sink);
    ASSERT_TRUE(access_of(w, Reads<Pos>{}, Writes<Commands>{}, "logger", reads_pos).ok());
    ASSERT_TRUE(w.observe<Pos>(ObserverEvent::OnAdd, logger<kAddPos>, reads_pos).ok());
    ASSERT_TRUE(w.observe<Pos>(ObserverEvent::OnRemove, logger<kRemovePos>, reads_pos).ok());
    ASSERT_TRUE(w.observe<Pos>(ObserverEvent::OnSet, logger<kSetPos>, reads_pos).ok());
    ASSERT_TRUE(w.observe<Vel>(ObserverEvent::OnAdd, logger<kAddVel>, reads_pos).ok());
    ASSERT_TRUE(w.observe<Vel>(ObserverEvent::OnRemove, logger<kRemoveVel>, reads_pos).ok());
    ASSERT_TRUE(w.observe<Vel>(ObserverEvent::OnSet, logger<kSetVel>, reads_pos).ok());
  }
  void TearDown() override { w.setEventSink(nullptr); }
};

}  // namespace

TEST_F(ObserverWorld, DirectCallsFireAtTheCall) {
  const Entity e = w.create();
  EXPECT_TRUE(g_log.empty());
  ASSERT_TRUE(w.addComponent(e, Pos{7, 0}).ok());
  ASSERT_TRUE(w.addComponent(e, Pos{8, 0}).ok());  // existing: OnSet only
  ASSERT_TRUE(w.addComponent(e, Vel{1, 1}).ok());
  (void)w.getMutable<Pos>(e)->x++;                  // in-place write: nothing
  ASSERT_TRUE(w.removeComponent<Vel>(e).ok());      // before the removal: Pos still readable
  ASSERT_TRUE(w.addComponent(e, Vel{2, 2}).ok());
  ASSERT_TRUE(w.destroy(e).ok());                   // every component, id order, before
  const std::vector<Fired> expected = {
      {"add Pos", e.slot, e.generation, 7}, {"set Pos", e.slot, e.generation, 7},
      {"set Pos", e.slot, e.generation, 8}, {"add Vel", e.slot, e.generation, 8},
      {"set Vel", e.slot, e.generation, 8}, {"remove Vel", e.slot, e.generation, 9},
      {"add Vel", e.slot, e.generation, 9}, {"set Vel", e.slot, e.generation, 9},
      {"remove Pos", e.slot, e.generation, 9}, {"remove Vel", e.slot, e.generation, 9}};
  EXPECT_EQ(g_log, expected);
  EXPECT_TRUE(sink.events.empty());
}

TEST_F(ObserverWorld, FlushFiresNetEffectRemovesFirstThenAddsThenSetsByComponentThenSlot) {
  const Entity a = w.create(), b = w.create(), c = w.create();
  ASSERT_TRUE(w.addComponent(a, Pos{1, 0}).ok());
  ASSERT_TRUE(w.addComponent(b, Pos{2, 0}).ok());
  ASSERT_TRUE(w.addComponent(b, Vel{2, 0}).ok());
  ASSERT_TRUE(w.addComponent(c, Pos{3, 0}).ok());
  g_log.clear();
  CommandBuffer& cmd = w.commands();
  const Entity n = cmd.create();  // before the destroy: takes a never-used slot, not b's
  ASSERT_TRUE(cmd.addComponent(c, Vel{30, 0}).ok());   // c gains Vel
  ASSERT_TRUE(cmd.destroy(b).ok());                    // b loses Pos and Vel
  ASSERT_TRUE(cmd.addComponent(a, Pos{10, 0}).ok());   // a: set Pos
  ASSERT_TRUE(cmd.addComponent(a, Vel{1, 0}).ok());    // a: add + remove Vel cancel out
  ASSERT_TRUE(cmd.removeComponent<Vel>(a).ok());
  ASSERT_TRUE(cmd.addComponent(n, Pos{40, 0}).ok());
  ASSERT_TRUE(w.flush().ok());
  const Entity made{3, 1};  // the first never-used slot
  ASSERT_TRUE(w.alive(made));
  const std::vector<Fired> expected = {
      // before the flush applies anything: values still readable
      {"remove Pos", b.slot, b.generation, 2}, {"remove Vel", b.slot, b.generation, 2},
      // after: adds by component id then slot, then sets
      {"add Pos", made.slot, made.generation, 40}, {"add Vel", c.slot, c.generation, 3},
      {"set Pos", a.slot, a.generation, 10}, {"set Pos", made.slot, made.generation, 40},
      {"set Vel", c.slot, c.generation, 3}};
  EXPECT_EQ(g_log, expected);
}

namespace {
void destroy_directly(World& w, Entity e) { g_log.push_back({"direct", e.slot, w.destroy(e).ok() ? 1u : 0u, -1}); }
void create_directly(World& w, Entity e) { g_log.push_back({"create", e.slot, w.create().is_null() ? 0u : 1u, -1}); }
void spawn_child(World& w, Entity e) {
  // Every Pos added spawns one more with x + 1, until x reaches 3: three follow-up rounds.
  const Pos* p = w.get<Pos>(e);
  if (p == nullptr || p->x >= 3) return;
  const Entity child = w.commands().create();
  (void)w.commands().addComponent(child, Pos{p->x + 1, 0});
}
void spawn_forever(World& w, Entity) { (void)w.commands().addComponent(w.commands().create(), Pos{0, 0}); }
}  // namespace

TEST(Observers, StructuralChangesInsideAnObserverAreRefusedDirectly) {
  g_log.clear();
  World w;
  register_all(w);
  CapturingSink sink;
  w.setEventSink(&sink);
  w.setGuardPolicy(GuardPolicy::Reject);
  AccessSet all;
  ASSERT_TRUE(access_of(w, Reads<>{}, Writes<Pos, Vel, Health, Flag, Link, Commands>{}, "obs", all).ok());
  ASSERT_TRUE(w.observe<Vel>(ObserverEvent::OnAdd, destroy_directly, all).ok());
  ASSERT_TRUE(w.observe<Vel>(ObserverEvent::OnSet, create_directly, all).ok());
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponent(e, Vel{1, 1}).ok());
  ASSERT_EQ(g_log.size(), 2u);
  EXPECT_EQ(g_log[0].generation, 0u);  // destroy refused
  EXPECT_EQ(g_log[1].generation, 0u);  // create refused
  EXPECT_TRUE(w.alive(e));
  EXPECT_EQ(w.entityCount(), 1u);
  ASSERT_EQ(sink.events.size(), 1u);  // reported once, the repeat counted
  EXPECT_EQ(sink.events[0].id, EventId::IterationMutation);
  w.setEventSink(nullptr);
}

TEST(Observers, BufferedChangesOfObserversApplyInFollowUpRoundsOfTheSameFlush) {
  World w;
  register_all(w);
  AccessSet access;
  ASSERT_TRUE(access_of(w, Reads<Pos>{}, Writes<Pos, Commands>{}, "spawn", access).ok());
  ASSERT_TRUE(w.observe<Pos>(ObserverEvent::OnAdd, spawn_child, access).ok());
  const Entity e = w.commands().create();
  ASSERT_TRUE(w.commands().addComponent(e, Pos{0, 0}).ok());
  ASSERT_TRUE(w.flush().ok());
  EXPECT_EQ(w.entityCount(), 4u);  // x = 0, 1, 2, 3: three follow-up rounds
  EXPECT_TRUE(w.commands().empty());
  std::vector<std::int64_t> xs;
  ASSERT_TRUE(w.each<Pos>([&](Entity, const Pos& p) { xs.push_back(p.x); }, Read{}).ok());
  EXPECT_EQ(xs, (std::vector<std::int64_t>{0, 1, 2, 3}));
  // A direct add fires at the call; the observer's commands wait in the world's buffer.
  ASSERT_TRUE(w.addComponent(w.create(), Pos{2, 0}).ok());
  EXPECT_EQ(w.entityCount(), 5u);
  EXPECT_EQ(w.commands().size(), 2u);
  ASSERT_TRUE(w.flush().ok());
  EXPECT_EQ(w.entityCount(), 6u);
}

TEST(Observers, EndlessObserverCascadesStopAfterTheRoundLimit) {
  World w;
  register_all(w);
  AccessSet access;
  ASSERT_TRUE(access_of(w, Reads<>{}, Writes<Pos, Commands>{}, "forever", access).ok());
  ASSERT_TRUE(w.observe<Pos>(ObserverEvent::OnAdd, spawn_forever, access).ok());
  (void)w.commands().addComponent(w.commands().create(), Pos{0, 0});
  const Status s = w.flush();
  EXPECT_EQ(s.code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(w.entityCount(), 1u + kMaxObserverRounds);
  EXPECT_TRUE(w.checkInvariants().ok());
}

TEST(Observers, ObserversRunWithTheirDeclaredAccess) {
  g_log.clear();
  World w;
  register_all(w);
  CapturingSink sink;
  w.setEventSink(&sink);
  w.setGuardPolicy(GuardPolicy::Reject);
  AccessSet vel_only;
  ASSERT_TRUE(access_of(w, Reads<Vel>{}, Writes<>{}, "vel-only", vel_only).ok());
  ASSERT_TRUE(w.observe<Vel>(ObserverEvent::OnAdd, logger<kAddVel>, vel_only).ok());
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponent(e, Pos{5, 0}).ok());
  ASSERT_TRUE(w.addComponent(e, Vel{1, 1}).ok());
  ASSERT_EQ(g_log.size(), 1u);
  EXPECT_EQ(g_log[0].seen, -1);  // get<Pos> refused: not declared
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].id, EventId::AccessUndeclaredRead);
  EXPECT_STREQ(sink.events[0].system, "vel-only");
  EXPECT_EQ(w.access(), nullptr);  // restored after the observer
  w.setEventSink(nullptr);
}

TEST(Observers, RegistrationIsCheckedAndCapped) {
  World w;
  register_all(w);
  AccessSet none;
  EXPECT_EQ(w.observe_id(ObserverEvent::OnAdd, 99, logger<kAddPos>, none).code(), ErrorCode::NotRegistered);
  EXPECT_EQ(w.observe<Pos>(ObserverEvent::OnAdd, nullptr, none).code(), ErrorCode::InvalidArgument);
  for (std::uint32_t i = 0; i < kMaxObservers; ++i) ASSERT_TRUE(w.observe<Pos>(ObserverEvent::OnSet, logger<kSetPos>, none).ok());
  EXPECT_EQ(w.observe<Pos>(ObserverEvent::OnSet, logger<kSetPos>, none).code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(w.observerCount(), kMaxObservers);
}
