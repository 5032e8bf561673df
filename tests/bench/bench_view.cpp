// View maintenance benchmarks (docs/query.md "Views"): the cost of World::updateViews() per
// tick when k of n entities changed, against the same view updated after a column-wide Write
// hand-out (which makes every row of the archetype a candidate: a full rescan), all in one run.
//
//   BM_writes/n/k          k single-entity writes (getMutable) on a world WITHOUT views: the
//                          baseline subtracted from the next one
//   BM_journalled/n/k      the same k writes + updateViews() on a world with one view
//                          (Body where hp < 50, about half the entities are members)
//   BM_rescan/n/k          the same k changes made through each<Body>(Write) (a column-wide
//                          hand-out) + updateViews(): every row compared
// update cost = journalled − writes. The summary prints ns per update, ns per changed entity,
// and the ratio to the rescan. Scaling claims: per-change cost flat in k; the same k at n=10k
// and n=100k costs about the same (proportional to changes, not entities).
// Run: build/tests/bench/bench_view --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include "ratio_reporter.h"

#include <lockstep/query/view.h>
#include <lockstep/world.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace lockstep;

struct Body {
  fixed hp;
  fixed x;
  fixed y;
};
LOCKSTEP_COMPONENT(Body, hp, x, y);

struct Bench {
  std::unique_ptr<World> world;
  std::vector<Entity> entities;
  ViewId view;
};

Bench make(std::uint32_t n, bool with_view) {
  Bench b;
  WorldConfig c;
  c.max_entities = n + 16;
  c.row_bytes = std::uint64_t{n} * 40 + 4096;
  b.world = std::make_unique<World>(c);
  World& w = *b.world;
  (void)w.registerComponent<Body>();
  if (with_view) {
    CachedQuery<term::read<Body>> q;
    (void)registerView(w, q, field(&Body::hp) < fixed::from_int(50), b.view);
  }
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  for (std::uint32_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const Entity e = w.createWith(Body{fixed::from_raw(static_cast<std::int64_t>((s >> 33) % 100) << 16), fixed{}, fixed{}});
    b.entities.push_back(e);
  }
  (void)w.updateViews();
  return b;
}

// The k entities changed in tick t: spread over the whole slot range, a new set each tick.
inline std::uint32_t victim(std::uint64_t t, std::uint32_t i, std::uint32_t k, std::uint32_t n) noexcept {
  const std::uint64_t stride = n / k;
  return static_cast<std::uint32_t>((i * stride + (t * 7919) % stride) % n);
}
// +37 modulo 100 (raw units of 1.0): about a third of the changes cross hp = 50.
inline fixed bumped(fixed hp) noexcept { return fixed::from_raw(((hp.raw() >> 16) + 37) % 100 << 16); }

void BM_writes(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0)), k = static_cast<std::uint32_t>(state.range(1));
  Bench b = make(n, false);
  std::uint64_t t = 0;
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < k; ++i) {
      Body* body = b.world->getMutable<Body>(b.entities[victim(t, i, k, n)]);
      body->hp = bumped(body->hp);
    }
    benchmark::ClobberMemory();
    ++t;
  }
}

void BM_journalled(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0)), k = static_cast<std::uint32_t>(state.range(1));
  Bench b = make(n, true);
  std::uint64_t t = 0, deltas = 0;
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < k; ++i) {
      Body* body = b.world->getMutable<Body>(b.entities[victim(t, i, k, n)]);
      body->hp = bumped(body->hp);
    }
    (void)b.world->updateViews();
    ViewDeltas d;
    (void)viewDeltas(*b.world, b.view, d);
    deltas += d.added.size() + d.removed.size() + d.modified.size();
    ++t;
  }
  state.counters["deltas_per_update"] = static_cast<double>(deltas) / static_cast<double>(t == 0 ? 1 : t);
}

void BM_rescan(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0)), k = static_cast<std::uint32_t>(state.range(1));
  Bench b = make(n, true);
  const std::uint32_t stride = n / k;
  std::uint64_t t = 0, deltas = 0;
  for (auto _ : state) {
    const std::uint32_t phase = static_cast<std::uint32_t>((t * 7919) % stride);
    (void)b.world->each<Body>([&](Entity e, Body& body) {
      if (e.slot % stride == phase) body.hp = bumped(body.hp);
    }, Write{});
    (void)b.world->updateViews();
    ViewDeltas d;
    (void)viewDeltas(*b.world, b.view, d);
    deltas += d.added.size() + d.removed.size() + d.modified.size();
    ++t;
  }
  state.counters["deltas_per_update"] = static_cast<double>(deltas) / static_cast<double>(t == 0 ? 1 : t);
}

void BM_each_only(benchmark::State& state) {  // the Write loop of BM_rescan without views
  const auto n = static_cast<std::uint32_t>(state.range(0)), k = static_cast<std::uint32_t>(state.range(1));
  Bench b = make(n, false);
  const std::uint32_t stride = n / k;
  std::uint64_t t = 0;
  for (auto _ : state) {
    const std::uint32_t phase = static_cast<std::uint32_t>((t * 7919) % stride);
    (void)b.world->each<Body>([&](Entity e, Body& body) {
      if (e.slot % stride == phase) body.hp = bumped(body.hp);
    }, Write{});
    benchmark::ClobberMemory();
    ++t;
  }
}

void args(benchmark::internal::Benchmark* b) {
  b->Args({100000, 100})->Args({100000, 1000})->Args({100000, 10000})->Args({10000, 100})->Args({10000, 1000});
}
BENCHMARK(BM_writes)->Apply(args);
BENCHMARK(BM_journalled)->Apply(args);
BENCHMARK(BM_rescan)->Args({100000, 1000})->Args({10000, 100});
BENCHMARK(BM_each_only)->Args({100000, 1000})->Args({10000, 100});

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  lockstep_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nsummary (median CPU time per iteration; update = with view − without)\n");
  auto update = [&](const std::string& args) {
    return reporter.ns("BM_journalled/" + args) - reporter.ns("BM_writes/" + args);
  };
  auto rescan = [&](const std::string& args) {
    return reporter.ns("BM_rescan/" + args) - reporter.ns("BM_each_only/" + args);
  };
  for (const char* a : {"100000/100", "100000/1000", "100000/10000", "10000/100", "10000/1000"}) {
    const std::string s = a;
    const double k = std::stod(s.substr(s.find('/') + 1));
    if (reporter.ns("BM_journalled/" + s) > 0)
      std::printf("journalled update n/k=%-14s %10.0f ns/update %8.1f ns/changed entity\n", a, update(s), update(s) / k);
  }
  for (const char* a : {"100000/1000", "10000/100"}) {
    const std::string s = a;
    if (reporter.ns("BM_rescan/" + s) > 0 && reporter.ns("BM_journalled/" + s) > 0)
      std::printf("n/k=%-12s journalled %10.0f ns vs full rescan %10.0f ns: ratio %.4f (target: << 1, ~k/n)\n", a,
                  update(s), rescan(s), update(s) / rescan(s));
  }
  if (reporter.ns("BM_journalled/100000/100") > 0 && reporter.ns("BM_journalled/10000/100") > 0)
    std::printf("same 100 changes, 100k vs 10k entities: ratio %.3f (target ~1: cost follows changes, not entities)\n",
                update("100000/100") / update("10000/100"));
  benchmark::Shutdown();
  return 0;
}
