#pragma once
// Replay farms: one check (verify, trace, a game's own) over many replays. Each replay runs
// as a child process of a tool (`<tool> verify <replay> ...`), so outputs never interleave
// and one crashing replay cannot take the others down; where processes cannot be spawned
// (Windows builds, wasm) the replays run one after another in-process. The listing and the
// sharding are byte-wise and machine-independent, so N CI machines given `shard I/N` split
// the same list the same way (docs/cli.md, "Replay farms").
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lockstep::replay {

// Every *.replay under the inputs, as given (files) or found recursively (directories),
// byte-wise sorted and without duplicates. Throws std::runtime_error naming a missing input.
std::vector<std::string> list_replays(const std::vector<std::string>& inputs);
// Parses "I/N" (1 <= I <= N <= 100000). Throws std::runtime_error with the reason.
void parse_shard(const std::string& text, std::uint32_t& index, std::uint32_t& count);
// The replays of shard I of N: sorted position k belongs to shard (k mod N) + 1.
std::vector<std::string> shard_of(const std::vector<std::string>& sorted, std::uint32_t index, std::uint32_t count);
// <out_dir>/<name>.trace for <dir>/<name>.replay.
std::string trace_output_for(const std::string& replay, const std::string& out_dir);
// Escapes text for XML character data and attribute values; drops characters XML 1.0 forbids.
std::string xml_escape(const std::string& text);

// One replay's check: the arguments after the executable for its child process, and the
// in-process fallback returning the exit code (0 ok, 1 mismatch, anything else bad input).
struct FarmJob {
  std::vector<std::string> args;
  std::function<int()> in_process;
};

struct FarmResult {
  int code = 2;
  std::string output;            // the child's stdout + stderr (child processes only)
  std::uint64_t elapsed_ns = 0;  // wall time, for reports only
  bool done = false;
};

struct FarmRun {
  std::vector<FarmResult> results;  // in the order of the jobs
  std::uint64_t elapsed_ns = 0;
  bool spawned = false;  // false: ran in-process, one after another
};

// True when run_farm_jobs can run jobs as child processes of `executable` (empty: this
// process's own executable) on this platform; false means they run in-process, serially.
bool farm_spawns_processes(const std::string& executable = {});

// Runs the jobs, at most `parallel` child processes of `executable` at a time (empty: this
// process's own executable). `on_ready(i)` is called once per job in job order, as soon as it
// and every job before it are done, so output printed there is in a stable order.
FarmRun run_farm_jobs(const std::vector<FarmJob>& jobs, std::uint32_t parallel, const std::string& executable,
                      const std::function<void(std::size_t, const FarmResult&)>& on_ready);

// The replays of one farm invocation: every replay under `inputs` (list_replays), the part of
// shard `shard` ("I/N"; empty: all) and, with `out_dir`, the check that no two replays write
// the same trace_output_for file (then `out_dir` is created with its parents). Returns the
// error ("" on success): list_replays' or parse_shard's ("shard 'S': expected I/N with ..."),
// "no *.replay files in A, B", "X and Y would both write OUT/NAME.trace", "output directory OUT:
// REASON"; `problem` says which (and `detail` the reason alone, for Shard and OutDir), so that a
// tool can name its own options.
enum class FarmSelectionProblem : std::uint8_t { None, Inputs, Shard, NoReplays, SameOutput, OutDir };
struct FarmSelection {
  std::vector<std::string> all;   // every replay, sorted
  std::vector<std::string> mine;  // this shard's
  std::uint32_t shard = 1, shards = 1;
  FarmSelectionProblem problem = FarmSelectionProblem::None;
  std::string detail = {};
};
std::string select_farm_replays(const std::vector<std::string>& inputs, const std::string& shard,
                                const std::string& out_dir, FarmSelection& out);

// How the jobs of a run ended: exit 0 ok, 1 mismatched, anything else bad input.
struct FarmCounts {
  std::size_t ok = 0, mismatched = 0, bad = 0;
};
FarmCounts count_farm_results(const FarmRun& run);

// The line that says what went wrong in a job's output: its first DESYNC, MISMATCH or error
// line, else its last line, else "exit <code>".
std::string farm_summary_line(const FarmResult& result);

// A JUnit XML report: one test case per job named by `names`, exit 1 a failure, any other
// non-zero exit an error, each with the job's output.
std::string farm_junit(const std::string& suite, const std::vector<std::string>& names, const FarmRun& run);

}  // namespace lockstep::replay
