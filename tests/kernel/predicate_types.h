#pragma once
// Component types with every field shape predicates cover (integers of each width and
// signedness, an enum, bool, fixed, vec2, Entity, an array, a nested described struct).
#include <lockstep/math/vec.h>
#include <lockstep/world.h>

#include <cstdint>

namespace lockstep_test {

enum class UnitKind : std::uint8_t { Worker = 0, Soldier = 1, Archer = 2 };

struct Unit {
  lockstep::fixed hp;
  lockstep::vec2 pos;
  lockstep::Entity target;
  std::int32_t ammo[2];
  std::uint8_t owner;
  UnitKind kind;
  bool alive;
  std::uint8_t pad;
  std::int16_t level;
  std::uint16_t pad2;
};
LOCKSTEP_COMPONENT(Unit, hp, pos, target, ammo, owner, kind, alive, pad, level, pad2);

struct Stats {
  std::int32_t kills;
  std::int32_t deaths;
};
LOCKSTEP_COMPONENT(Stats, kills, deaths);

struct Score {
  Stats players[3];
};
LOCKSTEP_COMPONENT(Score, players);

struct Big {
  std::uint64_t u;
  std::int64_t s;
};
LOCKSTEP_COMPONENT(Big, u, s);

}  // namespace lockstep_test
