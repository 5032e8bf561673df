// Parallel ticks on a shared machine (docs/systems.md, "Parallel ticks"; issue 37): the
// skirmish fixture at 10,000 units ticked serially and on a 2-thread pool, the two runners
// alternating tick by tick over the same ticks (same inputs, hashes compared at the end), so
// both see the same machine load. Arg 0: the machine as it is ("idle"); arg 1: contended —
// the benchmark starts one busy-spinning thread per hardware thread at normal priority for the
// run, the way two `yes > /dev/null` or two compiler jobs load a 2-core machine.
//
// Wall time (the work is on several threads). Counters per tick: serial_us and threads_us
// (mean over the run's ticks: a tick held up by a descheduled worker counts in full),
// speedup = serial_us / threads_us, and speedup_p50 (the medians', as `lockstep bench
// --threads` reports). Targets: idle >= 1.6x, contended >= 0.9x. scripts/bench-gate keeps the
// contended ratio. Suggested run (the figures in docs/benchmarks.md):
//   bench_parallel --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Display-only floats (ratios).
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/runner.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace lockstep;
using namespace lockstep::replay;

constexpr std::uint32_t kUnits = 10000;
constexpr std::uint32_t kWarmup = 10;
using Clock = std::chrono::steady_clock;

// Busy threads beside the benchmark for its lifetime: each spins on a relaxed load, never
// sleeps, never yields — a CPU-bound process at normal priority.
class Contention {
 public:
  explicit Contention(unsigned threads) {
    for (unsigned t = 0; t < threads; ++t)
      spinners_.emplace_back([this] {
        std::uint64_t n = 0;
        while (!stop_.load(std::memory_order_relaxed)) benchmark::DoNotOptimize(++n);
      });
  }
  ~Contention() {
    stop_.store(true, std::memory_order_relaxed);
    for (std::thread& t : spinners_) t.join();
  }
  Contention(const Contention&) = delete;
  Contention& operator=(const Contention&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> spinners_;
};

double median_us(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2] / 1e3;
}

// One iteration: one tick of each runner (the order alternates, so neither always follows the
// other into a cache the other filled). The iteration time reported is the pair's.
void BM_skirmish_threads(benchmark::State& state) {
  const bool contended = state.range(0) != 0;
  const Sim& sim = fixtures::skirmish_sim();
  SimConfig config;
  config.players = 2;
  config.units = kUnits;
  config.seed = 1;
  Runner serial(sim, config), threaded(sim, config);
  if (!serial.status().ok() || !threaded.status().ok()) {
    state.SkipWithError("cannot build the skirmish fixture");
    return;
  }
  threaded.setThreads(2);
  std::vector<std::unique_ptr<Bot>> bots;
  for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim.make_bot(config, 1, p));
  const std::uint32_t in = sim.input_type().size;
  std::vector<std::byte> frame(serial.frame_bytes());
  auto inputs = [&] {
    for (std::uint32_t p = 0; p < config.players; ++p)
      bots[p]->generate(serial.tick(), serial.world(), std::span<std::byte>(frame.data() + p * in, in));
  };
  const Contention load(contended ? std::max(1u, std::thread::hardware_concurrency()) : 0u);
  for (std::uint32_t t = 0; t < kWarmup; ++t) {
    inputs();
    (void)serial.advance(frame);
    (void)threaded.advance(frame);
  }
  std::vector<double> serial_ns, threaded_ns;
  serial_ns.reserve(state.max_iterations);
  threaded_ns.reserve(state.max_iterations);
  bool ok = true;
  std::uint64_t i = 0;
  for (auto _ : state) {
    inputs();
    double ns[2];
    for (int k = 0; k < 2; ++k) {
      const bool threaded_turn = ((i + k) & 1) != 0;
      const auto t0 = Clock::now();
      ok &= (threaded_turn ? threaded : serial).advance(frame).ok();
      ns[threaded_turn ? 1 : 0] = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    }
    serial_ns.push_back(ns[0]);
    threaded_ns.push_back(ns[1]);
    state.SetIterationTime((ns[0] + ns[1]) / 1e9);
    ++i;
  }
  if (!ok) state.SkipWithError("a tick failed");
  if (serial.rehash().total != threaded.rehash().total) state.SkipWithError("the 2-thread hash differs from the serial one");
  double serial_sum = 0, threaded_sum = 0;
  for (double x : serial_ns) serial_sum += x;
  for (double x : threaded_ns) threaded_sum += x;
  const double n = serial_ns.empty() ? 1.0 : static_cast<double>(serial_ns.size());
  state.counters["serial_us"] = serial_sum / n / 1e3;
  state.counters["threads_us"] = threaded_sum / n / 1e3;
  state.counters["speedup"] = threaded_sum > 0 ? serial_sum / threaded_sum : 0.0;
  const double p50_threads = median_us(threaded_ns);
  state.counters["speedup_p50"] = p50_threads > 0 ? median_us(serial_ns) / p50_threads : 0.0;
  state.SetLabel(contended ? "contended" : "idle");
}
BENCHMARK(BM_skirmish_threads)->Arg(0)->Arg(1)->Iterations(200)->UseManualTime()->Unit(benchmark::kMicrosecond);

// Keeps each run's counters (the median aggregate's when repeated) for the summary.
class SpeedupReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      if (r.error_occurred) continue;
      Figures& f = figures_[r.run_name.args];
      f.serial_us = r.counters.at("serial_us");
      f.threads_us = r.counters.at("threads_us");
      f.speedup = r.counters.at("speedup");
      f.speedup_p50 = r.counters.at("speedup_p50");
    }
    ConsoleReporter::ReportRuns(runs);
  }
  struct Figures {
    double serial_us = 0, threads_us = 0, speedup = 0, speedup_p50 = 0;
  };
  const Figures* figures(const std::string& args) const {
    const auto it = figures_.find(args);
    return it == figures_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, Figures> figures_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  SpeedupReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nskirmish %u units, 2 threads / serial, the same ticks alternating (median when repeated):\n", kUnits);
  const struct {
    const char* args;
    const char* name;
    double target;
  } rows[] = {{"0", "idle", 1.6}, {"1", "contended", 0.9}};
  for (const auto& row : rows) {
    if (const SpeedupReporter::Figures* f = reporter.figures(row.args))
      std::printf("  %-10s %5.2fx  (p50 %5.2fx; serial %8.1f us, 2 threads %8.1f us per tick; target >= %.1fx)\n", row.name,
                  f->speedup, f->speedup_p50, f->serial_us, f->threads_us, row.target);
  }
  if (reporter.figures("1") != nullptr)
    std::printf("  contended: %u busy threads at normal priority beside the benchmark\n",
                std::max(1u, std::thread::hardware_concurrency()));
  benchmark::Shutdown();
  return 0;
}
