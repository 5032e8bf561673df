// lockstep run [REPLAY] — replay a recording (default: the embedded skirmish fixture) and
// print a summary: ticks, final hash, ticks/s, tick time p50/p99/max. Recorded hashes, when
// the replay has them, are checked on the way (exit 1 at the first divergent tick).
#include "common.h"

#include <lockstep/inspect/tool_report.h>
#include <lockstep/replay/verify.h>

#include <cstdio>

namespace lockstep::cli {

namespace {
struct RunArgs {
  std::string replay;
  bool json = false;
  bool allow_partial = false;
  bool no_progress = false;
  std::string trace_out;
};

int run_cmd(const RunArgs& a) {
  if (!a.trace_out.empty())
    if (int rc = check_output(a.trace_out, a.json, {a.replay}); rc != kExitOk) return rc;
  Loaded loaded;
  if (int rc = load_replay(a.replay, a.json, loaded); rc != kExitOk) return rc;
  if (int rc = require_complete(loaded, a.allow_partial, a.json); rc != kExitOk) return rc;
  replay::Runner runner(*loaded.sim, loaded.replay.header.config);
  if (!runner.status().ok())
    return report_error(a.json, kExitBadInput, loaded.name + ": cannot build the sim: " + runner.status().message());
  const replay::Replay& r = loaded.replay;
  TimingTrace trace(tool_name() + " run " + loaded.name);
  if (!a.trace_out.empty()) runner.set_probe(&trace.lane(0, "sim"));
  std::uint64_t checked = 0;
  std::string divergence;
  TickStats stats;
  const int rc = replay_frames(loaded, runner, !a.json && !a.no_progress && stderr_is_tty(), &stats,
                               [&](std::uint64_t tick, const StateHash& h) {
                                 if (tick >= r.hashes.size()) return int{kExitOk};
                                 ++checked;
                                 const auto d = replay::diff_recorded(r, tick, h);
                                 if (d.empty()) return int{kExitOk};
                                 divergence = "tick " + std::to_string(tick) + ": state differs from the recording: " + join(d);
                                 return int{kExitMismatch};
                               });
  if (rc == kExitBadInput) return rc;
  if (!a.trace_out.empty())  // also for a desync: the trace shows the ticks up to it
    if (int wrc = write_timing_trace(trace, a.trace_out, a.json); wrc != kExitOk) return wrc;
  if (rc == kExitMismatch) {
    std::fprintf(stderr, "%s: DESYNC %s: %s\n", tool_name().c_str(), loaded.name.c_str(), divergence.c_str());
    std::fputs(inspect::run_desync_report(loaded.name, divergence, a.json).c_str(), stdout);
    return kExitMismatch;
  }
  std::fputs(inspect::run_report(loaded.name, r, runner.hash(), checked, runner.world().entityCount(), stats.seconds,
                                 percentiles(stats.step_ns), a.json).c_str(),
             stdout);
  return kExitOk;
}
}  // namespace

Command add_run(CLI::App& root) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* app = root.add_subcommand("run", "Replay a recording and print a summary (default: the embedded skirmish replay)");
  app->add_option("replay", args->replay, "Replay file (.replay or .json); omitted: the embedded default");
  app->add_flag("--allow-partial", args->allow_partial, "Check an incomplete replay (no END block) up to its last complete block");
  app->add_flag("--json", args->json, "Machine-readable summary on stdout");
  app->add_flag("--no-progress", args->no_progress, "Never draw the progress bar");
  app->add_option("--trace-out", args->trace_out, "Write a Chrome trace-event JSON timing trace (Perfetto, chrome://tracing)");
  app->footer("Examples:\n"
              "  " + tool_name() + " run\n"
              "  " + tool_name() + " run fixtures/duel/duel.replay\n"
              "  " + tool_name() + " run --json my.replay\n"
              "Exit codes: 0 ok, 1 a recorded hash differs, 2 unreadable or mismatched replay.");
  return {app, [args] { return run_cmd(*args); }};
}

}  // namespace lockstep::cli
