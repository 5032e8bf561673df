// lockstep trace REPLAY -o FILE — write the per-tick hash trace (one line per tick).
#include "common.h"
#include "farm.h"

#include <lockstep/hash/durable_file.h>
#include <lockstep/inspect/tool_report.h>
#include <lockstep/replay/trace.h>

#include <cstdio>

namespace lockstep::cli {

namespace {
struct TraceArgs {
  std::string replay;
  std::string out = "-";
  bool no_components = false;
  bool recorded = false;
  bool json = false;
  std::uint32_t threads = 0;
  std::vector<std::string> replays;  // several, or directories: a farm (farm.h)
  FarmOptions farm;
};

int trace_cmd(const TraceArgs& a) {
  // Without -o the trace itself is stdout; a JSON summary after it would corrupt both.
  if (a.json && a.out == "-")
    return report_error(a.json, kExitBadInput, "trace: --json summarises a written trace file: give -o FILE");
  if (a.out != "-")
    if (int rc = check_output(a.out, a.json, {a.replay}); rc != kExitOk) return rc;
  Loaded loaded;
  std::string text;
  std::uint64_t lines = 0;
  if (a.recorded) {
    // Recorded hashes only: no sim needed.
    loaded.name = a.replay;
    replay::ReplayStatus st = replay::read_replay_file(a.replay, loaded.replay);
    if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
    print_warnings(loaded.replay.warnings);
    const replay::Replay& r = loaded.replay;
    if (r.hashes.empty()) return report_error(a.json, kExitBadInput, a.replay + ": has no recorded hashes");
    text = replay::trace_comment(r.header);
    for (std::uint64_t t = 0; t < r.hashes.size(); ++t) replay::append_trace_line(text, r, t, !a.no_components);
    lines = r.hashes.size();
  } else {
    if (int rc = load_replay(a.replay, a.json, loaded); rc != kExitOk) return rc;
    replay::Runner runner(*loaded.sim, loaded.replay.header.config);
    if (!runner.status().ok())
      return report_error(a.json, kExitBadInput, loaded.name + ": cannot build the sim: " + runner.status().message());
    runner.setThreads(a.threads);
    text = replay::trace_comment(loaded.replay.header);
    const StorageView schema = runner.world().storage();
    const int rc = replay_frames(loaded, runner, a.out != "-" && !a.json && stderr_is_tty(), nullptr,
                                 [&](std::uint64_t, const StateHash& h) {
                                   replay::append_trace_line(text, h, schema, !a.no_components);
                                   ++lines;
                                   return int{kExitOk};
                                 });
    if (rc != kExitOk) return rc;
  }
  if (const std::string error = hash::write_text_output(a.out, text); !error.empty())
    return report_error(a.json, kExitBadInput, error);
  std::fputs(inspect::trace_report(loaded.name, a.out, lines, a.json).c_str(), stdout);
  return kExitOk;
}
}  // namespace

Command add_trace(CLI::App& root) {
  auto a = std::make_shared<TraceArgs>();
  CLI::App* app = root.add_subcommand("trace", "Replay and write the per-tick hash trace (text, one line per tick)");
  app->add_option("replay", a->replays, "Replay file(s), or directories searched for *.replay (a farm, with --out-dir)")->required();
  app->add_option("-o,--output", a->out, "Trace file ('-' = stdout)")->capture_default_str();
  app->add_flag("--no-components", a->no_components, "Only '<tick> <total>' per line");
  app->add_flag("--recorded", a->recorded, "Print the replay's recorded hashes instead of re-simulating");
  app->add_flag("--json", a->json, "Machine-readable summary on stdout (needs -o FILE)");
  app->add_option("--threads", a->threads,
                  "Re-simulate with the sim's parallel loops on N threads (0 = serial); the trace must not change")
      ->check(CLI::Range(0, 64))->capture_default_str();
  add_farm_options(*app, a->farm, false);
  app->footer("Examples:\n"
              "  " + tool_name() + " trace fixtures/duel/duel.replay -o duel.trace\n"
              "  " + tool_name() + " trace my.replay | head\n"
              "  diff <(" + tool_name() + " trace a.replay) <(" + tool_name() + " trace b.replay) | head -2   # first divergent tick\n"
              "Line format: <tick> <total> entities=<hex> archetypes=<hex> resources=<hex> <Component>=<hex>...\n"
              "Exit codes: 0 ok, 2 unreadable or mismatched replay / unwritable output.");
  return {app, [a] {
            if (!is_farm(a->replays, a->farm)) {
              a->replay = a->replays.front();
              return trace_cmd(*a);
            }
            if (a->farm.out_dir.empty() || a->json || a->out != "-")
              return report_error(a->json, kExitBadInput,
                                  "trace: with several replays use --out-dir DIR (not -o) and --junit (not --json)");
            return run_farm("trace", a->replays, a->farm, [a](const std::string& replay) {
              TraceArgs one = *a;
              one.replay = replay;
              one.out = replay::trace_output_for(replay, a->farm.out_dir);
              replay::FarmJob t{{"trace", one.replay, "-o", one.out}, [one] { return trace_cmd(one); }};
              if (one.no_components) t.args.push_back("--no-components");
              if (one.recorded) t.args.push_back("--recorded");
              return t;
            });
          }};
}

}  // namespace lockstep::cli
