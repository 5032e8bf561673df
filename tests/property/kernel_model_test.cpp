// Model-based property test of the World: random sequences of create / destroy / add /
// remove / clear / each / command-buffer flush are applied to a World and to a plain
// reference model; membership, values, archetype creation order and the exact visit order
// (archetype id, then slot id) must agree after every step.
#include "support/kernel_types.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

constexpr int kComponents = 3;  // Pos (0), Vel (1), Health (2)

struct ModelEntity {
  std::uint32_t generation = 0;
  bool alive = false;
  std::map<int, std::int64_t> values;  // component id -> value (all fields derived from it)
};

struct Model {
  std::vector<ModelEntity> slots;
  std::deque<std::uint32_t> free;
  std::vector<std::uint32_t> archetypes{0};  // masks in creation order; 0 = {}

  std::uint32_t mask_of(const ModelEntity& e) const {
    std::uint32_t m = 0;
    for (const auto& [c, v] : e.values) m |= 1u << c;
    return m;
  }
  void note_mask(std::uint32_t m) {
    if (std::find(archetypes.begin(), archetypes.end(), m) == archetypes.end()) archetypes.push_back(m);
  }
  bool valid(Entity e) const {
    return e.slot < slots.size() && slots[e.slot].alive && slots[e.slot].generation == e.generation;
  }
  Entity create() {
    std::uint32_t slot;
    if (!free.empty()) {
      slot = free.front();
      free.pop_front();
    } else {
      slot = static_cast<std::uint32_t>(slots.size());
      slots.push_back({});
      slots.back().generation = 1;
    }
    slots[slot].alive = true;
    slots[slot].values.clear();
    return Entity{slot, slots[slot].generation};
  }
  bool destroy(Entity e) {
    if (!valid(e)) return false;
    slots[e.slot].alive = false;
    slots[e.slot].generation += 1;
    slots[e.slot].values.clear();
    free.push_back(e.slot);
    return true;
  }
  bool add(Entity e, int c, std::int64_t v) {
    if (!valid(e)) return false;
    slots[e.slot].values[c] = v;
    note_mask(mask_of(slots[e.slot]));
    return true;
  }
  bool remove(Entity e, int c) {
    if (!valid(e) || slots[e.slot].values.erase(c) == 0) return false;
    note_mask(mask_of(slots[e.slot]));
    return true;
  }
  void clear() {
    for (std::uint32_t s = 0; s < slots.size(); ++s) {
      if (!slots[s].alive) continue;
      destroy(Entity{s, slots[s].generation});
    }
  }
  // Expected visit order of a query over component mask q.
  std::vector<std::pair<std::uint32_t, std::int64_t>> visits(std::uint32_t q, int value_of) const {
    std::vector<std::pair<std::uint32_t, std::int64_t>> out;
    for (std::uint32_t m : archetypes) {
      if ((m & q) != q) continue;
      for (std::uint32_t s = 0; s < slots.size(); ++s)
        if (slots[s].alive && mask_of(slots[s]) == m) out.emplace_back(s, slots[s].values.at(value_of));
    }
    return out;
  }
};

Status world_add(World& w, Entity e, int c, std::int64_t v) {
  switch (c) {
    case 0: return w.addComponent(e, Pos{v, -v});
    case 1: return w.addComponent(e, Vel{v, 2 * v});
    default: return w.addComponent(e, Health{static_cast<std::int32_t>(v), 7});
  }
}
Status world_remove(World& w, Entity e, int c) {
  switch (c) {
    case 0: return w.removeComponent<Pos>(e);
    case 1: return w.removeComponent<Vel>(e);
    default: return w.removeComponent<Health>(e);
  }
}
Status buffer_add(CommandBuffer& b, Entity e, int c, std::int64_t v) {
  switch (c) {
    case 0: return b.addComponent(e, Pos{v, -v});
    case 1: return b.addComponent(e, Vel{v, 2 * v});
    default: return b.addComponent(e, Health{static_cast<std::int32_t>(v), 7});
  }
}
Status buffer_remove(CommandBuffer& b, Entity e, int c) {
  switch (c) {
    case 0: return b.removeComponent<Pos>(e);
    case 1: return b.removeComponent<Vel>(e);
    default: return b.removeComponent<Health>(e);
  }
}

std::optional<std::int64_t> world_value(const World& w, Entity e, int c) {
  switch (c) {
    case 0: if (const Pos* p = w.get<Pos>(e)) return p->x; break;
    case 1: if (const Vel* p = w.get<Vel>(e)) return p->x; break;
    default: if (const Health* p = w.get<Health>(e)) return p->hp; break;
  }
  return std::nullopt;
}

// `read_storage`: also compare the archetypes through storage(), which restores slot order;
// without it, lazily ordered rows accumulate across steps (docs/kernel.md, "Row order").
void check_agree(const World& w, const Model& m, const std::vector<Entity>& handles, bool read_storage) {
  RC_ASSERT(w.checkInvariants().ok());
  std::uint32_t live = 0;
  for (const auto& s : m.slots) live += s.alive ? 1u : 0u;
  RC_ASSERT(w.entityCount() == live);
  for (const Entity e : handles) {
    RC_ASSERT(w.alive(e) == m.valid(e));
    for (int c = 0; c < kComponents; ++c) {
      const auto got = world_value(w, e, c);
      if (m.valid(e) && m.slots[e.slot].values.count(c)) {
        RC_ASSERT(got.has_value());
        RC_ASSERT(*got == m.slots[e.slot].values.at(c));
      } else {
        RC_ASSERT(!got.has_value());
      }
    }
  }
  if (!read_storage) return;
  // Archetype creation order.
  const StorageView v = w.storage();
  RC_ASSERT(v.archetype_count() == m.archetypes.size());
  for (std::uint32_t a = 0; a < v.archetype_count(); ++a) {
    std::uint32_t mask = 0;
    for (std::uint8_t id : v.archetype_components(a)) mask |= 1u << id;
    RC_ASSERT(mask == m.archetypes[a]);
  }
}

void check_visits(World& w, const Model& m) {
  std::vector<std::pair<std::uint32_t, std::int64_t>> got;
  RC_ASSERT(w.each<Pos>([&](Entity e, const Pos& p) { got.emplace_back(e.slot, p.x); }, Read{}).ok());
  RC_ASSERT(got == m.visits(0b001, 0));
  got.clear();
  RC_ASSERT((w.each<Vel, Pos>([&](Entity e, const Vel& vel, Pos&) { got.emplace_back(e.slot, vel.x); }, Read{}, Write{})
                 .ok()));
  RC_ASSERT(got == m.visits(0b011, 1));
  got.clear();
  RC_ASSERT(w.each<Health>([&](Entity e, Health& h) { got.emplace_back(e.slot, h.hp); }, Write{}).ok());
  RC_ASSERT(got == m.visits(0b100, 2));
  std::vector<std::uint32_t> all;
  RC_ASSERT(w.each<>([&](Entity e) { all.push_back(e.slot); }).ok());
  std::vector<std::uint32_t> expected;
  for (std::uint32_t s = 0; s < m.slots.size(); ++s)
    if (m.slots[s].alive) expected.push_back(s);
  RC_ASSERT(all == expected);
}

using Op = std::tuple<std::uint8_t, std::uint16_t, std::uint8_t, std::int16_t>;

}  // namespace

RC_GTEST_PROP(KernelModel, WorldAgreesWithReferenceModel, ()) {
  const auto ops = *rc::gen::container<std::vector<Op>>(rc::gen::arbitrary<Op>());
  WorldConfig config;
  config.max_entities = 512;
  World w(config);
  register_all(w);
  Model m;
  std::vector<Entity> handles;  // every handle ever returned, including stale ones
  auto pick = [&](std::uint16_t k) { return handles.empty() ? Entity{k, 1} : handles[k % handles.size()]; };

  for (const auto& [kind, who, comp, value] : ops) {
    const int c = comp % kComponents;
    switch (kind % 16) {
      case 0:
      case 1:
      case 2: {
        const Entity e = w.create();
        const Entity me = m.create();
        RC_ASSERT(e == me);
        handles.push_back(e);
        break;
      }
      case 3:
      case 4: {
        const Entity e = pick(who);
        RC_ASSERT(w.destroy(e).ok() == m.destroy(e));
        break;
      }
      case 5:
      case 6:
      case 7:
      case 8: {
        const Entity e = pick(who);
        RC_ASSERT(world_add(w, e, c, value).ok() == m.add(e, c, value));
        break;
      }
      case 9:
      case 10: {
        const Entity e = pick(who);
        RC_ASSERT(world_remove(w, e, c).ok() == m.remove(e, c));
        break;
      }
      case 11:
        if (who % 8 == 0) {
          RC_ASSERT(w.clear().ok());
          m.clear();
        }
        break;
      case 12:
        check_visits(w, m);
        break;
      default: {
        // A burst of buffered commands, flushed: the model applies them one by one.
        CommandBuffer& b = w.commands();
        const int n = 1 + who % 6;
        std::vector<std::pair<Entity, Entity>> pending;  // (pending handle, model handle)
        auto resolve = [&](Entity p) {
          for (auto& [ph, mh] : pending)
            if (ph == p) return mh;
          return p;
        };
        for (int i = 0; i < n; ++i) {
          const std::uint16_t k = static_cast<std::uint16_t>(who * 31 + i * 17 + value);
          const int cc = (c + i) % kComponents;
          Entity target = (i % 3 == 2 && !pending.empty()) ? pending[k % pending.size()].first : pick(k);
          switch ((kind + i) % 4) {
            case 0: {
              const Entity p = b.create();
              const Entity me = m.create();
              pending.emplace_back(p, me);
              break;
            }
            case 1:
              if (b.destroy(target).ok()) (void)m.destroy(resolve(target));
              break;
            case 2:
              if (buffer_add(b, target, cc, value + i).ok()) (void)m.add(resolve(target), cc, value + i);
              break;
            case 3:
              if (buffer_remove(b, target, cc).ok()) (void)m.remove(resolve(target), cc);
              break;
          }
        }
        const Status s = w.flush();
        RC_ASSERT(s.code() != ErrorCode::CapacityExceeded);
        RC_ASSERT(b.empty());
        for (auto& [ph, mh] : pending) {
          handles.push_back(mh);
          (void)ph;
        }
        break;
      }
    }
    check_agree(w, m, handles, kind % 16 == 11);
  }
  check_visits(w, m);
  check_agree(w, m, handles, true);
}
