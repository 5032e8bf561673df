// World::ConcurrentStage and World::Lane (world.h, docs/systems.md "Concurrent stages"):
// per-thread access checks and iteration guards, every structural and world-wide change
// refused by name inside a stage, the write marks stamped before and frozen during it, and the
// cases where a stage does not go concurrent.
#include "support/kernel_types.h"

#include <lockstep/exec/thread_pool.h>
#include <lockstep/query/view.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

// Events from several threads: the sink takes a lock (sinks of a world that runs concurrent
// stages must accept calls from several threads).
struct LockedSink final : EventSink {
  std::mutex lock;
  std::vector<std::string> lines;
  void on_event(const Event& e) noexcept override {
    const std::lock_guard<std::mutex> hold(lock);
    lines.push_back(std::string(to_string(e.id)) + " " + (e.system != nullptr ? e.system : "-") + " " +
                    (e.operation != nullptr ? e.operation : (e.type_name != nullptr ? e.type_name : "-")));
  }
  std::vector<std::string> sorted() {
    const std::lock_guard<std::mutex> hold(lock);
    std::vector<std::string> out = lines;
    std::sort(out.begin(), out.end());
    return out;
  }
};

struct ParallelLanes : ::testing::Test {
  ParallelLanes() : world(config()), pool(2) {
    register_all(world);
    world.setGuardPolicy(GuardPolicy::Reject);
    for (int i = 0; i < 100; ++i) entities.push_back(world.createWith(Pos{i, 0}, Vel{1, 2}, Health{i, 100}));
    EXPECT_TRUE(writes_pos.declare(world, "Pos", true).ok());
    EXPECT_TRUE(writes_pos.declare(world, "Vel", false).ok());
    EXPECT_TRUE(writes_health.declare(world, "Health", true).ok());
    EXPECT_TRUE(writes_health.declare(world, "Counter", true).ok());
    writes_pos.name = "lane.pos";
    writes_health.name = "lane.health";
    world.setEventSink(&sink);
  }
  ~ParallelLanes() override { world.setEventSink(nullptr); }
  static WorldConfig config() {
    WorldConfig c;
    c.max_entities = 256;
    return c;
  }
  // Runs f0 on pool task 0 in a Lane of writes_pos and f1 on task 1 in a Lane of
  // writes_health, inside one stage. False when the stage did not go concurrent.
  template <class F0, class F1>
  bool run_stage(F0 f0, F1 f1) {
    const AccessSet* sets[2] = {&writes_pos, &writes_health};
    World::ConcurrentStage stage(world, sets, 2);
    if (!stage.active()) return false;
    EXPECT_TRUE(world.inConcurrentStage());
    auto task = [&](std::uint32_t k) {
      const World::Lane lane(world, sets[k]);
      if (k == 0) f0(world);
      else f1(world);
    };
    pool.for_each(2, task);
    return true;
  }
  World world;
  ThreadPool pool;
  std::vector<Entity> entities;
  AccessSet writes_pos;
  AccessSet writes_health;
  LockedSink sink;
};

TEST_F(ParallelLanes, EachLaneChecksItsOwnDeclarations) {
  const Entity e = entities[7];
  bool pos_read_health = true, health_read_health = false, health_read_pos = true;
  ASSERT_TRUE(run_stage(
      [&](World& w) {
        (void)w.each<Pos, Vel>([](Entity, Pos& p, const Vel& v) { p.x += v.x; }, Write{}, Read{});
        pos_read_health = w.get<Health>(e) != nullptr;  // not declared by lane.pos
      },
      [&](World& w) {
        (void)w.each<Health>([](Entity, Health& h) { h.hp += 1; }, Write{});
        health_read_health = w.get<Health>(e) != nullptr;
        health_read_pos = w.getMutable<Pos>(e) != nullptr;  // not declared by lane.health
        w.resource<Counter>()->value += 1;
      }));
  EXPECT_FALSE(world.inConcurrentStage());
  EXPECT_EQ(world.access(), nullptr);  // the caller's own call state was never touched
  EXPECT_FALSE(pos_read_health);
  EXPECT_TRUE(health_read_health);
  EXPECT_FALSE(health_read_pos);
  EXPECT_EQ(sink.sorted(), (std::vector<std::string>{"access_undeclared_read lane.pos Health",
                                                     "access_undeclared_write lane.health Pos"}));
  EXPECT_EQ(world.get<Pos>(e)->x, 8);
  EXPECT_EQ(world.get<Health>(e)->hp, 8);
  EXPECT_EQ(world.readResource<Counter>()->value, 1u);
}

TEST_F(ParallelLanes, EachLaneHasItsOwnIterationGuard) {
  bool nested_refused = false, iterating_inside = false, other_lane_iterating = true;
  std::uint32_t visited = 0;
  ASSERT_TRUE(run_stage(
      [&](World& w) {
        (void)w.each<Pos>([&](Entity, const Pos&) {
          iterating_inside = w.iterating();
          if (!nested_refused) nested_refused = !w.each<Vel>([](Entity, const Vel&) {}, Read{}).ok();
        }, Read{});
      },
      [&](World& w) {
        // Not inside lane.pos's query: this lane iterates freely, whenever it runs.
        other_lane_iterating = w.iterating();
        (void)w.each<Health>([&](Entity, const Health&) { ++visited; }, Read{});
      }));
  EXPECT_TRUE(iterating_inside);
  EXPECT_TRUE(nested_refused);
  EXPECT_FALSE(other_lane_iterating);
  EXPECT_EQ(visited, 100u);
  EXPECT_FALSE(world.iterating());
  EXPECT_EQ(sink.sorted(), (std::vector<std::string>{"iteration_nested - -"}));
}

TEST_F(ParallelLanes, EveryStructuralAndWorldWideChangeIsRefusedByName) {
  const Entity e = entities[3];
  const std::uint32_t count = world.entityCount();
  struct Case {
    const char* operation;
    Status (*call)(World&, Entity);
  };
  const Case cases[] = {
      {"create", [](World& w, Entity) { Entity out = w.create(); return out.is_null() ? Status{ErrorCode::InvalidArgument, "null"} : Status::Ok(); }},
      {"createWith", [](World& w, Entity) { Entity out; return w.tryCreateWith(out, Pos{1, 1}); }},
      {"destroy", [](World& w, Entity x) { return w.destroy(x); }},
      {"addComponent", [](World& w, Entity x) { return w.addComponent(x, Flag{true}); }},
      {"addComponents", [](World& w, Entity x) { return w.addComponents(x, Flag{true}, Link{Entity::null()}); }},
      {"removeComponent", [](World& w, Entity x) { return w.removeComponent<Vel>(x); }},
      {"setEnabled", [](World& w, Entity x) { return w.setEnabled<Pos>(x, false); }},
      {"flush", [](World& w, Entity) { return w.flush(); }},
      {"clear", [](World& w, Entity) { return w.clear(); }},
      {"updateViews", [](World& w, Entity) { return w.updateViews(); }},
      {"trackChanges", [](World& w, Entity) { return w.trackChanges<Pos>(); }},
      {"register", [](World& w, Entity) { return w.registerScratch<Counter>(4); }},
      {"beginTick", [](World& w, Entity) { w.beginTick(); return Status{ErrorCode::InvalidArgument, "void"}; }},
  };
  std::vector<std::string> expected;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.operation);
    Status result;
    ASSERT_TRUE(run_stage([&](World& w) { result = c.call(w, e); }, [](World&) {}));
    EXPECT_EQ(result.code(), ErrorCode::InvalidArgument);
    world.flushEventSummary();  // the next refusal reaches the sink again (first of its kind)
    expected.push_back(std::string("concurrent_stage_change lane.pos ") + c.operation);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(sink.sorted(), expected);
  EXPECT_EQ(world.entityCount(), count);
  EXPECT_TRUE(world.has<Vel>(e));
  EXPECT_FALSE(world.has<Flag>(e));
  EXPECT_TRUE(world.isEnabled<Pos>(e));
  EXPECT_EQ(world.scratchBytes(), 0u);
  // After the stage the same calls work.
  EXPECT_TRUE(world.removeComponent<Vel>(e).ok());
  EXPECT_TRUE(world.destroy(e).ok());
}

TEST_F(ParallelLanes, WriteMarksOfTheDeclaredWritesAreStampedBeforeAndFrozenDuring) {
  const detail::WriteMarks& marks = world.writeMarks();
  const std::uint64_t clock = marks.clock;
  const std::uint64_t vel = marks.component[1];
  std::uint64_t clock_inside = 0;
  ASSERT_TRUE(run_stage([&](World& w) { (void)w.getMutable<Pos>(entities[0]); },
                        [&](World& w) {
                          (void)w.getMutable<Health>(entities[0]);
                          clock_inside = w.writeMarks().clock;
                        }));
  EXPECT_GT(marks.component[0], clock);     // Pos (lane.pos writes it)
  EXPECT_GT(marks.component[2], clock);     // Health (lane.health)
  EXPECT_GT(marks.resource[0], clock);      // Counter (lane.health)
  EXPECT_EQ(marks.component[1], vel);       // Vel: only read
  EXPECT_EQ(clock_inside, marks.clock);     // nothing stamped while the lanes ran
  EXPECT_FALSE(marks.frozen);
  const std::uint64_t after = marks.clock;
  (void)world.getMutable<Vel>(entities[0]);
  EXPECT_GT(marks.component[1], after);  // stamping again once the stage is over
}

void count_adds(World& w, Entity) { ++w.resource<Counter>()->value; }

TEST_F(ParallelLanes, AStageDoesNotGoConcurrentWithObserversInsideAQueryOrWithUnknownAccess) {
  {
    const AccessSet* one[1] = {&writes_pos};
    World::ConcurrentStage stage(world, one, 1);
    EXPECT_FALSE(stage.active());  // one system: nothing to run at once
  }
  {
    const AccessSet* unknown[2] = {&writes_pos, nullptr};
    World::ConcurrentStage stage(world, unknown, 2);
    EXPECT_FALSE(stage.active());
  }
  bool inside_active = true;
  (void)world.each<Pos>([&](Entity, const Pos&) {
    const AccessSet* sets[2] = {&writes_pos, &writes_health};
    World::ConcurrentStage stage(world, sets, 2);
    inside_active = stage.active();
  }, Read{});
  EXPECT_FALSE(inside_active);
  AccessSet observer;
  ASSERT_TRUE(observer.declare(world, "Counter", true).ok());
  ASSERT_TRUE(world.observe<Flag>(ObserverEvent::OnAdd, &count_adds, observer).ok());
  EXPECT_FALSE(run_stage([](World&) {}, [](World&) {}));
  EXPECT_FALSE(world.inConcurrentStage());
}

}  // namespace
