// Per-system localisation: a sim with state outside the world is caught at the exact tick,
// system, entity and field, with both values.
#include <lockstep/store/component.h>
#include <lockstep/inspect/systems.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>

#include <cstring>

using namespace lockstep;

namespace {
struct In {
  std::int32_t d;
};
LOCKSTEP_COMPONENT(In, d);
struct Acc {
  std::int64_t v;
};
LOCKSTEP_COMPONENT(Acc, v);
struct Step {
  std::int32_t pad;
};
LOCKSTEP_COMPONENT(Step, pad);

std::uint32_t g_calls = 0;  // the planted bug: a call counter outside the world

void honest(World& w) {
  (void)w.each<Acc>([](Entity, Acc& a) { a.v += 1; }, Write{});
}
void leaky(World& w) {
  const std::uint32_t c = ++g_calls;
  (void)w.each<Acc>([&](Entity e, Acc& a) {
    if (w.tick() >= 5 && e.slot == 2) a.v += static_cast<std::int64_t>(c & 1u);
  }, Write{});
}

class LeakySim final : public replay::Sim {
 public:
  std::string_view name() const noexcept override { return "leaky"; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<In>(); }
  WorldConfig world_config(const replay::SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = 16;
    return c;
  }
  Status setup(World& w, replay::SystemList& s) const noexcept override {
    Status st = w.registerComponent<Acc>();
    if (st.ok()) st = w.registerResource<Step>();
    replay::System a;
    a.name = "honest";
    a.run = honest;
    a.writes[0] = "Acc";
    replay::System b;
    b.name = "leaky";
    b.run = leaky;
    b.writes[0] = "Acc";
    if (st.ok()) st = s.add(a);
    if (st.ok()) st = s.add(b);
    return st;
  }
  Status init(World& w, const replay::SimConfig&) const noexcept override {
    for (int i = 0; i < 4; ++i)
      if (Status s = w.addComponent(w.create(), Acc{i * 10}); !s.ok()) return s;
    return Status::Ok();
  }
  void apply_inputs(World&, std::span<const std::byte>) const noexcept override {}
  std::unique_ptr<replay::Bot> make_bot(const replay::SimConfig&, std::uint64_t, std::uint32_t) const override {
    return nullptr;
  }
};
}  // namespace

TEST(InspectSystems, StageNamesFollowTheTickContract) {
  LeakySim sim;
  replay::SimConfig cfg;
  cfg.players = 1;
  replay::Runner r(sim, cfg);
  ASSERT_TRUE(r.status().ok());
  ASSERT_EQ(inspect::stage_count(r), 4u);
  EXPECT_STREQ(inspect::stage_name(r, 0), "inputs");
  EXPECT_STREQ(inspect::stage_name(r, 1), "honest");
  EXPECT_STREQ(inspect::stage_name(r, 2), "leaky");
  EXPECT_STREQ(inspect::stage_name(r, 3), "flush");
}

TEST(InspectSystems, NamesTickSystemEntityFieldAndBothValues) {
  LeakySim sim;
  replay::SimConfig cfg;
  cfg.players = 1;
  replay::Runner r(sim, cfg);
  g_calls = 0;
  const auto res = inspect::synctest_by_system(r, 20, [](std::uint64_t, const World&, std::span<std::byte> f) {
    std::memset(f.data(), 0, f.size());
  });
  ASSERT_TRUE(res.status.ok());
  ASSERT_FALSE(res.ok);
  EXPECT_EQ(res.tick, 5u);
  EXPECT_EQ(res.system, "leaky");
  // Ticks 0..4 agree (the leak only touches slot 2 from tick 5): slot 2 = 20 + 5 (honest).
  // Tick 5 runs twice: honest +1 each time, then leaky call 11 (odd: +1) vs 12 (even: +0).
  ASSERT_EQ(res.diff.total, 1u);
  const auto& e = res.diff.entries[0];
  EXPECT_EQ(e.where(), "Acc[2:1].v");
  EXPECT_EQ(std::stoll(e.a), std::stoll(e.b) + 1);
  EXPECT_EQ(e.b, std::to_string(20 + 6));
  EXPECT_EQ(inspect::describe(res), "tick 5, system leaky, Acc[2:1].v 27 | 26");
  EXPECT_EQ(res.before.tick, 5u);
}
