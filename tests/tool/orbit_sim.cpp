// "orbit": a game written against lockstep 0.1's API, kept as it was (issue 22). Its one
// system declares that it reads the resource Thrust and writes Body, and reads Thrust the way
// 0.1 code did: through the mutable resource<T>() of its World&. Since access checks (0.2)
// that call needs a Write declaration; a Release build used to hand it null and the game
// crashed on its first `record` (exit 139). It must keep working, with one warning naming
// the system, the resource and its declared access (tests/tool/tool_tests.sh, legacy_*).
#include <lockstep/store/component.h>
#include <lockstep/math/fixed.h>
#include <lockstep/replay/sim.h>
#include <lockstep/math/rng.h>
#include <lockstep/world.h>

#include <cstring>
#include <memory>

namespace orbit {
namespace {

using namespace lockstep;

struct Input {
  std::int32_t thrust;  // -1, 0, 1
};
LOCKSTEP_COMPONENT(Input, thrust);
struct Thrust {
  std::int32_t by_player[2];
};
LOCKSTEP_COMPONENT(Thrust, by_player);
struct Body {
  fixed angle;
  fixed speed;
  std::int32_t owner;
  std::int32_t pad;
};
LOCKSTEP_COMPONENT(Body, angle, speed, owner, pad);

void move_system(World& w) {
  const Thrust& t = *w.resource<Thrust>();  // 0.1 style: the mutable accessor, declared Read
  (void)w.each<Body>([&](Entity, Body& b) {
    b.speed = b.speed + fixed::from_int(t.by_player[b.owner & 1]) / 8;
    b.angle = b.angle + b.speed / 16;
  }, Write{});
}

class OrbitBot final : public replay::Bot {
 public:
  explicit OrbitBot(std::uint64_t seed) noexcept : rng_(seed) {}
  void generate(std::uint64_t, const World&, std::span<std::byte> out) noexcept override {
    const Input in{static_cast<std::int32_t>(rng_.range(std::int64_t{-1}, std::int64_t{1}))};
    std::memcpy(out.data(), &in, sizeof in);
  }

 private:
  Rng rng_;
};

class OrbitSim final : public replay::Sim {
 public:
  std::string_view name() const noexcept override { return "orbit"; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<Input>(); }
  WorldConfig world_config(const replay::SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = 64;
    return c;
  }
  Status check_config(const replay::SimConfig& c) const noexcept override {
    if (c.players != 2) return {ErrorCode::InvalidArgument, "orbit: players must be 2"};
    return Status::Ok();
  }
  Status setup(World& w, replay::SystemList& systems) const noexcept override {
    Status s = w.registerComponent<Body>();
    if (s.ok()) s = w.registerResource<Thrust>();
    if (s.ok()) s = systems.add({"orbit.move", &move_system, {"Thrust"}, {"Body"}});
    return s;
  }
  Status init(World& w, const replay::SimConfig&) const noexcept override {
    for (std::int32_t i = 0; i < 4; ++i) {
      const Entity e = w.create();
      const Status s = w.addComponent(e, Body{fixed::from_int(i), fixed::zero(), i & 1, 0});
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  void apply_inputs(World& w, std::span<const std::byte> inputs) const noexcept override {
    Thrust& t = *w.resource<Thrust>();
    for (std::size_t p = 0; p < 2; ++p) std::memcpy(&t.by_player[p], inputs.data() + p * sizeof(Input), sizeof(Input));
  }
  std::unique_ptr<replay::Bot> make_bot(const replay::SimConfig&, std::uint64_t seed,
                                        std::uint32_t player) const override {
    return std::make_unique<OrbitBot>(seed * 2 + player + 1);
  }
};

}  // namespace

const replay::Sim& orbit_sim() {
  static const OrbitSim sim;
  return sim;
}

void register_orbit() { replay::register_sim(orbit_sim()); }

}  // namespace orbit
