// Runner: builds a sim's world and steps it (replay/runner.h).
#include <lockstep/replay/runner.h>
#include <lockstep/replay/schedule.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

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

void Runner::setThreads(std::uint32_t threads) {
  world_->setThreadPool(nullptr);
  pool_.reset();
  if (threads == 0) return;
  pool_ = std::make_unique<ThreadPool>(threads);
  world_->setThreadPool(pool_.get());
}

std::uint32_t Runner::threads() const noexcept { return pool_ == nullptr ? 0 : pool_->threads(); }

// Both checks share one snapshot and three scratch copies, reserved when one is turned on.
void Runner::reserve_checks() {
  if (!parallel_check_ && !stage_check_) {
    check_snapshot_.reset();
    check_scratch_.reset();
    return;
  }
  if (check_snapshot_ == nullptr) check_snapshot_ = std::make_unique<Snapshot>(*world_);
  if (check_scratch_ == nullptr) check_scratch_ = std::make_unique<std::byte[]>(3 * world_->scratchBytes() + 1);
}

void Runner::setParallelCheck(bool on) {
  parallel_check_ = on;
  reserve_checks();
}

void Runner::setStageCheck(bool on) {
  stage_check_ = on;
  if (on) {
    const StagePlan plan = plan_stages(access_, static_cast<std::uint32_t>(systems_.systems().size()));
    std::memcpy(stage_of_, plan.stage_of, sizeof stage_of_);
  }
  reserve_checks();
}

Status Runner::check_stage_pairs(std::uint32_t i) noexcept {
  World& w = *world_;
  const auto systems = systems_.systems();
  const std::size_t scratch = w.scratchBytes();
  std::byte* const before = check_scratch_.get();
  std::byte* const first = before + scratch;
  std::byte* const second = first + scratch;
  for (std::uint32_t j = i + 1; j < systems.size(); ++j) {
    if (stage_of_[j] != stage_of_[i] || access_[i].commands || access_[j].commands) continue;
    w.save(*check_snapshot_);
    w.copyScratchTo(before);
    Status st = run_system(i).status;
    if (st.ok()) st = run_system(j).status;
    const StateHash ij = hash_world(w);
    w.copyScratchTo(first);
    if (Status l = w.load(*check_snapshot_); !l.ok()) return l;
    w.copyScratchFrom(before);
    if (st.ok()) st = run_system(j).status;
    if (st.ok()) st = run_system(i).status;
    const StateHash ji = hash_world(w);
    w.copyScratchTo(second);
    if (Status l = w.load(*check_snapshot_); !l.ok()) return l;
    w.copyScratchFrom(before);
    if (!st.ok()) continue;  // the tick's own run reports the failing system
    char part[160] = {};
    if (ij.total != ji.total) {
      std::snprintf(part, sizeof part, "the state differs");
      for (std::uint32_t c = 0; c < ij.component_count; ++c)
        if (ij.components[c] != ji.components[c]) {
          std::snprintf(part, sizeof part, "component '%s' differs", w.componentDescriptor(c).name);
          break;
        }
    } else if (scratch != 0 && std::memcmp(first, second, scratch) != 0) {
      std::snprintf(part, sizeof part, "scratch differs");
    }
    if (part[0] == 0) continue;
    std::snprintf(check_failure_, sizeof check_failure_,
                  "stage check: systems '%s' and '%s' (stage %u) do not commute at tick %llu: %s (an access one of "
                  "them did not declare)",
                  systems[i].name, systems[j].name, unsigned{stage_of_[i]}, static_cast<unsigned long long>(w.tick()), part);
    return {ErrorCode::InvalidArgument, check_failure_};
  }
  return Status::Ok();
}

// The parallel cross-check (runner.h). The serial run goes first so that its result can be
// kept when the system ran no parallel loop (nothing to compare); otherwise the state and
// scratch are put back and the system runs again on the pool, and the world keeps that result.
SystemResult Runner::run_checked(std::uint32_t index) noexcept {
  World& w = *world_;
  const System& s = systems_.systems()[index];
  const std::size_t scratch = w.scratchBytes();
  std::byte* const before = check_scratch_.get();
  std::byte* const serial = before + scratch;
  w.save(*check_snapshot_);
  w.copyScratchTo(before);
  const std::uint64_t loops = w.parallelLoops();
  w.setThreadPool(nullptr);
  SystemResult r = run_system(index);
  w.setThreadPool(pool_.get());
  if (!r.status.ok() || w.parallelLoops() == loops || access_[index].commands) return r;
  const StateHash serial_hash = hash_world(w);
  w.copyScratchTo(serial);
  if (Status st = w.load(*check_snapshot_); !st.ok()) return SystemResult{st};
  w.copyScratchFrom(before);
  r = run_system(index);
  if (!r.status.ok()) return r;
  const StateHash parallel_hash = hash_world(w);
  const char* what = nullptr;
  char part[160];
  if (parallel_hash.total != serial_hash.total) {
    std::snprintf(part, sizeof part, "the state hash differs (%016llx serial, %016llx parallel)",
                  static_cast<unsigned long long>(serial_hash.total), static_cast<unsigned long long>(parallel_hash.total));
    what = part;
    for (std::uint32_t c = 0; c < serial_hash.component_count; ++c)
      if (serial_hash.components[c] != parallel_hash.components[c]) {
        std::snprintf(part, sizeof part, "component '%s' differs", w.componentDescriptor(c).name);
        break;
      }
  } else if (scratch != 0) {
    w.copyScratchTo(before);  // the pre-run copy is no longer needed
    if (std::memcmp(before, serial, scratch) != 0) what = "scratch differs";
  }
  if (what == nullptr) return r;
  std::snprintf(check_failure_, sizeof check_failure_,
                "parallel cross-check: system '%s' at tick %llu: its parallel run differs from its serial run: %s "
                "(a write outside its own row or an undeclared access)",
                s.name, static_cast<unsigned long long>(w.tick()), what);
  return SystemResult{Status{ErrorCode::InvalidArgument, check_failure_}};
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
  // The workers poll for the tick's parallel loops instead of sleeping between them
  // (thread_pool.h): a kernel wake-up per loop costs more than a chunk on a VM.
  const ThreadPool::AwakeScope awake(pool_.get());
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
      if (stage_check_) st = check_stage_pairs(i);
      if (st.ok()) st = parallel_check_ && pool_ != nullptr ? run_checked(i).status : run_system(i).status;
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
