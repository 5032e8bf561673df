// Hidden broken sim for synctest/netsim (rollback_cli.h).
#include "rollback_cli.h"

#include "common.h"

#include <lockstep/component.h>
#include <lockstep/world.h>

#include <cstdio>
#include <cstring>
#include <memory>

namespace lockstep::cli {

namespace {

struct BrokenInput {
  std::int32_t delta;
};
LOCKSTEP_COMPONENT(BrokenInput, delta);
struct Counter {
  std::int64_t value;
};
LOCKSTEP_COMPONENT(Counter, value);
struct BrokenInputs {
  std::int32_t delta[4];
};
LOCKSTEP_COMPONENT(BrokenInputs, delta);

std::uint64_t g_hidden = 0;  // the deliberate bug: simulation state outside the world

void broken_system(World& w) {
  const BrokenInputs* in = w.readResource<BrokenInputs>();
  const std::uint64_t hidden = ++g_hidden;
  (void)w.each<Counter>([&](Entity, Counter& c) {
    c.value = static_cast<std::int64_t>(
        (static_cast<std::uint64_t>(c.value) + static_cast<std::uint64_t>(in->delta[0]) + (hidden & 1u)) & 0xFFFFFFFFu);
  }, Write{});
}

class BrokenBot final : public replay::Bot {
 public:
  explicit BrokenBot(std::uint64_t seed) : state_(seed | 1u) {}
  void generate(std::uint64_t, const World&, std::span<std::byte> out) noexcept override {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    const BrokenInput in{static_cast<std::int32_t>((state_ >> 33) % 7)};
    std::memcpy(out.data(), &in, sizeof in);
  }

 private:
  std::uint64_t state_;
};

class BrokenSim final : public replay::Sim {
 public:
  std::string_view name() const noexcept override { return "broken-static"; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<BrokenInput>(); }
  WorldConfig world_config(const replay::SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = 64;
    return c;
  }
  Status setup(World& w, replay::SystemList& systems) const noexcept override {
    Status s = w.registerComponent<Counter>();
    if (s.ok()) s = w.registerResource<BrokenInputs>(BrokenInputs{});
    replay::System sys;
    sys.name = "broken";
    sys.run = broken_system;
    sys.reads[0] = "BrokenInputs";
    sys.writes[0] = "Counter";
    if (s.ok()) s = systems.add(sys);
    return s;
  }
  Status init(World& w, const replay::SimConfig&) const noexcept override {
    for (int i = 0; i < 4; ++i) {
      const Status s = w.addComponent(w.create(), Counter{i});
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  void apply_inputs(World& w, std::span<const std::byte> inputs) const noexcept override {
    BrokenInputs* in = w.resource<BrokenInputs>();
    *in = BrokenInputs{};
    const std::size_t n = std::min<std::size_t>(inputs.size() / sizeof(BrokenInput), 4);
    for (std::size_t p = 0; p < n; ++p) std::memcpy(&in->delta[p], inputs.data() + p * sizeof(BrokenInput), 4);
  }
  Status check_config(const replay::SimConfig& c) const noexcept override {
    if (c.players < 1 || c.players > 4) return {ErrorCode::InvalidArgument, "broken-static: 1..4 players"};
    return Status::Ok();
  }
  std::unique_ptr<replay::Bot> make_bot(const replay::SimConfig&, std::uint64_t seed, std::uint32_t player) const override {
    return std::make_unique<BrokenBot>(seed * 31 + player);
  }
};

}  // namespace

const replay::Sim& broken_static_sim() {
  static const BrokenSim sim;
  return sim;
}

const replay::Sim* find_sim_or_hidden(std::string_view name) {
  if (name == broken_static_sim().name()) return &broken_static_sim();
  if (const replay::Sim* s = find_planted_sim(name)) return s;
  return replay::find_sim(name);
}

}  // namespace lockstep::cli
