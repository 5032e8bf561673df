// The lazy row order (docs/kernel.md, "Row order") is invisible: a world that restores slot
// order only when something reads it agrees, at every read, with a twin world forced to
// restore after every single operation — same visit order and values, same state hash, same
// snapshot — on random sequences of direct calls, flushes, mass moves, queries, hashes and
// snapshot round trips.
#include "support/kernel_types.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/store/snapshot.h>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <tuple>
#include <utility>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

Status add_to(World& w, Entity e, int c, std::int64_t v) {
  switch (c) {
    case 0: return w.addComponent(e, Pos{v, -v});
    case 1: return w.addComponent(e, Vel{v, 2 * v});
    default: return w.addComponent(e, Health{static_cast<std::int32_t>(v), 7});
  }
}
Status remove_from(World& w, Entity e, int c) {
  switch (c) {
    case 0: return w.removeComponent<Pos>(e);
    case 1: return w.removeComponent<Vel>(e);
    default: return w.removeComponent<Health>(e);
  }
}
Status record_add(CommandBuffer& b, Entity e, int c, std::int64_t v) {
  switch (c) {
    case 0: return b.addComponent(e, Pos{v, -v});
    case 1: return b.addComponent(e, Vel{v, 2 * v});
    default: return b.addComponent(e, Health{static_cast<std::int32_t>(v), 7});
  }
}

using Visits = std::vector<std::tuple<std::uint32_t, std::int64_t, std::int64_t>>;

Visits visits(World& w) {
  Visits out;
  RC_ASSERT(w.each<Pos>([&](Entity e, const Pos& p) { out.emplace_back(e.slot, p.x, 0); }, Read{}).ok());
  RC_ASSERT((w.each<Vel, Pos>([&](Entity e, Vel& v, const Pos& p) { out.emplace_back(e.slot, v.x, p.y); }, Write{},
                              Read{})
                 .ok()));
  RC_ASSERT(w.each<Health>([&](Entity e, const Health& h) { out.emplace_back(e.slot, h.hp, 1); }, Read{}).ok());
  return out;
}

using Op = std::tuple<std::uint8_t, std::uint16_t, std::uint8_t, std::int16_t>;

}  // namespace

RC_GTEST_PROP(RowOrder, LazyRestoreIsInvisibleToEveryRead, ()) {
  const auto ops = *rc::gen::resize(300, rc::gen::container<std::vector<Op>>(rc::gen::arbitrary<Op>()));
  WorldConfig config;
  config.max_entities = 512;
  World lazy(config);
  World eager(config);
  World copy(config);
  register_all(lazy);
  register_all(eager);
  register_all(copy);
  Snapshot snap(lazy);
  std::vector<Entity> handles;
  auto pick = [&](std::uint16_t k) { return handles.empty() ? Entity{k, 1} : handles[k % handles.size()]; };

  for (const auto& [kind, who, comp, value] : ops) {
    const int c = comp % 3;
    switch (kind % 16) {
      case 0:
      case 1:
      case 2: {
        const Entity e = lazy.create();
        RC_ASSERT(eager.create() == e);
        if (!e.is_null()) handles.push_back(e);
        break;
      }
      case 3:
      case 4: {
        const Entity e = pick(who);
        RC_ASSERT(lazy.destroy(e).code() == eager.destroy(e).code());
        break;
      }
      case 5:
      case 6: {
        const Entity e = pick(who);
        RC_ASSERT(add_to(lazy, e, c, value).code() == add_to(eager, e, c, value).code());
        break;
      }
      case 7: {
        const Entity e = pick(who);
        RC_ASSERT(remove_from(lazy, e, c).code() == remove_from(eager, e, c).code());
        break;
      }
      case 8: {
        // A mass move: every k-th handle gains and loses a component (holes and tails pile up).
        const std::size_t step = 1 + who % 3;
        for (std::size_t i = comp % step; i < handles.size(); i += step) {
          RC_ASSERT(add_to(lazy, handles[i], c, value).code() == add_to(eager, handles[i], c, value).code());
          if (i % 2 == 0)
            RC_ASSERT(remove_from(lazy, handles[i], (c + 1) % 3).code() == remove_from(eager, handles[i], (c + 1) % 3).code());
        }
        break;
      }
      case 9: {
        // A flush burst, recorded identically into both worlds' buffers.
        const int n = 1 + who % 8;
        for (World* w : {&lazy, &eager}) {
          CommandBuffer& b = w->commands();
          for (int i = 0; i < n; ++i) {
            const auto k = static_cast<std::uint16_t>(who * 31 + i * 17 + value);
            switch ((kind / 16 + i) % 4) {
              case 0: {
                const Entity p = b.create();
                (void)record_add(b, p, (c + i) % 3, value + i);
                break;
              }
              case 1: (void)b.destroy(pick(k)); break;
              default: (void)record_add(b, pick(k), (c + i) % 3, value - i); break;
            }
          }
        }
        const Status a = lazy.flush();
        RC_ASSERT(a.code() == eager.flush().code());
        RC_ASSERT(a.code() != ErrorCode::CapacityExceeded);
        break;
      }
      case 10:
        RC_ASSERT(visits(lazy) == visits(eager));
        break;
      case 11:
        RC_ASSERT(hash_world(lazy).total == hash_world(eager).total);
        break;
      case 12: {
        // Snapshot of the lazy world, loaded elsewhere: same state as the eager twin.
        lazy.save(snap);
        RC_ASSERT(copy.load(snap).ok());
        RC_ASSERT(hash_world(copy).total == hash_world(eager).total);
        if (who % 2 == 0) RC_ASSERT(lazy.load(snap).ok());  // and back into itself
        break;
      }
      case 13:
        if (who % 16 == 0) {
          RC_ASSERT(lazy.clear().ok());
          RC_ASSERT(eager.clear().ok());
        }
        break;
      default: {
        const Entity e = pick(who);
        const Pos* a = lazy.get<Pos>(e);
        const Pos* b = eager.get<Pos>(e);
        RC_ASSERT((a == nullptr) == (b == nullptr));
        if (a != nullptr) RC_ASSERT(a->x == b->x && a->y == b->y);
        break;
      }
    }
    (void)eager.storage();  // the twin restores after every operation
    RC_ASSERT(lazy.checkInvariants().ok());
    RC_ASSERT(eager.checkInvariants().ok());
  }
  RC_ASSERT(visits(lazy) == visits(eager));
  RC_ASSERT(hash_world(lazy).total == hash_world(eager).total);
}
