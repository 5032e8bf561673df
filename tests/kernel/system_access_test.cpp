// System access enforcement (system_access.h, docs/systems.md): every access path is refused
// with the right event while an AccessSet that lacks it is installed, allowed when declared,
// and unchecked again once the scope ends.
#include "support/kernel_types.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/query/dynamic_query.h>
#include <lockstep/query/where.h>
#include <lockstep/store/system_access.h>

#include <gtest/gtest.h>

#include <string>
#include <utility>

using namespace lockstep;
using namespace lockstep_test;

namespace {

struct AccessWorld : ::testing::Test {
  World w;
  CapturingSink sink;
  Entity a, b;

  void SetUp() override {
    register_all(w);
    w.setGuardPolicy(GuardPolicy::Reject);
    w.setEventSink(&sink);
    a = w.create();
    b = w.create();
    ASSERT_TRUE(w.addComponent(a, Pos{1, 2}).ok());
    ASSERT_TRUE(w.addComponent(a, Vel{3, 4}).ok());
    ASSERT_TRUE(w.addComponent(b, Pos{5, 6}).ok());
  }
  void TearDown() override { w.setEventSink(nullptr); }

  template <class R, class W>
  AccessSet access(R r, W wr) {
    AccessSet s;
    EXPECT_TRUE(access_of(w, r, wr, "sys", s).ok());
    return s;
  }
  void expect_event(EventId id, std::int32_t component, std::int32_t resource = -1) {
    ASSERT_EQ(sink.events.size(), 1u);
    EXPECT_EQ(sink.events[0].id, id);
    EXPECT_EQ(sink.events[0].component_id, component);
    EXPECT_EQ(sink.events[0].resource_id, resource);
    ASSERT_NE(sink.events[0].system, nullptr);
    EXPECT_STREQ(sink.events[0].system, "sys");
    w.flushEventSummary();  // each event kind is reported once until the summary resets it
    sink.events.clear();
    }
};

}  // namespace

TEST_F(AccessWorld, DeclareResolvesNamesAndRefusesUnknownOnes) {
  AccessSet s;
  ASSERT_TRUE(access_of(w, Reads<Pos, Counter>{}, Writes<Vel, Commands>{}, "sys", s).ok());
  EXPECT_TRUE(s.read_components.contains(0));
  EXPECT_FALSE(s.write_components.contains(0));
  EXPECT_TRUE(s.read_components.contains(1));  // Write implies Read
  EXPECT_TRUE(s.write_components.contains(1));
  EXPECT_TRUE(s.read_resources.contains(0));
  EXPECT_FALSE(s.write_resources.contains(0));
  EXPECT_TRUE(s.commands);
  EXPECT_EQ(s.declare(w, "NoSuchType", false).code(), ErrorCode::NotRegistered);
}

TEST_F(AccessWorld, EachNeedsReadForReadTagsAndWriteForWriteTags) {
  const AccessSet s = access(Reads<Pos>{}, Writes<>{});
  World::AccessScope scope(w, &s);
  int rows = 0;
  EXPECT_TRUE(w.each<Pos>([&](Entity, const Pos&) { ++rows; }, Read{}).ok());
  EXPECT_EQ(rows, 2);
  EXPECT_TRUE(sink.events.empty());
  const Status st = w.each<Pos>([&](Entity, Pos&) { ++rows; }, Write{});
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(rows, 2);  // refused before any row
  expect_event(EventId::AccessUndeclaredWrite, 0);
  const Status both = w.each<Pos, Vel>([&](Entity, const Pos&, const Vel&) { ++rows; }, Read{}, Read{});
  EXPECT_EQ(both.code(), ErrorCode::InvalidArgument);
  expect_event(EventId::AccessUndeclaredRead, 1);
}

TEST_F(AccessWorld, GetGetMutableAndSetEnabled) {
  const AccessSet s = access(Reads<Pos>{}, Writes<Health>{});
  World::AccessScope scope(w, &s);
  ASSERT_NE(w.get<Pos>(a), nullptr);
  EXPECT_EQ(w.get<Pos>(a)->y, 2);
  EXPECT_TRUE(w.has<Vel>(a));  // presence needs no declaration
  EXPECT_TRUE(sink.events.empty());
  EXPECT_EQ(w.get<Vel>(a), nullptr);
  expect_event(EventId::AccessUndeclaredRead, 1);
  EXPECT_EQ(w.getMutable<Pos>(a), nullptr);  // declared Read only
  expect_event(EventId::AccessUndeclaredWrite, 0);
  EXPECT_EQ(w.setEnabled<Pos>(a, false).code(), ErrorCode::InvalidArgument);
  expect_event(EventId::AccessUndeclaredWrite, 0);
  EXPECT_TRUE(w.isEnabled<Pos>(a));
}

TEST_F(AccessWorld, DirectStructuralChangesNeedWrite) {
  const AccessSet s = access(Reads<Pos>{}, Writes<Vel>{});
  {
    World::AccessScope scope(w, &s);
    EXPECT_EQ(w.addComponent(b, Health{1, 1}).code(), ErrorCode::InvalidArgument);
    expect_event(EventId::AccessUndeclaredWrite, 2);
      EXPECT_TRUE(w.addComponent(b, Vel{7, 7}).ok());
    EXPECT_TRUE(w.removeComponent<Vel>(b).ok());
    EXPECT_EQ(w.removeComponent<Pos>(b).code(), ErrorCode::InvalidArgument);
    expect_event(EventId::AccessUndeclaredWrite, 0);
      // destroy writes every component the entity holds: b has Pos (Read only here)
    EXPECT_EQ(w.destroy(b).code(), ErrorCode::InvalidArgument);
    expect_event(EventId::AccessUndeclaredWrite, 0);
    EXPECT_TRUE(w.alive(b));
    const Entity c = w.create();  // needs nothing
    EXPECT_TRUE(w.alive(c));
    EXPECT_TRUE(w.destroy(c).ok());  // holds nothing
      EXPECT_EQ(w.clear().code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(w.entityCount(), 2u);
  }
  EXPECT_TRUE(w.destroy(b).ok());  // unchecked after the scope
}

TEST_F(AccessWorld, ResourcesNeedReadForConstAndWriteForMutable) {
  const AccessSet reader = access(Reads<Counter>{}, Writes<>{});
  {
    World::AccessScope scope(w, &reader);
    ASSERT_NE(w.readResource<Counter>(), nullptr);
    ASSERT_NE(std::as_const(w).resource<Counter>(), nullptr);
    EXPECT_TRUE(sink.events.empty());
  }
  const AccessSet none = access(Reads<>{}, Writes<>{});
  {
    World::AccessScope scope(w, &none);
    EXPECT_EQ(w.readResource<Counter>(), nullptr);
    expect_event(EventId::AccessUndeclaredResource, -1, 0);
    ASSERT_EQ(w.resource<Counter>(), nullptr);  // the mutable form too: nothing was declared
    ASSERT_EQ(sink.events.size(), 1u);
    EXPECT_STREQ(sink.events[0].type_name, "Counter");
    EXPECT_STREQ(sink.events[0].declared, "none");
    w.flushEventSummary();
    sink.events.clear();
  }
  const AccessSet writer = access(Reads<>{}, Writes<Counter>{});
  World::AccessScope scope(w, &writer);
  ASSERT_NE(w.resource<Counter>(), nullptr);
  w.resource<Counter>()->value = 9;
  EXPECT_EQ(w.readResource<Counter>()->value, 9u);
}

// Issue 22: a system written before access checks reads a resource it declared Read through
// the mutable resource<T>() of its World&. It used to get null (and crash); it is served, the
// resource is marked written for incremental hashing, and one warning names the system, the
// resource and its declared access.
TEST_F(AccessWorld, MutableResourceOfAReadDeclaredResourceIsServedWithOneWarning) {
  const AccessSet reader = access(Reads<Counter>{}, Writes<>{});
  World::AccessScope scope(w, &reader);
  Counter* c = w.resource<Counter>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c, w.readResource<Counter>());
  ASSERT_EQ(sink.events.size(), 1u);
  const Event& ev = sink.events[0];
  EXPECT_EQ(ev.id, EventId::AccessResourceMutableDeclaredRead);
  EXPECT_EQ(ev.severity, Severity::Warn);
  EXPECT_STREQ(to_string(ev.id), "access_mutable_resource_declared_read");
  EXPECT_STREQ(ev.subsystem, "access");
  EXPECT_STREQ(ev.system, "sys");
  EXPECT_STREQ(ev.type_name, "Counter");
  EXPECT_STREQ(ev.declared, "read");
  EXPECT_EQ(ev.resource_id, 0);
  EXPECT_EQ(ev.component_id, -1);
  ASSERT_NE(w.resource<Counter>(), nullptr);  // once per world: the second call is counted only
  EXPECT_EQ(sink.events.size(), 1u);
  w.flushEventSummary();
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.events[1].id, EventId::RateLimited);
  EXPECT_EQ(sink.events[1].summarised, EventId::AccessResourceMutableDeclaredRead);
  EXPECT_EQ(sink.events[1].suppressed, 1u);
}

TEST_F(AccessWorld, UndeclaredEventsNameTheTypeAndWhatWasDeclared) {
  const AccessSet s = access(Reads<Pos>{}, Writes<>{});
  World::AccessScope scope(w, &s);
  EXPECT_EQ(w.getMutable<Pos>(a), nullptr);
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].id, EventId::AccessUndeclaredWrite);
  EXPECT_STREQ(sink.events[0].type_name, "Pos");
  EXPECT_STREQ(sink.events[0].declared, "read");
  EXPECT_EQ(w.get<Vel>(a), nullptr);
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_STREQ(sink.events[1].type_name, "Vel");
  EXPECT_STREQ(sink.events[1].declared, "none");
}

// The warning refuses nothing, so it never aborts, whatever the policy (Debug trees abort on
// violations).
TEST(AccessAbortPolicy, MutableResourceOfAReadDeclaredResourceDoesNotAbort) {
  World w;
  register_all(w);
  w.setGuardPolicy(GuardPolicy::Abort);
  CapturingSink sink;
  w.setEventSink(&sink);
  AccessSet s;
  ASSERT_TRUE(access_of(w, Reads<Counter>{}, Writes<>{}, "orbit.move", s).ok());
  {
    World::AccessScope scope(w, &s);
    Counter* c = w.resource<Counter>();
    ASSERT_NE(c, nullptr);
    c->value = 5;
  }
  EXPECT_EQ(w.readResource<Counter>()->value, 5u);
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_STREQ(sink.events[0].system, "orbit.move");
  w.setEventSink(nullptr);
}

// The stderr line names the system, the resource and its declared access.
TEST(AccessStderrSink, LineNamesSystemResourceAndDeclaredAccess) {
  Event ev;
  ev.subsystem = "access";
  ev.id = EventId::AccessResourceMutableDeclaredRead;
  ev.system = "orbit.move";
  ev.resource_id = 0;
  ev.type_name = "Thrust";
  ev.declared = "read";
  ::testing::internal::CaptureStderr();
  stderr_event_sink().on_event(ev);
  const std::string line = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(line,
            "lockstep access warn: access_mutable_resource_declared_read system=orbit.move resource=Thrust "
            "declared=read (served: read it with readResource<T>() or const World&, or declare it Write) "
            "entity_id=0 generation=0 component_id=-1 resource_id=0\n");
}

TEST_F(AccessWorld, CommandBufferNeedsCommandsAndWriteOfRecordedComponents) {
  const AccessSet no_commands = access(Reads<>{}, Writes<Pos>{});
  {
    World::AccessScope scope(w, &no_commands);
    EXPECT_TRUE(w.commands().create().is_null());
    expect_event(EventId::AccessUndeclaredCommands, -1);
    EXPECT_EQ(w.commands().destroy(a).code(), ErrorCode::InvalidArgument);
    expect_event(EventId::AccessUndeclaredCommands, -1);
    EXPECT_EQ(w.commands().size(), 0u);
  }
  const AccessSet commands = access(Reads<>{}, Writes<Pos, Commands>{});
  {
    World::AccessScope scope(w, &commands);
    const Entity e = w.commands().create();
    ASSERT_FALSE(e.is_null());
    EXPECT_TRUE(w.commands().addComponent(e, Pos{9, 9}).ok());
    EXPECT_EQ(w.commands().addComponent(e, Vel{1, 1}).code(), ErrorCode::InvalidArgument);
    expect_event(EventId::AccessUndeclaredWrite, 1);
    EXPECT_TRUE(w.commands().destroy(b).ok());  // deferred destroy needs Commands only
    w.commands().post_remove<Vel>(a);
    EXPECT_EQ(w.commands().dropped(), 1u);
  }
  w.commands().post_remove<Vel>(a);  // unchecked after the scope
  EXPECT_EQ(w.commands().size(), 4u);
}

TEST_F(AccessWorld, CachedAndDynamicQueriesAreChecked) {
  CachedQuery<term::read<Pos>, term::write<Vel>> cached;
  DynamicQuery dynamic;
  ASSERT_TRUE(QueryBuilder(w).read("Pos").write("Vel").build(dynamic).ok());
  const AccessSet s = access(Reads<Pos, Vel>{}, Writes<>{});
  World::AccessScope scope(w, &s);
  int rows = 0;
  EXPECT_EQ(cached.each(w, [&](Entity, const Pos&, Vel&) { ++rows; }).code(), ErrorCode::InvalidArgument);
  expect_event(EventId::AccessUndeclaredWrite, 1);
  EXPECT_EQ(dynamic.each(w, [&](const DynamicRow&) { ++rows; }).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(rows, 0);
  // Filter terms need no declaration.
  CachedQuery<term::read<Pos>, term::none<Health>, term::with<Vel>> filtered;
  EXPECT_TRUE(filtered.each(w, [&](Entity, const Pos&) { ++rows; }).ok());
  EXPECT_EQ(rows, 1);
}

TEST_F(AccessWorld, PredicateWalksNeedReadOfThePredicateComponents) {
  CachedQuery<term::read<Pos>> q;
  const Predicate on_vel = field(&Vel::x) > 0;
  const Predicate on_pos = field(&Pos::x) > 1;
  const AccessSet s = access(Reads<Pos>{}, Writes<>{});
  World::AccessScope scope(w, &s);
  std::uint64_t n = 7;
  EXPECT_EQ(count_where(q, w, on_vel, n).code(), ErrorCode::InvalidArgument);
  expect_event(EventId::AccessUndeclaredRead, 1);
  ASSERT_TRUE(count_where(q, w, on_pos, n).ok());
  EXPECT_EQ(n, 1u);  // b (x = 5); a has x = 1
  CachedQuery<term::write<Pos>> writer;
  EXPECT_EQ(each_where(writer, w, on_pos, [](Entity, Pos&) {}).code(), ErrorCode::InvalidArgument);
  expect_event(EventId::AccessUndeclaredWrite, 0);
}

TEST_F(AccessWorld, ScopesNestAndRestore) {
  const AccessSet outer = access(Reads<Pos>{}, Writes<>{});
  const AccessSet inner = access(Reads<Vel>{}, Writes<>{});
  World::AccessScope s1(w, &outer);
  {
    World::AccessScope s2(w, &inner);
    EXPECT_EQ(w.access(), &inner);
    EXPECT_EQ(w.get<Pos>(a), nullptr);
  }
  EXPECT_EQ(w.access(), &outer);
  EXPECT_NE(w.get<Pos>(a), nullptr);
  {
    World::AccessScope off(w, nullptr);
    EXPECT_NE(w.get<Vel>(a), nullptr);
  }
}

TEST(AccessAbortPolicy, UndeclaredAccessAbortsWithFileAndLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        World w;
        register_all(w);
        w.setGuardPolicy(GuardPolicy::Abort);
        const Entity e = w.create();
        (void)w.addComponent(e, Pos{1, 1});
        AccessSet s;
        (void)access_of(w, Reads<Vel>{}, Writes<>{}, "sys", s);
        World::AccessScope scope(w, &s);
        (void)w.get<Pos>(e);
      },
      "lockstep assertion failed: access_undeclared_read");
}
