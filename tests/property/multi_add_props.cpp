// addComponents / createWith (direct and buffered) end in the same state as the same adds made
// one by one: two worlds that already hold every archetype of {Pos, Vel, Health} (so archetype
// ids cannot differ) hash identically after every step of a random sequence. What the single
// move saves is only the creation of intermediate archetypes (tests/kernel/multi_add_test.cpp).
#include "support/kernel_types.h"

#include <lockstep/hash/state_hash.h>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <tuple>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

// Visits every subset of {Pos, Vel, Health} with one throwaway entity, in a fixed order, so
// both worlds create all eight archetypes identically up front.
void make_every_archetype(World& w) {
  const Entity e = w.create();
  (void)w.addComponent(e, Pos{});
  (void)w.addComponent(e, Vel{});
  (void)w.addComponent(e, Health{});
  (void)w.removeComponent<Pos>(e);
  (void)w.removeComponent<Vel>(e);
  (void)w.addComponent(e, Pos{});
  (void)w.removeComponent<Health>(e);
  (void)w.addComponent(e, Vel{});
  (void)w.removeComponent<Pos>(e);
  (void)w.destroy(e);
}

using Op = std::tuple<std::uint8_t, std::uint16_t, std::uint8_t, std::int16_t>;

}  // namespace

RC_GTEST_PROP(MultiAdd, SameStateAsAddingOneByOne, ()) {
  const auto ops = *rc::gen::resize(200, rc::gen::container<std::vector<Op>>(rc::gen::arbitrary<Op>()));
  WorldConfig config;
  config.max_entities = 256;
  config.max_tracked_components = 1;
  World one(config);   // one add at a time
  World many(config);  // several adds in one move
  for (World* w : {&one, &many}) {
    register_all(*w);
    RC_ASSERT(w->trackChanges<Vel>().ok());
    make_every_archetype(*w);
    RC_ASSERT(w->archetypeCount() == 8u);
  }
  std::vector<Entity> handles;
  auto pick = [&](std::uint16_t k) { return handles.empty() ? Entity{k, 1} : handles[k % handles.size()]; };

  for (const auto& [kind, who, comp, value] : ops) {
    const Pos pos{value, -value};
    const Vel vel{2 * value, who};
    const Health health{value, static_cast<std::int32_t>(comp)};
    one.setTick(one.tick() + 1);
    many.setTick(many.tick() + 1);
    switch (kind % 8) {
      case 0: {
        // createWith vs create + adds in the same order.
        Entity a;
        const Status sa = many.tryCreateWith(a, health, pos);
        Entity b = one.create();
        if (!b.is_null()) {
          (void)one.addComponent(b, health);
          (void)one.addComponent(b, pos);
        }
        RC_ASSERT(sa.ok() == !b.is_null());
        RC_ASSERT(a == b);
        if (!a.is_null()) handles.push_back(a);
        break;
      }
      case 1:
      case 2: {
        const Entity e = pick(who);
        Status sa = Status::Ok();
        if (comp % 3 == 0) sa = many.addComponents(e, vel, pos);
        else if (comp % 3 == 1) sa = many.addComponents(e, health, vel, pos);
        else sa = many.addComponents(e, pos);
        Status sb = Status::Ok();
        if (comp % 3 == 0) {
          sb = one.addComponent(e, vel);
          if (sb.ok()) sb = one.addComponent(e, pos);
        } else if (comp % 3 == 1) {
          sb = one.addComponent(e, health);
          if (sb.ok()) sb = one.addComponent(e, vel);
          if (sb.ok()) sb = one.addComponent(e, pos);
        } else {
          sb = one.addComponent(e, pos);
        }
        RC_ASSERT(sa.code() == sb.code());
        break;
      }
      case 3: {
        const Entity e = pick(who);
        const int c = comp % 3;
        const Status sa = c == 0 ? many.removeComponent<Pos>(e) : c == 1 ? many.removeComponent<Vel>(e) : many.removeComponent<Health>(e);
        const Status sb = c == 0 ? one.removeComponent<Pos>(e) : c == 1 ? one.removeComponent<Vel>(e) : one.removeComponent<Health>(e);
        RC_ASSERT(sa.code() == sb.code());
        break;
      }
      case 4: {
        const Entity e = pick(who);
        RC_ASSERT(many.destroy(e).code() == one.destroy(e).code());
        break;
      }
      default: {
        // Buffered: groups against single adds, with creates, destroys and plain adds between.
        CommandBuffer& bm = many.commands();
        CommandBuffer& bo = one.commands();
        const int n = 1 + who % 5;
        for (int i = 0; i < n; ++i) {
          const Entity t = pick(static_cast<std::uint16_t>(who + 7 * i));
          switch ((kind / 8 + i) % 4) {
            case 0: {
              (void)bm.createWith(pos, vel);
              const Entity p = bo.create();
              (void)bo.addComponent(p, pos);
              (void)bo.addComponent(p, vel);
              break;
            }
            case 1:
              (void)bm.addComponents(t, health, pos);
              (void)bo.addComponent(t, health);
              (void)bo.addComponent(t, pos);
              break;
            case 2:
              (void)bm.destroy(t);
              (void)bo.destroy(t);
              break;
            default:
              (void)bm.addComponent(t, vel);
              (void)bo.addComponent(t, vel);
              break;
          }
        }
        const Status sa = many.flush();
        RC_ASSERT(sa.code() == one.flush().code());
        break;
      }
    }
    RC_ASSERT(many.checkInvariants().ok());
    RC_ASSERT(many.archetypeCount() == 8u);
    RC_ASSERT(hash_world(many).total == hash_world(one).total);
  }
}
