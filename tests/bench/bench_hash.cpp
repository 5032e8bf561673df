// Benchmarks for lockstep::hash (docs/hashing.md records the figures):
//  * hash_world throughput against raw XXH3-64 over one contiguous buffer of the same byte
//    count (canonical_byte_count), at 10k and 1M entities;      target ratio >= 0.8
//  * World::save + World::load against memcpy of the live bytes (one memcpy per direction);
//    target ratio <= 1.5.
// Every benchmark runs 5 repetitions; the summary uses medians. Floating point appears only
// in this display code.
#include <lockstep/math/fixed.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/world.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <span>
#include <memory>
#include <string>
#include <vector>

namespace bench {

struct Pos {
  lockstep::fixed x, y;
};
LOCKSTEP_COMPONENT(Pos, x, y);
struct Vel {
  lockstep::fixed x, y;
};
LOCKSTEP_COMPONENT(Vel, x, y);
struct Health {
  std::int32_t hp, max;
};
LOCKSTEP_COMPONENT(Health, hp, max);

// One world per entity count, built once and shared by the benchmarks.
struct Fixture {
  std::unique_ptr<lockstep::World> world;
  std::unique_ptr<lockstep::Snapshot> snapshot;
  std::uint64_t hash_bytes = 0;
  std::uint64_t live_bytes = 0;
};

Fixture& fixture(std::uint32_t n) {
  static std::map<std::uint32_t, Fixture> cache;
  Fixture& f = cache[n];
  if (f.world) return f;
  lockstep::WorldConfig cfg;
  cfg.max_entities = n;
  cfg.max_components = 8;
  cfg.max_archetypes = 8;
  cfg.row_bytes = std::uint64_t{n} * 48u;
  cfg.command_capacity = 16;
  cfg.command_bytes = 1024;
  f.world = std::make_unique<lockstep::World>(cfg);
  lockstep::World& w = *f.world;
  (void)w.registerComponent<Pos>();
  (void)w.registerComponent<Vel>();
  (void)w.registerComponent<Health>();
  // Add all three components at creation order Pos, Vel, Health; values vary per entity.
  for (std::uint32_t i = 0; i < n; ++i) {
    const lockstep::Entity e = w.create();
    (void)w.addComponent(e, Pos{lockstep::fixed::from_int(i), lockstep::fixed::from_raw(-static_cast<std::int64_t>(i))});
    (void)w.addComponent(e, Vel{lockstep::fixed::from_raw(i * 3), lockstep::fixed::from_raw(7)});
    (void)w.addComponent(e, Health{static_cast<std::int32_t>(i % 100), 100});
  }
  f.snapshot = std::make_unique<lockstep::Snapshot>(w);
  w.save(*f.snapshot);
  f.hash_bytes = lockstep::canonical_byte_count(w.storage());
  f.live_bytes = f.snapshot->live_bytes();
  return f;
}

void BM_HashWorld(benchmark::State& state) {
  Fixture& f = fixture(static_cast<std::uint32_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(lockstep::hash_world(*f.world).total);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.hash_bytes));
}

void BM_HashWorldCanonical(benchmark::State& state) {
  Fixture& f = fixture(static_cast<std::uint32_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(lockstep::hash_world(*f.world, lockstep::HashPath::Canonical).total);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.hash_bytes));
}

void BM_RawXXH3(benchmark::State& state) {
  Fixture& f = fixture(static_cast<std::uint32_t>(state.range(0)));
  std::vector<unsigned char> buf(f.hash_bytes);
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<unsigned char>(i * 131u);
  // lockstep::xxh3_64: the fastest XXH3 kernel this CPU runs (AVX2 where present, as the state
  // hash uses), so the ratio compares like with like.
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(buf.data()), buf.size());
  for (auto _ : state) benchmark::DoNotOptimize(lockstep::xxh3_64(bytes));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.hash_bytes));
}

void BM_Save(benchmark::State& state) {
  Fixture& f = fixture(static_cast<std::uint32_t>(state.range(0)));
  for (auto _ : state) {
    f.world->save(*f.snapshot);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.live_bytes));
}

void BM_Load(benchmark::State& state) {
  Fixture& f = fixture(static_cast<std::uint32_t>(state.range(0)));
  f.world->save(*f.snapshot);
  for (auto _ : state) {
    if (!f.world->load(*f.snapshot).ok()) state.SkipWithError("load failed");
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.live_bytes));
}

void BM_SaveLoad(benchmark::State& state) {
  Fixture& f = fixture(static_cast<std::uint32_t>(state.range(0)));
  for (auto _ : state) {
    f.world->save(*f.snapshot);
    if (!f.world->load(*f.snapshot).ok()) state.SkipWithError("load failed");
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.live_bytes * 2));
}

void BM_Memcpy(benchmark::State& state) {
  Fixture& f = fixture(static_cast<std::uint32_t>(state.range(0)));
  std::vector<unsigned char> src(f.live_bytes, 1), dst(f.live_bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.live_bytes));
}

#define LOCKSTEP_BENCH(fn) \
  BENCHMARK(fn)->Arg(10000)->Arg(1000000)->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond)
LOCKSTEP_BENCH(BM_HashWorld);
LOCKSTEP_BENCH(BM_HashWorldCanonical);
LOCKSTEP_BENCH(BM_RawXXH3);
LOCKSTEP_BENCH(BM_Save);
LOCKSTEP_BENCH(BM_Load);
LOCKSTEP_BENCH(BM_SaveLoad);
LOCKSTEP_BENCH(BM_Memcpy);

// Console output plus capture of every median, for the ratio summary.
class MedianCapture : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median" && !r.error_occurred)
      {
        const std::string key = r.run_name.function_name + "/" + r.run_name.args;
        medians[key] = r.GetAdjustedCPUTime();
        real_medians[key] = r.GetAdjustedRealTime();
      }
  }
  // CPU time is the primary figure: the machine is shared, and wall time includes time the
  // process spent descheduled. Wall-time ratios are printed alongside.
  std::map<std::string, double> medians;
  std::map<std::string, double> real_medians;
};

}  // namespace bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::MedianCapture reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  auto m = [&](const std::string& k) {
    const auto it = reporter.medians.find(k);
    return it == reporter.medians.end() ? 0.0 : it->second;
  };
  auto w = [&](const std::string& k) {
    const auto it = reporter.real_medians.find(k);
    return it == reporter.real_medians.end() ? 0.0 : it->second;
  };
  std::printf("\n== lockstep hash/snapshot summary (medians of 5 repetitions, CPU time) ==\n");
  for (const char* n : {"10000", "1000000"}) {
    const std::string a(n);
    bench::Fixture& f = bench::fixture(static_cast<std::uint32_t>(std::stoul(a)));
    const double hash = m("BM_HashWorld/" + a), canon = m("BM_HashWorldCanonical/" + a), raw = m("BM_RawXXH3/" + a);
    const double save = m("BM_Save/" + a), load = m("BM_Load/" + a), sl = m("BM_SaveLoad/" + a),
                 cpy = m("BM_Memcpy/" + a);
    if (hash > 0 && raw > 0) {
      std::printf("%8s entities: hashed bytes %llu; hash_world %.1f us (%.2f GB/s), raw XXH3 %.1f us (%.2f GB/s)\n",
                  n, static_cast<unsigned long long>(f.hash_bytes), hash, f.hash_bytes / hash / 1e3, raw,
                  f.hash_bytes / raw / 1e3);
      std::printf("%8s   hash_world throughput / raw XXH3 = %.3f  (target >= 0.8)%s\n", "", raw / hash,
                  raw / hash >= 0.8 ? "" : "  MISSED");
      std::printf("%8s   (wall-time ratio: %.3f)\n", "", w("BM_RawXXH3/" + a) / w("BM_HashWorld/" + a));
      if (canon > 0) std::printf("%8s   canonical path throughput / raw XXH3 = %.3f\n", "", raw / canon);
    }
    if (sl > 0 && cpy > 0) {
      std::printf("%8s   live bytes %llu; save %.1f us, load %.1f us, save+load %.1f us, memcpy %.1f us\n", "",
                  static_cast<unsigned long long>(f.live_bytes), save, load, sl, cpy);
      std::printf("%8s   (save+load) / (2 x memcpy) = %.3f  (target <= 1.5)%s;  save/memcpy %.2f, load/memcpy %.2f\n",
                  "", sl / (2 * cpy), sl / (2 * cpy) <= 1.5 ? "" : "  MISSED", save / cpy, load / cpy);
      std::printf("%8s   (wall-time ratio: %.3f)\n", "", w("BM_SaveLoad/" + a) / (2 * w("BM_Memcpy/" + a)));
    }
  }
  return 0;
}
