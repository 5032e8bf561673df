// The tool's side of timing traces (timing_trace.h): the bench table, its JSON and --trace-out.
#include "timing_trace.h"

#include "common.h"

#include <lockstep/hash/durable_file.h>

#include <cstdio>

namespace lockstep::cli {

void print_slice_table(const TimingTrace& trace) {
  std::printf("%-37s %-10s %10s %10s %10s %10s\n", "slices (measured ticks)", "kind", "p50 us", "p99 us", "max us", "total ms");
  for (const TimingTrace::NameStats& s : trace.stats())
    std::printf("  %-35s %-10s %10.2f %10.2f %10.2f %10.2f\n", s.name.c_str(), replay::to_string(s.kind), s.p50_us, s.p99_us,
                s.max_us, s.total_ms);
}

void add_slice_json(Json& j, const TimingTrace& trace) {
  j.begin_array("slices");
  for (const TimingTrace::NameStats& s : trace.stats())
    j.begin().field("name", s.name).field("kind", replay::to_string(s.kind)).field("count", s.count)
        .field("p50_us", s.p50_us).field("p99_us", s.p99_us).field("max_us", s.max_us).field("total_ms", s.total_ms).end();
  j.end_array();
}

int write_timing_trace(const TimingTrace& trace, const std::string& path, bool json) {
  const std::string text = trace.chrome_json();
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(path, text.data(), text.size(), failure))
    return report_error(json, kExitBadInput, "cannot write the timing trace " + failure.failed_path + ": " + failure.what);
  if (!json) std::fprintf(stderr, "lockstep: timing trace (%zu slices) written to %s\n", trace.events().size(), path.c_str());
  return kExitOk;
}

}  // namespace lockstep::cli
