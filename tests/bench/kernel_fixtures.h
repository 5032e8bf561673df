#pragma once
// Fixtures shared by the kernel benchmarks (bench_kernel) and the side-by-side harness against
// EnTT and flecs (bench_peers): the Pos/Vel/Hp components (made of lockstep::fixed, as game
// components are), the Pos+Vel world, the scrambled visiting order, and the raw limits (a
// swap-remove SoA table for structural changes, two aligned __restrict arrays for iteration).
#include <lockstep/math/fixed.h>
#include <lockstep/world.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace lockstep_bench {

using lockstep::fixed;

struct Pos {
  fixed x, y;
};
LOCKSTEP_COMPONENT(Pos, x, y);
struct Vel {
  fixed x, y;
};
LOCKSTEP_COMPONENT(Vel, x, y);
struct Hp {
  std::int32_t hp, max;
};
LOCKSTEP_COMPONENT(Hp, hp, max);

inline Pos make_pos(std::uint32_t i) { return Pos{fixed::from_raw(static_cast<std::int64_t>(i)), fixed{}}; }
inline Vel make_vel() { return Vel{fixed::from_raw(1), fixed::from_raw(2)}; }

// n entities holding Pos and Vel (Hp registered, held by none). The command buffer holds
// `command_capacity` commands (default: 2 % of n plus slack).
inline std::unique_ptr<lockstep::World> make_world(std::uint32_t n, std::uint32_t command_capacity = 0) {
  lockstep::WorldConfig c;
  c.max_entities = n + 1024;
  c.command_capacity = command_capacity != 0 ? command_capacity : n / 50 + 1024;
  c.command_bytes = c.command_capacity * 32u;
  auto w = std::make_unique<lockstep::World>(c);
  (void)w->registerComponent<Pos>();
  (void)w->registerComponent<Vel>();
  (void)w->registerComponent<Hp>();
  for (std::uint32_t i = 0; i < n; ++i) {
    const lockstep::Entity e = w->create();
    (void)w->addComponent(e, make_pos(i));
    (void)w->addComponent(e, make_vel());
  }
  return w;
}

// A stride through the slots that visits every entity once per n steps in scrambled order.
inline std::uint32_t scrambled(std::uint64_t i, std::uint32_t n) {
  return static_cast<std::uint32_t>((i * 2654435761u) % n);
}

// The raw limit of an unordered archetype store: move one row (Pos, Vel) from one SoA table
// to another by append + swap-remove, and back, with an entity->row index.
struct RawTable {
  std::vector<Pos> pos;
  std::vector<Vel> vel;
  std::vector<Hp> hp;
  std::vector<std::uint32_t> slot;
  void push(std::uint32_t s, const Pos& p, const Vel& v, const Hp* h) {
    slot.push_back(s);
    pos.push_back(p);
    vel.push_back(v);
    if (h) hp.push_back(*h);
  }
  void swap_remove(std::uint32_t row, std::vector<std::uint32_t>& index) {
    const std::size_t last = slot.size() - 1;
    slot[row] = slot[last];
    pos[row] = pos[last];
    vel[row] = vel[last];
    if (!hp.empty()) hp[row] = hp[last];
    index[slot[row]] = row;
    slot.pop_back();
    pos.pop_back();
    vel.pop_back();
    if (!hp.empty()) hp.pop_back();
  }
};

// The best raw iteration: Pos and Vel in two 64-byte aligned arrays the compiler knows do not
// overlap (the fastest loop either compiler emits for pos += vel).
struct RawPosVel {
  explicit RawPosVel(std::size_t count)
      : n(count),
        pos(static_cast<Pos*>(::operator new[](count * sizeof(Pos), std::align_val_t{64}))),
        vel(static_cast<Vel*>(::operator new[](count * sizeof(Vel), std::align_val_t{64}))) {
    for (std::size_t i = 0; i < n; ++i) {
      pos[i] = make_pos(static_cast<std::uint32_t>(i));
      vel[i] = make_vel();
    }
  }
  RawPosVel(const RawPosVel&) = delete;
  RawPosVel& operator=(const RawPosVel&) = delete;
  ~RawPosVel() {
    ::operator delete[](pos, std::align_val_t{64});
    ::operator delete[](vel, std::align_val_t{64});
  }
  static void update(Pos* __restrict p, const Vel* __restrict v, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      p[i].x += v[i].x;
      p[i].y += v[i].y;
    }
  }
  void update() { update(pos, vel, n); }
  std::size_t n;
  Pos* pos;
  Vel* vel;
};

}  // namespace lockstep_bench
