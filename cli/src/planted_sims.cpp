// Planted-bug sims for the desync field guide (docs/desync-hunting.md) and its tests: one
// small game ("drift": bodies pushed by their owner's input, moving with friction, scoring
// by position) with one classic desync bug each. Hidden: found by name through
// find_sim_or_hidden, never listed by `lockstep info --sims`.
//
//   broken-stale     the scoring system caches a pointer to the Score resource in a static
//                    on its first call; a second world in the process (a second peer) then
//                    writes into the first one's Score.              caught by: netsim
//   broken-peer      movement reads the local player (a global the input layer sets) to
//                    damp "our" bodies differently: each peer simulates differently.
//                                                                    caught by: netsim
//   broken-platform  friction rounds to nearest in builds with
//                    LOCKSTEP_PLANTED_PLATFORM_QUIRK (set_planted_platform_quirk), and
//                    truncates otherwise — a stand-in for FMA / libm / compiler differences.
//                                                                    caught by: verify --against
// (broken-static, in rollback_cli.cpp, keeps a counter outside the world: caught by synctest.)
#include "rollback_cli.h"

#include <lockstep/component.h>
#include <lockstep/fixed.h>
#include <lockstep/inspect/svg.h>
#include <lockstep/world.h>

#include <cstring>
#include <memory>

namespace lockstep::cli {

namespace {

bool g_platform_quirk = false;
std::uint32_t g_local_player = 0;  // broken-peer: "the local player", set by the input layer (bots)

struct DriftInput {
  std::int32_t push;  // -2..2
};
LOCKSTEP_COMPONENT(DriftInput, push);
struct Body {
  fixed pos;
  fixed vel;
  std::int32_t owner;
  std::int32_t boost;
};
LOCKSTEP_COMPONENT(Body, pos, vel, owner, boost);
struct DriftInputs {
  std::int32_t push[4];
};
LOCKSTEP_COMPONENT(DriftInputs, push);
struct Score {
  std::int64_t points[4];
  std::uint64_t ticks;
};
LOCKSTEP_COMPONENT(Score, points, ticks);

enum class Bug : std::uint8_t { Stale, Peer, Platform };

template <Bug B>
void push_system(World& w) {
  const DriftInputs* in = w.readResource<DriftInputs>();
  (void)w.each<Body>([&](Entity, Body& b) {
    b.vel = fixed::from_raw(b.vel.raw() + std::int64_t{in->push[b.owner & 3]} * (fixed::one_raw / 8));
  }, Write{});
}

template <Bug B>
void movement_system(World& w) {
  (void)w.each<Body>([&](Entity, Body& b) {
    // Friction 0.9 (58982 / 65536): truncating, or (the platform quirk) rounding to nearest.
    const std::int64_t prod = b.vel.raw() * 58982;
    const bool round = B == Bug::Platform && g_platform_quirk;
    b.vel = fixed::from_raw(round ? (prod + 0x8000) >> 16 : prod >> 16);
    if (B == Bug::Peer && static_cast<std::uint32_t>(b.owner) == g_local_player) b.boost = 1;  // the bug
    b.pos = fixed::from_raw(b.pos.raw() + b.vel.raw() + b.boost * 64);
  }, Write{});
}

template <Bug B>
void scoring_system(World& w) {
  Score* score = w.resource<Score>();
  if constexpr (B == Bug::Stale) {
    static Score* cached = nullptr;  // the bug: a pointer into whichever world ran first
    if (cached == nullptr) cached = score;
    score = cached;
  }
  ++score->ticks;
  (void)w.each<Body>([&](Entity, const Body& b) { score->points[b.owner & 3] += b.pos.raw() >> 16; }, Read{});
}

class DriftBot final : public replay::Bot {
 public:
  DriftBot(std::uint64_t seed, std::uint32_t player) : state_(seed * 2654435761u + player + 1), player_(player) {}
  void generate(std::uint64_t, const World&, std::span<std::byte> out) noexcept override {
    g_local_player = player_;  // what an input layer of a real game knows: who is local
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    const DriftInput in{static_cast<std::int32_t>((state_ >> 33) % 5) - 2};
    std::memcpy(out.data(), &in, sizeof in);
  }

 private:
  std::uint64_t state_;
  std::uint32_t player_;
};

template <Bug B>
class DriftSim final : public replay::Sim {
 public:
  explicit DriftSim(const char* name) : name_(name) {}
  std::string_view name() const noexcept override { return name_; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<DriftInput>(); }
  WorldConfig world_config(const replay::SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = 64;
    return c;
  }
  Status setup(World& w, replay::SystemList& systems) const noexcept override {
    Status s = w.registerComponent<Body>();
    if (s.ok()) s = w.registerResource<DriftInputs>();
    if (s.ok()) s = w.registerResource<Score>();
    replay::System push;
    push.name = "push";
    push.run = push_system<B>;
    push.reads[0] = "DriftInputs";
    push.writes[0] = "Body";
    replay::System move;
    move.name = "movement";
    move.run = movement_system<B>;
    move.writes[0] = "Body";
    replay::System scoring;
    scoring.name = "scoring";
    scoring.run = scoring_system<B>;
    scoring.reads[0] = "Body";
    scoring.writes[0] = "Score";
    if (s.ok()) s = systems.add(push);
    if (s.ok()) s = systems.add(move);
    if (s.ok()) s = systems.add(scoring);
    return s;
  }
  Status init(World& w, const replay::SimConfig& c) const noexcept override {
    for (std::uint32_t i = 0; i < 8; ++i) {
      const Body b{fixed::from_raw(std::int64_t{i} * 10 * fixed::one_raw), fixed{}, static_cast<std::int32_t>(i % c.players), 0};
      if (Status s = w.addComponent(w.create(), b); !s.ok()) return s;
    }
    return Status::Ok();
  }
  void apply_inputs(World& w, std::span<const std::byte> inputs) const noexcept override {
    DriftInputs* in = w.resource<DriftInputs>();
    *in = DriftInputs{};
    const std::size_t n = std::min<std::size_t>(inputs.size() / sizeof(DriftInput), 4);
    for (std::size_t p = 0; p < n; ++p) std::memcpy(&in->push[p], inputs.data() + p * sizeof(DriftInput), 4);
  }
  Status check_config(const replay::SimConfig& c) const noexcept override {
    if (c.players < 1 || c.players > 4) return {ErrorCode::InvalidArgument, "drift: 1..4 players"};
    return Status::Ok();
  }
  std::unique_ptr<replay::Bot> make_bot(const replay::SimConfig&, std::uint64_t seed, std::uint32_t player) const override {
    return std::make_unique<DriftBot>(seed, player);
  }

 private:
  const char* name_;
};

}  // namespace

void set_planted_platform_quirk(bool on) noexcept { g_platform_quirk = on; }

void mark_stock_positions() {
  inspect::mark_position("Position", "p");  // skirmish units
  inspect::mark_position("Body", "pos");    // duel fighters, the planted sims' bodies
}

const replay::Sim* find_planted_sim(std::string_view name) {
  static const DriftSim<Bug::Stale> stale("broken-stale");
  static const DriftSim<Bug::Peer> peer("broken-peer");
  static const DriftSim<Bug::Platform> platform("broken-platform");
  for (const replay::Sim* s : {static_cast<const replay::Sim*>(&stale), static_cast<const replay::Sim*>(&peer),
                               static_cast<const replay::Sim*>(&platform)})
    if (s->name() == name) return s;
  return nullptr;
}

}  // namespace lockstep::cli
