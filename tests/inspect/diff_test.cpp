// inspect::diff: first differing part -> component/resource -> entity -> field, both values.
#include "inspect_support.h"

#include <lockstep/fixtures/skirmish.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>

using namespace lockstep;
namespace sk = lockstep::fixtures::skirmish;

namespace {
struct Pair {
  std::unique_ptr<replay::Runner> a, b;
};
Pair at(std::uint64_t tick) { return {inspect_test::skirmish_at(tick), inspect_test::skirmish_at(tick)}; }
}  // namespace

TEST(InspectDiff, EqualStatesAreEqual) {
  Pair p = at(50);
  const auto d = inspect::diff(inspect::capture(p.a->world().storage()), inspect::capture(p.b->world().storage()));
  EXPECT_TRUE(d.equal());
  EXPECT_EQ(inspect::format_text(d), "tick 50 | tick 50\nequal: no field differs\n");
}

TEST(InspectDiff, NamesComponentEntityFieldAndBothValues) {
  Pair p = at(140);
  World& w = p.b->world();
  const Entity e{95, w.storage().generations()[95]};
  sk::Weapon* weapon = w.getMutable<sk::Weapon>(e);
  ASSERT_NE(weapon, nullptr);
  const std::int32_t before = weapon->cooldown;
  weapon->cooldown = before + 30;
  w.resource<sk::Economy>()->gold[1] += 4;
  const std::int64_t gold = w.resource<sk::Economy>()->gold[1];
  const auto d = inspect::diff(inspect::capture(p.a->world().storage()), inspect::capture(w.storage()));
  ASSERT_EQ(d.total, 2u);
  const std::string ent = "95:" + std::to_string(e.generation);
  EXPECT_EQ(inspect::format_text(d),
            "tick 140 | tick 140\n"
            "differs: Weapon (1 difference, 1 entity), Economy (1 difference)\n"
            "  Weapon[" + ent + "].cooldown: " + std::to_string(before) + " | " + std::to_string(before + 30) + "\n"
            "  Economy.gold[1]: " + std::to_string(gold - 4) + " | " + std::to_string(gold) + "\n"
            "(2 differences; all shown)\n");
  EXPECT_EQ(inspect::summary(d), "tick 140: Weapon[" + ent + "].cooldown " + std::to_string(before) + " | " +
                                     std::to_string(before + 30) + " (+1 more)");
  EXPECT_EQ(d.entries[0].kind, inspect::DiffKind::Component);
  EXPECT_EQ(d.entries[0].slot, 95u);
  EXPECT_EQ(d.entries[1].kind, inspect::DiffKind::Resource);
  EXPECT_EQ(d.entries[1].index, 1);
}

TEST(InspectDiff, OneSidedEntitiesAndFreeListAreReported) {
  Pair p = at(20);
  World& w = p.b->world();
  const Entity e{7, w.storage().generations()[7]};
  ASSERT_TRUE(w.destroy(e).ok());
  const auto d = inspect::diff(inspect::capture(p.a->world().storage()), inspect::capture(w.storage()));
  ASSERT_GE(d.entries.size(), 2u);
  EXPECT_EQ(d.entries[0].where(), "entity slot 7");
  EXPECT_EQ(d.entries[0].a, "live 7:" + std::to_string(e.generation));
  EXPECT_EQ(d.entries[0].b, "free (generation " + std::to_string(w.storage().generations()[7]) + ")");
  EXPECT_EQ(d.entries[1].kind, inspect::DiffKind::FreeList);
}

TEST(InspectDiff, HugeDiffsAreCappedButFullyCounted) {
  auto a = inspect_test::skirmish_at(300);
  auto b = inspect_test::skirmish_at(301);
  inspect::DiffOptions o;
  o.limit = 5;
  const auto d = inspect::diff(inspect::capture(a->world().storage()), inspect::capture(b->world().storage()), o);
  EXPECT_EQ(d.entries.size(), 5u);
  EXPECT_TRUE(d.truncated());
  std::uint64_t sum = 0;
  for (const auto& part : d.parts) sum += part.differences;
  EXPECT_EQ(sum, d.total);
  EXPECT_EQ(d.entries[0].kind, inspect::DiffKind::Tick);
  EXPECT_EQ(d.parts[1].part, "Position");
}
