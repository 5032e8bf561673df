// Concurrent stages (docs/systems.md, "Concurrent stages"): a sim of four independent systems
// (one stage of four), each a few fixed-point operations per row over its own component on
// 50,000 entities, ticked by the runner serially, on 2 threads with the systems one after the
// other, and on 2 threads with the stage's systems at once. Wall time (the work is on several
// threads). The physical limit printed with it is the serial run of the same program halved
// (two cores); a raw loop over plain arrays was tried as the reference and ran 2.0-2.4x slower
// than the world's each() over the same bytes (docs/benchmarks.md), so it bounds nothing.
#include <lockstep/math/fixed.h>
#include <lockstep/replay/runner.h>
#include <lockstep/world.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace lockstep;
using namespace lockstep::replay;

constexpr std::uint32_t kEntities = 50000;

struct Heat {
  std::int64_t v[4];
};
LOCKSTEP_COMPONENT(Heat, v);
struct Charge {
  std::int64_t v[4];
};
LOCKSTEP_COMPONENT(Charge, v);
struct Drift {
  std::int64_t v[4];
};
LOCKSTEP_COMPONENT(Drift, v);
struct Decay {
  std::int64_t v[4];
};
LOCKSTEP_COMPONENT(Decay, v);
struct NoInput {
  std::uint8_t unused;
};
LOCKSTEP_COMPONENT(NoInput, unused);

// The per-row work of every system: a few fixed-point multiplies and adds.
inline void step_row(std::int64_t (&v)[4]) {
  for (int k = 0; k < 4; ++k) {
    const fixed x = fixed::from_raw(v[k]);
    v[k] = (x * fixed::from_raw(0xF000) + fixed::from_int(k) * fixed::from_raw(0x100)).raw();
  }
}

template <class C>
void system_of(World& w) {
  (void)w.each<C>([](Entity, C& c) { step_row(c.v); }, Write{});
}

class WideBenchSim final : public Sim {
 public:
  std::string_view name() const noexcept override { return "bench.stages"; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<NoInput>(); }
  WorldConfig world_config(const SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = kEntities;
    return c;
  }
  Status setup(World& w, SystemList& systems) const noexcept override {
    (void)w.registerComponent<Heat>();
    (void)w.registerComponent<Charge>();
    (void)w.registerComponent<Drift>();
    (void)w.registerComponent<Decay>();
    Status s = systems.add(make_system("heat", &system_of<Heat>, Reads<>{}, Writes<Heat>{}));
    if (s.ok()) s = systems.add(make_system("charge", &system_of<Charge>, Reads<>{}, Writes<Charge>{}));
    if (s.ok()) s = systems.add(make_system("drift", &system_of<Drift>, Reads<>{}, Writes<Drift>{}));
    if (s.ok()) s = systems.add(make_system("decay", &system_of<Decay>, Reads<>{}, Writes<Decay>{}));
    return s;
  }
  Status init(World& w, const SimConfig&) const noexcept override {
    for (std::uint32_t i = 0; i < kEntities; ++i) {
      const std::int64_t x = static_cast<std::int64_t>(i) << 20;
      (void)w.createWith(Heat{{x, x + 1, x + 2, x + 3}}, Charge{{x, 2, 3, 4}}, Drift{{5, x, 7, 8}}, Decay{{9, 10, x, 12}});
    }
    return Status::Ok();
  }
  void apply_inputs(World&, std::span<const std::byte>) const noexcept override {}
  std::unique_ptr<Bot> make_bot(const SimConfig&, std::uint64_t, std::uint32_t) const override { return nullptr; }
};

// 0: serial, no pool; 1: 2 threads, systems one after the other; 2: 2 threads, concurrent stages.
void BM_stage_of_four(benchmark::State& state) {
  static const WideBenchSim sim;
  SimConfig config;
  config.players = 1;
  Runner runner(sim, config);
  if (!runner.status().ok()) {
    state.SkipWithError(runner.status().message());
    return;
  }
  const auto mode = state.range(0);
  runner.setThreads(mode == 0 ? 0 : 2);
  runner.setConcurrentStages(mode == 2);
  const std::byte frame[1] = {};
  for (auto _ : state) {
    if (!runner.advance(frame).ok()) state.SkipWithError("tick failed");
  }
  state.SetLabel(mode == 0 ? "serial" : mode == 1 ? "2 threads, systems in turn" : "2 threads, concurrent stages");
}
BENCHMARK(BM_stage_of_four)->Arg(0)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);

class WallReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      std::string key = r.benchmark_name();
      if (const auto pos = key.rfind("_median"); pos != std::string::npos) key.erase(pos);
      if (const auto pos = key.rfind("/real_time"); pos != std::string::npos) key.erase(pos);
      us_[key] = r.GetAdjustedRealTime();
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double us(const std::string& name) const {
    const auto it = us_.find(name);
    return it == us_.end() ? 0.0 : it->second;
  }

 private:
  std::map<std::string, double> us_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  WallReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const double serial = reporter.us("BM_stage_of_four/0");
  const double in_turn = reporter.us("BM_stage_of_four/1");
  const double concurrent = reporter.us("BM_stage_of_four/2");
  if (serial > 0 && in_turn > 0 && concurrent > 0) {
    std::printf("\nstage of four systems, %u entities, wall time per tick (median when repeated):\n", kEntities);
    std::printf("  serial                     %9.1f us  (two cores' limit: %.1f us)\n", serial, serial / 2);
    std::printf("  2 threads, in turn         %9.1f us  = %.2f x serial\n", in_turn, in_turn / serial);
    std::printf("  2 threads, concurrent      %9.1f us  = %.2f x the two-core limit\n", concurrent, concurrent / (serial / 2));
    std::printf("  speedup of concurrent stages over serial: %.2fx (limit 2.00x)\n", serial / concurrent);
  }
  benchmark::Shutdown();
  return 0;
}
