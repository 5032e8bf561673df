// Replay farms (farm.h): the options and what is printed; the work is replay/farm.h.
// Floating point here is display-only (the summary's duration).
#include "farm.h"

#include "common.h"

#include <lockstep/hash/durable_file.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <system_error>

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

namespace {

// The replays of this invocation's shard, or an exit code with the reason printed.
int select_replays(const std::vector<std::string>& inputs, const FarmOptions& options, std::vector<std::string>& all,
                   std::vector<std::string>& mine, std::uint32_t& shard, std::uint32_t& shards) {
  const std::string tool_name(tool().name);
  try {
    all = replay::list_replays(inputs);
    if (!options.shard.empty()) replay::parse_shard(options.shard, shard, shards);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool_name.c_str(), e.what());
    return kExitBadInput;
  }
  if (all.empty()) {
    std::fprintf(stderr, "%s: error: no *.replay files in %s\n", tool_name.c_str(), join(inputs).c_str());
    return kExitBadInput;
  }
  if (!options.out_dir.empty()) {
    // One output file per replay name: two replays called the same would overwrite each other.
    std::map<std::string, std::string> outputs;
    for (const std::string& r : all) {
      const auto [it, fresh] = outputs.emplace(replay::trace_output_for(r, options.out_dir), r);
      if (!fresh) {
        std::fprintf(stderr, "%s: error: %s and %s would both write %s\n", tool_name.c_str(), it->second.c_str(),
                     r.c_str(), it->first.c_str());
        return kExitBadInput;
      }
    }
    std::error_code ec;
    std::filesystem::create_directories(options.out_dir, ec);
    if (ec) {
      std::fprintf(stderr, "%s: error: --out-dir %s: %s\n", tool_name.c_str(), options.out_dir.c_str(), ec.message().c_str());
      return kExitBadInput;
    }
  }
  if (!options.junit.empty())
    if (int rc = check_output(options.junit, false, all); rc != kExitOk) return rc;
  mine = replay::shard_of(all, shard, shards);
  return kExitOk;
}

}  // namespace

int run_farm(const std::string& command, const std::vector<std::string>& inputs, const FarmOptions& options,
             const std::function<replay::FarmJob(const std::string& replay)>& make_task) {
  const std::string tool_name(tool().name);
  const std::string suite = tool_name + " " + command;
  std::vector<std::string> all, mine;
  std::uint32_t shard = 1, shards = 1;
  if (int rc = select_replays(inputs, options, all, mine, shard, shards); rc != kExitOk) return rc;
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
  std::size_t ok = 0, mismatched = 0, bad = 0;
  for (const replay::FarmResult& r : run.results) {
    if (r.code == kExitOk) ++ok;
    else if (r.code == kExitMismatch) ++mismatched;
    else ++bad;
  }
  for (std::size_t i = 0; i < run.results.size(); ++i)
    if (run.results[i].code != kExitOk)
      std::printf("FAILED %s (exit %d): %s\n", mine[i].c_str(), run.results[i].code,
                  replay::farm_summary_line(run.results[i]).c_str());
  std::printf("%s: %zu replays", suite.c_str(), mine.size());
  if (shards > 1) std::printf(" (shard %u/%u of %zu)", shard, shards, all.size());
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
