// Kernel benchmarks (issue 2): World::each against a hand-written loop over the same SoA
// columns, entity create+destroy throughput, and a command-buffer flush of 1% structural
// changes at 100k entities against the same changes made by direct calls.
// Run: build/tests/bench/bench_kernel --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include "ratio_reporter.h"

#include <lockstep/world.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

namespace {

struct Pos {
  std::int64_t x, y;
};
LOCKSTEP_COMPONENT(Pos, x, y);
struct Vel {
  std::int64_t x, y;
};
LOCKSTEP_COMPONENT(Vel, x, y);
struct Hp {
  std::int32_t hp, max;
};
LOCKSTEP_COMPONENT(Hp, hp, max);

std::unique_ptr<lockstep::World> make_world(std::uint32_t n) {
  lockstep::WorldConfig c;
  c.max_entities = n + 1024;
  c.command_capacity = n / 50 + 1024;
  c.command_bytes = c.command_capacity * 32u;
  auto w = std::make_unique<lockstep::World>(c);
  (void)w->registerComponent<Pos>();
  (void)w->registerComponent<Vel>();
  (void)w->registerComponent<Hp>();
  for (std::uint32_t i = 0; i < n; ++i) {
    const lockstep::Entity e = w->create();
    (void)w->addComponent(e, Pos{static_cast<std::int64_t>(i), 0});
    (void)w->addComponent(e, Vel{1, 2});
  }
  return w;
}

// Both sides of the each-vs-hand-loop comparison iterate the very same world (same memory,
// same cache state), built once per size.
lockstep::World& shared_world(std::uint32_t n) {
  static std::unique_ptr<lockstep::World> small = make_world(10000);
  static std::unique_ptr<lockstep::World> large;
  if (n == 10000) return *small;
  if (!large) large = make_world(n);
  return *large;
}

void BM_each_pos_vel(benchmark::State& state) {
  lockstep::World* w = &shared_world(static_cast<std::uint32_t>(state.range(0)));
  for (auto _ : state) {
    (void)w->each<Pos, Vel>(
        [](lockstep::Entity, Pos& p, const Vel& v) {
          p.x += v.x;
          p.y += v.y;
        },
        lockstep::Write{}, lockstep::Read{});
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The physical limit: the same update over the same column memory, no kernel in between.
void BM_hand_loop_pos_vel(benchmark::State& state) {
  lockstep::World* w = &shared_world(static_cast<std::uint32_t>(state.range(0)));
  const lockstep::StorageView v = w->storage();
  const std::uint32_t a = 2;  // {Pos, Vel}
  auto* pos = reinterpret_cast<Pos*>(const_cast<std::byte*>(v.column_bytes(a, 0).data()));
  const auto* vel = reinterpret_cast<const Vel*>(v.column_bytes(a, 1).data());
  const std::size_t n = v.archetype_rows(a);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      pos[i].x += vel[i].x;
      pos[i].y += vel[i].y;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_create_destroy(benchmark::State& state) {
  auto w = make_world(0);
  std::vector<lockstep::Entity> es(1000);
  for (auto _ : state) {
    for (auto& e : es) e = w->create();
    for (auto& e : es) (void)w->destroy(e);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}

// 1% of 100k entities gain a component and 1% are destroyed, via one flush.
void BM_flush_1pct(benchmark::State& state) {
  const std::uint32_t n = 100000;
  auto w = make_world(n);
  lockstep::Snapshot base(*w);
  w->save(base);
  for (auto _ : state) {
    state.PauseTiming();
    (void)w->load(base);
    lockstep::CommandBuffer& cb = w->commands();
    for (std::uint32_t i = 0; i < n; i += 100) {
      (void)cb.addComponent(lockstep::Entity{i, 1}, Hp{1, 1});
      (void)cb.destroy(lockstep::Entity{i + 50, 1});
    }
    state.ResumeTiming();
    (void)w->flush();
  }
  state.SetItemsProcessed(state.iterations() * (n / 50));
}

void BM_direct_1pct(benchmark::State& state) {
  const std::uint32_t n = 100000;
  auto w = make_world(n);
  lockstep::Snapshot base(*w);
  w->save(base);
  for (auto _ : state) {
    state.PauseTiming();
    (void)w->load(base);
    state.ResumeTiming();
    for (std::uint32_t i = 0; i < n; i += 100) {
      (void)w->addComponent(lockstep::Entity{i, 1}, Hp{1, 1});
      (void)w->destroy(lockstep::Entity{i + 50, 1});
    }
  }
  state.SetItemsProcessed(state.iterations() * (n / 50));
}

BENCHMARK(BM_hand_loop_pos_vel)->Arg(10000);
BENCHMARK(BM_each_pos_vel)->Arg(10000);
BENCHMARK(BM_hand_loop_pos_vel)->Arg(1000000);
BENCHMARK(BM_each_pos_vel)->Arg(1000000);
BENCHMARK(BM_create_destroy);
BENCHMARK(BM_flush_1pct)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_direct_1pct)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  lockstep_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nsummary (median CPU time per iteration)\n");
  for (const char* n : {"10000", "1000000"}) {
    const double each = reporter.ns(std::string("BM_each_pos_vel/") + n);
    const double hand = reporter.ns(std::string("BM_hand_loop_pos_vel/") + n);
    const double count = std::stod(n);
    if (each > 0 && hand > 0)
      std::printf("each<Pos,Vel> R/W %8s entities: %.3f ns/entity, hand loop %.3f ns/entity, ratio %.3f (target <= 1.10)\n",
                  n, each / count, hand / count, each / hand);
  }
  const double cd = reporter.ns("BM_create_destroy");
  if (cd > 0) std::printf("create+destroy: %.1f ns per pair, %.2f M pairs/s\n", cd / 1000, 1000 / cd * 1e3);
  const double fl = reporter.ns("BM_flush_1pct");
  const double di = reporter.ns("BM_direct_1pct");
  if (fl > 0 && di > 0)
    std::printf("1%% structural changes at 100k (1000 adds + 1000 destroys): flush %.0f us, direct calls %.0f us, "
                "flush/direct %.3f\n",
                fl / 1e3, di / 1e3, fl / di);
  benchmark::Shutdown();
  return 0;
}
