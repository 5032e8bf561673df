// Runner: builds a sim's world and steps it (replay/runner.h).
#include <lockstep/replay/runner.h>

#include <algorithm>
#include <bit>
#include <cstdio>

namespace lockstep::replay {

Status resolve_access(const World& world, const System& system, AccessSet& out) noexcept {
  out = AccessSet{};
  out.name = system.name;
  for (const char* const* list : {system.reads, system.writes}) {
    for (std::uint32_t i = 0; i < System::kMaxAccess && list[i] != nullptr; ++i) {
      if (!out.declare(world, list[i], list == system.writes).ok())
        return {ErrorCode::NotRegistered,
                "Runner: a system declares access to a type that is neither a registered component nor "
                "a registered resource"};
    }
  }
  return Status::Ok();
}

SystemResult run_system(World& world, const System& system, const AccessSet* access) noexcept {
  World::AccessScope scope(world, access);
  return system.run(world);
}

SystemResult Runner::run_system(std::uint32_t index) noexcept {
  const System& s = systems_.systems()[index];
  return replay::run_system(*world_, s, access_checks_ ? &access_[index] : nullptr);
}

Runner::Runner(const Sim& sim, const SimConfig& config) : sim_(&sim), config_(config) {
  const TypeDescriptor& input = sim.input_type();
  status_ = sim.check_config(config);
  if (status_.ok() && (config.players == 0 || config.players > 64))
    status_ = {ErrorCode::InvalidArgument, "Runner: players must be 1..64"};
  if (status_.ok() && (input.size == 0 || input.size > 4096))
    status_ = {ErrorCode::InvalidArgument, "Runner: input struct size must be 1..4096 bytes"};
  world_ = std::make_unique<World>(status_.ok() ? sim.world_config(config) : WorldConfig{});
  if (!status_.ok()) return;
  frame_bytes_ = config.players * input.size;
  status_ = sim.setup(*world_, systems_);
  for (std::uint32_t i = 0; status_.ok() && i < systems_.systems().size(); ++i)
    status_ = resolve_access(*world_, systems_.systems()[i], access_[i]);
  if (status_.ok()) status_ = sim.init(*world_, config);
  if (status_.ok()) status_ = world_->flush();
  if (status_.ok()) rehash();
}

Status Runner::advance(std::span<const std::byte> inputs) noexcept {
  if (!status_.ok()) return status_;
  if (inputs.size() != frame_bytes_) return {ErrorCode::InvalidArgument, "Runner::step: input frame has the wrong size"};
  World& w = *world_;
  const std::uint64_t tick = w.tick();
  {
    const ProbeScope slice(probe_, Slice::Inputs, tick);
    w.beginTick();  // scratch resources start every tick from zero (docs/kernel.md)
    sim_->apply_inputs(w, inputs);
  }
  const auto systems = systems_.systems();
  for (std::uint32_t i = 0; i < systems.size(); ++i) {
    const System& s = systems[i];
    Status st;
    {
      const ProbeScope slice(probe_, Slice::System, tick, s.name);
      st = run_system(i).status;
    }
    if (!st.ok()) {
      // The failure stops the tick here (no flush, no tick advance); the message names the
      // system. Formatted into the runner's own buffer: no allocation on the tick path.
      std::snprintf(failure_, sizeof failure_, "system '%s' failed at tick %llu: %s", s.name,
                    static_cast<unsigned long long>(w.tick()), st.message());
      return {st.code(), failure_};
    }
  }
  if (const std::uint32_t dropped = w.commands().dropped(); dropped > 0) {
    std::snprintf(failure_, sizeof failure_,
                  "tick %llu: %u fire-and-forget command(s) could not be recorded (command buffer full or a bad "
                  "handle; WorldConfig::command_capacity / command_bytes)",
                  static_cast<unsigned long long>(w.tick()), dropped);
    w.commands().clear();
    return {ErrorCode::CapacityExceeded, failure_};
  }
  Status flushed;
  {
    const ProbeScope slice(probe_, Slice::Flush, tick);
    flushed = w.flush();
  }
  if (!flushed.ok()) return flushed;
  w.advanceTick();
  return Status::Ok();
}

Status Runner::step(std::span<const std::byte> inputs) noexcept {
  const Status s = advance(inputs);
  if (s.ok()) rehash();
  return s;
}

const StateHash& Runner::rehash() noexcept {
  const ProbeScope slice(probe_, Slice::Hash, world_->tick());
  hash_ = hasher_.hash(*world_);
  return hash_;
}

const char* to_string(Slice slice) noexcept {
  switch (slice) {
    case Slice::Inputs: return "inputs";
    case Slice::System: return "system";
    case Slice::Flush: return "flush";
    case Slice::Hash: return "hash";
    case Slice::Snapshot: return "snapshot";
    case Slice::Restore: return "restore";
    case Slice::Rollback: return "rollback";
    case Slice::Resimulate: return "resimulate";
  }
  return "?";
}

void Runner::canonical_to_host(const TypeDescriptor& input, std::span<std::byte> bytes) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    (void)input;
    (void)bytes;
  } else {
    if (input.size == 0) return;
    const std::size_t structs = bytes.size() / input.size;
    for (std::size_t r = 0; r < structs; ++r) {
      std::byte* row = bytes.data() + r * input.size;
      for (std::uint32_t f = 0; f < input.field_count; ++f) {
        const FieldDescriptor& fd = input.fields[f];
        const std::uint32_t es = fd.element_size;
        if (es != 2 && es != 4 && es != 8) continue;
        for (std::uint32_t e = 0; e < fd.count; ++e) {
          std::byte* p = row + fd.offset + e * es;
          std::reverse(p, p + es);
        }
      }
    }
  }
}

}  // namespace lockstep::replay
