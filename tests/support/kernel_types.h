#pragma once
// Small component/resource types and helpers shared by the kernel test suites.
#include <lockstep/world.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace lockstep_test {

struct Pos {
  std::int64_t x;
  std::int64_t y;
};
LOCKSTEP_COMPONENT(Pos, x, y);

struct Vel {
  std::int64_t x;
  std::int64_t y;
};
LOCKSTEP_COMPONENT(Vel, x, y);

struct Health {
  std::int32_t hp;
  std::int32_t max;
};
LOCKSTEP_COMPONENT(Health, hp, max);

struct Flag {
  bool on;
};
LOCKSTEP_COMPONENT(Flag, on);

struct Link {
  lockstep::Entity target;
};
LOCKSTEP_COMPONENT(Link, target);

struct Counter {
  std::uint64_t value;
};
LOCKSTEP_COMPONENT(Counter, value);

// Registers Pos, Vel, Health, Flag, Link (ids 0..4) and the Counter resource.
inline void register_all(lockstep::World& w) {
  (void)w.registerComponent<Pos>();
  (void)w.registerComponent<Vel>();
  (void)w.registerComponent<Health>();
  (void)w.registerComponent<Flag>();
  (void)w.registerComponent<Link>();
  (void)w.registerResource<Counter>(Counter{0});
}

// A world with max_tracked_components = 1, for change-detection tests (pass to World's constructor).
inline lockstep::WorldConfig one_tracked_component() {
  lockstep::WorldConfig c;
  c.max_tracked_components = 1;
  return c;
}

// Registers everything, tracks Pos, and creates `count` entities in slot order holding Pos{i, 0}
// (and Vel{i, 0} when `with_vel`), all at the world's current tick.
inline std::vector<lockstep::Entity> tracked_pos_entities(lockstep::World& w, std::int64_t count, bool with_vel) {
  register_all(w);
  std::vector<lockstep::Entity> es;
  if (!w.trackChanges<Pos>().ok()) return es;
  for (std::int64_t i = 0; i < count; ++i) {
    es.push_back(w.create());
    (void)w.addComponent(es.back(), Pos{i, 0});
    if (with_vel) (void)w.addComponent(es.back(), Vel{i, 0});
  }
  return es;
}

// Every byte of state the StorageView exposes, in a fixed order: equal dumps = equal states.
inline std::vector<std::uint8_t> dump(const lockstep::World& w) {
  std::vector<std::uint8_t> out;
  auto put = [&](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  };
  auto put64 = [&](std::uint64_t v) { put(&v, sizeof v); };
  const lockstep::StorageView v = w.storage();
  put64(v.tick());
  put64(v.slot_count());
  put(v.generations().data(), v.generations().size_bytes());
  put(v.alive().data(), v.alive().size_bytes());
  put64(v.free_slots().size());
  put(v.free_slots().data(), v.free_slots().size_bytes());
  put64(v.archetype_count());
  for (std::uint32_t a = 0; a < v.archetype_count(); ++a) {
    put64(v.archetype_components(a).size());
    put(v.archetype_components(a).data(), v.archetype_components(a).size_bytes());
    put64(v.archetype_rows(a));
    put(v.archetype_slots(a).data(), v.archetype_slots(a).size_bytes());
    for (std::uint32_t c = 0; c < v.archetype_components(a).size(); ++c)
      put(v.column_bytes(a, c).data(), v.column_bytes(a, c).size_bytes());
  }
  for (std::uint32_t r = 0; r < v.resource_count(); ++r) put(v.resource_bytes(r).data(), v.resource_bytes(r).size_bytes());
  return out;
}

// Captures every event the world reports.
class CapturingSink final : public lockstep::EventSink {
 public:
  void on_event(const lockstep::Event& e) noexcept override { events.push_back(e); }
  std::vector<lockstep::Event> events;
};

}  // namespace lockstep_test
