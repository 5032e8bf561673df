// The tick benchmark (bench.h).
#include <lockstep/inspect/bench.h>

#include <lockstep/replay/runner.h>

#include <chrono>
#include <ctime>
#include <span>

namespace lockstep::inspect {

namespace {

using Clock = std::chrono::steady_clock;
std::uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}
// CPU time of the calling thread: unlike wall time it excludes time the scheduler gave to
// other processes (the machine may be shared), so it is the steadier figure.
std::uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

class Counter {
 public:
  explicit Counter(std::uint64_t (*count)() noexcept) : count_(count) {}
  std::uint64_t now() const noexcept { return count_ != nullptr ? count_() : 0; }

 private:
  std::uint64_t (*count_)() noexcept;
};

// The warm-up and measured ticks. False (with f.error) when the sim rejects a step.
bool measure_ticks(const BenchOptions& o, replay::Runner& runner, replay::TickProbe& probe, BenchFigures& f) {
  const replay::Sim& sim = *o.sim;
  std::vector<std::unique_ptr<replay::Bot>> bots;
  for (std::uint32_t p = 0; p < o.config.players; ++p) bots.push_back(sim.make_bot(o.config, o.bot_seed, p));
  const std::uint32_t in_size = sim.input_type().size;
  std::vector<std::byte> frame(runner.frame_bytes());
  for (auto* v : {&f.tick_ns, &f.hash_ns, &f.tick_cpu_ns, &f.hash_cpu_ns}) v->reserve(o.ticks);
  const Counter heap(o.heap_allocations);
  const std::uint64_t total_ticks = o.warmup + o.ticks;
  runner.set_probe(&probe);
  const auto run_start = Clock::now();
  for (std::uint64_t t = 0; t < total_ticks; ++t) {
    if (t == o.warmup) f.trace->clear();
    for (std::uint32_t p = 0; p < o.config.players; ++p)
      bots[p]->generate(runner.tick(), runner.world(), std::span<std::byte>(frame.data() + std::size_t{p} * in_size, in_size));
    const std::uint64_t before = heap.now();
    const std::uint64_t c0 = thread_cpu_ns();
    const auto t0 = Clock::now();
    const Status s = runner.advance(frame);
    const auto t1 = Clock::now();
    const std::uint64_t c1 = thread_cpu_ns();
    runner.rehash();
    const auto t2 = Clock::now();
    const std::uint64_t c2 = thread_cpu_ns();
    const std::uint64_t after = heap.now();
    if (!s.ok()) {
      f.error = "tick " + std::to_string(t) + ": the sim rejected the step: " + s.message();
      return false;
    }
    if (t < o.warmup) continue;
    f.allocations_during_ticks += after - before;
    f.tick_ns.push_back(ns_between(t0, t1));
    f.hash_ns.push_back(ns_between(t1, t2));
    f.tick_cpu_ns.push_back(c1 - c0);
    f.hash_cpu_ns.push_back(c2 - c1);
  }
  f.run_ns = ns_between(run_start, Clock::now());
  return true;
}

// Save / load of the final state, `snapshot_iters` times.
void measure_snapshots(const BenchOptions& o, replay::Runner& runner, replay::TickProbe& probe, BenchFigures& f) {
  Snapshot snap(runner.world());
  f.save_ns.reserve(o.snapshot_iters);
  f.load_ns.reserve(o.snapshot_iters);
  const Counter heap(o.heap_allocations);
  for (std::uint32_t i = 0; i < o.snapshot_iters; ++i) {
    const std::uint64_t before = heap.now();
    const auto t0 = Clock::now();
    {
      const replay::ProbeScope slice(&probe, replay::Slice::Snapshot, runner.tick(), "snapshot save");
      runner.world().save(snap);
    }
    const auto t1 = Clock::now();
    {
      const replay::ProbeScope slice(&probe, replay::Slice::Restore, runner.tick(), "snapshot load");
      f.snapshot_load_ok = runner.world().load(snap).ok() && f.snapshot_load_ok;
    }
    const auto t2 = Clock::now();
    f.allocations_during_snapshots += heap.now() - before;
    f.save_ns.push_back(ns_between(t0, t1));
    f.load_ns.push_back(ns_between(t1, t2));
  }
  f.snapshot_bytes = snap.live_bytes();
}

}  // namespace

BenchFigures run_bench(const BenchOptions& o) {
  BenchFigures f;
  if (o.sim == nullptr) {
    f.error = "no sim given";
    return f;
  }
  const auto build_start = Clock::now();
  replay::Runner runner(*o.sim, o.config);
  if (!runner.status().ok()) {
    f.error = "cannot build sim '" + std::string(o.sim->name()) + "': " + runner.status().message();
    return f;
  }
  f.build_ns = ns_between(build_start, Clock::now());
  runner.setThreads(o.threads);
  runner.setConcurrentStages(o.concurrent_stages);
  const std::uint64_t total_ticks = o.warmup + o.ticks;
  f.trace = std::make_unique<TimingTrace>(
      o.trace_name, (total_ticks + 1) * (runner.systems().systems().size() + 3) + 2 * o.snapshot_iters);
  replay::TickProbe& probe = f.trace->lane(0, "sim");
  if (!measure_ticks(o, runner, probe, f)) return f;
  measure_snapshots(o, runner, probe, f);
  f.entities = runner.world().entityCount();
  f.final_hash = runner.hash();
  return f;
}

ThreadsComparison compare_thread_counts(const BenchOptions& o) {
  ThreadsComparison out;
  if (o.sim == nullptr) {
    out.error = "no sim given";
    return out;
  }
  replay::Runner serial(*o.sim, o.config), parallel(*o.sim, o.config);
  if (!serial.status().ok() || !parallel.status().ok()) {
    out.error = "cannot build sim '" + std::string(o.sim->name()) + "'";
    return out;
  }
  parallel.setThreads(o.threads);
  parallel.setConcurrentStages(o.concurrent_stages);
  std::vector<std::unique_ptr<replay::Bot>> bots;
  for (std::uint32_t p = 0; p < o.config.players; ++p) bots.push_back(o.sim->make_bot(o.config, o.bot_seed, p));
  const std::uint32_t in_size = o.sim->input_type().size;
  std::vector<std::byte> frame(serial.frame_bytes());
  std::vector<std::uint64_t> serial_ns, parallel_ns;
  serial_ns.reserve(o.ticks);
  parallel_ns.reserve(o.ticks);
  for (std::uint64_t t = 0; t < o.warmup + o.ticks; ++t) {
    for (std::uint32_t p = 0; p < o.config.players; ++p)
      bots[p]->generate(serial.tick(), serial.world(), std::span<std::byte>(frame.data() + std::size_t{p} * in_size, in_size));
    const auto t0 = Clock::now();
    const Status s0 = serial.advance(frame);
    const auto t1 = Clock::now();
    const Status s1 = parallel.advance(frame);
    const auto t2 = Clock::now();
    if (!s0.ok() || !s1.ok()) {
      out.error = "tick " + std::to_string(t) + ": the sim rejected the step";
      return out;
    }
    if (serial.rehash().total != parallel.rehash().total) out.hashes_equal = false;
    if (t < o.warmup) continue;
    serial_ns.push_back(ns_between(t0, t1));
    parallel_ns.push_back(ns_between(t1, t2));
  }
  out.serial_p50_us = percentiles(serial_ns).p50_us;
  out.parallel_p50_us = percentiles(parallel_ns).p50_us;
  out.speedup = out.parallel_p50_us > 0 ? out.serial_p50_us / out.parallel_p50_us : 0.0;
  return out;
}

namespace {
double sum_us(const std::vector<std::uint64_t>& v) {
  double s = 0;
  for (std::uint64_t x : v) s += static_cast<double>(x);
  return s / 1000.0;
}
}  // namespace

BenchStats bench_stats(const BenchFigures& f, std::uint64_t ticks) {
  BenchStats b;
  b.tp = percentiles(f.tick_ns);
  b.hp = percentiles(f.hash_ns);
  b.sp = percentiles(f.save_ns);
  b.lp = percentiles(f.load_ns);
  b.tc = percentiles(f.tick_cpu_ns);
  b.hc = percentiles(f.hash_cpu_ns);
  b.build_ms = static_cast<double>(f.build_ns) / 1e6;
  b.wall_s = static_cast<double>(f.run_ns) / 1e9;
  b.hash_share_cpu = b.tc.p50_us + b.hc.p50_us > 0 ? 100.0 * b.hc.p50_us / (b.tc.p50_us + b.hc.p50_us) : 0.0;
  const double tick_total = sum_us(f.tick_ns), hash_total = sum_us(f.hash_ns);
  b.hash_share = tick_total + hash_total > 0 ? 100.0 * hash_total / (tick_total + hash_total) : 0.0;
  b.hash_share_p50 = b.tp.p50_us + b.hp.p50_us > 0 ? 100.0 * b.hp.p50_us / (b.tp.p50_us + b.hp.p50_us) : 0.0;
  b.tps = tick_total + hash_total > 0 ? static_cast<double>(ticks) / ((tick_total + hash_total) / 1e6) : 0.0;
  b.final_hash = to_hex(f.final_hash.total);
  return b;
}

}  // namespace lockstep::inspect
