// lockstep snapshot REPLAY --tick N (-o FILE | --check FILE) — write the replayed state at
// tick N as a snapshot file, or load a snapshot file (possibly written on another host) into
// a fresh world of the replay's sim and compare it with the replayed state at tick N.
// This is the snapshot-file round trip and cross-host exchange of the determinism matrix.
// Exit 0: written / identical. 1: the loaded state's hash differs (parts named). 2: bad input.
#include "common.h"

#include <lockstep/inspect/tool_report.h>

#include <cstdio>

namespace lockstep::cli {

namespace {
struct SnapshotArgs {
  std::string replay;
  std::uint64_t tick = 0;
  std::string out;
  std::string check;
  bool json = false;
};

int snapshot_cmd(const SnapshotArgs& a) {
  if (a.out.empty() == a.check.empty())
    return report_error(a.json, kExitBadInput, "snapshot: give exactly one of -o FILE or --check FILE");
  if (!a.out.empty())
    if (int rc = check_output(a.out, a.json, {a.replay}); rc != kExitOk) return rc;
  Loaded loaded;
  if (int rc = load_replay(a.replay, a.json, loaded); rc != kExitOk) return rc;
  if (a.tick > loaded.replay.frame_count())
    return report_error(a.json, kExitBadInput,
                        loaded.name + ": --tick " + std::to_string(a.tick) + " is past the replay's last tick " +
                            std::to_string(loaded.replay.frame_count()));
  replay::Runner runner(*loaded.sim, loaded.replay.header.config);
  if (!runner.status().ok())
    return report_error(a.json, kExitBadInput, loaded.name + ": cannot build the sim: " + runner.status().message());
  StateHash at;
  const int stop = 3;  // private code: "reached the tick"
  const int rc = replay_frames(loaded, runner, false, nullptr, [&](std::uint64_t tick, const StateHash& h) {
    if (tick != a.tick) return int{kExitOk};
    at = h;
    return stop;
  });
  if (rc != stop) return rc == kExitOk ? report_error(a.json, kExitBadInput, "tick not reached") : rc;

  if (!a.out.empty()) {
    if (const FileStatus st = write_snapshot_file(a.out, runner.world()); !st.ok())
      return report_error(a.json, kExitBadInput, st.message);
    std::fputs(inspect::snapshot_written_report(loaded.name, a.tick, a.out, at, a.json).c_str(), stdout);
    return kExitOk;
  }
  const inspect::SnapshotCheck c = inspect::check_snapshot_file(*loaded.sim, loaded.replay.header.config, loaded.name, a.check,
                                                                at, runner.world().storage());
  if (!c.error.empty()) return report_error(a.json, kExitBadInput, c.error);
  const inspect::SnapshotCheckReport report = inspect::snapshot_check_report(a.check, loaded.name, a.tick, c, at, a.json);
  std::fputs(report.report.c_str(), stdout);
  if (!report.log.empty()) std::fputs((tool_name() + ": " + report.log).c_str(), stderr);
  return c.same ? kExitOk : kExitMismatch;
}
}  // namespace

Command add_snapshot(CLI::App& root) {
  auto a = std::make_shared<SnapshotArgs>();
  CLI::App* app = root.add_subcommand("snapshot", "Write the state at a tick as a snapshot file, or check one against it");
  app->add_option("replay", a->replay, "Replay file")->required();
  app->add_option("--tick", a->tick, "Tick whose state is written / compared (0 = initial state)")->required();
  app->add_option("-o,--output", a->out, "Snapshot file to write");
  app->add_option("--check", a->check, "Snapshot file to load and compare with the replayed state");
  app->add_flag("--json", a->json, "Machine-readable result on stdout");
  app->footer("Examples:\n"
              "  " + tool_name() + " snapshot fixtures/duel/duel.replay --tick 600 -o duel-600.snap\n"
              "  " + tool_name() + " snapshot fixtures/duel/duel.replay --tick 600 --check duel-600.snap\n"
              "Exit codes: 0 written / identical; 1 the loaded state differs (parts named);\n"
              "2 unreadable or mismatched input, tick past the end, unwritable output.");
  return {app, [a] { return snapshot_cmd(*a); }};
}

}  // namespace lockstep::cli
