#pragma once
// A console reporter that also remembers each benchmark's median (or only) CPU time per
// iteration, so a benchmark program can print ratios against a physical-limit baseline
// measured in the same run.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace lockstep_bench {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      const std::string name = r.benchmark_name();
      // Prefer the median aggregate; fall back to the plain run.
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      std::string key = name;
      const auto pos = key.rfind("_median");
      if (pos != std::string::npos) key.erase(pos);
      if (r.iterations > 0 || r.run_type == Run::RT_Aggregate)
        ns_[key] = r.GetAdjustedCPUTime() * multiplier(r.time_unit);  // CPU time: robust on a shared machine
    }
    ConsoleReporter::ReportRuns(runs);
  }
  // Median CPU time in ns per iteration, or 0 when that benchmark did not run.
  double ns(const std::string& name) const {
    const auto it = ns_.find(name);
    return it == ns_.end() ? 0.0 : it->second;
  }

 private:
  static double multiplier(benchmark::TimeUnit u) {
    switch (u) {
      case benchmark::kNanosecond: return 1.0;
      case benchmark::kMicrosecond: return 1e3;
      case benchmark::kMillisecond: return 1e6;
      case benchmark::kSecond: return 1e9;
    }
    return 1.0;
  }
  std::map<std::string, double> ns_;
};

}  // namespace lockstep_bench
