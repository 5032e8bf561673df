#pragma once
// The farm options of `verify` and `trace` (--jobs, --shard, --junit; docs/cli.md, "Replay
// farms") and their printing; listing, sharding and running the replays is replay/farm.h.
#include <lockstep/replay/farm.h>

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

// Runs `command` ("verify" or "trace") over the replays named by `inputs` (files, or
// directories searched recursively for *.replay), in this shard, with `make_task` building
// each replay's job (replay/farm.h). Prints each replay's output in sorted order and a
// summary; writes the JUnit report. Returns 2 if any replay had bad input, else 1 if any
// mismatched, else 0.
int run_farm(const std::string& command, const std::vector<std::string>& inputs, const FarmOptions& options,
             const std::function<replay::FarmJob(const std::string& replay)>& make_task);

}  // namespace lockstep::cli
