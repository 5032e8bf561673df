#pragma once
// `lockstep bench`'s reports as strings, for a game's own benchmark tool or CI log: the
// figures of inspect::run_bench (bench.h) as text, one JSON object or CSV. Display only.
#include <lockstep/inspect/bench.h>
#include <lockstep/inspect/json_writer.h>
#include <lockstep/inspect/timing_trace.h>

#include <string>

namespace lockstep::inspect {

// The per-slice table: a header line "slices (measured ticks)  kind  p50 us  p99 us  max us
// total ms" and one line per slice name (p50/p99/max in µs, total in ms, two decimals); every
// line ends in '\n'.
std::string slice_table(const TimingTrace& trace);
// The same as array "slices" [{name, kind, count, p50_us, p99_us, max_us, total_ms}] of an
// open JSON object.
void append_slice_fields(JsonWriter& j, const TimingTrace& trace);

// The text report: "bench", "tick", "hash", "tick cpu", "hash cpu", "snapshot", "allocations"
// ("not counted" when options.heap_allocations is null), "throughput" lines, a "threads" line
// when options.threads > 0 (with `comparison`), then slice_table; every line ends in '\n'.
std::string bench_report_text(const BenchOptions& options, const BenchFigures& figures, const BenchStats& stats,
                              const ThreadsComparison& comparison);
// One JSON object and '\n': ok, sim, players, units, entities, ticks, warmup, build_ms, the tick,
// hash, CPU and snapshot percentiles, snapshot_bytes, heap allocations, ticks_per_second,
// wall_seconds, final_hash, threads (with threads > 0: serial_tick_p50_us,
// parallel_tick_p50_us, speedup, hashes_equal), slices.
std::string bench_report_json(const BenchOptions& options, const BenchFigures& figures, const BenchStats& stats,
                              const ThreadsComparison& comparison);
// A CSV header line and one row, each ending in '\n'.
std::string bench_report_csv(const BenchOptions& options, const BenchFigures& figures, const BenchStats& stats);

}  // namespace lockstep::inspect
