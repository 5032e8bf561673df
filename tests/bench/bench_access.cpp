// Cost of enforced system access (docs/systems.md, "Cost"): the skirmish fixture ticking with
// the runner's access checks off and on (same state, same inputs), and the per-call cost on
// the hottest checked path, getMutable over 10k entities, with no AccessSet installed and
// with one installed. Ratios against the unchecked run of the same program.
#include "ratio_reporter.h"

#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/runner.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/store/system_access.h>
#include <lockstep/world.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <vector>

namespace {

using namespace lockstep;
using namespace lockstep::replay;

constexpr std::uint32_t kUnits = 2000;
constexpr std::uint32_t kTicks = 8;

struct TickFixture {
  std::unique_ptr<Runner> runner;
  Snapshot start;
  std::vector<std::vector<std::byte>> frames;
  TickFixture() {
    const Sim& sim = fixtures::skirmish_sim();
    SimConfig c;
    c.players = 2;
    c.units = kUnits;
    c.seed = 1;
    runner = std::make_unique<Runner>(sim, c);
    std::vector<std::unique_ptr<Bot>> bots;
    for (std::uint32_t p = 0; p < 2; ++p) bots.push_back(sim.make_bot(c, 1, p));
    const std::uint32_t in = sim.input_type().size;
    std::vector<std::byte> frame(runner->frame_bytes());
    for (std::uint32_t t = 0; t < 60 + kTicks; ++t) {
      for (std::uint32_t p = 0; p < 2; ++p)
        bots[p]->generate(runner->tick(), runner->world(), std::span<std::byte>(frame.data() + p * in, in));
      if (t == 60) {
        start.reserve(runner->world());
        runner->world().save(start);
      }
      if (t >= 60) frames.push_back(frame);
      (void)runner->advance(frame);
    }
  }
};
TickFixture& tick_fixture() {
  static TickFixture f;
  return f;
}

void BM_skirmish_ticks(benchmark::State& state) {
  TickFixture& f = tick_fixture();
  f.runner->setAccessChecks(state.range(0) != 0);
  for (auto _ : state) {
    (void)f.runner->world().load(f.start);
    for (const auto& frame : f.frames) (void)f.runner->advance(frame);
  }
  f.runner->setAccessChecks(true);
  state.SetLabel(state.range(0) != 0 ? "checks on" : "checks off");
}

struct Val {
  std::int64_t v;
};
LOCKSTEP_COMPONENT(Val, v);

void BM_get_mutable(benchmark::State& state) {
  WorldConfig config;
  config.max_entities = 10000;
  World w(config);
  (void)w.registerComponent<Val>();
  std::vector<Entity> es;
  for (int i = 0; i < 10000; ++i) {
    es.push_back(w.create());
    (void)w.addComponent(es.back(), Val{i});
  }
  AccessSet access;
  (void)access_of(w, Reads<>{}, Writes<Val>{}, "bench", access);
  World::AccessScope scope(w, state.range(0) != 0 ? &access : nullptr);
  for (auto _ : state) {
    for (const Entity e : es) ++w.getMutable<Val>(e)->v;
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 10000);
}

}  // namespace

BENCHMARK(BM_skirmish_ticks)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_get_mutable)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  lockstep_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const double off = reporter.ns("BM_skirmish_ticks/0/repeats:5"), on = reporter.ns("BM_skirmish_ticks/1/repeats:5");
  const double g_off = reporter.ns("BM_get_mutable/0/repeats:5"), g_on = reporter.ns("BM_get_mutable/1/repeats:5");
  std::printf("\nsummary (medians of 5, CPU time): skirmish %u units, %u ticks from one snapshot\n", kUnits, kTicks);
  if (off > 0 && on > 0)
    std::printf("  ticks: checks off %.3f ms, on %.3f ms, ratio on/off %.3f\n", off / 1e6, on / 1e6, on / off);
  if (g_off > 0 && g_on > 0)
    std::printf("  getMutable: no AccessSet %.2f ns/call, AccessSet installed %.2f ns/call, ratio %.3f\n", g_off / 1e4,
                g_on / 1e4, g_on / g_off);
  benchmark::Shutdown();
  return 0;
}
