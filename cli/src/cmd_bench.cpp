// lockstep bench --sim skirmish --units 10000 --ticks 1000 — tick benchmark.
// Reports tick time (apply inputs + systems + flush) p50/p99/max, state-hash time (wall time,
// and this thread's CPU time beside it: on a shared machine wall time includes waiting), snapshot
// save/load time, heap allocations during ticks (counted by lockstep::alloc_counter; must be 0)
// and ticks/s. The measuring is inspect::run_bench (inspect/bench.h), the reports
// inspect/bench_report.h; this file parses and prints.
#include "common.h"

#include <lockstep/inspect/bench.h>
#include <lockstep/inspect/bench_report.h>

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
  bool concurrent_stages = false;
};

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
  o.trace_name = tool_name() + " bench " + a.sim;
  o.threads = a.threads;
  o.concurrent_stages = a.concurrent_stages;
  const inspect::BenchFigures f = inspect::run_bench(o);
  if (!f.error.empty()) return report_error(a.json, kExitBadInput, f.error);
  inspect::ThreadsComparison cmp;
  if (a.threads > 0) cmp = inspect::compare_thread_counts(o);
  if (!cmp.error.empty()) return report_error(a.json, kExitBadInput, "--threads: " + cmp.error);
  const inspect::BenchStats b = inspect::bench_stats(f, a.ticks);
  const std::string report = a.json  ? inspect::bench_report_json(o, f, b, cmp)
                             : a.csv ? inspect::bench_report_csv(o, f, b)
                                     : inspect::bench_report_text(o, f, b, cmp);
  std::fputs(report.c_str(), stdout);
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
  CLI::Option* threads = app->add_option("--threads", a->threads,
                  "Run the sim's parallel loops on N threads (0 = serial) and report the speedup over 0 threads, "
                  "measured in the same run with hashes compared every tick")
      ->check(CLI::Range(0, 64))->capture_default_str();
  app->add_flag("--concurrent-stages", a->concurrent_stages,
                "With --threads N (N >= 2): also run the systems of one stage of the plan at once (" + tool_name() +
                    " info --systems shows the stages)")
      ->needs(threads);
  app->footer("Examples:\n"
              "  " + tool_name() + " bench --sim skirmish --units 10000 --ticks 1000\n"
              "  " + tool_name() + " bench --sim duel --ticks 10000 --json\n"
              "  " + tool_name() + " bench --csv >> bench.csv\n"
              "  " + tool_name() + " bench --sim skirmish --units 10000 --threads 2\n"
              "  " + tool_name() + " bench --sim mygame --threads 2 --concurrent-stages\n"
              "  " + tool_name() + " bench --ticks 300 --trace-out trace.json   (open in https://ui.perfetto.dev)\n"
              "Exit codes: 0 ok, 2 bad arguments or the sim failed.");
  return {app, [a] { return bench_cmd(*a); }};
}

}  // namespace lockstep::cli
