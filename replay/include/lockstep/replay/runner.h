#pragma once
// Runner: one sim instance stepped tick by tick (docs/replay-format.md, "Ticks").
//
// The runner owns a World built from a Sim and a SimConfig:
//   check_config → world_config → World → setup (registers types, declares systems) →
//   system access check → init (tick-0 state) → hash of tick 0.
// step(inputs) then runs exactly the tick contract of sim.h:
//   beginTick (scratch zeroed) → apply_inputs → every system in declared order → flush →
//   advanceTick → hash.
// After construction nothing here allocates: step(), advance() and rehash() are
// allocation-free as long as the sim's systems are (the kernel guarantees the rest).
#include <lockstep/hash/incremental_hash.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/sim.h>
#include <lockstep/replay/tick_probe.h>
#include <lockstep/status.h>
#include <lockstep/exec/thread_pool.h>
#include <lockstep/world.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace lockstep::replay {

class Runner {
 public:
  // Builds and initialises the world; check status() before using the runner.
  Runner(const Sim& sim, const SimConfig& config);
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Result of construction (check_config, setup, system declarations, init, flush).
  Status status() const noexcept { return status_; }

  const Sim& sim() const noexcept { return *sim_; }
  const SimConfig& config() const noexcept { return config_; }
  World& world() noexcept { return *world_; }
  const World& world() const noexcept { return *world_; }
  const SystemList& systems() const noexcept { return systems_; }
  // The resolved access of system `index` (docs/systems.md).
  const AccessSet& access(std::uint32_t index) const noexcept { return access_[index]; }
  // Runs system `index` alone, with its access installed when checks are on (the default).
  SystemResult run_system(std::uint32_t index) noexcept;
  // Access checks cost a pointer test per access when off, a bit test when on; they never
  // change state (docs/systems.md, figures).
  void setAccessChecks(bool on) noexcept { access_checks_ = on; }
  bool accessChecks() const noexcept { return access_checks_; }

  // Parallel ticks (docs/systems.md, "Parallel ticks"). 0 (the default) runs everything on
  // the calling thread; n ≥ 1 creates a ThreadPool of n threads (here, once: the tick stays
  // allocation-free) that the systems' parallel loops (World::parallelEach) run on. Systems
  // still run one after the other in declared order. The state after every tick — so every
  // hash — is the same for every thread count.
  void setThreads(std::uint32_t threads);
  // The same on a game's own job system (exec/executor.h) instead of a pool of the runner's:
  // parallel loops and concurrent stages run on `executor` (not owned; null: serial). Replaces
  // any pool setThreads made. threads() is then executor->threads().
  void setExecutor(Executor* executor) noexcept;
  std::uint32_t threads() const noexcept;
  // Debug guard for parallel loops: every system that runs a parallel loop while threads ≥ 1
  // is run twice from the same state and scratch — serially, then on the pool — and the two
  // results are compared (state hash bit for bit, and every scratch byte). A difference
  // fails the tick with "parallel cross-check: system '<name>' at tick <t>: ...", naming the
  // first differing component. Systems that declare Commands are run once (re-running would
  // record their commands twice). Costs a snapshot save/load and two hashes per such system.
  void setParallelCheck(bool on);
  bool parallelCheck() const noexcept { return parallel_check_; }
  // Debug guard for the stage plan (schedule.h, plan_stages): the plan trusts declarations,
  // so before system i runs, every later system j of i's stage is run with it in both orders
  // (i then j, j then i) from the same state and scratch, and the results compared; then the
  // state is put back and the tick goes on. Systems that declare no conflict commute from any
  // state, so a difference means an undeclared access and fails the tick with "stage check:
  // systems '<i>' and '<j>' (stage s) do not commute at tick <t>: ...". Pairs where either
  // declares Commands are skipped (their recording would be doubled). Any thread count.
  void setStageCheck(bool on);
  bool stageCheck() const noexcept { return stage_check_; }
  // Concurrent stages (docs/systems.md, "Concurrent stages"): with threads ≥ 2, the systems
  // of one stage of the plan (schedule.h, plan_stages) run at once, one per pool thread, inside
  // a World::ConcurrentStage; off by default. The systems then run stage by stage, so a system
  // may run before an earlier-declared one it does not conflict with: by the declarations the
  // same bytes as declared order (setStageCheck verifies the declarations). A system of a
  // concurrent stage must make structural changes as commands: a direct one fails the tick
  // (EventId::ConcurrentStageChange). Its parallel loops run on its own thread, and the
  // parallel cross-check does not apply to it. A world with observers, or a stage of one
  // system, runs one system at a time. When a tick fails, the message names the first failing
  // system of its stage in declared order; the others of that stage have run.
  void setConcurrentStages(bool on);
  bool concurrentStages() const noexcept { return concurrent_; }
  // The stages the plan makes of the systems (1 per system when every one conflicts with the
  // one before), and a stage's systems joined by " | " (the probe's slice name for it).
  std::uint32_t stageCount() const noexcept { return stage_count_; }
  const char* stageName(std::uint32_t stage) const noexcept;

  // Bytes of one tick's input frame: players × sim.input_type().size (host byte order).
  std::uint32_t frame_bytes() const noexcept { return frame_bytes_; }
  std::uint64_t tick() const noexcept { return world_->tick(); }

  // One full tick including the state hash. `inputs` must be frame_bytes() long
  // (InvalidArgument otherwise, nothing changed). A failing flush is returned as is. A
  // fallible system (SystemFn) returning an error stops the tick before the flush: the
  // returned Status has its code and the message "system '<name>' failed at tick <t>: <msg>"
  // (valid until the next failure of this runner).
  Status step(std::span<const std::byte> inputs) noexcept;
  // The tick without the hash (benchmarks time hashing separately); hash() is stale until
  // rehash().
  Status advance(std::span<const std::byte> inputs) noexcept;
  // Hashes the current state, stores and returns it. Incremental (IncrementalHasher): equal
  // to hash_world(world()) as long as no mutable pointer is written after the hash it was
  // obtained before (docs/hashing.md).
  const StateHash& rehash() noexcept;
  // Hash of the state after the last step() / rehash() (tick 0 after construction).
  const StateHash& hash() const noexcept { return hash_; }

  // Optional observer of the tick's slices (inputs, each system, flush, hash); null: none.
  // Not owned; must outlive its use. A RollbackSession over this runner reports its
  // snapshot/rollback/resimulation slices to the same probe.
  void set_probe(TickProbe* probe) noexcept { probe_ = probe; }
  TickProbe* probe() const noexcept { return probe_; }

  // Canonical (little-endian) input bytes ↔ host order, in place, using the input type's
  // field list. No-ops on little-endian hosts. `bytes` holds whole input structs.
  static void canonical_to_host(const TypeDescriptor& input, std::span<std::byte> bytes) noexcept;
  static void host_to_canonical(const TypeDescriptor& input, std::span<std::byte> bytes) noexcept {
    canonical_to_host(input, bytes);  // byte swapping is its own inverse
  }
  // Copy, then convert: a recorded (canonical) frame into a host-order buffer, and host-order
  // inputs into a canonical buffer (a recording, a message). Copies `from.size()` bytes (whole
  // input structs) to the start of `to`, which holds at least that many, and converts them.
  static void copy_to_host(const TypeDescriptor& input, std::span<const std::byte> from, std::span<std::byte> to) noexcept;
  static void copy_to_canonical(const TypeDescriptor& input, std::span<const std::byte> from,
                                std::span<std::byte> to) noexcept {
    copy_to_host(input, from, to);  // the same copy and swap
  }

 private:
  const Sim* sim_;
  SimConfig config_;
  std::unique_ptr<World> world_;
  SystemList systems_;
  AccessSet access_[SystemList::kMaxSystems];
  bool access_checks_ = true;
  std::uint32_t frame_bytes_ = 0;
  Status status_;
  StateHash hash_{};
  IncrementalHasher hasher_;
  TickProbe* probe_ = nullptr;
  char failure_[640] = {};
  char check_failure_[512] = {};  // the cross-check's message (advance() formats failure_ from it)
  std::unique_ptr<ThreadPool> pool_;  // setThreads' own pool, or null
  Executor* executor_ = nullptr;      // pool_, a game's executor, or null
  void attach_executor(World& w) noexcept;
  bool parallel_check_ = false;
  std::unique_ptr<Snapshot> check_snapshot_;     // parallel cross-check: the state before a system
  std::unique_ptr<std::byte[]> check_scratch_;   // scratch before | scratch after the serial run
  bool stage_check_ = false;
  std::uint8_t stage_of_[SystemList::kMaxSystems] = {};
  bool concurrent_ = false;
  std::uint32_t stage_count_ = 0;
  std::uint8_t order_[SystemList::kMaxSystems] = {};  // system indices by stage, then declared order
  std::uint32_t stage_begin_[SystemList::kMaxSystems + 1] = {};  // stage s: order_[begin[s], begin[s+1])
  std::unique_ptr<char[]> stage_names_;                        // stage s's name at stage_name_at_[s]
  std::uint32_t stage_name_at_[SystemList::kMaxSystems] = {};
  SystemResult stage_results_[SystemList::kMaxSystems];
  void plan();
  Status run_one(std::uint32_t index, std::uint64_t tick, bool pair_check) noexcept;
  Status fail(std::uint32_t index, const Status& status) noexcept;
  Status run_stage(std::uint32_t stage, std::uint64_t tick) noexcept;
  SystemResult run_checked(std::uint32_t index) noexcept;
  Status check_stage_pairs(std::uint32_t index) noexcept;
  void reserve_checks();
};

}  // namespace lockstep::replay
