// Replay farms (farm.h): the options and what is printed; the work is replay/farm.h.
// Floating point here is display-only (the summary's duration).
#include "farm.h"

#include "common.h"

#include <lockstep/hash/durable_file.h>

#include <cstdio>
#include <filesystem>

namespace lockstep::cli {

namespace fs = std::filesystem;

void add_farm_options(CLI::App& app, FarmOptions& o, bool verify) {
  app.add_option("--jobs,-j", o.jobs, "Replays checked in parallel (child processes; farm mode)")
      ->check(CLI::Range(1u, 256u));
  app.add_option("--shard", o.shard,
                 "Only shard I of N (1-based): replay k of the byte-wise sorted list belongs to shard (k mod N)+1");
  app.add_option("--junit", o.junit, "Write a JUnit XML report, one test case per replay");
  if (verify) {
    app.add_flag("--traces-beside", o.traces_beside,
                 "Compare each NAME.replay with the golden trace NAME.trace beside it (a missing one is an error)");
  } else {
    app.add_option("--out-dir", o.out_dir, "Write one NAME.trace per replay into this directory (farm mode)");
  }
}

bool is_farm(const std::vector<std::string>& inputs, const FarmOptions& o) {
  if (inputs.size() != 1 || o.jobs != 1 || !o.shard.empty() || !o.junit.empty() || o.traces_beside || !o.out_dir.empty())
    return true;
  std::error_code ec;
  return fs::is_directory(inputs.front(), ec);
}

int run_farm(const std::string& command, const std::vector<std::string>& inputs, const FarmOptions& options,
             const std::function<replay::FarmJob(const std::string& replay)>& make_task) {
  const std::string tool_name(tool().name);
  const std::string suite = tool_name + " " + command;
  replay::FarmSelection sel;
  if (std::string e = replay::select_farm_replays(inputs, options.shard, options.out_dir, sel); !e.empty()) {
    if (sel.problem == replay::FarmSelectionProblem::Shard) e = "--shard '" + options.shard + "': " + sel.detail;
    if (sel.problem == replay::FarmSelectionProblem::OutDir) e = "--out-dir " + options.out_dir + ": " + sel.detail;
    std::fprintf(stderr, "%s: error: %s\n", tool_name.c_str(), e.c_str());
    return kExitBadInput;
  }
  if (!options.junit.empty())
    if (int rc = check_output(options.junit, false, sel.all); rc != kExitOk) return rc;
  const std::vector<std::string>& mine = sel.mine;
  std::vector<replay::FarmJob> jobs;
  jobs.reserve(mine.size());
  for (const std::string& r : mine) jobs.push_back(make_task(r));

  if (!replay::farm_spawns_processes() && options.jobs > 1)
    std::fprintf(stderr, "%s: warning: --jobs needs child processes, unavailable on this platform; running serially\n",
                 tool_name.c_str());
  const replay::FarmRun run = replay::run_farm_jobs(jobs, options.jobs, {}, [](std::size_t, const replay::FarmResult& r) {
    std::fputs(r.output.c_str(), stdout);
    if (!r.output.empty() && r.output.back() != '\n') std::fputc('\n', stdout);
    std::fflush(stdout);
  });
  const auto [ok, mismatched, bad] = replay::count_farm_results(run);
  for (std::size_t i = 0; i < run.results.size(); ++i)
    if (run.results[i].code != kExitOk)
      std::printf("FAILED %s (exit %d): %s\n", mine[i].c_str(), run.results[i].code,
                  replay::farm_summary_line(run.results[i]).c_str());
  std::printf("%s: %zu replays", suite.c_str(), mine.size());
  if (sel.shards > 1) std::printf(" (shard %u/%u of %zu)", sel.shard, sel.shards, sel.all.size());
  std::printf(": %zu ok, %zu mismatched, %zu bad input; %.2f s, %u jobs\n", ok, mismatched, bad,
              static_cast<double>(run.elapsed_ns) / 1e9, options.jobs);
  if (!options.junit.empty()) {
    const std::string xml = replay::farm_junit(suite, mine, run);
    hash::WriteFailure failure;
    if (!hash::write_file_atomically(options.junit, xml.data(), xml.size(), failure)) {
      std::fprintf(stderr, "%s: error: --junit %s: %s\n", tool_name.c_str(), failure.failed_path.c_str(), failure.what.c_str());
      return kExitBadInput;
    }
  }
  if (bad > 0) return kExitBadInput;
  return mismatched > 0 ? kExitMismatch : kExitOk;
}

}  // namespace lockstep::cli
