// A sim written with the query layer II (cached typed queries with changed<T> and none<T>,
// enable bits switched every tick, a dynamic query, structural changes that create
// archetypes mid-match) passes the sync test at check distances 1..8: change ticks, enable
// bits and the archetypes a rollback removes are all restored, and cached queries held across
// rollbacks stay correct. A twin whose resimulation sees different change ticks is caught.
#include "rollback/rollback_support.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/query/dynamic_query.h>
#include <lockstep/rollback/synctest.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using namespace rollback_test;

struct QInput {
  std::int32_t pick;
};
LOCKSTEP_COMPONENT(QInput, pick);
struct QUnit {
  std::int64_t hp;
  std::int64_t x;
};
LOCKSTEP_COMPONENT(QUnit, hp, x);
struct QOrder {
  std::int64_t cmd;
};
LOCKSTEP_COMPONENT(QOrder, cmd);
struct QDead {
  std::uint32_t at;
};
LOCKSTEP_COMPONENT(QDead, at);
struct QFrame {
  std::int32_t pick[4];
};
LOCKSTEP_COMPONENT(QFrame, pick);
struct QStats {
  std::int64_t reacted;
  std::int64_t stunned_seen;
  std::int64_t alive_seen;
};
LOCKSTEP_COMPONENT(QStats, reacted, stunned_seen, alive_seen);

// Issues orders: units whose slot matches a player's pick get a new command (getMutable on
// an unlisted component: stamps only those rows).
void orders_system(World& w) {
  const QFrame* in = w.readResource<QFrame>();
  (void)w.each<QUnit>(
      [&](Entity e, const QUnit&) {
        for (int p = 0; p < 2; ++p) {
          if (in->pick[p] >= 0 && e.slot % 8 == static_cast<std::uint32_t>(in->pick[p])) {
            if (QOrder* o = w.getMutable<QOrder>(e)) o->cmd = (o->cmd + in->pick[p] + 1) % 5;
          }
        }
      },
      Read{});
}

// Reacts only to orders changed this tick (held across ticks and rollbacks; its cache is
// process memory, not state, and rebuilds itself after every load).
void react_system(World& w) {
  static CachedQuery<term::read<QOrder>, term::write<QUnit>, term::changed<QOrder>, term::none<QDead>> q;
  QStats* st = w.resource<QStats>();
  (void)q.since(w.tick()).each(w, [&](Entity, const QOrder& o, QUnit& u) {
    u.x += o.cmd;
    ++st->reacted;
  });
}

// Stuns (disables QUnit of) every unit whose x hits a pattern, un-stuns the others.
void stun_system(World& w) {
  (void)w.each<>([&](Entity e) {
    const QUnit* u = w.get<QUnit>(e);
    if (u == nullptr) return;
    const bool stun = ((u->x + static_cast<std::int64_t>(w.tick())) % 3) == 0;
    (void)w.setEnabled<QUnit>(e, !stun);
  });
}

// Damages enabled, living units; the dying get QDead through the command buffer, creating the
// {QUnit, QOrder, QDead} archetype mid-run (an archetype a rollback may remove again).
void damage_system(World& w) {
  static CachedQuery<term::write<QUnit>, term::none<QDead>> q;
  QStats* st = w.resource<QStats>();
  (void)q.each(w, [&](Entity e, QUnit& u) {
    u.hp -= 1 + (u.x & 1);
    ++st->alive_seen;
    if (u.hp <= 0) (void)w.commands().addComponent(e, QDead{static_cast<std::uint32_t>(w.tick())});
  });
  static CachedQuery<term::read<QUnit>, term::disabled<QUnit>> stunned;
  (void)stunned.each(w, [&](Entity, const QUnit&) { ++st->stunned_seen; });
}

// A dynamic query by name: tools-style access to the same data.
void tally_system(World& w) {
  static DynamicQuery q;
  static bool built = false;
  if (!built) built = QueryBuilder(w).read("QOrder").optRead("QDead").build(q).ok();
  QStats* st = w.resource<QStats>();
  (void)q.each(w, [&](const DynamicRow& r) {
    QOrder o;
    std::memcpy(&o, r.read(0), sizeof o);
    st->reacted += (o.cmd == 4 ? 1 : 0) + (r.read(1) != nullptr ? 1 : 0);  // dead rows too (optional)
  });
}

// The classic mistake: "changed since my last run" with the last-run tick kept outside the
// world. After a rollback the resimulated ticks see a later `since` than the first run did.
void leaky_react_system(World& w) {
  static CachedQuery<term::read<QOrder>, term::write<QUnit>, term::changed<QOrder>> q;
  static std::uint64_t last_run = 0;
  QStats* st = w.resource<QStats>();
  (void)q.since(last_run).each(w, [&](Entity, const QOrder& o, QUnit& u) {
    u.x += o.cmd;
    ++st->reacted;
  });
  last_run = w.tick() + 1;
}

class QuerySim : public Sim {
 public:
  explicit QuerySim(bool leaky = false) : leaky_(leaky) {}
  std::string_view name() const noexcept override { return "query-layer-ii"; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<QInput>(); }
  WorldConfig world_config(const SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = 128;
    c.max_tracked_components = 1;
    return c;
  }
  Status setup(World& w, SystemList& systems) const noexcept override {
    Status s = w.registerComponent<QUnit>();
    if (s.ok()) s = w.registerComponent<QOrder>();
    if (s.ok()) s = w.registerComponent<QDead>();
    if (s.ok()) s = w.registerResource<QFrame>(QFrame{});
    if (s.ok()) s = w.registerResource<QStats>(QStats{});
    if (s.ok()) s = w.trackChanges<QOrder>();
    const System list[] = {{"orders", orders_system, {"QFrame", "QUnit"}, {"QOrder"}},
                           {"react", leaky_ ? leaky_react_system : react_system, {"QOrder"}, {"QUnit", "QStats"}},
                           {"stun", stun_system, {"QUnit"}, {"QUnit"}},
                           {"damage", damage_system, {"QUnit"}, {"QUnit", "QDead", "QStats", lockstep::kCommandsAccessName}},
                           {"tally", tally_system, {"QOrder", "QDead"}, {"QStats"}}};
    for (const System& sys : list)
      if (s.ok()) s = systems.add(sys);
    return s;
  }
  Status init(World& w, const SimConfig&) const noexcept override {
    for (std::int64_t i = 0; i < 40; ++i) {
      const Entity e = w.create();
      Status s = w.addComponent(e, QUnit{20 + i % 17, i});
      if (s.ok()) s = w.addComponent(e, QOrder{0});
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  void apply_inputs(World& w, std::span<const std::byte> inputs) const noexcept override {
    QFrame* f = w.resource<QFrame>();
    *f = QFrame{{-1, -1, -1, -1}};
    const std::size_t n = std::min<std::size_t>(inputs.size() / sizeof(QInput), 4);
    for (std::size_t p = 0; p < n; ++p) {
      QInput in;
      std::memcpy(&in, inputs.data() + p * sizeof in, sizeof in);
      f->pick[p] = in.pick;
    }
  }
  std::unique_ptr<Bot> make_bot(const SimConfig&, std::uint64_t seed, std::uint32_t player) const override {
    return std::make_unique<PickBot>(seed * 977 + player);
  }

 private:
  class PickBot final : public Bot {
   public:
    explicit PickBot(std::uint64_t seed) : state_(seed | 1u) {}
    void generate(std::uint64_t, const World&, std::span<std::byte> out) noexcept override {
      state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
      const QInput in{static_cast<std::int32_t>((state_ >> 33) % 9) - 1};
      std::memcpy(out.data(), &in, sizeof in);
    }

   private:
    std::uint64_t state_;
  };
  bool leaky_;
};

const QuerySim& query_sim() {
  static const QuerySim sim;
  return sim;
}

}  // namespace

TEST(query_sim, SyncTestPassesAtDistances1To8) {
  SimConfig c;
  c.players = 2;
  for (std::uint32_t d = 1; d <= 8; ++d) {
    const SyncTestResult r = synctest_bots(query_sim(), c, 5, 120, d);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.ok) << "distance " << d << " tick " << r.tick;
    EXPECT_EQ(r.ticks, 120u);
    EXPECT_EQ(r.resimulated_ticks, d * r.ticks - d * (d - 1) / 2);
  }
}

TEST(query_sim, SinceTickKeptOutsideTheWorldIsCaught) {
  static const QuerySim leaky(true);
  SimConfig c;
  c.players = 2;
  const SyncTestResult r = synctest_bots(leaky, c, 5, 120, 8);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_FALSE(r.ok);
  EXPECT_GE(r.tick, 1u);
  EXPECT_NE(r.first.total, r.again.total);
}

TEST(query_sim, TheFeaturesAreExercised) {
  SimConfig c;
  c.players = 2;
  Runner runner(query_sim(), c);
  ASSERT_TRUE(runner.status().ok()) << runner.status().message();
  std::vector<std::byte> frame(runner.frame_bytes());
  std::uint64_t saw_disabled = 0;
  for (std::uint64_t t = 0; t < 120; ++t) {
    const QInput in[2] = {{static_cast<std::int32_t>(t % 8)}, {static_cast<std::int32_t>((t * 3) % 8)}};
    std::memcpy(frame.data(), in, sizeof in);
    ASSERT_TRUE(runner.step(frame).ok());
    saw_disabled += runner.world().disabledCount() != 0 ? 1 : 0;
  }
  const World& w = runner.world();
  const QStats* st = w.resource<QStats>();
  EXPECT_GT(st->reacted, 0);
  EXPECT_GT(st->stunned_seen, 0);
  EXPECT_GT(saw_disabled, 0u);
  std::uint32_t dead = 0;
  (void)w.each<QDead>([&](Entity, const QDead&) { ++dead; }, Read{});
  EXPECT_GT(dead, 0u);
  EXPECT_EQ(w.storage().tracked_components().size(), 1u);
}
