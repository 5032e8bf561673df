#pragma once
// A tiny sim for the replay tests (no dependency on the fixture games):
//   input   per player {delta: int32, spawn: uint32}
//   state   Total resource (sum of deltas), Value components on spawned entities
//   systems add_inputs (Total += deltas, spawn entities via the command buffer),
//           grow (each Value += Total), cull (destroy Values divisible by 7, via commands)
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/world.h>

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <memory>

namespace counter_test {

struct CounterInput {
  std::int32_t delta;
  std::uint32_t spawn;
};
LOCKSTEP_COMPONENT(CounterInput, delta, spawn);

struct Value {
  std::int64_t v;
};
LOCKSTEP_COMPONENT(Value, v);

struct Total {
  std::int64_t sum;
};
LOCKSTEP_COMPONENT(Total, sum);

struct Inputs {
  std::int32_t delta[4];
  std::uint32_t spawn[4];
};
LOCKSTEP_COMPONENT(Inputs, delta, spawn);

inline void add_inputs(lockstep::World& w) {
  Total* t = w.resource<Total>();
  const Inputs* in = w.readResource<Inputs>();
  for (int p = 0; p < 4; ++p) {
    t->sum = static_cast<std::int64_t>(static_cast<std::uint64_t>(t->sum) +
                                       static_cast<std::uint64_t>(std::int64_t{in->delta[p]}));
    for (std::uint32_t i = 0; i < (in->spawn[p] & 3u); ++i) {
      const lockstep::Entity e = w.commands().create();
      (void)w.commands().addComponent(e, Value{static_cast<std::int64_t>(in->spawn[p] + i)});
    }
  }
}
inline void grow(lockstep::World& w) {
  const std::int64_t sum = w.readResource<Total>()->sum;
  (void)w.each<Value>([&](lockstep::Entity, Value& v) {
    v.v = static_cast<std::int64_t>((static_cast<std::uint64_t>(v.v) + static_cast<std::uint64_t>(sum)) & 0xFFFFFFFFull);
  }, lockstep::Write{});
}
inline void cull(lockstep::World& w) {
  (void)w.each<Value>([&](lockstep::Entity e, const Value& v) {
    if (v.v % 7 == 0) (void)w.commands().destroy(e);
  }, lockstep::Read{});
}

class CounterBot final : public lockstep::replay::Bot {
 public:
  CounterBot(std::uint64_t seed, std::uint32_t player) : state_(seed * 0x9E3779B97F4A7C15ull + player + 1) {}
  void generate(std::uint64_t, const lockstep::World&, std::span<std::byte> out) noexcept override {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    CounterInput in{static_cast<std::int32_t>(state_ % 201) - 100, static_cast<std::uint32_t>((state_ >> 20) % 5)};
    std::memcpy(out.data(), &in, sizeof in);
  }

 private:
  std::uint64_t state_;
};

class CounterSim : public lockstep::replay::Sim {
 public:
  explicit CounterSim(std::uint32_t version = 1) : version_(version) {}
  std::string_view name() const noexcept override { return "counter"; }
  std::uint32_t version() const noexcept override { return version_; }
  const lockstep::TypeDescriptor& input_type() const noexcept override { return lockstep::describe<CounterInput>(); }
  lockstep::WorldConfig world_config(const lockstep::replay::SimConfig&) const noexcept override {
    lockstep::WorldConfig c;
    c.max_entities = 16384;
    return c;
  }
  lockstep::Status setup(lockstep::World& w, lockstep::replay::SystemList& systems) const noexcept override {
    lockstep::Status s = w.registerComponent<Value>();
    if (s.ok()) s = w.registerResource<Total>(Total{0});
    if (s.ok()) s = w.registerResource<Inputs>(Inputs{});
    using lockstep::Commands;
    using lockstep::Reads;
    using lockstep::Writes;
    using lockstep::replay::make_system;
    const lockstep::replay::System a =
        make_system("add_inputs", add_inputs, Reads<Inputs>{}, Writes<Total, Value, Commands>{});
    const lockstep::replay::System g = make_system("grow", grow, Reads<Total>{}, Writes<Value>{});
    const lockstep::replay::System c = make_system("cull", cull, Reads<Value>{}, Writes<Commands>{});
    if (s.ok()) s = systems.add(a);
    if (s.ok()) s = systems.add(g);
    if (s.ok()) s = systems.add(c);
    return s;
  }
  lockstep::Status init(lockstep::World& w, const lockstep::replay::SimConfig& config) const noexcept override {
    for (std::uint32_t i = 0; i < config.units; ++i) {
      if (w.create() == lockstep::Entity::null()) return {lockstep::ErrorCode::CapacityExceeded, "counter: too many units"};
    }
    w.resource<Total>()->sum = static_cast<std::int64_t>(config.seed % 1000);
    return lockstep::Status::Ok();
  }
  void apply_inputs(lockstep::World& w, std::span<const std::byte> inputs) const noexcept override {
    Inputs* in = w.resource<Inputs>();
    *in = Inputs{};
    const std::size_t players = std::min<std::size_t>(inputs.size() / sizeof(CounterInput), 4);
    for (std::size_t p = 0; p < players; ++p) {
      CounterInput ci;
      std::memcpy(&ci, inputs.data() + p * sizeof ci, sizeof ci);
      in->delta[p] = ci.delta;
      in->spawn[p] = ci.spawn;
    }
  }
  lockstep::Status check_config(const lockstep::replay::SimConfig& c) const noexcept override {
    if (c.players < 1 || c.players > 4) return {lockstep::ErrorCode::InvalidArgument, "counter: 1..4 players"};
    return lockstep::Status::Ok();
  }
  std::unique_ptr<lockstep::replay::Bot> make_bot(const lockstep::replay::SimConfig&, std::uint64_t seed,
                                                  std::uint32_t player) const override {
    return std::make_unique<CounterBot>(seed, player);
  }

 private:
  std::uint32_t version_;
};

inline const CounterSim& counter_sim() {
  static const CounterSim sim;
  return sim;
}

}  // namespace counter_test
