// Runner: builds a sim's world and steps it (replay/runner.h).
#include <lockstep/replay/runner.h>
#include <lockstep/replay/schedule.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <string>

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
  setExecutor(nullptr);
  if (threads == 0) return;
  pool_ = std::make_unique<ThreadPool>(threads);
  executor_ = pool_.get();
  attach_executor(*world_);
}

void Runner::setExecutor(Executor* executor) noexcept {
  world_->setExecutor(nullptr);
  pool_.reset();
  executor_ = executor;
  attach_executor(*world_);
}

// The bundled pool goes in through setThreadPool, so World::threadPool() names it as before.
void Runner::attach_executor(World& w) noexcept {
  if (pool_ != nullptr) w.setThreadPool(pool_.get());
  else w.setExecutor(executor_);
}

std::uint32_t Runner::threads() const noexcept { return executor_ == nullptr ? 0 : executor_->threads(); }

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
  reserve_checks();
}

void Runner::setConcurrentStages(bool on) { concurrent_ = on; }

// The stage plan, its execution order and the stages' names (once, at construction).
void Runner::plan() {
  const auto systems = systems_.systems();
  const auto n = static_cast<std::uint32_t>(systems.size());
  const StagePlan plan = plan_stages(access_, n);
  std::memcpy(stage_of_, plan.stage_of, sizeof stage_of_);
  stage_count_ = plan.stages;
  std::uint32_t at = 0;
  for (std::uint32_t s = 0; s < plan.stages; ++s) {
    stage_begin_[s] = at;
    for (std::uint32_t i = 0; i < n; ++i)
      if (plan.stage_of[i] == s) order_[at++] = static_cast<std::uint8_t>(i);
  }
  stage_begin_[plan.stages] = at;
  std::string names;
  for (std::uint32_t s = 0; s < plan.stages; ++s) {
    stage_name_at_[s] = static_cast<std::uint32_t>(names.size());
    for (std::uint32_t k = stage_begin_[s]; k < stage_begin_[s + 1]; ++k) {
      if (k != stage_begin_[s]) names += " | ";
      names += systems[order_[k]].name;
    }
    names += '\0';
  }
  stage_names_ = std::make_unique<char[]>(names.size() + 1);
  std::memcpy(stage_names_.get(), names.data(), names.size());
}

const char* Runner::stageName(std::uint32_t stage) const noexcept {
  return stage < stage_count_ ? stage_names_.get() + stage_name_at_[stage] : "";
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
  w.setExecutor(nullptr);
  SystemResult r = run_system(index);
  attach_executor(w);
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
  if (status_.ok()) plan();
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
  const Executor::AwakeScope awake(executor_);
  {
    const ProbeScope slice(probe_, Slice::Inputs, tick);
    w.beginTick();  // scratch resources start every tick from zero (docs/kernel.md)
    sim_->apply_inputs(w, inputs);
  }
  if (concurrent_ && executor_ != nullptr && executor_->threads() >= 2) {
    for (std::uint32_t s = 0; s < stage_count_; ++s)
      if (Status st = run_stage(s, tick); !st.ok()) return st;
  } else {
    for (std::uint32_t i = 0; i < systems_.systems().size(); ++i)
      if (Status st = run_one(i, tick, true); !st.ok()) return st;
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

Status Runner::run_one(std::uint32_t i, std::uint64_t tick, bool pair_check) noexcept {
  Status st;
  {
    const ProbeScope slice(probe_, Slice::System, tick, systems_.systems()[i].name);
    if (stage_check_ && pair_check) st = check_stage_pairs(i);
    if (st.ok()) st = parallel_check_ && executor_ != nullptr ? run_checked(i).status : run_system(i).status;
  }
  return st.ok() ? st : fail(i, st);
}

// The failure stops the tick (no flush, no tick advance); the message names the system.
// Formatted into the runner's own buffer: no allocation on the tick path.
Status Runner::fail(std::uint32_t i, const Status& st) noexcept {
  std::snprintf(failure_, sizeof failure_, "system '%s' failed at tick %llu: %s", systems_.systems()[i].name,
                static_cast<unsigned long long>(world_->tick()), st.message());
  return {st.code(), failure_};
}

// One stage of the plan with its systems at once, one per pool task (runner.h).
Status Runner::run_stage(std::uint32_t stage, std::uint64_t tick) noexcept {
  const std::uint32_t first = stage_begin_[stage];
  const std::uint32_t count = stage_begin_[stage + 1] - first;
  const std::uint8_t* const members = order_ + first;
  if (count == 1) return run_one(members[0], tick, true);
  if (stage_check_)  // every pair of the stage in both orders, serially, before it runs
    for (std::uint32_t k = 0; k < count; ++k)
      if (Status st = check_stage_pairs(members[k]); !st.ok()) return fail(members[k], st);
  const AccessSet* sets[SystemList::kMaxSystems] = {};
  for (std::uint32_t k = 0; k < count; ++k) sets[k] = &access_[members[k]];
  bool concurrent_ran = false;
  {
    World::ConcurrentStage concurrent(*world_, sets, count);
    if (concurrent.active()) {
      struct Job {
        Runner* runner;
        const std::uint8_t* members;
      } job{this, members};
      const ProbeScope slice(probe_, Slice::System, tick, stageName(stage));
      executor_->run(
          count,
          [](void* ctx, std::uint32_t k) noexcept {
            const Job& j = *static_cast<const Job*>(ctx);
            Runner& r = *j.runner;
            const std::uint32_t i = j.members[k];
            const World::Lane lane(*r.world_, r.access_checks_ ? &r.access_[i] : nullptr);
            r.stage_results_[k] = r.systems_.systems()[i].run(*r.world_);
          },
          &job);
      concurrent_ran = true;
    }
  }
  if (!concurrent_ran) {  // observers: one system at a time
    for (std::uint32_t k = 0; k < count; ++k)
      if (Status st = run_one(members[k], tick, false); !st.ok()) return st;
    return Status::Ok();
  }
  for (std::uint32_t k = 0; k < count; ++k)  // the first failure in declared order
    if (!stage_results_[k].status.ok()) return fail(members[k], stage_results_[k].status);
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

void Runner::copy_to_host(const TypeDescriptor& input, std::span<const std::byte> from, std::span<std::byte> to) noexcept {
  if (!from.empty()) std::memcpy(to.data(), from.data(), from.size());
  canonical_to_host(input, to.first(from.size()));
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
