// Rollback cost on the skirmish fixture at 10k units (docs/rollback.md, "Benchmark").
//
//   BM_pair/D       alternates, in one loop, D ordinary ticks (apply inputs → systems →
//                   flush → tick++ → hash) and a rollback of depth D (load the snapshot of
//                   the first mispredicted tick, then the same D ticks with their hashes);
//                   counters plain_ms / rollback_ms (thread CPU time) and their ratio
//   BM_load         one snapshot load
//   BM_session/D    the same rollback through RollbackSession (sync-test mode, distance D):
//                   one new tick + save + rollback D, i.e. load + (D + 1) ticks + D + 1 saves;
//                   beside it, in the same loop, D + 1 plain ticks of the SAME world from the
//                   same state (saved and restored outside the timed regions): counters
//                   plain_ms / session_ms (thread CPU time) and their ratio
//   BM_save         one snapshot save (the ring save of a predicted tick)
// Both arms start from the same state (restored outside the timed region) and replay the
// same pre-generated inputs, so the ratio rollback/plain is the price of the load alone.
// Target: <= 1.10 for every D.
#include "ratio_reporter.h"

#include <lockstep/fixtures/fixtures.h>
#include <lockstep/rollback/session.h>
#include <lockstep/replay/runner.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace lockstep;
using namespace lockstep::replay;
using namespace lockstep::rollback;

namespace {

constexpr std::uint32_t kUnits = 10000;
constexpr std::uint32_t kPlayers = 4;
constexpr std::uint64_t kWarmup = 120;  // ticks played before the measured state
constexpr std::uint32_t kMaxDepth = 8;

SimConfig config() {
  SimConfig c;
  c.players = kPlayers;
  c.units = kUnits;
  c.seed = 1;
  return c;
}

// A skirmish world after kWarmup bot-driven ticks, its snapshot, and the inputs of the next
// kMaxDepth + 1 ticks.
struct Fixture {
  std::unique_ptr<Runner> runner;
  Snapshot start;
  std::vector<std::vector<std::byte>> frames;

  Fixture() {
    const Sim& sim = fixtures::skirmish_sim();
    runner = std::make_unique<Runner>(sim, config());
    std::vector<std::unique_ptr<Bot>> bots;
    for (std::uint32_t p = 0; p < kPlayers; ++p) bots.push_back(sim.make_bot(config(), 1, p));
    const std::uint32_t in = sim.input_type().size;
    std::vector<std::byte> frame(runner->frame_bytes());
    auto gen = [&] {
      for (std::uint32_t p = 0; p < kPlayers; ++p)
        bots[p]->generate(runner->tick(), runner->world(), std::span<std::byte>(frame.data() + p * in, in));
    };
    for (std::uint64_t t = 0; t < kWarmup; ++t) {
      gen();
      (void)runner->step(frame);
    }
    start.reserve(runner->world());
    runner->world().save(start);
    for (std::uint32_t d = 0; d <= kMaxDepth; ++d) {
      gen();
      frames.push_back(frame);
      (void)runner->step(frame);
    }
    (void)runner->world().load(start);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// D plain ticks and a rollback of depth D, alternated inside one loop so that both see the
// same machine (the build machine is shared: anything else running shifts both equally).
void BM_pair(benchmark::State& state) {
  Fixture& f = fixture();
  const auto depth = static_cast<std::uint32_t>(state.range(0));
  World& w = f.runner->world();
  double plain_cpu = 0, rb_cpu = 0, plain_real = 0, rb_real = 0;
  using clock = std::chrono::steady_clock;
  for (auto _ : state) {
    // Plain: D ticks from the start state.
    (void)w.load(f.start);
    double c0 = thread_cpu_ns();
    auto r0 = clock::now();
    for (std::uint32_t d = 0; d < depth; ++d) benchmark::DoNotOptimize(f.runner->step(f.frames[d]));
    plain_real += std::chrono::duration<double, std::nano>(clock::now() - r0).count();
    plain_cpu += thread_cpu_ns() - c0;
    // Rollback: the world is elsewhere (a tick later); load the start state, then the same D ticks.
    (void)w.load(f.start);
    (void)f.runner->step(f.frames[0]);
    c0 = thread_cpu_ns();
    r0 = clock::now();
    benchmark::DoNotOptimize(w.load(f.start));
    for (std::uint32_t d = 0; d < depth; ++d) benchmark::DoNotOptimize(f.runner->step(f.frames[d]));
    const double real = std::chrono::duration<double, std::nano>(clock::now() - r0).count();
    rb_real += real;
    rb_cpu += thread_cpu_ns() - c0;
    state.SetIterationTime(real / 1e9);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["plain_ms"] = plain_cpu / n / 1e6;
  state.counters["rollback_ms"] = rb_cpu / n / 1e6;
  state.counters["ratio"] = rb_cpu / plain_cpu;
  state.counters["ratio_real"] = rb_real / plain_real;
}

void BM_load(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(f.runner->world().load(f.start));
}

void BM_save(benchmark::State& state) {
  Fixture& f = fixture();
  Snapshot s(f.runner->world());
  for (auto _ : state) f.runner->world().save(s);
  state.counters["live_bytes"] = static_cast<double>(s.live_bytes());
}

// One advance of a sync-test session (a new tick, then a rollback of `depth` ticks), and
// D + 1 plain ticks of the same world from the same state, alternated in one loop. The
// session must start at tick 0, so both arms run on the session's own world; the plain arm's
// state is saved before and restored after it, outside the timed regions.
void BM_session(benchmark::State& state) {
  const auto depth = static_cast<std::uint32_t>(state.range(0));
  Runner runner(fixtures::skirmish_sim(), config());
  Fixture& f = fixture();
  SessionConfig sc = SessionConfig::local_only(kPlayers);
  sc.sync_test_distance = depth;
  sc.hash_interval = 0;
  RollbackSession session(runner, sc, nullptr);
  const std::uint32_t in = fixtures::skirmish_sim().input_type().size;
  Snapshot before(runner.world());
  double plain_cpu = 0, session_cpu = 0;
  std::uint64_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    runner.world().save(before);
    (void)runner.world().load(before);  // both arms start right after a load (the first hash is a full one)
    double c0 = thread_cpu_ns();
    for (std::uint32_t d = 0; d <= depth; ++d) benchmark::DoNotOptimize(runner.step(f.frames[(i + d) % f.frames.size()]));
    plain_cpu += thread_cpu_ns() - c0;
    (void)runner.world().load(before);
    const auto& frame = f.frames[i++ % f.frames.size()];
    for (std::uint32_t p = 0; p < kPlayers; ++p)
      (void)session.add_local_input(p, std::span<const std::byte>(frame.data() + p * in, in));
    state.ResumeTiming();
    c0 = thread_cpu_ns();
    benchmark::DoNotOptimize(session.advance());
    session_cpu += thread_cpu_ns() - c0;
  }
  if (session.has_desync()) state.SkipWithError("sync test mismatch");
  const double n = static_cast<double>(state.iterations());
  state.counters["plain_ms"] = plain_cpu / n / 1e6;
  state.counters["session_ms"] = session_cpu / n / 1e6;
  state.counters["ratio"] = session_cpu / plain_cpu;
}

// Medians of real and CPU time per iteration, by benchmark name without the repetition suffix.
// CPU time is the figure to compare on a shared machine (other processes inflate real time).
class MedianReporter : public lockstep_bench::RatioReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Aggregate || r.aggregate_name != "median") continue;
      std::string key = r.benchmark_name();
      key = key.substr(0, key.find("/repeats:"));
      real_[key] = r.GetAdjustedRealTime() * scale(r.time_unit);
      cpu_[key] = r.GetAdjustedCPUTime() * scale(r.time_unit);
      for (const auto& [name, counter] : r.counters) counters_[key + ":" + name] = counter.value;
    }
    RatioReporter::ReportRuns(runs);
  }
  double real(const std::string& k) const { return get(real_, k); }
  double cpu(const std::string& k) const { return get(cpu_, k); }
  double counter(const std::string& k, const std::string& c) const { return get(counters_, k + ":" + c); }

 private:
  static double get(const std::map<std::string, double>& m, const std::string& k) {
    const auto it = m.find(k);
    return it == m.end() ? 0.0 : it->second;
  }
  static double scale(benchmark::TimeUnit u) {
    return u == benchmark::kMillisecond ? 1e6 : u == benchmark::kMicrosecond ? 1e3 : u == benchmark::kSecond ? 1e9 : 1.0;
  }
  std::map<std::string, double> real_, cpu_, counters_;
};

}  // namespace

BENCHMARK(BM_pair)->DenseRange(1, kMaxDepth)->UseManualTime()->Unit(benchmark::kMillisecond)->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_load)->Unit(benchmark::kMicrosecond)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_save)->Unit(benchmark::kMicrosecond)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_session)->Arg(1)->Arg(4)->Arg(8)->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nsummary: skirmish, %u units, %u players; medians of 5 repetitions, thread CPU time\n",
              kUnits, kPlayers);
  const double frame_ms = 1000.0 / 60.0;
  std::printf("%5s %14s %16s %8s %11s %28s\n", "depth", "plain D (ms)", "rollback D (ms)", "ratio", "ratio real",
              "new tick + rollback D / frame");
  const double one = reporter.counter("BM_pair/1", "plain_ms");
  for (std::uint32_t d = 1; d <= kMaxDepth; ++d) {
    const std::string k = "BM_pair/" + std::to_string(d);
    const double plain = reporter.counter(k, "plain_ms"), rb = reporter.counter(k, "rollback_ms");
    if (plain <= 0 || rb <= 0) continue;
    const double ratio = reporter.counter(k, "ratio");
    std::printf("%5u %14.3f %16.3f %8.3f %11.3f %27.1f%%%s\n", d, plain, rb, ratio, reporter.counter(k, "ratio_real"),
                (rb + one) / frame_ms * 100.0, ratio <= 1.10 ? "" : "  (above the 1.10 target)");
  }
  const double load = reporter.cpu("BM_load");
  if (load > 0) std::printf("snapshot load: %.1f us cpu [%.1f us real]\n", load / 1e3, reporter.real("BM_load") / 1e3);
  const double save = reporter.cpu("BM_save");
  if (save > 0) std::printf("snapshot save: %.1f us cpu [%.1f us real]\n", save / 1e3, reporter.real("BM_save") / 1e3);
  for (std::uint32_t d : {1u, 4u, 8u}) {
    const std::string k = "BM_session/" + std::to_string(d);
    const double s = reporter.counter(k, "session_ms"), plain = reporter.counter(k, "plain_ms");
    if (s > 0 && plain > 0)
      std::printf("sync-test advance, distance %u: %.3f ms cpu vs %u plain ticks of the same world %.3f ms: ratio %.3f "
                  "(1 new + %u resimulated ticks + %u saves + 1 load)\n",
                  d, s, d + 1, plain, reporter.counter(k, "ratio"), d, d + 1);
  }
  benchmark::Shutdown();
  return 0;
}
