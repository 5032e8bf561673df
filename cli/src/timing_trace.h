#pragma once
// The tool's side of timing traces: the recorder is inspect::TimingTrace
// (inspect/timing_trace.h); printing its table and writing --trace-out stay here.
#include <lockstep/inspect/timing_trace.h>

#include <string>

namespace lockstep::cli {

using inspect::TimingTrace;

// The per-slice table of `bench` (stdout) and its JSON form (an array "slices").
void print_slice_table(const TimingTrace& trace);
class Json;
void add_slice_json(Json& j, const TimingTrace& trace);

// The --trace-out of bench/run/netsim: check the destination early, write at the end.
// Returns an exit code (0 ok, 2 with the reason printed).
int write_timing_trace(const TimingTrace& trace, const std::string& path, bool json);

}  // namespace lockstep::cli
