// Model-based property test of observers (docs/observers.md): random sequences of direct
// calls and buffered commands with flushes, on a world whose observers log every call. The
// log must equal a naive reference computed from the world's state before and after each
// step (taken through the StorageView, never through the observer code):
//   direct add → OnAdd (if new) then OnSet; direct remove → OnRemove; destroy → OnRemove per
//   component, id order; flush → net effect: removes (old handles) by (component, slot), then
//   adds by (component, slot), then sets by (component, slot) for components assigned by an
//   add command of the entity's final incarnation.
#include "support/kernel_types.h"

#include <lockstep/store/observers.h>
#include <lockstep/store/system_access.h>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

constexpr std::uint32_t kC = 3;  // Pos 0, Vel 1, Health 2 observed; Flag 3 unobserved

struct Call {
  int event;  // 0 add, 1 remove, 2 set
  std::uint32_t component;
  std::uint32_t slot;
  std::uint32_t generation;
  friend bool operator==(const Call&, const Call&) = default;
  friend bool operator<(const Call& a, const Call& b) {
    return std::tie(a.event, a.component, a.slot) < std::tie(b.event, b.component, b.slot);
  }
};
std::vector<Call> g_calls;  // test log, outside the world by design

template <int Event, std::uint32_t C>
void log_call(World&, Entity e) {
  g_calls.push_back({Event, C, e.slot, e.generation});
}

using State = std::map<std::uint32_t, std::pair<std::uint32_t, std::array<bool, kC + 1>>>;  // slot -> (gen, has)

State snapshot_state(const World& w) {
  State s;
  const StorageView v = w.storage();
  for (std::uint32_t a = 0; a < v.archetype_count(); ++a) {
    std::array<bool, kC + 1> has{};
    for (const std::uint8_t id : v.archetype_components(a))
      if (id <= kC) has[id] = true;
    for (const std::uint32_t slot : v.archetype_slots(a)) s[slot] = {v.generations()[slot], has};
  }
  return s;
}

Status add_value(World& w, Entity e, std::uint32_t c) {
  switch (c) {
    case 0: return w.addComponent(e, Pos{1, 2});
    case 1: return w.addComponent(e, Vel{3, 4});
    case 2: return w.addComponent(e, Health{5, 6});
    default: return w.addComponent(e, Flag{true});
  }
}
Status add_value(CommandBuffer& b, Entity e, std::uint32_t c) {
  switch (c) {
    case 0: return b.addComponent(e, Pos{1, 2});
    case 1: return b.addComponent(e, Vel{3, 4});
    case 2: return b.addComponent(e, Health{5, 6});
    default: return b.addComponent(e, Flag{true});
  }
}
Status remove_value(World& w, Entity e, std::uint32_t c) {
  switch (c) {
    case 0: return w.removeComponent<Pos>(e);
    case 1: return w.removeComponent<Vel>(e);
    case 2: return w.removeComponent<Health>(e);
    default: return w.removeComponent<Flag>(e);
  }
}
Status remove_value(CommandBuffer& b, Entity e, std::uint32_t c) {
  switch (c) {
    case 0: return b.removeComponent<Pos>(e);
    case 1: return b.removeComponent<Vel>(e);
    case 2: return b.removeComponent<Health>(e);
    default: return b.removeComponent<Flag>(e);
  }
}

void register_observers(World& w) {
  const AccessSet none;
  (void)w.observe<Pos>(ObserverEvent::OnAdd, log_call<0, 0>, none);
  (void)w.observe<Pos>(ObserverEvent::OnRemove, log_call<1, 0>, none);
  (void)w.observe<Pos>(ObserverEvent::OnSet, log_call<2, 0>, none);
  (void)w.observe<Vel>(ObserverEvent::OnAdd, log_call<0, 1>, none);
  (void)w.observe<Vel>(ObserverEvent::OnRemove, log_call<1, 1>, none);
  (void)w.observe<Vel>(ObserverEvent::OnSet, log_call<2, 1>, none);
  (void)w.observe<Health>(ObserverEvent::OnAdd, log_call<0, 2>, none);
  (void)w.observe<Health>(ObserverEvent::OnRemove, log_call<1, 2>, none);
  (void)w.observe<Health>(ObserverEvent::OnSet, log_call<2, 2>, none);
}

// Net-effect reference of one flush.
std::vector<Call> expected_flush(const State& before, const State& after,
                                 const std::set<std::pair<std::uint64_t, std::uint32_t>>& assigned_real,
                                 const std::set<std::uint32_t>& fresh_slots) {
  std::vector<Call> removes, adds, sets;
  for (const auto& [slot, bg] : before) {
    const auto it = after.find(slot);
    for (std::uint32_t c = 0; c < kC; ++c) {
      if (!bg.second[c]) continue;
      const bool kept = it != after.end() && it->second.first == bg.first && it->second.second[c];
      if (!kept) removes.push_back({1, c, slot, bg.first});
    }
  }
  for (const auto& [slot, ag] : after) {
    const auto it = before.find(slot);
    const bool same = it != before.end() && it->second.first == ag.first;
    for (std::uint32_t c = 0; c < kC; ++c) {
      if (!ag.second[c]) continue;
      if (!same || !it->second.second[c]) adds.push_back({0, c, slot, ag.first});
      // A fresh incarnation got every component from an add command; a survivor only those
      // its add commands assigned.
      const std::uint64_t handle = (std::uint64_t{slot} << 32) | ag.first;
      if (!same || fresh_slots.count(slot) != 0 || assigned_real.count({handle, c}) != 0)
        sets.push_back({2, c, slot, ag.first});
    }
  }
  std::sort(removes.begin(), removes.end());
  std::sort(adds.begin(), adds.end());
  std::sort(sets.begin(), sets.end());
  std::vector<Call> out = removes;
  out.insert(out.end(), adds.begin(), adds.end());
  out.insert(out.end(), sets.begin(), sets.end());
  return out;
}

}  // namespace

RC_GTEST_PROP(ObserversModel, CallsMatchTheNaiveReference, ()) {
  WorldConfig config;
  config.max_entities = 48;
  World w(config);
  register_all(w);
  register_observers(w);
  std::vector<Entity> handles;  // every handle ever made (some stale)
  const int steps = *rc::gen::inRange(1, 60);
  for (int step = 0; step < steps; ++step) {
    g_calls.clear();
    const State before = snapshot_state(w);
    const int op = *rc::gen::inRange(0, 6);
    auto pick = [&]() { return handles.empty() ? Entity::null() : handles[*rc::gen::inRange<std::size_t>(0, handles.size())]; };
    std::vector<Call> expected;
    if (op == 0) {  // direct create
      const Entity e = w.create();
      if (!e.is_null()) handles.push_back(e);
    } else if (op == 1 || op == 2) {  // direct add / remove
      const Entity e = pick();
      const std::uint32_t c = *rc::gen::inRange<std::uint32_t>(0, kC + 1);
      const auto it = before.find(e.slot);
      const bool live = !e.is_null() && it != before.end() && it->second.first == e.generation;
      const bool had = live && it->second.second[c];
      const Status s = op == 1 ? add_value(w, e, c) : remove_value(w, e, c);
      if (c < kC && live && s.ok()) {
        if (op == 1) {
          if (!had) expected.push_back({0, c, e.slot, e.generation});
          expected.push_back({2, c, e.slot, e.generation});
        } else {
          expected.push_back({1, c, e.slot, e.generation});
        }
      }
    } else if (op == 3) {  // direct destroy
      const Entity e = pick();
      const auto it = before.find(e.slot);
      const bool live = !e.is_null() && it != before.end() && it->second.first == e.generation;
      RC_ASSERT(w.destroy(e).ok() == live);
      if (live)
        for (std::uint32_t c = 0; c < kC; ++c)
          if (it->second.second[c]) expected.push_back({1, c, e.slot, e.generation});
    } else {  // a batch of buffered commands, then flush
      CommandBuffer& b = w.commands();
      std::set<std::pair<std::uint64_t, std::uint32_t>> assigned;  // (real handle, component), in recording order
      std::vector<Entity> pending;
      const int n = *rc::gen::inRange(1, 12);
      for (int k = 0; k < n; ++k) {
        const int kind = *rc::gen::inRange(0, 5);
        const bool use_pending = !pending.empty() && *rc::gen::inRange(0, 3) == 0;
        const Entity e = use_pending ? pending[*rc::gen::inRange<std::size_t>(0, pending.size())] : pick();
        const std::uint32_t c = *rc::gen::inRange<std::uint32_t>(0, kC + 1);
        if (kind == 0) {
          const Entity p = b.create();
          if (!p.is_null()) pending.push_back(p);
        } else if (kind == 1 || kind == 2) {
          if (e.is_null()) continue;
          if (add_value(b, e, c).ok() && !e.is_pending()) assigned.insert({(std::uint64_t{e.slot} << 32) | e.generation, c});
        } else if (kind == 3) {
          if (!e.is_null()) (void)remove_value(b, e, c);
        } else {
          if (!e.is_null()) (void)b.destroy(e);
        }
      }
      // Adds recorded before a destroy of the same handle belong to a dead incarnation; a
      // surviving handle keeps its generation, so (handle, c) identifies the final one.
      (void)w.flush();
      const State after = snapshot_state(w);
      std::set<std::uint32_t> fresh;
      for (const auto& [slot, ag] : after) {
        const auto it = before.find(slot);
        if (it == before.end() || it->second.first != ag.first) fresh.insert(slot);
      }
      expected = expected_flush(before, after, assigned, fresh);
      for (const auto& [slot, ag] : after)
        if (fresh.count(slot) != 0) handles.push_back(Entity{slot, ag.first});
    }
    RC_ASSERT(g_calls == expected);
    RC_ASSERT(w.checkInvariants().ok());
  }
}
