#pragma once
// Replay farms: `verify` and `trace` over many replays or directories, `--jobs N` processes on
// one machine, `--shard I/N` to split a farm across CI machines, `--junit FILE` for CI
// reports (docs/cli.md, "Replay farms"). Each replay runs as its own child process of the
// same tool (`<tool> verify <replay> ...`), so outputs never interleave and one crashing
// replay cannot take the others down; where processes cannot be spawned (Windows builds,
// wasm) the replays run one after another in-process.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lockstep::cli {

struct FarmOptions {
  std::uint32_t jobs = 1;
  std::string shard;        // "I/N", 1 <= I <= N; empty = all
  std::string junit;        // JUnit XML report path; empty = none
  bool traces_beside = false;  // verify: golden <name>.trace beside each <name>.replay
  std::string out_dir;      // trace: write <out_dir>/<name>.trace per replay
};

// Registers --jobs, --shard, --junit (and, per command, --traces-beside / --out-dir).
void add_farm_options(CLI::App& app, FarmOptions& options, bool verify);

// True when the invocation is a farm: more than one replay, a directory, or any farm option.
bool is_farm(const std::vector<std::string>& inputs, const FarmOptions& options);

// One replay of a farm: the arguments after the tool name for its child process, and the
// in-process fallback returning the exit code.
struct FarmTask {
  std::vector<std::string> args;
  std::function<int()> in_process;
};

// Runs `command` ("verify" or "trace") over the replays named by `inputs` (files, or
// directories searched recursively for *.replay), in this shard, with `make_task` building
// each replay's task. Prints each replay's output in sorted order and a summary; writes the
// JUnit report. Returns 2 if any replay had bad input, else 1 if any mismatched, else 0.
int run_farm(const std::string& command, const std::vector<std::string>& inputs, const FarmOptions& options,
             const std::function<FarmTask(const std::string& replay)>& make_task);

// trace farms: <out_dir>/<name>.trace for <dir>/<name>.replay.
std::string trace_output_for(const std::string& replay, const std::string& out_dir);

// ---- pieces, exposed for tests ------------------------------------------------------------
// Every *.replay under the inputs, as given (files) or found (directories), byte-wise sorted
// and without duplicates. Throws std::runtime_error naming a missing input.
std::vector<std::string> list_replays(const std::vector<std::string>& inputs);
// Parses "I/N" (1 <= I <= N <= 100000). Throws std::runtime_error with the reason.
void parse_shard(const std::string& text, std::uint32_t& index, std::uint32_t& count);
// The replays of shard I of N: sorted position k belongs to shard (k mod N) + 1.
std::vector<std::string> shard_of(const std::vector<std::string>& sorted, std::uint32_t index, std::uint32_t count);
// Escapes text for XML character data and attribute values; drops characters XML 1.0 forbids.
std::string xml_escape(const std::string& text);

}  // namespace lockstep::cli
