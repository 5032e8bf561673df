// lockstep bench --sim skirmish --units 10000 --ticks 1000 — tick benchmark.
// Reports tick time (apply inputs + systems + flush) p50/p99/max, state-hash time (wall time,
// and this thread's CPU time beside it: on a shared machine wall time includes waiting), snapshot
// save/load time, heap allocations during ticks (counted by alloc_counter.cpp; must be 0)
// and ticks/s. Bots generate inputs outside the timed and counted regions.
#include "common.h"
#include "timing_trace.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace lockstep::cli {

namespace {
struct BenchArgs {
  std::string sim = "skirmish";
  std::uint32_t units = 0;
  bool units_given = false;
  std::uint64_t ticks = 1000;
  std::uint32_t players = 2;
  std::uint64_t seed = 1;
  std::uint64_t bot = 1;
  std::uint64_t warmup = 10;
  std::uint32_t snapshot_iters = 50;
  bool json = false;
  bool csv = false;
  std::string trace_out;
  std::uint32_t threads = 0;
};

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
double sum_us(const std::vector<std::uint64_t>& v) {
  double s = 0;
  for (std::uint64_t x : v) s += static_cast<double>(x);
  return s / 1000.0;
}

// --threads N: the same ticks on two runners, serial and N threads, alternating tick by tick
// (so both see the same machine load), with the hashes compared every tick. Wall time: with
// threads, one thread's CPU time says nothing about the tick.
struct ThreadsCompare {
  double serial_p50_us = 0, parallel_p50_us = 0, speedup = 0;
  bool hashes_equal = true;
};
bool compare_threads(const BenchArgs& a, const replay::Sim& sim, const replay::SimConfig& config, ThreadsCompare& out) {
  replay::Runner serial(sim, config), parallel(sim, config);
  if (!serial.status().ok() || !parallel.status().ok()) return false;
  parallel.setThreads(a.threads);
  std::vector<std::unique_ptr<replay::Bot>> bots;
  for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim.make_bot(config, a.bot, p));
  const std::uint32_t in_size = sim.input_type().size;
  std::vector<std::byte> frame(serial.frame_bytes());
  std::vector<std::uint64_t> serial_ns, parallel_ns;
  serial_ns.reserve(a.ticks);
  parallel_ns.reserve(a.ticks);
  for (std::uint64_t t = 0; t < a.warmup + a.ticks; ++t) {
    for (std::uint32_t p = 0; p < config.players; ++p)
      bots[p]->generate(serial.tick(), serial.world(), std::span<std::byte>(frame.data() + std::size_t{p} * in_size, in_size));
    const auto t0 = Clock::now();
    const Status s0 = serial.advance(frame);
    const auto t1 = Clock::now();
    const Status s1 = parallel.advance(frame);
    const auto t2 = Clock::now();
    if (!s0.ok() || !s1.ok()) return false;
    if (serial.rehash().total != parallel.rehash().total) out.hashes_equal = false;
    if (t < a.warmup) continue;
    serial_ns.push_back(ns_between(t0, t1));
    parallel_ns.push_back(ns_between(t1, t2));
  }
  out.serial_p50_us = percentiles(serial_ns).p50_us;
  out.parallel_p50_us = percentiles(parallel_ns).p50_us;
  out.speedup = out.parallel_p50_us > 0 ? out.serial_p50_us / out.parallel_p50_us : 0.0;
  return true;
}

int bench_cmd(const BenchArgs& a) {
  const replay::Sim* sim = replay::find_sim(a.sim);
  if (sim == nullptr) return report_error(a.json, kExitBadInput, "unknown sim '" + a.sim + "' (known: " + describe_sims() + ")");
  // Two 8-byte timings are kept per tick; 10^8 ticks is 1.6 GB of them.
  if (a.ticks == 0 || a.ticks > 100000000)
    return report_error(a.json, kExitBadInput, "--ticks must be 1..100000000, not " + std::to_string(a.ticks));
  if (!a.trace_out.empty())
    if (int rc = check_output(a.trace_out, a.json); rc != kExitOk) return rc;
  replay::SimConfig config;
  config.players = a.players;
  // Default: 10000 units for skirmish (the benchmark's reference load), the sim's default otherwise.
  config.units = a.units_given ? a.units : (a.sim == "skirmish" ? 10000u : 0u);
  config.seed = a.seed;
  const auto build_start = Clock::now();
  replay::Runner runner(*sim, config);
  if (!runner.status().ok())
    return report_error(a.json, kExitBadInput, "cannot build sim '" + a.sim + "': " + runner.status().message());
  const double build_ms = static_cast<double>(ns_between(build_start, Clock::now())) / 1e6;
  runner.setThreads(a.threads);
  std::vector<std::unique_ptr<replay::Bot>> bots;
  for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim->make_bot(config, a.bot, p));
  const std::uint32_t in_size = sim->input_type().size;
  std::vector<std::byte> frame(runner.frame_bytes());
  std::vector<std::uint64_t> tick_ns, hash_ns, tick_cpu_ns, hash_cpu_ns;
  for (auto* v : {&tick_ns, &hash_ns, &tick_cpu_ns, &hash_cpu_ns}) v->reserve(a.ticks);
  std::uint64_t allocations = 0;
  const std::uint64_t total_ticks = a.warmup + a.ticks;
  // Every slice of every measured tick is recorded (reserved up front: no allocation in the
  // measured region); the per-slice table and --trace-out come from it.
  TimingTrace trace("lockstep bench " + a.sim, (total_ticks + 1) * (runner.systems().systems().size() + 3) + 2 * a.snapshot_iters);
  replay::TickProbe& probe = trace.lane(0, "sim");
  runner.set_probe(&probe);
  const auto run_start = Clock::now();
  for (std::uint64_t t = 0; t < total_ticks; ++t) {
    if (t == a.warmup) trace.clear();
    for (std::uint32_t p = 0; p < config.players; ++p)
      bots[p]->generate(runner.tick(), runner.world(), std::span<std::byte>(frame.data() + std::size_t{p} * in_size, in_size));
    const std::uint64_t before = heap_allocations();
    const std::uint64_t c0 = thread_cpu_ns();
    const auto t0 = Clock::now();
    const Status s = runner.advance(frame);
    const auto t1 = Clock::now();
    const std::uint64_t c1 = thread_cpu_ns();
    runner.rehash();
    const auto t2 = Clock::now();
    const std::uint64_t c2 = thread_cpu_ns();
    const std::uint64_t after = heap_allocations();
    if (!s.ok()) return report_error(a.json, kExitBadInput, "tick " + std::to_string(t) + ": the sim rejected the step: " + s.message());
    if (t < a.warmup) continue;
    allocations += after - before;
    tick_ns.push_back(ns_between(t0, t1));
    hash_ns.push_back(ns_between(t1, t2));
    tick_cpu_ns.push_back(c1 - c0);
    hash_cpu_ns.push_back(c2 - c1);
  }
  const double wall_s = static_cast<double>(ns_between(run_start, Clock::now())) / 1e9;

  // Snapshot save / load of the final state.
  Snapshot snap(runner.world());
  std::vector<std::uint64_t> save_ns, load_ns;
  save_ns.reserve(a.snapshot_iters);
  load_ns.reserve(a.snapshot_iters);
  std::uint64_t snapshot_allocations = 0;
  bool load_ok = true;
  for (std::uint32_t i = 0; i < a.snapshot_iters; ++i) {
    const std::uint64_t before = heap_allocations();
    const auto t0 = Clock::now();
    {
      const replay::ProbeScope slice(&probe, replay::Slice::Snapshot, runner.tick(), "snapshot save");
      runner.world().save(snap);
    }
    const auto t1 = Clock::now();
    {
      const replay::ProbeScope slice(&probe, replay::Slice::Restore, runner.tick(), "snapshot load");
      load_ok = runner.world().load(snap).ok() && load_ok;
    }
    const auto t2 = Clock::now();
    snapshot_allocations += heap_allocations() - before;
    save_ns.push_back(ns_between(t0, t1));
    load_ns.push_back(ns_between(t1, t2));
  }

  const Percentiles tp = percentiles(tick_ns), hp = percentiles(hash_ns), sp = percentiles(save_ns), lp = percentiles(load_ns);
  const Percentiles tc = percentiles(tick_cpu_ns), hc = percentiles(hash_cpu_ns);
  const double hash_share_cpu = tc.p50_us + hc.p50_us > 0 ? 100.0 * hc.p50_us / (tc.p50_us + hc.p50_us) : 0.0;
  const double tick_total = sum_us(tick_ns), hash_total = sum_us(hash_ns);
  const double hash_share = tick_total + hash_total > 0 ? 100.0 * hash_total / (tick_total + hash_total) : 0.0;
  const double hash_share_p50 = tp.p50_us + hp.p50_us > 0 ? 100.0 * hp.p50_us / (tp.p50_us + hp.p50_us) : 0.0;
  const double tps = tick_total + hash_total > 0 ? static_cast<double>(a.ticks) / ((tick_total + hash_total) / 1e6) : 0.0;
  const std::uint32_t entities = runner.world().entityCount();
  const std::string final_hash = hex(runner.hash().total);
  ThreadsCompare cmp;
  if (a.threads > 0 && !compare_threads(a, *sim, config, cmp))
    return report_error(a.json, kExitBadInput, "--threads: the serial/parallel comparison run failed");

  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("sim", a.sim).field("players", config.players).field("units", config.units)
        .field("entities", std::uint64_t{entities}).field("ticks", a.ticks).field("warmup", a.warmup)
        .field("build_ms", build_ms)
        .field("tick_p50_us", tp.p50_us).field("tick_p99_us", tp.p99_us).field("tick_max_us", tp.max_us).field("tick_mean_us", tp.mean_us)
        .field("hash_p50_us", hp.p50_us).field("hash_p99_us", hp.p99_us).field("hash_max_us", hp.max_us).field("hash_mean_us", hp.mean_us)
        .field("hash_share_percent", hash_share).field("hash_share_p50_percent", hash_share_p50)
        .field("tick_cpu_p50_us", tc.p50_us).field("tick_cpu_p99_us", tc.p99_us)
        .field("hash_cpu_p50_us", hc.p50_us).field("hash_cpu_p99_us", hc.p99_us).field("hash_share_cpu_p50_percent", hash_share_cpu)
        .field("snapshot_save_p50_us", sp.p50_us).field("snapshot_load_p50_us", lp.p50_us)
        .field("snapshot_bytes", std::uint64_t{snap.live_bytes()})
        .field("heap_allocations_during_ticks", allocations).field("heap_allocations_during_snapshots", snapshot_allocations)
        .field("ticks_per_second", tps).field("wall_seconds", wall_s).field("final_hash", final_hash)
        .field("threads", std::uint64_t{a.threads});
    if (a.threads > 0)
      j.field("serial_tick_p50_us", cmp.serial_p50_us).field("parallel_tick_p50_us", cmp.parallel_p50_us)
          .field("speedup", cmp.speedup).field("hashes_equal", cmp.hashes_equal);
    add_slice_json(j, trace);
    j.end();
    std::printf("%s\n", j.str().c_str());
  } else if (a.csv) {
    std::printf("sim,players,units,entities,ticks,tick_p50_us,tick_p99_us,tick_max_us,hash_p50_us,hash_p99_us,hash_max_us,"
                "hash_share_percent,snapshot_save_p50_us,snapshot_load_p50_us,snapshot_bytes,heap_allocations,ticks_per_second,final_hash,"
                "tick_cpu_p50_us,tick_cpu_p99_us,hash_cpu_p50_us,hash_cpu_p99_us\n");
    std::printf("%s,%u,%u,%u,%llu,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%zu,%llu,%.1f,%s,%.2f,%.2f,%.2f,%.2f\n", a.sim.c_str(),
                config.players, config.units, entities, static_cast<unsigned long long>(a.ticks), tp.p50_us, tp.p99_us,
                tp.max_us, hp.p50_us, hp.p99_us, hp.max_us, hash_share, sp.p50_us, lp.p50_us, snap.live_bytes(),
                static_cast<unsigned long long>(allocations), tps, final_hash.c_str(), tc.p50_us, tc.p99_us, hc.p50_us,
                hc.p99_us);
  } else {
    std::printf("bench          %s  players %u  units %u  entities %u  ticks %llu (+%llu warm-up)\n", a.sim.c_str(),
                config.players, config.units, entities, static_cast<unsigned long long>(a.ticks),
                static_cast<unsigned long long>(a.warmup));
    std::printf("tick           p50 %9.1f us   p99 %9.1f us   max %9.1f us   (inputs+systems+flush)\n", tp.p50_us, tp.p99_us, tp.max_us);
    std::printf("hash           p50 %9.1f us   p99 %9.1f us   max %9.1f us   (%.1f%% of tick+hash time; %.1f%% at p50)\n",
                hp.p50_us, hp.p99_us, hp.max_us, hash_share, hash_share_p50);
    std::printf("tick cpu       p50 %9.1f us   p99 %9.1f us   (this thread's CPU time)\n", tc.p50_us, tc.p99_us);
    std::printf("hash cpu       p50 %9.1f us   p99 %9.1f us   (%.1f%% of tick+hash CPU time at p50)\n", hc.p50_us,
                hc.p99_us, hash_share_cpu);
    std::printf("snapshot       save p50 %.1f us   load p50 %.1f us   (%zu bytes)%s\n", sp.p50_us, lp.p50_us, snap.live_bytes(),
                load_ok ? "" : "  LOAD FAILED");
    std::printf("allocations    %llu heap allocations during ticks, %llu during snapshots\n",
                static_cast<unsigned long long>(allocations), static_cast<unsigned long long>(snapshot_allocations));
    std::printf("throughput     %.0f ticks/s (tick+hash)   world build %.1f ms   final hash %s\n", tps, build_ms, final_hash.c_str());
    if (a.threads > 0)
      std::printf("threads        %u: tick p50 %.1f us vs %.1f us at --threads 0 (same ticks, alternating): speedup %.2fx, hashes %s\n",
                  a.threads, cmp.parallel_p50_us, cmp.serial_p50_us, cmp.speedup, cmp.hashes_equal ? "equal" : "DIFFER");
    print_slice_table(trace);
  }
  if (!a.trace_out.empty())
    if (int rc = write_timing_trace(trace, a.trace_out, a.json); rc != kExitOk) return rc;
  if (!load_ok) return report_error(false, kExitBadInput, "snapshot load failed");
  if (!cmp.hashes_equal) return report_error(false, kExitMismatch, "--threads: a hash differs from the serial run's");
  return kExitOk;
}
}  // namespace

Command add_bench(CLI::App& root) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* app = root.add_subcommand("bench", "Tick benchmark: tick/hash/snapshot times, heap allocations, ticks/s");
  app->add_option("--sim", a->sim, "Sim name")->capture_default_str();
  app->add_option("--units", a->units, "SimConfig::units (skirmish: total units at start; default 10000 for skirmish, else 0)")
      ->each([a](const std::string&) { a->units_given = true; });
  app->add_option("--ticks", a->ticks, "Measured ticks")->capture_default_str();
  app->add_option("--players", a->players, "Player count")->capture_default_str();
  app->add_option("--seed", a->seed, "World seed")->capture_default_str();
  app->add_option("--bot", a->bot, "Bot seed")->capture_default_str();
  app->add_option("--warmup", a->warmup, "Unmeasured ticks first")->capture_default_str();
  app->add_option("--snapshot-iters", a->snapshot_iters, "Snapshot save/load repetitions")->capture_default_str();
  auto* json = app->add_flag("--json", a->json, "One JSON object on stdout");
  app->add_flag("--csv", a->csv, "CSV header + one row on stdout")->excludes(json);
  app->add_option("--trace-out", a->trace_out, "Write a Chrome trace-event JSON timing trace (Perfetto, chrome://tracing)");
  app->add_option("--threads", a->threads,
                  "Run the sim's parallel loops on N threads (0 = serial) and report the speedup over 0 threads, "
                  "measured in the same run with hashes compared every tick")
      ->check(CLI::Range(0, 64))->capture_default_str();
  app->footer("Examples:\n"
              "  lockstep bench --sim skirmish --units 10000 --ticks 1000\n"
              "  lockstep bench --sim duel --ticks 10000 --json\n"
              "  lockstep bench --csv >> bench.csv\n"
              "  lockstep bench --sim skirmish --units 10000 --threads 2\n"
              "  lockstep bench --ticks 300 --trace-out trace.json   (open in https://ui.perfetto.dev)\n"
              "Exit codes: 0 ok, 2 bad arguments or the sim failed.");
  return {app, [a] { return bench_cmd(*a); }};
}

}  // namespace lockstep::cli
