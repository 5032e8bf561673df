// lockstep bench --sim skirmish --units 10000 --ticks 1000 — tick benchmark.
// Reports tick time (apply inputs + systems + flush) p50/p99/max, state-hash time (wall time,
// and this thread's CPU time beside it: on a shared machine wall time includes waiting), snapshot
// save/load time, heap allocations during ticks (counted by lockstep::alloc_counter; must be 0)
// and ticks/s. The measuring is inspect::run_bench (inspect/bench.h); this file prints.
#include "common.h"

#include <lockstep/inspect/bench.h>

#include <cstdio>

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

using inspect::BenchStats;

void print_bench_json(const BenchArgs& a, const replay::SimConfig& config, const inspect::BenchFigures& f, const BenchStats& b,
                      const inspect::ThreadsComparison& cmp) {
  Json j;
  j.begin().field("ok", true).field("sim", a.sim).field("players", config.players).field("units", config.units)
      .field("entities", std::uint64_t{f.entities}).field("ticks", a.ticks).field("warmup", a.warmup)
      .field("build_ms", b.build_ms)
      .field("tick_p50_us", b.tp.p50_us).field("tick_p99_us", b.tp.p99_us).field("tick_max_us", b.tp.max_us).field("tick_mean_us", b.tp.mean_us)
      .field("hash_p50_us", b.hp.p50_us).field("hash_p99_us", b.hp.p99_us).field("hash_max_us", b.hp.max_us).field("hash_mean_us", b.hp.mean_us)
      .field("hash_share_percent", b.hash_share).field("hash_share_p50_percent", b.hash_share_p50)
      .field("tick_cpu_p50_us", b.tc.p50_us).field("tick_cpu_p99_us", b.tc.p99_us)
      .field("hash_cpu_p50_us", b.hc.p50_us).field("hash_cpu_p99_us", b.hc.p99_us).field("hash_share_cpu_p50_percent", b.hash_share_cpu)
      .field("snapshot_save_p50_us", b.sp.p50_us).field("snapshot_load_p50_us", b.lp.p50_us)
      .field("snapshot_bytes", std::uint64_t{f.snapshot_bytes})
      .field("heap_allocations_during_ticks", f.allocations_during_ticks)
      .field("heap_allocations_during_snapshots", f.allocations_during_snapshots)
      .field("ticks_per_second", b.tps).field("wall_seconds", b.wall_s).field("final_hash", b.final_hash)
      .field("threads", std::uint64_t{a.threads});
  if (a.threads > 0)
    j.field("serial_tick_p50_us", cmp.serial_p50_us).field("parallel_tick_p50_us", cmp.parallel_p50_us)
        .field("speedup", cmp.speedup).field("hashes_equal", cmp.hashes_equal);
  add_slice_json(j, *f.trace);
  j.end();
  std::printf("%s\n", j.str().c_str());
}

void print_bench_csv(const BenchArgs& a, const replay::SimConfig& config, const inspect::BenchFigures& f, const BenchStats& b) {
  std::printf("sim,players,units,entities,ticks,tick_p50_us,tick_p99_us,tick_max_us,hash_p50_us,hash_p99_us,hash_max_us,"
              "hash_share_percent,snapshot_save_p50_us,snapshot_load_p50_us,snapshot_bytes,heap_allocations,ticks_per_second,final_hash,"
              "tick_cpu_p50_us,tick_cpu_p99_us,hash_cpu_p50_us,hash_cpu_p99_us\n");
  std::printf("%s,%u,%u,%u,%llu,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%zu,%llu,%.1f,%s,%.2f,%.2f,%.2f,%.2f\n", a.sim.c_str(),
              config.players, config.units, f.entities, static_cast<unsigned long long>(a.ticks), b.tp.p50_us, b.tp.p99_us,
              b.tp.max_us, b.hp.p50_us, b.hp.p99_us, b.hp.max_us, b.hash_share, b.sp.p50_us, b.lp.p50_us, f.snapshot_bytes,
              static_cast<unsigned long long>(f.allocations_during_ticks), b.tps, b.final_hash.c_str(), b.tc.p50_us,
              b.tc.p99_us, b.hc.p50_us, b.hc.p99_us);
}

void print_bench_text(const BenchArgs& a, const replay::SimConfig& config, const inspect::BenchFigures& f, const BenchStats& b,
                      const inspect::ThreadsComparison& cmp) {
  std::printf("bench          %s  players %u  units %u  entities %u  ticks %llu (+%llu warm-up)\n", a.sim.c_str(),
              config.players, config.units, f.entities, static_cast<unsigned long long>(a.ticks),
              static_cast<unsigned long long>(a.warmup));
  std::printf("tick           p50 %9.1f us   p99 %9.1f us   max %9.1f us   (inputs+systems+flush)\n", b.tp.p50_us, b.tp.p99_us, b.tp.max_us);
  std::printf("hash           p50 %9.1f us   p99 %9.1f us   max %9.1f us   (%.1f%% of tick+hash time; %.1f%% at p50)\n",
              b.hp.p50_us, b.hp.p99_us, b.hp.max_us, b.hash_share, b.hash_share_p50);
  std::printf("tick cpu       p50 %9.1f us   p99 %9.1f us   (this thread's CPU time)\n", b.tc.p50_us, b.tc.p99_us);
  std::printf("hash cpu       p50 %9.1f us   p99 %9.1f us   (%.1f%% of tick+hash CPU time at p50)\n", b.hc.p50_us,
              b.hc.p99_us, b.hash_share_cpu);
  std::printf("snapshot       save p50 %.1f us   load p50 %.1f us   (%zu bytes)%s\n", b.sp.p50_us, b.lp.p50_us, f.snapshot_bytes,
              f.snapshot_load_ok ? "" : "  LOAD FAILED");
  if (tool().heap_allocations != nullptr)
    std::printf("allocations    %llu heap allocations during ticks, %llu during snapshots\n",
                static_cast<unsigned long long>(f.allocations_during_ticks),
                static_cast<unsigned long long>(f.allocations_during_snapshots));
  else
    std::printf("allocations    not counted (tool built with NO_ALLOCATION_COUNTER)\n");
  std::printf("throughput     %.0f ticks/s (tick+hash)   world build %.1f ms   final hash %s\n", b.tps, b.build_ms, b.final_hash.c_str());
  if (a.threads > 0)
    std::printf("threads        %u: tick p50 %.1f us vs %.1f us at --threads 0 (same ticks, alternating): speedup %.2fx, hashes %s\n",
                a.threads, cmp.parallel_p50_us, cmp.serial_p50_us, cmp.speedup, cmp.hashes_equal ? "equal" : "DIFFER");
  print_slice_table(*f.trace);
}

int bench_cmd(const BenchArgs& a) {
  const replay::Sim* sim = replay::find_sim(a.sim);
  if (sim == nullptr) return report_error(a.json, kExitBadInput, "unknown sim '" + a.sim + "' (known: " + describe_sims() + ")");
  // Two 8-byte timings are kept per tick; 10^8 ticks is 1.6 GB of them.
  if (a.ticks == 0 || a.ticks > 100000000)
    return report_error(a.json, kExitBadInput, "--ticks must be 1..100000000, not " + std::to_string(a.ticks));
  if (!a.trace_out.empty())
    if (int rc = check_output(a.trace_out, a.json); rc != kExitOk) return rc;
  inspect::BenchOptions o;
  o.sim = sim;
  o.config.players = a.players;
  // Default: 10000 units for skirmish (the benchmark's reference load), the sim's default otherwise.
  o.config.units = a.units_given ? a.units : (a.sim == "skirmish" ? 10000u : 0u);
  o.config.seed = a.seed;
  o.bot_seed = a.bot;
  o.warmup = a.warmup;
  o.ticks = a.ticks;
  o.snapshot_iters = a.snapshot_iters;
  o.heap_allocations = tool().heap_allocations;
  o.trace_name = "lockstep bench " + a.sim;
  o.threads = a.threads;
  const inspect::BenchFigures f = inspect::run_bench(o);
  if (!f.error.empty()) return report_error(a.json, kExitBadInput, f.error);
  inspect::ThreadsComparison cmp;
  if (a.threads > 0) cmp = inspect::compare_thread_counts(o);
  if (!cmp.error.empty()) return report_error(a.json, kExitBadInput, "--threads: " + cmp.error);
  const BenchStats b = inspect::bench_stats(f, a.ticks);
  if (a.json) print_bench_json(a, o.config, f, b, cmp);
  else if (a.csv) print_bench_csv(a, o.config, f, b);
  else print_bench_text(a, o.config, f, b, cmp);
  if (!a.trace_out.empty())
    if (int rc = write_timing_trace(*f.trace, a.trace_out, a.json); rc != kExitOk) return rc;
  if (!f.snapshot_load_ok) return report_error(false, kExitBadInput, "snapshot load failed");
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
