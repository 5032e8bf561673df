// bench_inspect: state dumps and diffs of a 10k-unit skirmish world (inspect/), against raw
// limits measured in the same run on the same bytes:
//   * memcpy of the state's canonical bytes (the snapshot file) — the floor for capture;
//   * raw formatting: every 1/2/4/8-byte element of those bytes as a decimal with
//     std::to_chars, one per line — the floor for a text dump (no names, no structure).
// Target (issue #13): dumping 10k units < 100 ms. Ratios printed after the run use median
// CPU times. Suggested run (the figures in docs/inspect.md):
//   bench_inspect --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Display-only floats (ratios).
#include "ratio_reporter.h"

#include <lockstep/fixtures/fixtures.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/state.h>
#include <lockstep/replay/runner.h>

#include <benchmark/benchmark.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace {

using namespace lockstep;

struct World10k {
  std::unique_ptr<replay::Runner> runner;
  inspect::State a, b;  // ticks 20 and 21
  std::vector<std::byte> bytes;
  std::vector<std::byte> entity_bytes;  // the archetype columns only (what an entity dump prints)
};

const World10k& world() {
  static const World10k w = [] {
    World10k x;
    replay::SimConfig cfg;
    cfg.players = 4;
    cfg.units = 10000;
    cfg.seed = 7;
    x.runner = std::make_unique<replay::Runner>(fixtures::skirmish_sim(), cfg);
    std::vector<std::unique_ptr<replay::Bot>> bots;
    for (std::uint32_t p = 0; p < cfg.players; ++p) bots.push_back(fixtures::skirmish_sim().make_bot(cfg, 7, p));
    std::vector<std::byte> frame(x.runner->frame_bytes());
    const std::uint32_t in = fixtures::skirmish_sim().input_type().size;
    for (int t = 0; t < 21; ++t) {
      for (std::uint32_t p = 0; p < cfg.players; ++p)
        bots[p]->generate(x.runner->tick(), x.runner->world(), std::span<std::byte>(frame).subspan(p * in, in));
      (void)x.runner->step(frame);
      if (t == 19) x.a = inspect::capture(x.runner->world().storage());
    }
    x.b = inspect::capture(x.runner->world().storage());
    (void)encode_snapshot(x.runner->world().storage(), x.bytes);
    for (const auto& arch : x.b.archetypes)
      for (const auto& col : arch.columns) x.entity_bytes.insert(x.entity_bytes.end(), col.begin(), col.end());
    return x;
  }();
  return w;
}

void BM_Capture(benchmark::State& st) {
  const auto& w = world();
  for (auto _ : st) {
    inspect::State s = inspect::capture(w.runner->world().storage());
    benchmark::DoNotOptimize(s.tick);
  }
  st.counters["units"] = static_cast<double>(w.b.live_entities());
}
void BM_Memcpy(benchmark::State& st) {
  const auto& w = world();
  std::vector<std::byte> out(w.bytes.size());
  for (auto _ : st) {
    std::memcpy(out.data(), w.bytes.data(), w.bytes.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}
// Raw formatting of `bytes` as one decimal per 4-byte element (a lower bound: real fields
// are 1..8 bytes, and fixed-point decimals are longer than integers).
std::size_t raw_format(const std::vector<std::byte>& bytes, std::string& out) {
  out.clear();
  char buf[24];
  for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    std::uint32_t v;
    std::memcpy(&v, bytes.data() + i, 4);
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
    out.push_back('\n');
  }
  return out.size();
}
void BM_RawFormatEntities(benchmark::State& st) {
  const auto& w = world();
  std::string out;
  out.reserve(1 << 24);
  for (auto _ : st) benchmark::DoNotOptimize(raw_format(w.entity_bytes, out));
}
void BM_DumpTextEntities(benchmark::State& st) {
  const auto& w = world();
  inspect::DumpFilter f;
  f.resources = false;
  for (auto _ : st) {
    std::string s = inspect::dump_text(w.b, f);
    benchmark::DoNotOptimize(s.data());
  }
  st.counters["units"] = static_cast<double>(w.b.live_entities());
}
void BM_RawFormatAll(benchmark::State& st) {
  const auto& w = world();
  std::string out;
  out.reserve(1 << 24);
  for (auto _ : st) benchmark::DoNotOptimize(raw_format(w.bytes, out));
}
void BM_DumpTextAll(benchmark::State& st) {
  const auto& w = world();
  for (auto _ : st) {
    std::string s = inspect::dump_text(w.b);
    benchmark::DoNotOptimize(s.data());
  }
}
void BM_DumpJsonAll(benchmark::State& st) {
  const auto& w = world();
  for (auto _ : st) {
    std::string s = inspect::dump_json(w.b);
    benchmark::DoNotOptimize(s.data());
  }
}
void BM_DiffEqual(benchmark::State& st) {
  const auto& w = world();
  for (auto _ : st) {
    auto d = inspect::diff(w.b, w.b);
    benchmark::DoNotOptimize(d.total);
  }
}
void BM_DiffNextTick(benchmark::State& st) {
  const auto& w = world();
  for (auto _ : st) {
    auto d = inspect::diff(w.a, w.b);
    benchmark::DoNotOptimize(d.total);
  }
}

BENCHMARK(BM_Capture)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DumpTextEntities)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RawFormatEntities)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DumpTextAll)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DumpJsonAll)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RawFormatAll)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiffEqual)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiffNextTick)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  lockstep_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto& w = world();
  auto ms = [&](const char* n) { return reporter.ns(n) / 1e6; };
  std::printf("\n%llu live units, state %zu bytes (entity columns %zu bytes)\n",
              static_cast<unsigned long long>(w.b.live_entities()), w.bytes.size(), w.entity_bytes.size());
  std::printf("%-22s %10s %10s %8s\n", "operation", "median ms", "limit ms", "ratio");
  auto row = [&](const char* what, const char* n, const char* limit) {
    const double a = ms(n), b = ms(limit);
    std::printf("%-22s %10.3f %10.3f %8.2f\n", what, a, b, b > 0 ? a / b : 0.0);
  };
  row("capture", "BM_Capture", "BM_Memcpy");
  row("dump text (units)", "BM_DumpTextEntities", "BM_RawFormatEntities");
  row("dump text (all)", "BM_DumpTextAll", "BM_RawFormatAll");
  row("dump json (all)", "BM_DumpJsonAll", "BM_RawFormatAll");
  row("diff equal", "BM_DiffEqual", "BM_Memcpy");
  row("diff next tick", "BM_DiffNextTick", "BM_Memcpy");
  benchmark::Shutdown();
  return 0;
}
