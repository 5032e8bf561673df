// arena: the sim (rules in arena.h) and its bot. Systems, in order:
//   arena.steer  velocity toward the team's rally point (faster while charging)
//   arena.move   position += velocity, kept inside the arena
//   arena.fight  in the ring, each fighter is hit by the other teams' presence; the fallen
//                are destroyed (command buffer) and credited to the strongest enemy team
//   arena.spawn  one fighter per team and tick respawns at home while below strength
#include "arena.h"

#include <lockstep/replay/sim.h>
#include <lockstep/world.h>

#include <algorithm>
#include <cstring>

namespace arena {
namespace {

using lockstep::Entity;
using lockstep::Read;
using lockstep::Status;
using lockstep::World;
using lockstep::Write;
using lockstep::replay::SimConfig;

constexpr fixed kSpeed = 0.25_fx;
constexpr fixed kChargeSpeed = 0.5_fx;
constexpr fixed kRallyStep = 0.5_fx;
constexpr std::int32_t kHp = 100;

vec2 home(std::uint32_t team) noexcept {
  const fixed c = kHalfSize - 5_fx;
  return vec2{(team & 1u) ? c : -c, (team & 2u) ? c : -c};
}

void steer(World& w) {
  const Controls& c = *w.readResource<Controls>();
  (void)w.each<Position, Velocity, Fighter>(
      [&](Entity, const Position& pos, Velocity& vel, const Fighter& f) {
        const vec2 to = c.rally[f.team] - pos.p;
        const fixed speed = c.charge[f.team] ? kChargeSpeed : kSpeed;
        vel.v = length_squared(to) < 1_fx ? vec2{} : normalize(to) * speed;
      },
      Read{}, Write{}, Read{});
}

void move(World& w) {
  (void)w.each<Position, Velocity>(
      [](Entity, Position& pos, const Velocity& vel) {
        pos.p.x = clamp(pos.p.x + vel.v.x, -kHalfSize, kHalfSize);
        pos.p.y = clamp(pos.p.y + vel.v.y, -kHalfSize, kHalfSize);
      },
      Write{}, Read{});
}

void fight(World& w) {
  Score& s = *w.resource<Score>();
  lockstep::Rng& rng = *w.resource<lockstep::Rng>();
  lockstep::CommandBuffer& cmd = w.commands();
  std::fill(std::begin(s.in_ring), std::end(s.in_ring), 0u);
  const fixed r2 = kRingRadius * kRingRadius;
  (void)w.each<Position, Fighter>(
      [&](Entity, const Position& pos, const Fighter& f) {
        if (length_squared(pos.p) < r2) ++s.in_ring[f.team];
      },
      Read{}, Read{});
  (void)w.each<Position, Fighter>(
      [&](Entity e, const Position& pos, Fighter& f) {
        if (length_squared(pos.p) >= r2) return;
        std::uint32_t enemies = 0, strongest = f.team;
        for (std::uint32_t t = 0; t < kMaxPlayers; ++t) {
          if (t == f.team) continue;
          enemies += s.in_ring[t];
          if (strongest == f.team || s.in_ring[t] > s.in_ring[strongest]) strongest = t;
        }
        if (enemies == 0) return;
        f.hp -= static_cast<std::int32_t>(rng.range(0, std::min<std::int64_t>(enemies, 8)));
        if (f.hp > 0) return;
        if (cmd.destroy(e).ok()) ++s.kills[strongest];  // buffer full: retried next tick
      },
      Read{}, Write{});
}

void spawn(World& w) {
  const Controls& c = *w.readResource<Controls>();
  Score& s = *w.resource<Score>();
  const std::uint32_t per_team = w.config().max_entities / c.players;
  std::uint32_t alive[kMaxPlayers] = {};
  (void)w.each<Fighter>([&](Entity, const Fighter& f) { ++alive[f.team]; }, Read{});
  lockstep::CommandBuffer& cmd = w.commands();
  for (std::uint32_t t = 0; t < c.players; ++t) {
    if (alive[t] >= per_team) continue;
    const Entity e = cmd.create();
    if (e.is_null()) return;
    if (!cmd.addComponent(e, Position{home(t)}).ok() || !cmd.addComponent(e, Velocity{}).ok() ||
        !cmd.addComponent(e, Fighter{t, kHp}).ok())
      return;
    ++s.respawns;
  }
}

class ArenaBot final : public lockstep::replay::Bot {
 public:
  ArenaBot(std::uint64_t seed, std::uint32_t player) noexcept : rng_(seed ^ (0xa5e7aull + player)) {}
  void generate(std::uint64_t tick, const World&, std::span<std::byte> out) noexcept override {
    if (tick % 30 == 0) {  // a new plan every half second
      in_.dx = static_cast<std::int8_t>(rng_.range(-1, 1));
      in_.dy = static_cast<std::int8_t>(rng_.range(-1, 1));
      in_.charge = rng_.chance(1, 4) ? 1 : 0;
    }
    std::memset(out.data(), 0, out.size());
    std::memcpy(out.data(), &in_, std::min(out.size(), sizeof(in_)));
  }

 private:
  lockstep::Rng rng_;
  Input in_{};
};

class ArenaSim final : public lockstep::replay::Sim {
 public:
  std::string_view name() const noexcept override { return "arena"; }
  std::uint32_t version() const noexcept override { return 1; }
  const lockstep::TypeDescriptor& input_type() const noexcept override { return lockstep::describe<Input>(); }
  // Display only (lockstep docs/viewer.md): how `arena-lockstep view` draws a fighter.
  lockstep::replay::DrawHint draw_hint() const noexcept override {
    lockstep::replay::DrawHint h;
    h.position = "Position.p";
    h.team = "Fighter.team";
    h.label = "Fighter.hp";
    return h;
  }

  Status check_config(const SimConfig& c) const noexcept override {
    if (c.players < 2 || c.players > kMaxPlayers) return {lockstep::ErrorCode::InvalidArgument, "arena: players must be 2..4"};
    if (c.units < 1 || c.units > 1000) return {lockstep::ErrorCode::InvalidArgument, "arena: units (per team) must be 1..1000"};
    return Status::Ok();
  }
  lockstep::WorldConfig world_config(const SimConfig& c) const noexcept override {
    lockstep::WorldConfig wc;
    wc.max_entities = c.players * c.units;
    wc.max_components = 4;
    wc.max_resources = 4;
    wc.max_archetypes = 4;
    wc.row_bytes = std::uint64_t{wc.max_entities} * 64 + 1024;
    wc.resource_bytes = 1024;
    wc.command_capacity = 4 * wc.max_entities + 16;
    wc.command_bytes = 64 * wc.max_entities + 1024;
    return wc;
  }
  Status setup(World& w, lockstep::replay::SystemList& systems) const noexcept override {
    Status s = w.registerComponent<Position>();
    if (s.ok()) s = w.registerComponent<Velocity>();
    if (s.ok()) s = w.registerComponent<Fighter>();
    if (s.ok()) s = w.registerResource<Controls>();
    if (s.ok()) s = w.registerResource<Score>();
    if (s.ok()) s = w.registerResource<lockstep::Rng>(lockstep::Rng(0));
    // Declared access is enforced while each system runs (lockstep docs/systems.md).
    using lockstep::Commands;
    using lockstep::Reads;
    using lockstep::Writes;
    using lockstep::replay::make_system;
    if (s.ok()) s = systems.add(make_system("arena.steer", &steer, Reads<Controls, Position, Fighter>{}, Writes<Velocity>{}));
    if (s.ok()) s = systems.add(make_system("arena.move", &move, Reads<Velocity>{}, Writes<Position>{}));
    if (s.ok())
      s = systems.add(make_system("arena.fight", &fight, Reads<Position>{}, Writes<Fighter, Score, lockstep::Rng, Commands>{}));
    if (s.ok())
      s = systems.add(make_system("arena.spawn", &spawn, Reads<Controls>{},
                                  Writes<Score, Commands, Position, Velocity, Fighter>{}));
    return s;
  }
  Status init(World& w, const SimConfig& c) const noexcept override {
    if (Status s = check_config(c); !s.ok()) return s;
    *w.resource<lockstep::Rng>() = lockstep::Rng(c.seed);
    Controls& ctl = *w.resource<Controls>();
    ctl.players = c.players;
    for (std::uint32_t t = 0; t < c.players; ++t) {
      ctl.rally[t] = home(t);
      for (std::uint32_t i = 0; i < c.units; ++i) {
        Entity e;
        if (Status s = w.tryCreate(e); !s.ok()) return s;
        const vec2 at = home(t) + vec2{fixed(static_cast<std::int32_t>(i % 8)), fixed(static_cast<std::int32_t>(i / 8 % 8))};
        Status s = w.addComponent(e, Position{at});
        if (s.ok()) s = w.addComponent(e, Velocity{});
        if (s.ok()) s = w.addComponent(e, Fighter{t, kHp});
        if (!s.ok()) return s;
      }
    }
    return Status::Ok();
  }
  void apply_inputs(World& w, std::span<const std::byte> inputs) const noexcept override {
    Controls& ctl = *w.resource<Controls>();
    for (std::uint32_t t = 0; t < ctl.players && (t + 1) * sizeof(Input) <= inputs.size(); ++t) {
      Input in;
      std::memcpy(&in, inputs.data() + t * sizeof(Input), sizeof(Input));
      const vec2 r = ctl.rally[t] + vec2{kRallyStep * std::clamp<std::int32_t>(in.dx, -1, 1),
                                         kRallyStep * std::clamp<std::int32_t>(in.dy, -1, 1)};
      ctl.rally[t] = vec2{clamp(r.x, -kHalfSize, kHalfSize), clamp(r.y, -kHalfSize, kHalfSize)};
      ctl.charge[t] = in.charge ? 1 : 0;
    }
  }
  std::unique_ptr<lockstep::replay::Bot> make_bot(const SimConfig&, std::uint64_t seed,
                                                  std::uint32_t player) const override {
    return std::make_unique<ArenaBot>(seed, player);
  }
};

}  // namespace

void register_sims() {
  static const ArenaSim sim;
  lockstep::replay::register_sim(sim);
}

const char* team_colour(std::uint32_t team) noexcept {
  static constexpr const char* kColours[kMaxPlayers] = {"red", "blue", "green", "yellow"};
  return kColours[team % kMaxPlayers];
}

std::string score_text(const Score& score, std::uint32_t players) {
  std::string s = "score (kills):";
  for (std::uint32_t t = 0; t < players && t < kMaxPlayers; ++t)
    s += std::string(t == 0 ? " " : ", ") + team_colour(t) + " " + std::to_string(score.kills[t]);
  return s;
}

std::string result_text(const Score& score, std::uint32_t players) {
  players = std::min(players, kMaxPlayers);
  if (players == 0) return "no winner: no teams";
  std::uint32_t best = 0;
  for (std::uint32_t t = 1; t < players; ++t)
    if (score.kills[t] > score.kills[best]) best = t;
  std::uint32_t second = best == 0 ? 1 : 0;
  for (std::uint32_t t = 0; t < players; ++t)
    if (t != best && score.kills[t] > score.kills[second]) second = t;
  const std::uint32_t top = score.kills[best];
  if (players < 2) return std::string(team_colour(best)) + " wins, " + std::to_string(top) + " kills";
  if (top == 0) return "no winner: no kills";
  if (score.kills[second] == top) return "draw: " + std::to_string(top) + " kills each";
  std::string s = std::string(team_colour(best)) + " wins, " + std::to_string(top) + " kills to " +
                  std::to_string(score.kills[second]);
  if (players > 2) s += std::string(" (") + team_colour(second) + ")";
  return s;
}

}  // namespace arena
