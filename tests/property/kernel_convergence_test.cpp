// Convergence: two worlds that reach the same archetype creation order and the same
// membership (entity -> component set and values) through different operation sequences
// visit identically: the visit order is a function of state, not of history.
#include "support/kernel_types.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

void set_mask(World& w, Entity e, std::uint32_t mask, std::int64_t v) {
  // Ascending component id: every intermediate component set is a prefix of `mask`.
  if (mask & 1u) (void)w.addComponent(e, Pos{v, v + 1});
  if (mask & 2u) (void)w.addComponent(e, Vel{v * 3, v});
  if (mask & 4u) (void)w.addComponent(e, Health{static_cast<std::int32_t>(v), 1});
}

std::vector<std::int64_t> trace(World& w) {
  std::vector<std::int64_t> out;
  (void)w.each<Pos>([&](Entity e, const Pos& p) { out.insert(out.end(), {e.slot, e.generation, p.x, p.y}); }, Read{});
  (void)w.each<Vel>([&](Entity e, const Vel& p) { out.insert(out.end(), {e.slot, p.x}); }, Read{});
  (void)w.each<Health, Pos>([&](Entity e, const Health& h, const Pos&) { out.insert(out.end(), {e.slot, h.hp}); },
                            Read{}, Read{});
  (void)w.each<>([&](Entity e) { out.push_back(e.slot); });
  return out;
}

}  // namespace

RC_GTEST_PROP(KernelConvergence, SameArchetypeOrderAndMembershipVisitIdentically, ()) {
  const auto masks = *rc::gen::container<std::vector<std::uint32_t>>(rc::gen::inRange<std::uint32_t>(0, 8));
  const auto values = *rc::gen::container<std::vector<std::int16_t>>(masks.size(), rc::gen::arbitrary<std::int16_t>());
  const auto order = *rc::gen::unique<std::vector<std::size_t>>(masks.size(), rc::gen::inRange<std::size_t>(0, masks.size() == 0 ? 1 : masks.size()));
  World a, b;
  register_all(a);
  register_all(b);
  std::vector<Entity> ea, eb;
  for (std::size_t i = 0; i < masks.size(); ++i) {
    ea.push_back(a.create());
    eb.push_back(b.create());
  }
  // Shared warm-up: establish the archetype creation order identically in both worlds.
  const Entity wa = a.create();
  const Entity wb = b.create();
  for (std::uint32_t m : masks) {
    set_mask(a, wa, m, 0);
    set_mask(b, wb, m, 0);
    for (World* w : {&a, &b}) {
      const Entity x = w == &a ? wa : wb;
      (void)w->removeComponent<Pos>(x);
      (void)w->removeComponent<Vel>(x);
      (void)w->removeComponent<Health>(x);
    }
  }
  // World a: entities in slot order, values written once.
  for (std::size_t i = 0; i < masks.size(); ++i) set_mask(a, ea[i], masks[i], values[i]);
  // World b: a permuted order, values first written wrong and then overwritten, plus a
  // detour through a prefix component set and back.
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    set_mask(b, eb[i], masks[i], values[i] + 1000);
    if (masks[i] & 4u) {
      (void)b.removeComponent<Health>(eb[i]);
      set_mask(b, eb[i], masks[i] & 4u, values[i]);
    }
    set_mask(b, eb[i], masks[i], values[i]);
  }
  RC_ASSERT(a.archetypeCount() == b.archetypeCount());
  RC_ASSERT(trace(a) == trace(b));
  RC_ASSERT(dump(a) == dump(b));
}
