#pragma once
// arena: teams of fighters chase their player's rally point; inside the central ring they
// fight. Kills score, the fallen respawn at home. Inputs move the rally point.
#include <lockstep/component.h>
#include <lockstep/fixed.h>
#include <lockstep/rng.h>
#include <lockstep/vec.h>

#include <cstdint>
#include <string>

namespace arena {

using lockstep::fixed;
using lockstep::vec2;
using namespace lockstep::literals;

inline constexpr std::uint32_t kMaxPlayers = 4;

// One player's input per tick: a direction for the rally point, and "charge" (faster move).
struct Input {
  std::int8_t dx, dy;  // -1, 0, +1
  std::uint8_t charge;
  std::uint8_t reserved;
};
LOCKSTEP_COMPONENT(Input, dx, dy, charge, reserved);

struct Position { vec2 p; };
LOCKSTEP_COMPONENT(Position, p);
struct Velocity { vec2 v; };
LOCKSTEP_COMPONENT(Velocity, v);
struct Fighter {
  std::uint32_t team;
  std::int32_t hp;
};
LOCKSTEP_COMPONENT(Fighter, team, hp);

// Resources.
struct Controls {
  vec2 rally[kMaxPlayers];
  std::uint8_t charge[kMaxPlayers];
  std::uint32_t players;
};
LOCKSTEP_COMPONENT(Controls, rally, charge, players);
struct Score {
  std::uint32_t kills[kMaxPlayers];
  std::uint32_t in_ring[kMaxPlayers];  // this tick's fighters inside the ring, per team
  std::uint32_t respawns;
  std::uint32_t reserved;
};
LOCKSTEP_COMPONENT(Score, kills, in_ring, respawns, reserved);

// The arena is [-kHalfSize, kHalfSize]^2; fights happen only inside the ring, within
// kRingRadius of the centre.
inline constexpr fixed kHalfSize = 40_fx;
inline constexpr fixed kRingRadius = 10_fx;

void register_sims();

// What a player reads (display only, not simulation): the teams are named by colour, player
// t's team is colours()[t % 4].
const char* team_colour(std::uint32_t team) noexcept;
// The score line: "score (kills): red 3, blue 1" for `players` teams.
std::string score_text(const Score& score, std::uint32_t players);
// The match's result: "red wins, 3 kills to 1"; with more teams the runner-up's kills,
// "blue wins, 4 kills to 2 (green)"; "draw: 2 kills each" when the top teams are level
// ("no winner: no kills" when nobody scored).
std::string result_text(const Score& score, std::uint32_t players);

}  // namespace arena
