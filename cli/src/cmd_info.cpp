// lockstep info FILE — describe a replay file, a desync bundle or a snapshot file without
// running anything; --sims, --systems. The answer is inspect::describe_file_report.
#include "common.h"

#include <lockstep/inspect/describe_file.h>

#include <cstdio>

namespace lockstep::cli {

namespace {
// The request as parsed; the tool's default replay stands for '<embedded>'.
int info_cmd(inspect::FileReportRequest q) {
  q.embedded_path = kEmbedded;
  q.embedded = tool().default_replay;
  q.embedded_name = std::string(tool().default_replay_name);
  q.tool_name = std::string(tool().name);
  const inspect::FileReport r = inspect::describe_file_report(q);
  print_warnings(r.warnings);
  if (!r.error.empty()) {
    // The request's conditions in the terms of the flags that made it.
    std::string error = r.error;
    if (r.problem == inspect::FileReportProblem::SimsWithPath)
      error = "info --sims lists the sims of this build and takes no file (got '" + q.path + "'); drop --sims to describe the file";
    if (r.problem == inspect::FileReportProblem::NoScheduleSubject)
      error = "info --systems: give a sim name (" + describe_sims() + ") or a replay file";
    if (r.problem == inspect::FileReportProblem::ScheduleSetup) error = "info --systems: " + r.error;
    return report_error(q.json, kExitBadInput, error, r.status ? &*r.status : nullptr);
  }
  std::fputs(r.out.c_str(), stdout);
  return kExitOk;
}
}  // namespace

Command add_info(CLI::App& root) {
  auto a = std::make_shared<inspect::FileReportRequest>();
  CLI::App* app = root.add_subcommand("info", "Describe a replay file (header, ticks, hashes, checkpoints), a desync bundle or a snapshot file, or list sims");
  app->add_option("replay", a->path,
                  "Replay file ('<embedded>' for the built-in default), desync bundle or snapshot file; omitted: list sims");
  app->add_flag("--sims", a->sims, "List the sims this build knows");
  app->add_flag("--systems", a->systems,
                "Print the system schedule of a sim (name or replay file) with declared access and conflicts");
  app->add_flag("--json", a->json, "Machine-readable output on stdout");
  app->footer("Examples:\n"
              "  " + tool_name() + " info fixtures/skirmish/skirmish.replay\n"
              "  " + tool_name() + " info --sims\n"
              "  " + tool_name() + " info --systems skirmish\n"
              "  " + tool_name() + " info --json my.replay.partial\n"
              "  " + tool_name() + " info state.snap\n"
              "Exit codes: 0 ok (warnings for truncated files go to stderr), 2 unreadable file.");
  return {app, [a] { return info_cmd(*a); }};
}

}  // namespace lockstep::cli
