// Systems that report failure (SystemFn with a Status return) and fire-and-forget command
// buffer records (CommandBuffer::post_*): the runner stops the tick and names the system, or
// the dropped commands.
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

struct Step {
  std::int32_t add;
};
LOCKSTEP_COMPONENT(Step, add);
struct Meter {
  std::int64_t level;
  std::int64_t limit;
};
LOCKSTEP_COMPONENT(Meter, level, limit);
struct Tag {
  std::uint32_t n;
};
LOCKSTEP_COMPONENT(Tag, n);

void fill(lockstep::World& w) {  // a plain void system, as before
  Meter& m = *w.resource<Meter>();
  m.level += w.readResource<Step>()->add;
}
lockstep::Status check_limit(lockstep::World& w) {  // a fallible system
  const Meter& m = *w.readResource<Meter>();
  if (m.level > m.limit) return {lockstep::ErrorCode::InvalidArgument, "meter above its limit"};
  return lockstep::Status::Ok();
}
void spawn_tags(lockstep::World& w) {  // fire-and-forget records, no Status to check
  lockstep::CommandBuffer& cmd = w.commands();
  for (std::uint32_t i = 0; i < 3; ++i) {
    const lockstep::Entity e = cmd.create();
    cmd.post_add(e, Tag{i});
  }
}

class MeterSim final : public lockstep::replay::Sim {
 public:
  std::string_view name() const noexcept override { return "meter"; }
  std::uint32_t version() const noexcept override { return 1; }
  const lockstep::TypeDescriptor& input_type() const noexcept override { return lockstep::describe<Step>(); }
  lockstep::WorldConfig world_config(const lockstep::replay::SimConfig& c) const noexcept override {
    lockstep::WorldConfig wc;
    wc.max_entities = 64;
    wc.command_capacity = c.params[0] == 0 ? 64 : c.params[0];  // params[0]: a tiny buffer
    return wc;
  }
  lockstep::Status setup(lockstep::World& w, lockstep::replay::SystemList& systems) const noexcept override {
    lockstep::Status s = w.registerComponent<Tag>();
    if (s.ok()) s = w.registerResource<Meter>();
    if (s.ok()) s = w.registerResource<Step>();
    if (s.ok()) s = systems.add({"meter.fill", &fill, {"Step"}, {"Meter"}});
    if (s.ok()) s = systems.add({"meter.check", &check_limit, {"Meter"}, {}});
    if (s.ok()) s = systems.add({"meter.tags", &spawn_tags, {}, {"Tag", lockstep::kCommandsAccessName}});
    return s;
  }
  lockstep::Status init(lockstep::World& w, const lockstep::replay::SimConfig& c) const noexcept override {
    w.resource<Meter>()->limit = static_cast<std::int64_t>(c.units);
    return lockstep::Status::Ok();
  }
  void apply_inputs(lockstep::World& w, std::span<const std::byte> in) const noexcept override {
    std::memcpy(w.resource<Step>(), in.data(), sizeof(Step));
  }
  std::unique_ptr<lockstep::replay::Bot> make_bot(const lockstep::replay::SimConfig&, std::uint64_t,
                                                  std::uint32_t) const override {
    return nullptr;
  }
};

std::span<const std::byte> frame(const Step& s) { return {reinterpret_cast<const std::byte*>(&s), sizeof s}; }

TEST(FallibleSystems, AFailingSystemStopsTheTickAndIsNamed) {
  MeterSim sim;
  lockstep::replay::SimConfig c;
  c.players = 1;
  c.units = 25;  // the limit
  lockstep::replay::Runner r(sim, c);
  ASSERT_TRUE(r.status().ok()) << r.status().message();
  const Step step{10};
  ASSERT_TRUE(r.step(frame(step)).ok());  // level 10
  ASSERT_TRUE(r.step(frame(step)).ok());  // level 20
  EXPECT_EQ(r.world().entityCount(), 6u);
  const lockstep::Status s = r.step(frame(step));  // level 30 > 25 during tick 2
  EXPECT_EQ(s.code(), lockstep::ErrorCode::InvalidArgument);
  EXPECT_EQ(std::string(s.message()), "system 'meter.check' failed at tick 2: meter above its limit");
  // Stopped before the flush and the tick advance: the later system did not run.
  EXPECT_EQ(r.world().tick(), 2u);
  EXPECT_EQ(r.world().entityCount(), 6u);
  EXPECT_EQ(r.world().resource<Meter>()->level, 30);
}

TEST(FallibleSystems, DroppedFireAndForgetCommandsFailTheTick) {
  MeterSim sim;
  lockstep::replay::SimConfig c;
  c.players = 1;
  c.units = 1000;
  c.params[0] = 4;  // room for 4 commands: create, add, create, add; the third create gets a
                    // null handle and its add is dropped
  lockstep::replay::Runner r(sim, c);
  ASSERT_TRUE(r.status().ok()) << r.status().message();
  const lockstep::Status s = r.step(frame(Step{1}));
  EXPECT_EQ(s.code(), lockstep::ErrorCode::CapacityExceeded);
  EXPECT_EQ(std::string(s.message()).rfind("tick 0: 1 fire-and-forget command(s) could not be recorded", 0), 0u)
      << s.message();
  EXPECT_EQ(r.world().tick(), 0u);
  EXPECT_EQ(r.world().commands().dropped(), 0u);  // cleared with the buffer
}

TEST(FallibleSystems, PostFormsCountOnlyFailures) {
  lockstep::CommandBuffer cmd(2, 64);
  lockstep::World w;
  ASSERT_TRUE(w.registerComponent<Tag>().ok());
  const lockstep::Entity e = w.create();
  cmd.post_add(e, Tag{1});
  cmd.post_destroy(e);
  EXPECT_EQ(cmd.dropped(), 0u);
  cmd.post_remove<Tag>(e);  // full
  EXPECT_EQ(cmd.dropped(), 1u);
  EXPECT_EQ(cmd.size(), 2u);
  cmd.clear();
  EXPECT_EQ(cmd.dropped(), 0u);
}

TEST(FallibleSystems, SystemFnKeepsPlainSystemsWorking) {
  lockstep::replay::SystemFn none;
  EXPECT_TRUE(none == nullptr);
  lockstep::replay::SystemFn plain = &fill;
  lockstep::replay::SystemFn checked = &check_limit;
  EXPECT_FALSE(plain == nullptr);
  EXPECT_FALSE(plain.fallible());
  EXPECT_TRUE(checked.fallible());
}

}  // namespace
