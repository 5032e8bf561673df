#pragma once
// TimingTrace: the clock side of replay::TickProbe (docs/timing-traces.md). Records every
// slice a Runner / RollbackSession announces with steady_clock times, then
//   * writes Chrome trace-event JSON (Perfetto UI, chrome://tracing): one complete ("X")
//     event per slice, one thread ("lane") per runner, e.g. one per netsim peer;
//   * summarises durations per slice name (the per-system p50/p99 table of `bench`).
// Clock reads and the float statistics live here, in a diagnostics module, never on a
// simulation path. A library, not part of lockstep::cli, so that a game's own frame loop or
// benchmark records the same traces without the tool.
#include <lockstep/replay/tick_probe.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lockstep::inspect {

// Durations in ns → µs statistics (display only): p50/p99 by rank (ns[n*q/100]), max, mean.
struct Percentiles {
  double p50_us = 0, p99_us = 0, max_us = 0, mean_us = 0;
};
Percentiles percentiles(std::vector<std::uint64_t> ns);


class TimingTrace {
 public:
  struct Event {
    const char* name = "";
    replay::Slice kind = replay::Slice::System;
    std::uint32_t lane = 0;
    std::uint32_t depth = 0;  // nesting level inside its lane (0: outermost)
    std::uint64_t tick = 0;
    std::uint64_t start_ns = 0;  // since the trace was created
    std::uint64_t dur_ns = 0;
  };
  struct NameStats {
    std::string name;
    replay::Slice kind = replay::Slice::System;
    std::uint64_t count = 0;
    double p50_us = 0, p99_us = 0, max_us = 0, total_ms = 0;
  };

  // `reserve`: events to allocate up front (a benchmark reserves all it will record so the
  // probe adds no heap allocation to the measured ticks).
  explicit TimingTrace(std::string process_name, std::size_t reserve = 0);
  ~TimingTrace();
  TimingTrace(const TimingTrace&) = delete;
  TimingTrace& operator=(const TimingTrace&) = delete;

  // A probe writing into this trace as thread `lane` (created on first use, named `name`).
  replay::TickProbe& lane(std::uint32_t lane, const std::string& name);
  // Forgets the recorded events (capacity kept), e.g. after a warm-up.
  void clear() noexcept { events_.clear(); }

  const std::vector<Event>& events() const noexcept { return events_; }
  // Per distinct (kind, name) in order of first appearance; durations of every event.
  std::vector<NameStats> stats() const;
  // {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}} — ts/dur in µs with
  // nanosecond digits, pid 1, tid = lane, args.tick = the world's tick at the slice's start.
  std::string chrome_json() const;

 private:
  class Lane;
  friend class Lane;
  void add(const Event& e) { events_.push_back(e); }
  std::uint64_t now_ns() const noexcept {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_).count());
  }
  std::string process_;
  std::chrono::steady_clock::time_point origin_;
  std::vector<Event> events_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace lockstep::inspect
