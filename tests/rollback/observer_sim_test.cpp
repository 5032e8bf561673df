// A sim whose rules run partly in observers and whose systems run with enforced access
// (docs/observers.md, docs/systems.md): synctest at check distance 8 passes, the observers
// demonstrably fire (exact tallies of a plain run), and an observer that keeps a counter
// outside the world is caught by the same synctest.
#include "rollback/rollback_support.h"

#include <lockstep/store/observers.h>
#include <lockstep/rollback/synctest.h>
#include <lockstep/store/system_access.h>

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {

using namespace rollback_test;

struct OInput {
  std::int32_t strike;  // damage this player deals this tick (0..6)
};
LOCKSTEP_COMPONENT(OInput, strike);
struct OFrame {
  std::int32_t strike[2];
};
LOCKSTEP_COMPONENT(OFrame, strike);
struct OUnit {
  std::int32_t hp;
  std::uint32_t owner;
};
LOCKSTEP_COMPONENT(OUnit, hp, owner);
struct OCorpse {
  std::uint64_t since;
};
LOCKSTEP_COMPONENT(OCorpse, since);
struct OTally {
  std::uint64_t added, removed, set, corpses, hidden;
};
LOCKSTEP_COMPONENT(OTally, added, removed, set, corpses, hidden);

std::uint64_t& leaked() {
  static std::uint64_t n = 0;  // the planted bug of the leaky variant
  return n;
}

// Systems.
void strike_system(World& w) {
  const OFrame& f = *w.readResource<OFrame>();
  (void)w.each<OUnit>([&](Entity e, OUnit& u) {
    u.hp -= f.strike[(u.owner + 1) & 1] * static_cast<std::int32_t>(1 + e.slot % 3);
    if (u.hp <= 0) (void)w.commands().destroy(e);  // OnRemove<OUnit> leaves a corpse
  }, Write{});
}
void heal_system(World& w) {
  // Direct in-place sets (OnSet) on every fourth unit.
  (void)w.each<>([&](Entity e) {
    const OUnit* u = w.get<OUnit>(e);
    if (u != nullptr && e.slot % 4 == w.tick() % 4) (void)w.addComponent(e, OUnit{u->hp + 2, u->owner});
  });
}
void spawn_system(World& w) {
  if (w.tick() % 3 != 0) return;
  CommandBuffer& cmd = w.commands();
  const Entity e = cmd.create();
  (void)cmd.addComponent(e, OUnit{10, static_cast<std::uint32_t>(w.tick() / 3 % 2)});
}
void decay_system(World& w) {
  (void)w.each<OCorpse>([&](Entity e, const OCorpse& c) {
    if (w.tick() >= c.since + 5) (void)w.commands().destroy(e);
  }, Read{});
}

// Observers: the state they change is in the world (the tally, new units' hp, corpses).
void on_unit_added(World& w, Entity e) {
  ++w.resource<OTally>()->added;
  if (OUnit* u = w.getMutable<OUnit>(e)) u->hp += static_cast<std::int32_t>(e.slot % 5);  // spawn bonus
}
void on_unit_removed(World& w, Entity e) {
  OTally& t = *w.resource<OTally>();
  ++t.removed;
  const OUnit* u = w.get<OUnit>(e);  // still readable: OnRemove runs before the removal
  const Entity corpse = w.commands().create();
  (void)w.commands().addComponent(corpse, OCorpse{w.tick() + (u != nullptr ? u->owner : 7u)});
}
void on_unit_set(World& w, Entity) { ++w.resource<OTally>()->set; }
void on_corpse_added(World& w, Entity) { ++w.resource<OTally>()->corpses; }
void on_unit_set_leaky(World& w, Entity) { w.resource<OTally>()->hidden += ++leaked() & 1u; }

class ObserverSim final : public Sim {
 public:
  explicit ObserverSim(bool leaky) : leaky_(leaky) {}
  std::string_view name() const noexcept override { return leaky_ ? "observed-leaky" : "observed"; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<OInput>(); }
  WorldConfig world_config(const SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = 512;
    c.command_capacity = 512;
    return c;
  }
  Status setup(World& w, SystemList& systems) const noexcept override {
    Status s = w.registerComponent<OUnit>();
    if (s.ok()) s = w.registerComponent<OCorpse>();
    if (s.ok()) s = w.registerResource<OFrame>(OFrame{});
    if (s.ok()) s = w.registerResource<OTally>(OTally{});
    if (!s.ok()) return s;
    AccessSet unit_added, unit_removed, tally_only;
    s = access_of(w, Reads<>{}, Writes<OUnit, OTally>{}, "observe.unit_added", unit_added);
    if (s.ok()) s = access_of(w, Reads<OUnit>{}, Writes<OTally, OCorpse, Commands>{}, "observe.unit_removed", unit_removed);
    if (s.ok()) s = access_of(w, Reads<>{}, Writes<OTally>{}, "observe.tally", tally_only);
    if (s.ok()) s = w.observe<OUnit>(ObserverEvent::OnAdd, on_unit_added, unit_added);
    if (s.ok()) s = w.observe<OUnit>(ObserverEvent::OnRemove, on_unit_removed, unit_removed);
    if (s.ok()) s = w.observe<OUnit>(ObserverEvent::OnSet, leaky_ ? on_unit_set_leaky : on_unit_set, tally_only);
    if (s.ok()) s = w.observe<OCorpse>(ObserverEvent::OnAdd, on_corpse_added, tally_only);
    using replay::make_system;
    if (s.ok()) s = systems.add(make_system("strike", strike_system, Reads<OFrame>{}, Writes<OUnit, Commands>{}));
    if (s.ok()) s = systems.add(make_system("heal", heal_system, Reads<>{}, Writes<OUnit>{}));
    if (s.ok()) s = systems.add(make_system("spawn", spawn_system, Reads<>{}, Writes<OUnit, Commands>{}));
    if (s.ok()) s = systems.add(make_system("decay", decay_system, Reads<OCorpse>{}, Writes<Commands>{}));
    return s;
  }
  Status init(World& w, const SimConfig&) const noexcept override {
    for (std::uint32_t i = 0; i < 24; ++i)
      if (Status s = w.addComponent(w.create(), OUnit{20 + static_cast<std::int32_t>(i % 7), i & 1u}); !s.ok()) return s;
    return Status::Ok();
  }
  void apply_inputs(World& w, std::span<const std::byte> inputs) const noexcept override {
    OFrame& f = *w.resource<OFrame>();
    for (std::size_t p = 0; p < 2; ++p) {
      OInput in;
      std::memcpy(&in, inputs.data() + p * sizeof in, sizeof in);
      f.strike[p] = in.strike;
    }
  }
  std::unique_ptr<Bot> make_bot(const SimConfig&, std::uint64_t seed, std::uint32_t player) const override {
    return std::make_unique<LcgBot<OInput>>(seed * 7 + player);
  }

 private:
  bool leaky_;
};

SimConfig two_players() {
  SimConfig c;
  c.players = 2;
  return c;
}

}  // namespace

TEST(ObserverSim, ObserversFireAndTheTallyIsExact) {
  const ObserverSim sim(false);
  Runner a(sim, two_players()), b(sim, two_players());
  ASSERT_TRUE(a.status().ok()) << a.status().message();
  std::vector<std::byte> frame(a.frame_bytes());
  std::unique_ptr<Bot> p0 = sim.make_bot(two_players(), 5, 0), p1 = sim.make_bot(two_players(), 5, 1);
  for (std::uint64_t t = 0; t < 120; ++t) {
    p0->generate(t, a.world(), std::span<std::byte>(frame.data(), sizeof(OInput)));
    p1->generate(t, a.world(), std::span<std::byte>(frame.data() + sizeof(OInput), sizeof(OInput)));
    ASSERT_TRUE(a.step(frame).ok());
    ASSERT_TRUE(b.step(frame).ok());
  }
  const OTally& t = *std::as_const(a.world()).resource<OTally>();
  // Every unit ever added was counted once; every removal left exactly one corpse.
  std::uint64_t units = 0, corpses = 0;
  ASSERT_TRUE(a.world().each<OUnit>([&](Entity, const OUnit&) { ++units; }, Read{}).ok());
  ASSERT_TRUE(a.world().each<OCorpse>([&](Entity, const OCorpse&) { ++corpses; }, Read{}).ok());
  EXPECT_EQ(t.added, 24u + 40u);  // 24 at init, one spawn every third tick
  EXPECT_EQ(t.added - t.removed, units);
  EXPECT_EQ(t.corpses, t.removed);
  EXPECT_GT(t.removed, 10u);
  EXPECT_GT(t.set, t.added);  // every add is a set too, plus the heals
  EXPECT_LT(corpses, t.corpses);  // decay removed some
  EXPECT_EQ(a.hash().total, b.hash().total);
}

TEST(ObserverSim, SynctestAtDistance8Passes) {
  const ObserverSim sim(false);
  for (std::uint32_t d : {1u, 8u}) {
    const SyncTestResult r = synctest_bots(sim, two_players(), 3, 200 / kScale, d);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.ok) << "distance " << d << " tick " << r.tick;
    EXPECT_EQ(r.ticks, 200 / kScale);
  }
}

TEST(ObserverSim, AnObserverWithStateOutsideTheWorldIsCaught) {
  const ObserverSim sim(true);
  const SyncTestResult r = synctest_bots(sim, two_players(), 3, 200 / kScale, 8);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.first.total, r.again.total);
}
