// Query layer II benchmarks (issue 14), ratios printed against baselines measured in the
// same run on the same memory:
//   cached typed query (all terms only) vs World::each            target <= 1.05
//   a query matching 8 of 64 archetypes: ns per matched row vs a query matching all 64
//                                                                  (proportional: ~1)
//   dynamic query vs the typed query over the same components     target <= 1.5 (10k), 1.2 (1M)
//     (per row through DynamicRow, and by runs through eachChunk)
//   each<> with change tracking of the written component vs off   target <= 1.10
//   typed query with enable-bit filtering live vs plain            target <= 1.2
// Components are made of lockstep::fixed, as game components are (issue 25); "each vs best raw
// loop" compares World::each with the same update over two __restrict arrays in the same run.
// Run: build/tests/bench/bench_query --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include "kernel_fixtures.h"
#include "ratio_reporter.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/query/dynamic_query.h>
#include <lockstep/math/fixed.h>
#include <lockstep/world.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>

namespace {

using namespace lockstep;

// The components and their makers are bench_kernel's (kernel_fixtures.h): one definition.
using lockstep_bench::make_pos;
using lockstep_bench::make_vel;
using lockstep_bench::Pos;
using lockstep_bench::Vel;
template <int N>
struct Tag {
  std::uint32_t v;
};
#define BENCH_TAG(N)                     \
  using Tag##N = Tag<N>;                 \
  LOCKSTEP_COMPONENT(Tag##N, v)
BENCH_TAG(0);
BENCH_TAG(1);
BENCH_TAG(2);
BENCH_TAG(3);
BENCH_TAG(4);
BENCH_TAG(5);

enum Variant { kPlain = 0, kTracked = 1, kOneDisabled = 2 };

std::unique_ptr<World> make_world(std::uint32_t n, Variant v) {
  WorldConfig c;
  c.max_entities = n + 16;
  c.max_tracked_components = v == kTracked ? 1 : 0;
  auto w = std::make_unique<World>(c);
  (void)w->registerComponent<Pos>();
  (void)w->registerComponent<Vel>();
  if (v == kTracked) (void)w->trackChanges<Pos>();
  for (std::uint32_t i = 0; i < n; ++i) {
    const Entity e = w->create();
    (void)w->addComponent(e, make_pos(i));
    (void)w->addComponent(e, make_vel());
  }
  // One disabled Vel in the last row: the bit filter is live for every row, and the
  // visited-row count differs from the plain world by one in n.
  if (v == kOneDisabled) (void)w->setEnabled<Vel>(Entity{n - 1, 1}, false);
  return w;
}

World& world(std::uint32_t n, Variant v) {
  static std::unique_ptr<World> cache[3][3];
  const int size = n == 10000 ? 0 : n == 100000 ? 1 : 2;
  std::unique_ptr<World>& w = cache[v][size];
  if (!w) w = make_world(n, v);
  return *w;
}

void BM_each(benchmark::State& state) {
  World& w = world(static_cast<std::uint32_t>(state.range(0)), kPlain);
  for (auto _ : state) {
    (void)w.each<Pos, Vel>(
        [](Entity, Pos& p, const Vel& v) {
          p.x += v.x;
          p.y += v.y;
        },
        Write{}, Read{});
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The raw limit: the same update over two 64-byte aligned __restrict arrays.
void BM_best_raw(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  Pos* pos = static_cast<Pos*>(::operator new[](n * sizeof(Pos), std::align_val_t{64}));
  Vel* vel = static_cast<Vel*>(::operator new[](n * sizeof(Vel), std::align_val_t{64}));
  for (std::size_t i = 0; i < n; ++i) {
    pos[i] = make_pos(static_cast<std::uint32_t>(i));
    vel[i] = make_vel();
  }
  auto update = [](Pos* __restrict p, const Vel* __restrict v, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      p[i].x += v[i].x;
      p[i].y += v[i].y;
    }
  };
  for (auto _ : state) {
    update(pos, vel, n);
    benchmark::ClobberMemory();
  }
  ::operator delete[](pos, std::align_val_t{64});
  ::operator delete[](vel, std::align_val_t{64});
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void cached_write(benchmark::State& state, Variant variant) {
  World& w = world(static_cast<std::uint32_t>(state.range(0)), variant);
  CachedQuery<term::write<Pos>, term::read<Vel>> q;
  for (auto _ : state) {
    (void)q.each(w, [](Entity, Pos& p, const Vel& v) {
      p.x += v.x;
      p.y += v.y;
    });
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
void BM_cached(benchmark::State& state) { cached_write(state, kPlain); }
// The same query over the world that tracks Pos: every handed-out row is stamped.
void BM_cached_tracked(benchmark::State& state) { cached_write(state, kTracked); }

void BM_dynamic(benchmark::State& state) {
  World& w = world(static_cast<std::uint32_t>(state.range(0)), kPlain);
  DynamicQuery q;
  if (!QueryBuilder(w).write("Pos").read("Vel").build(q).ok()) state.SkipWithError("build failed");
  for (auto _ : state) {
    (void)q.each(w, [](const DynamicRow& r) {
      Pos* p = reinterpret_cast<Pos*>(r.write(0));
      const Vel* v = reinterpret_cast<const Vel*>(r.read(1));
      p->x += v->x;
      p->y += v->y;
    });
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The same update through the run API: one call per archetype, fn loops over column bases.
void BM_dynamic_chunk(benchmark::State& state) {
  World& w = world(static_cast<std::uint32_t>(state.range(0)), kPlain);
  DynamicQuery q;
  if (!QueryBuilder(w).write("Pos").read("Vel").build(q).ok()) state.SkipWithError("build failed");
  for (auto _ : state) {
    (void)q.eachChunk(w, [](const DynamicChunk& c) {
      Pos* p = c.write<Pos>(0);
      const Vel* v = c.read<Vel>(1);
      const std::uint32_t n = c.size();
      for (std::uint32_t i = 0; i < n; ++i) {
        p[i].x += v[i].x;
        p[i].y += v[i].y;
      }
    });
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_each_tracked(benchmark::State& state) {
  World& w = world(static_cast<std::uint32_t>(state.range(0)), kTracked);
  for (auto _ : state) {
    (void)w.each<Pos, Vel>(
        [](Entity, Pos& p, const Vel& v) {
          p.x += v.x;
          p.y += v.y;
        },
        Write{}, Read{});
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_cached_read(benchmark::State& state, Variant v) {
  World& w = world(static_cast<std::uint32_t>(state.range(0)), v);
  CachedQuery<term::read<Pos>, term::read<Vel>> q;
  std::int64_t sum = 0;
  for (auto _ : state) {
    (void)q.each(w, [&](Entity, const Pos& p, const Vel& vel) { sum += (p.x + vel.y).raw(); });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
void BM_plain_read(benchmark::State& state) { BM_cached_read(state, kPlain); }
void BM_enable_filtered_read(benchmark::State& state) { BM_cached_read(state, kOneDisabled); }

// 64 archetypes: Pos + every subset of Tag0..Tag5, 2048 rows each (131072 rows).
World& tag_world() {
  static std::unique_ptr<World> w;
  if (w) return *w;
  WorldConfig c;
  c.max_entities = 64 * 2048 + 16;
  w = std::make_unique<World>(c);
  (void)w->registerComponent<Pos>();
  (void)w->registerComponent<Tag0>();
  (void)w->registerComponent<Tag1>();
  (void)w->registerComponent<Tag2>();
  (void)w->registerComponent<Tag3>();
  (void)w->registerComponent<Tag4>();
  (void)w->registerComponent<Tag5>();
  for (std::uint32_t mask = 0; mask < 64; ++mask) {
    for (std::uint32_t i = 0; i < 2048; ++i) {
      const Entity e = w->create();
      (void)w->addComponent(e, make_pos(i));
      for (std::uint32_t t = 0; t < 6; ++t)
        if ((mask >> t & 1u) != 0) (void)w->add_bytes(e, 1 + t, &i);
    }
  }
  return *w;
}

void BM_archetypes_all64(benchmark::State& state) {
  World& w = tag_world();
  CachedQuery<term::write<Pos>> q;
  for (auto _ : state) {
    (void)q.each(w, [](Entity, Pos& p) { p.y += fixed::epsilon(); });
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 64 * 2048);
}

void BM_archetypes_8of64(benchmark::State& state) {
  World& w = tag_world();
  CachedQuery<term::write<Pos>, term::with<Tag0, Tag1, Tag2>> q;  // 8 of the 64 archetypes
  for (auto _ : state) {
    (void)q.each(w, [](Entity, Pos& p) { p.y += fixed::epsilon(); });
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 8 * 2048);
}

BENCHMARK(BM_best_raw)->Arg(10000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_each)->Arg(10000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_cached)->Arg(10000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_dynamic)->Arg(10000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_dynamic_chunk)->Arg(10000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_each_tracked)->Arg(10000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_cached_tracked)->Arg(10000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_plain_read)->Arg(10000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_enable_filtered_read)->Arg(10000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_archetypes_all64);
BENCHMARK(BM_archetypes_8of64);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  lockstep_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nsummary (median CPU time per iteration)\n");
  auto ratio = [&](const char* what, const std::string& a, const std::string& b, double count, const char* target) {
    const double x = reporter.ns(a), y = reporter.ns(b);
    if (x > 0 && y > 0)
      std::printf("%-44s %.3f vs %.3f ns/row, ratio %.3f (%s)\n", what, x / count, y / count, x / y, target);
  };
  for (const char* n : {"10000", "100000", "1000000"}) {
    const double count = std::stod(n);
    const std::string s = std::string("/") + n;
    std::printf("-- %s entities\n", n);
    ratio("each<> vs best raw loop", "BM_each" + s, "BM_best_raw" + s, count, "target <= 1.10");
    ratio("cached typed (all) vs each<>", "BM_cached" + s, "BM_each" + s, count, "target <= 1.05");
    ratio("dynamic (per row) vs cached typed", "BM_dynamic" + s, "BM_cached" + s, count, "per-row calls");
    ratio("dynamic by runs vs cached typed", "BM_dynamic_chunk" + s, "BM_cached" + s, count,
          "target <= 1.5 at 10k, <= 1.2 at 1M");
    ratio("each<> change tracking on vs off", "BM_each_tracked" + s, "BM_each" + s, count, "target <= 1.10");
    ratio("cached query change tracking on vs off", "BM_cached_tracked" + s, "BM_cached" + s, count, "");
    ratio("enable-bit filtering live vs plain", "BM_enable_filtered_read" + s, "BM_plain_read" + s, count,
          "target <= 1.2");
  }
  const double all = reporter.ns("BM_archetypes_all64"), part = reporter.ns("BM_archetypes_8of64");
  if (all > 0 && part > 0)
    std::printf("8 of 64 archetypes: %.3f ns per matched row, all 64: %.3f ns per row; per-row ratio %.3f, "
                "total-time ratio %.3f (proportional to matched rows: per-row ~1, total ~0.125)\n",
                part / (8 * 2048), all / (64 * 2048), (part / (8 * 2048)) / (all / (64 * 2048)), part / all);
  benchmark::Shutdown();
  return 0;
}
