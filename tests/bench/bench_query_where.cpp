// Predicate and ordering benchmarks (docs/query.md), ratios against baselines measured in the
// same run on the same world:
//   count_where(fixed field < c) over 1M rows   vs a hand loop over the column     target <= 1.5
//   each_where(fixed field < c) summing a field vs the same hand loop summing it   target <= 1.5
//   select order_by + take(50) over 100k matches: ns/row (partial selection), and the same
//   select without take (full sort) for comparison
// Run: build/tests/bench/bench_query_where --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include "ratio_reporter.h"

#include <lockstep/query/where.h>
#include <lockstep/world.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace {

using namespace lockstep;

struct Body {
  fixed hp;
  fixed x;
  fixed y;
};
LOCKSTEP_COMPONENT(Body, hp, x, y);

constexpr std::int64_t kThreshold = std::int64_t{50} << 16;  // about half the rows match

std::unique_ptr<World> make_world(std::uint32_t n) {
  WorldConfig c;
  c.max_entities = n + 16;
  c.row_bytes = std::uint64_t{n} * 40 + 4096;
  auto w = std::make_unique<World>(c);
  (void)w->registerComponent<Body>();
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  for (std::uint32_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const auto hp = static_cast<std::int64_t>((s >> 33) % (100u << 16));
    (void)w->addComponent(w->create(), Body{fixed::from_raw(hp), fixed::from_int(i % 1000), fixed::from_int(1)});
  }
  return w;
}

World& world(std::uint32_t n) {
  static std::unique_ptr<World> small, large;
  std::unique_ptr<World>& w = n == 100000 ? small : large;
  if (!w) w = make_world(n);
  return *w;
}

// The Body column of the world's only populated archetype (the baseline's raw access).
const Body* body_column(const World& w, std::uint32_t& rows) {
  const StorageView v = w.storage();
  for (std::uint32_t a = 0; a < v.archetype_count(); ++a) {
    if (v.archetype_rows(a) == 0) continue;
    rows = v.archetype_rows(a);
    return reinterpret_cast<const Body*>(v.column_bytes(a, 0).data());
  }
  rows = 0;
  return nullptr;
}

void BM_hand_count(benchmark::State& state) {
  const World& w = world(static_cast<std::uint32_t>(state.range(0)));
  std::uint32_t rows = 0;
  const Body* col = body_column(w, rows);
  for (auto _ : state) {
    std::uint64_t n = 0;
    for (std::uint32_t r = 0; r < rows; ++r) n += col[r].hp.raw() < kThreshold ? 1 : 0;
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_where_count(benchmark::State& state) {
  const World& w = world(static_cast<std::uint32_t>(state.range(0)));
  CachedQuery<term::read<Body>> q;
  const Predicate p = field(&Body::hp) < fixed::from_raw(kThreshold);
  for (auto _ : state) {
    std::uint64_t n = 0;
    if (!count_where(q, w, p, n).ok()) state.SkipWithError("count_where failed");
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_hand_each(benchmark::State& state) {
  const World& w = world(static_cast<std::uint32_t>(state.range(0)));
  std::uint32_t rows = 0;
  const Body* col = body_column(w, rows);
  for (auto _ : state) {
    std::int64_t sum = 0;
    for (std::uint32_t r = 0; r < rows; ++r)
      if (col[r].hp.raw() < kThreshold) sum += col[r].x.raw();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_where_each(benchmark::State& state) {
  World& w = world(static_cast<std::uint32_t>(state.range(0)));
  CachedQuery<term::read<Body>> q;
  const Predicate p = field(&Body::hp) < fixed::from_raw(kThreshold);
  for (auto _ : state) {
    std::int64_t sum = 0;
    if (!each_where(q, w, p, [&](Entity, const Body& b) { sum += b.x.raw(); }).ok()) state.SkipWithError("each_where");
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void select_bench(benchmark::State& state, std::uint64_t take) {
  const World& w = world(100000);
  CachedQuery<term::read<Body>> q;
  OrderBuffer buf(w.config());
  const OrderBy by{field(&Body::hp).ref, Order::Desc};
  for (auto _ : state) {
    SelectResult r;
    if (!select(q, w, Predicate{}, by, Page{0, take}, buf.items(), r).ok() || r.matched != 100000)
      state.SkipWithError("select failed");
    benchmark::DoNotOptimize(buf.items()[0]);
  }
  state.SetItemsProcessed(state.iterations() * 100000);
}
void BM_select_take50(benchmark::State& state) { select_bench(state, 50); }
void BM_select_full_sort(benchmark::State& state) { select_bench(state, ~std::uint64_t{0}); }

BENCHMARK(BM_hand_count)->Arg(1000000);
BENCHMARK(BM_where_count)->Arg(1000000);
BENCHMARK(BM_hand_each)->Arg(1000000);
BENCHMARK(BM_where_each)->Arg(1000000);
BENCHMARK(BM_select_take50);
BENCHMARK(BM_select_full_sort);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  lockstep_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nsummary (median CPU time per iteration)\n");
  auto ratio = [&](const char* what, const std::string& a, const std::string& b, double count, const char* target) {
    const double x = reporter.ns(a), y = reporter.ns(b);
    if (x > 0 && y > 0)
      std::printf("%-52s %.3f vs %.3f ns/row, ratio %.3f (%s)\n", what, x / count, y / count, x / y, target);
  };
  ratio("count_where(hp < c) vs hand loop, 1M rows", "BM_where_count/1000000", "BM_hand_count/1000000", 1e6,
        "target <= 1.5");
  ratio("each_where(hp < c) vs hand loop, 1M rows", "BM_where_each/1000000", "BM_hand_each/1000000", 1e6,
        "target <= 1.5");
  ratio("order_by+take(50) vs full sort, 100k matches", "BM_select_take50", "BM_select_full_sort", 1e5,
        "partial selection");
  benchmark::Shutdown();
  return 0;
}
