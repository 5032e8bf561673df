#pragma once
// The tick benchmark behind `lockstep bench`, as a library call a game's own benchmark or CI
// job makes: builds the sim, drives it with its bots, and measures every tick (apply inputs +
// systems + flush), every state hash (wall and this thread's CPU time), snapshot save/load
// and, given a counter, the heap allocations inside those regions. Bots generate inputs
// outside the timed and counted regions. Returns raw figures; the statistics a person reads
// (percentiles, shares, ticks/s) are the caller's, e.g. with inspect::percentiles.
// Clock reads live here, in a diagnostics module, never on a simulation path.
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/timing_trace.h>
#include <lockstep/replay/sim.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lockstep::inspect {

struct BenchOptions {
  const replay::Sim* sim = nullptr;
  replay::SimConfig config;
  std::uint64_t bot_seed = 1;
  std::uint64_t warmup = 10;  // ticks run first, neither timed nor counted
  std::uint64_t ticks = 1000;  // measured ticks
  std::uint32_t snapshot_iters = 50;
  // The process's heap allocation count (e.g. lockstep::alloc_counter::heap_allocations);
  // null: allocations are not counted (reported as 0).
  std::uint64_t (*heap_allocations)() noexcept = nullptr;
  std::string trace_name = "bench";  // the timing trace's process name
  // Threads for the sim's parallel loops (Runner::setThreads; 0 = serial, docs/systems.md).
  std::uint32_t threads = 0;
  // With threads ≥ 2: the systems of one stage of the plan run at once
  // (Runner::setConcurrentStages, docs/systems.md "Concurrent stages").
  bool concurrent_stages = false;
};

// --threads: the same ticks on two runners, serial and `options.threads` threads, alternating
// tick by tick (both see the same machine load), hashes compared every tick. Wall time: with
// threads, one thread's CPU time says nothing about the tick.
struct ThreadsComparison {
  std::string error;  // non-empty: a runner could not be built or rejected a step
  double serial_p50_us = 0, parallel_p50_us = 0, speedup = 0;
  bool hashes_equal = true;
};
ThreadsComparison compare_thread_counts(const BenchOptions& options);

struct BenchFigures {
  std::string error;  // non-empty: the sim could not be built or rejected a step; nothing else is set
  std::uint64_t build_ns = 0;  // building the world
  std::uint64_t run_ns = 0;    // the warm-up and the measured ticks, bots included
  // Per measured tick (wall / this thread's CPU time), and per snapshot iteration.
  std::vector<std::uint64_t> tick_ns, hash_ns, tick_cpu_ns, hash_cpu_ns, save_ns, load_ns;
  std::uint64_t allocations_during_ticks = 0;
  std::uint64_t allocations_during_snapshots = 0;
  std::uint32_t entities = 0;    // in the final state
  std::size_t snapshot_bytes = 0;
  bool snapshot_load_ok = true;  // every load of the saved snapshot succeeded
  StateHash final_hash{};
  // Every slice of every measured tick and of the snapshot iterations (reserved up front, so
  // recording adds no heap allocation to the measured regions): lane 0, "sim".
  std::unique_ptr<TimingTrace> trace;
};

BenchFigures run_bench(const BenchOptions& options);

// The figures a person reads, from the raw measurements (display only): percentiles of tick,
// hash, snapshot save/load and tick/hash CPU time; the world build in ms, the run in s; the
// hash's share of tick+hash time (over all ticks, at p50, of CPU time at p50, in percent);
// ticks per second of tick+hash time over `ticks`; the final hash in hex.
struct BenchStats {
  Percentiles tp, hp, sp, lp, tc, hc;
  double build_ms = 0, wall_s = 0, hash_share = 0, hash_share_p50 = 0, hash_share_cpu = 0, tps = 0;
  std::string final_hash;
};
BenchStats bench_stats(const BenchFigures& figures, std::uint64_t ticks);

}  // namespace lockstep::inspect
