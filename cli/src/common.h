#pragma once
// Shared plumbing of the `lockstep` subcommands: exit codes, output (human and --json),
// loading replays, replaying them, timing statistics. Floats here are display-only.
#include <lockstep/cli/cli.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/json_writer.h>
#include <lockstep/inspect/timing_trace.h>
#include <lockstep/replay/open_replay.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::cli {

// kExitUnfinished: only `netsim`, when the simulated match did not finish and no desync was seen.
enum Exit : int { kExitOk = 0, kExitMismatch = 1, kExitBadInput = 2, kExitUnfinished = 3 };

// A subcommand: its CLI11 app and the action to run when it was parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_run(CLI::App& root);
Command add_record(CLI::App& root);
Command add_verify(CLI::App& root);
Command add_trace(CLI::App& root);
Command add_info(CLI::App& root);
Command add_convert(CLI::App& root);
Command add_bench(CLI::App& root);
Command add_synctest(CLI::App& root);  // cmd_synctest.cpp (rollback)
Command add_netsim(CLI::App& root);    // cmd_netsim.cpp (rollback)
Command add_dump(CLI::App& root);      // cmd_dump.cpp (inspect)
Command add_diff(CLI::App& root);      // cmd_diff.cpp (inspect)
Command add_peer(CLI::App& root);      // cmd_peer.cpp (rollback over UDP)
Command add_spectate(CLI::App& root);  // cmd_peer.cpp (spectator over UDP)
Command add_keygen(CLI::App& root);    // cmd_keygen.cpp (keys of an authenticated match)
Command add_snapshot(CLI::App& root);  // cmd_snapshot.cpp
Command add_query(CLI::App& root);     // cmd_query.cpp (inspect query language)
Command add_view(CLI::App& root);      // cmd_view.cpp (viewer)

// ---- JSON output (inspect/json_writer.h) ----------------------------------------------
using Json = inspect::JsonWriter;
using inspect::json_escape;

// ---- reporting --------------------------------------------------------------------------
// Prints an error: always to stderr; with --json also {"ok":false,...} to stdout.
int report_error(bool json, int code, const std::string& message, const replay::ReplayStatus* st = nullptr);
void print_warnings(const std::vector<std::string>& warnings);
std::string hex(std::uint64_t v);
inline std::string describe_sims() { return replay::describe_registered_sims(); }  // "skirmish, duel"
bool stderr_is_tty() noexcept;

// ---- output (output.cpp) -----------------------------------------------------------------
// kExitOk when `path` can be written (hash::inspect_destination); otherwise prints why and
// returns kExitBadInput. Called before any work is done for that output.
int check_output(const std::string& path, bool json);
// The same, and refuses (exit 2) a `path` that is the same file as one of `inputs` (device +
// inode: `trace in.replay -o in.replay` must not destroy the recording).
int check_output(const std::string& path, bool json, const std::vector<std::string>& inputs);
// --bundle-dir / --out-dir: created when missing (with its parents); kExitBadInput with the
// reason when it cannot be, or is not a directory. Called before any work.
int check_output_dir(const std::string& option, const std::string& dir, bool json);
// Flushes stdout; on a write error (ENOSPC, EPIPE, /dev/full) prints strerror and turns an
// exit 0 into 2. lockstep::cli::main returns through it.
int finish_stdout(int rc);

// ---- replays ----------------------------------------------------------------------------
inline constexpr const char* kEmbedded = "<embedded>";

using Loaded = replay::OpenedReplay;
// Opens a replay (path or kEmbedded) with its sim (replay/open_replay.h). On failure prints
// the error and returns kExitBadInput.
int load_replay(const std::string& path, bool json, Loaded& out);

// kExitOk when `loaded` is complete, `allow_partial` is set or its name ends in ".partial";
// otherwise prints why and returns kExitBadInput (partial.cpp).
int require_complete(const Loaded& loaded, bool allow_partial, bool json);

struct TickStats {
  std::vector<std::uint64_t> step_ns;  // per tick (apply inputs → hash)
  double seconds = 0;
};
// Replays every frame of `loaded` through `runner`. `on_tick(tick, hash)` is called for the
// initial state (tick 0) and after every step; returning a non-zero exit code stops the run
// and is returned. Shows a progress bar on stderr when `progress`.
int replay_frames(const Loaded& loaded, replay::Runner& runner, bool progress, TickStats* stats,
                  const std::function<int(std::uint64_t tick, const StateHash& hash)>& on_tick);

using inspect::Percentiles;  // inspect/timing_trace.h
using inspect::percentiles;
using inspect::TimingTrace;

// The --trace-out of bench/run/netsim: written at the end (the destination was checked
// early). Returns an exit code (0 ok, 2 with the reason printed).
int write_timing_trace(const TimingTrace& trace, const std::string& path, bool json);

std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ");

// replay::bot_match_config's error `why` for `match`, in the flags' terms: "--param takes at
// most 4 values" when the sim was found (`sim` set) but the parameters were refused.
std::string bot_match_error(const replay::BotMatch& match, const replay::Sim* sim, const std::string& why);

// The tool being run (set once by lockstep::cli::main): its name and default replay.
const ToolInfo& tool() noexcept;
// Its name as its user runs it ("lockstep", or the NAME given to lockstep_add_tool): the prefix
// of every message and the program of every command a message or a help text suggests.
std::string tool_name();

}  // namespace lockstep::cli
