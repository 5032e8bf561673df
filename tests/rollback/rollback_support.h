#pragma once
// Shared pieces of the rollback suites: fixture configs, a deliberately broken sim (state
// outside the world), invariant-check scaling.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/rollback/netsim.h>
#include <lockstep/rollback/session.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/world.h>

#include <cstdint>
#include <cstring>
#include <memory>

namespace rollback_test {

using namespace lockstep;
using namespace lockstep::replay;
using namespace lockstep::rollback;

// Debug builds run the kernel's O(n) invariant check after every mutation: scale down.
#if defined(LOCKSTEP_CHECK_INVARIANTS)
inline constexpr std::uint64_t kScale = 4;
#else
inline constexpr std::uint64_t kScale = 1;
#endif

inline SimConfig duel_config(std::uint64_t seed = 1) {
  SimConfig c;
  c.players = 2;
  c.seed = seed;
  return c;
}
inline SimConfig skirmish_config(std::uint32_t players = 2, std::uint32_t units = 200, std::uint64_t seed = 1) {
  SimConfig c;
  c.players = players;
  c.units = units;
  c.seed = seed;
  return c;
}

// ---- the broken sim: keeps a counter in a static, outside the world ----------------------
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

inline std::uint64_t& hidden_counter() {
  static std::uint64_t counter = 0;  // the bug under test: state the kernel cannot see
  return counter;
}

inline void broken_system(World& w) {
  const BrokenInputs* in = w.readResource<BrokenInputs>();
  const std::uint64_t hidden = ++hidden_counter();
  (void)w.each<Counter>([&](Entity, Counter& c) {
    c.value = static_cast<std::int64_t>((static_cast<std::uint64_t>(c.value) + static_cast<std::uint64_t>(in->delta[0]) +
                                         (hidden & 1u)) & 0xFFFFFFFFu);
  }, Write{});
}

// A bot whose one-int32 input is a seeded LCG draw in 0..6 (the small test sims' inputs).
template <class Input>
class LcgBot final : public Bot {
 public:
  explicit LcgBot(std::uint64_t seed) : state_(seed | 1u) {}
  void generate(std::uint64_t, const World&, std::span<std::byte> out) noexcept override {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    const Input in{static_cast<std::int32_t>((state_ >> 33) % 7)};
    std::memcpy(out.data(), &in, sizeof in);
  }

 private:
  std::uint64_t state_;
};
using BrokenBot = LcgBot<BrokenInput>;

class BrokenSim final : public Sim {
 public:
  std::string_view name() const noexcept override { return "broken-static"; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<BrokenInput>(); }
  WorldConfig world_config(const SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = 64;
    return c;
  }
  Status setup(World& w, SystemList& systems) const noexcept override {
    Status s = w.registerComponent<Counter>();
    if (s.ok()) s = w.registerResource<BrokenInputs>(BrokenInputs{});
    System sys;
    sys.name = "broken";
    sys.run = broken_system;
    sys.reads[0] = "BrokenInputs";
    sys.writes[0] = "Counter";
    if (s.ok()) s = systems.add(sys);
    return s;
  }
  Status init(World& w, const SimConfig&) const noexcept override {
    for (int i = 0; i < 4; ++i) {
      const Entity e = w.create();
      const Status s = w.addComponent(e, Counter{i});
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  void apply_inputs(World& w, std::span<const std::byte> inputs) const noexcept override {
    BrokenInputs* in = w.resource<BrokenInputs>();
    *in = BrokenInputs{};
    const std::size_t n = std::min<std::size_t>(inputs.size() / sizeof(BrokenInput), 4);
    for (std::size_t p = 0; p < n; ++p) {
      BrokenInput bi;
      std::memcpy(&bi, inputs.data() + p * sizeof bi, sizeof bi);
      in->delta[p] = bi.delta;
    }
  }
  std::unique_ptr<Bot> make_bot(const SimConfig&, std::uint64_t seed, std::uint32_t player) const override {
    return std::make_unique<BrokenBot>(seed * 31 + player);
  }
};

inline const BrokenSim& broken_sim() {
  static const BrokenSim sim;
  return sim;
}

// Netsim options on the duel fixture.
inline NetsimOptions duel_netsim(std::uint32_t peers, std::uint64_t ticks, std::uint32_t latency_ms,
                                 std::uint32_t jitter_ms, std::uint32_t loss_ppm, std::uint64_t seed) {
  NetsimOptions o;
  o.sim = &fixtures::duel_sim();
  o.config = duel_config(seed);
  o.bot_seed = seed;
  o.peers = peers;
  o.ticks = ticks;
  o.network.latency_us = latency_ms * 1000;
  o.network.jitter_us = jitter_ms * 1000;
  o.network.loss_ppm = loss_ppm;
  o.network_seed = seed;
  return o;
}

}  // namespace rollback_test
