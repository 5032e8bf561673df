#pragma once
// The answers of `lockstep run`, `record`, `trace`, `snapshot` and `synctest` as the text the
// tool prints on stdout, in its plain and --json forms (docs/cli.md), and the snapshot-file
// check behind `snapshot --check`: a game's own tool prints the same lines from the same
// calls. Every report is the whole stdout text, each line ending in '\n' ("" when the tool
// prints nothing); "exit" in the JSON is the tool's exit code (1: a mismatch was found).
// Floats: display only (seconds, rates, percentiles).
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/timing_trace.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/sim.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace lockstep::inspect {

// A message for a terminal: it echoes user text (paths, names, query text), so control bytes
// are written as \xHH (an ESC sequence cannot reach the terminal; newlines and tabs stay, for
// multi-line messages) and more than 4096 bytes are cut, "...(N more bytes)" saying how many.
std::string terminal_safe(std::string_view message);

// `run`: the summary of a replayed recording (`seconds` the replay's run time; ticks/s is
// frame_count / seconds, 0 when no time passed): eight aligned lines ("replay", "sim", "ticks",
// "final hash", "recorded", "entities", "speed", "tick time") or one JSON object.
std::string run_report(const std::string& name, const replay::Replay& r, const StateHash& final_hash,
                       std::uint64_t hashes_checked, std::uint32_t entities, double seconds, const Percentiles& tick_time,
                       bool json);
// `run` found a recorded hash that differs: nothing in text form (stderr says it), else
// {"ok":false,"exit":1,"replay":NAME,"divergence":DIVERGENCE}.
std::string run_desync_report(const std::string& name, const std::string& divergence, bool json);

// `record`: "recorded T ticks of SIM (players P, units U, seed S, bot B) to OUT" and
// "final hash H (tick T), %.2f s", or one JSON object.
std::string record_report(const std::string& out, const std::string& sim, const replay::SimConfig& config, std::uint64_t bot,
                          std::uint64_t ticks, const StateHash& final_hash, double seconds, bool json);

// `trace`: "wrote N trace lines (ticks 0..N-1) to OUT" ("" when OUT is "-", the trace being
// stdout), or {"ok":true,"replay":..,"output":..,"lines":N}.
std::string trace_report(const std::string& name, const std::string& out, std::uint64_t lines, bool json);

// `snapshot -o`: "wrote the state at tick T (hash H) to OUT", or its JSON object.
std::string snapshot_written_report(const std::string& name, std::uint64_t tick, const std::string& out,
                                    const StateHash& at, bool json);

// A snapshot file loaded into a fresh world of `sim` (with `config`) and compared with
// `expected` (the replayed state's hash; `schema` names its components).
struct SnapshotCheck {
  std::string error;  // "" or why it could not be compared: "NAME: cannot build the sim: ...", the file's error
  bool same = false;
  StateHash loaded;   // the loaded state's hash
  std::string parts;  // when not the same: describe_hash_diff(loaded, expected)
};
SnapshotCheck check_snapshot_file(const replay::Sim& sim, const replay::SimConfig& config, const std::string& name,
                                  const std::string& path, const StateHash& expected, const StorageView& schema);
// `snapshot --check`: `report` is stdout ("OK PATH: identical to tick T of NAME (hash H)", nothing
// when it differs, or the JSON object with "differs"), `log` stderr ("MISMATCH PATH vs tick T of
// NAME: differs: PARTS" when it differs, else ""; a tool prefixes its name).
struct SnapshotCheckReport {
  std::string log, report;
};
SnapshotCheckReport snapshot_check_report(const std::string& path, const std::string& name, std::uint64_t tick,
                                          const SnapshotCheck& check, const StateHash& expected, bool json);

// `synctest` passed: "OK synctest NAME: T ticks, check distance D: R rollbacks, S resimulated
// ticks, every hash reproduced (%.2f s)", or its JSON object.
std::string synctest_ok_report(const std::string& name, std::uint32_t distance, std::uint64_t ticks, std::uint64_t rollbacks,
                               std::uint64_t resimulated_ticks, double seconds, bool json);

}  // namespace lockstep::inspect
