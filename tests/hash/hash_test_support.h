#pragma once
// Shared fixtures for the hash/snapshot tests (tests/hash, tests/hash_alloc, tests/property):
// a small schema, a world factory and a driver that applies random operations.
#include <lockstep/math/fixed.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/world.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace hashtest {

using lockstep::Entity;
using lockstep::ErrorCode;
using lockstep::fixed;

struct Pos {
  fixed x, y;
};
LOCKSTEP_COMPONENT(Pos, x, y);

struct Vel {
  fixed x, y;
};
LOCKSTEP_COMPONENT(Vel, x, y);

struct Health {
  std::int32_t hp;
  std::int32_t max;
};
LOCKSTEP_COMPONENT(Health, hp, max);

// Mixed element sizes (1, 1, 2, 4, Entity) so the canonical path is exercised per field.
struct Tag {
  std::uint8_t kind;
  bool flag;
  std::uint16_t level;
  std::uint32_t mask;
  Entity target;
};
LOCKSTEP_COMPONENT(Tag, kind, flag, level, mask, target);

struct Rng {
  std::uint64_t state;
};
LOCKSTEP_COMPONENT(Rng, state);

struct Score {
  std::int32_t values[4];
  std::int16_t round;
  std::uint16_t flags;
};
LOCKSTEP_COMPONENT(Score, values, round, flags);

inline lockstep::WorldConfig small_config() {
  lockstep::WorldConfig c;
  c.max_entities = 64;
  c.max_components = 8;
  c.max_resources = 4;
  c.max_archetypes = 32;
  c.row_bytes = 64u * 64u;
  c.resource_bytes = 256;
  c.command_capacity = 64;
  c.command_bytes = 4096;
  return c;
}

// Registers Pos, Vel, Health, Tag (ids 0..3) and Rng, Score (or the reverse order).
inline void register_all(lockstep::World& w, bool reversed = false) {
  if (!reversed) {
    (void)w.registerComponent<Pos>();
    (void)w.registerComponent<Vel>();
    (void)w.registerComponent<Health>();
    (void)w.registerComponent<Tag>();
    (void)w.registerResource<Rng>(Rng{12345});
    (void)w.registerResource<Score>();
  } else {
    (void)w.registerComponent<Tag>();
    (void)w.registerComponent<Health>();
    (void)w.registerComponent<Vel>();
    (void)w.registerComponent<Pos>();
    (void)w.registerResource<Score>();
    (void)w.registerResource<Rng>(Rng{12345});
  }
}

enum OpKind : std::uint8_t {
  kCreate,
  kDestroy,
  kAddPos,
  kAddVel,
  kAddHealth,
  kAddTag,
  kRemovePos,
  kRemoveVel,
  kRemoveHealth,
  kRemoveTag,
  kSetRng,
  kSetScore,
  kAdvanceTick,
  kStep,      // each<Pos, Vel>: pos += vel; Health decays
  kDeferred,  // command buffer: create + add Pos + destroy target, then flush
  kClear,
  kOpKinds
};

struct Op {
  std::uint8_t kind = 0;
  std::uint32_t index = 0;
  std::int64_t a = 0;
  std::int64_t b = 0;
};

// Applies operations to one world, keeping every handle it ever created (stale ones too, so
// stale-handle rejection is part of the behaviour being compared).
struct Driver {
  lockstep::World& world;
  std::vector<Entity> handles;

  explicit Driver(lockstep::World& w) : world(w) {}

  Entity pick(std::uint32_t index) const {
    return handles.empty() ? Entity::null() : handles[index % handles.size()];
  }

  // Returns a small code summarising the result, so two worlds can be compared op by op.
  ErrorCode apply(const Op& op) {
    const Entity e = pick(op.index);
    switch (op.kind % kOpKinds) {
      case kCreate: {
        Entity n;
        const lockstep::Status s = world.tryCreate(n);
        if (s.ok()) handles.push_back(n);
        return s.code();
      }
      case kDestroy:
        return world.destroy(e).code();
      case kAddPos:
        return world.addComponent(e, Pos{fixed::from_raw(op.a), fixed::from_raw(op.b)}).code();
      case kAddVel:
        return world.addComponent(e, Vel{fixed::from_raw(op.a % 65536), fixed::from_raw(op.b % 65536)}).code();
      case kAddHealth:
        return world.addComponent(e, Health{static_cast<std::int32_t>(op.a), static_cast<std::int32_t>(op.b)}).code();
      case kAddTag:
        return world
            .addComponent(e, Tag{static_cast<std::uint8_t>(op.a), (op.a & 256) != 0,
                                 static_cast<std::uint16_t>(op.b), static_cast<std::uint32_t>(op.b >> 16),
                                 pick(static_cast<std::uint32_t>(op.a >> 9))})
            .code();
      case kRemovePos:
        return world.removeComponent<Pos>(e).code();
      case kRemoveVel:
        return world.removeComponent<Vel>(e).code();
      case kRemoveHealth:
        return world.removeComponent<Health>(e).code();
      case kRemoveTag:
        return world.removeComponent<Tag>(e).code();
      case kSetRng:
        world.resource<Rng>()->state = static_cast<std::uint64_t>(op.a);
        return ErrorCode::Ok;
      case kSetScore: {
        Score& s = *world.resource<Score>();
        s.values[op.index % 4] = static_cast<std::int32_t>(op.a);
        s.round = static_cast<std::int16_t>(op.b);
        return ErrorCode::Ok;
      }
      case kAdvanceTick:
        world.advanceTick();
        return ErrorCode::Ok;
      case kStep:
        return world
            .each<Pos, Vel>(
                [](Entity, Pos& p, const Vel& v) {
                  p.x += v.x;
                  p.y += v.y;
                },
                lockstep::Write{}, lockstep::Read{})
            .code();
      case kDeferred: {
        lockstep::CommandBuffer& cb = world.commands();
        const Entity n = cb.create();
        if (n.is_null()) return ErrorCode::CapacityExceeded;
        (void)cb.addComponent(n, Pos{fixed::from_raw(op.a), fixed::from_raw(op.b)});
        (void)cb.addComponent(n, Tag{1, true, 2, 3, e});
        if ((op.a & 1) != 0) (void)cb.destroy(e);
        const lockstep::Status s = world.flush();
        if (!s.ok()) {
          cb.clear();
          return s.code();
        }
        // The flushed handle is the newest live entity with the largest generation in its
        // slot; find it through the world rather than assuming the slot policy.
        Entity made = Entity::null();
        (void)world.each<Pos, Tag>([&](Entity x, const Pos& p, const Tag& t) {
          if (p.x.raw() == op.a && p.y.raw() == op.b && t.target == e && t.kind == 1) made = x;
        }, lockstep::Read{}, lockstep::Read{});
        if (!made.is_null()) handles.push_back(made);
        return s.code();
      }
      case kClear:
        if ((op.a & 7) != 0) return ErrorCode::Ok;  // rare
        return world.clear().code();
      default:
        return ErrorCode::Ok;
    }
  }
};

inline lockstep::StateHash hash_of(const lockstep::World& w) { return lockstep::hash_world(w); }

}  // namespace hashtest
