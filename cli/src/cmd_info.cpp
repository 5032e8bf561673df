// lockstep info FILE — describe a replay file, a desync bundle or a snapshot file without
// running anything.
#include "common.h"

#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/describe_file.h>
#include <lockstep/replay/schedule.h>

#include <cstdio>

namespace lockstep::cli {

namespace {
struct InfoArgs {
  std::string replay;
  bool json = false;
  bool sims = false;
  bool systems = false;
};

// `info --systems SIM|REPLAY`: the schedule with declared access, and the pairs of systems
// whose access conflicts (docs/systems.md). A replay file gives the sim and its config.
int systems_cmd(const InfoArgs& a) {
  const replay::Sim* sim = replay::find_sim(a.replay);
  replay::SimConfig config;
  if (sim == nullptr) {
    Loaded loaded;
    if (a.replay.empty())
      return report_error(a.json, kExitBadInput, "info --systems: give a sim name (" + describe_sims() + ") or a replay file");
    if (const int rc = load_replay(a.replay, a.json, loaded); rc != kExitOk) return rc;
    sim = loaded.sim;
    config = loaded.replay.header.config;
  }
  replay::Schedule schedule;
  if (Status st = replay::build_schedule(*sim, config, schedule); !st.ok())
    return report_error(a.json, kExitBadInput, std::string("info --systems: setup of ") + std::string(sim->name()) +
                                                   " failed: " + st.message());
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("sim", sim->name());
    inspect::append_schedule_fields(j, schedule);
    j.end();
    std::printf("%s\n", j.str().c_str());
    return kExitOk;
  }
  std::printf("%s", inspect::describe_schedule(sim->name(), schedule).c_str());
  return kExitOk;
}

int snapshot_info(const InfoArgs& a) {
  inspect::SnapshotSummary sum;
  const FileStatus st = inspect::describe_snapshot_file(a.replay, sum);
  if (!st.ok()) return report_error(a.json, kExitBadInput, st.message);
  if (a.json) {
    Json j;
    j.begin().field("ok", true);
    inspect::append_snapshot_fields(j, a.replay, sum);
    j.end();
    std::printf("%s\n", j.str().c_str());
    return kExitOk;
  }
  std::printf("%s", inspect::describe_snapshot_summary(a.replay, sum).c_str());
  return kExitOk;
}

int bundle_info(const InfoArgs& a) {
  inspect::Bundle b;
  const FileStatus st = inspect::read_bundle_file(a.replay, b);
  if (!st.ok()) return report_error(a.json, kExitBadInput, st.message);
  if (a.json) {
    Json j;
    j.begin().field("ok", true);
    inspect::append_bundle_fields(j, a.replay, b);
    j.end();
    std::printf("%s\n", j.str().c_str());
    return kExitOk;
  }
  std::printf("bundle        %s\n%s", a.replay.c_str(), inspect::describe_bundle(b).c_str());
  if (!b.report.empty()) std::printf("report        %s\n", b.report.c_str());
  return kExitOk;
}

// `info --sims`: the listed sims (hidden test sims are not listed).
int sims_info(bool json) {
  if (json) {
    Json j;
    j.begin().field("ok", true).begin_array("sims");
    for (const replay::Sim* s : replay::registered_sims()) j.value(s->name());
    j.end_array().end();
    std::printf("%s\n", j.str().c_str());
  } else {
    for (const replay::Sim* s : replay::registered_sims())
      std::printf("%.*s v%u  input %s (%u bytes, schema %s)\n", static_cast<int>(s->name().size()), s->name().data(),
                  s->version(), s->input_type().name, s->input_type().size,
                  hex(replay::input_schema_hash(s->input_type())).c_str());
  }
  return kExitOk;
}

int info_cmd(const InfoArgs& a) {
  if (a.systems) return systems_cmd(a);
  if (a.sims && !a.replay.empty())
    return report_error(a.json, kExitBadInput,
                        "info --sims lists the sims of this build and takes no file (got '" + a.replay +
                            "'); drop --sims to describe the file");
  if (a.sims || a.replay.empty()) return sims_info(a.json);
  if (a.replay != kEmbedded) {
    // A desync bundle: what it holds (sides, hashes, facts) and the report of the gate that wrote it.
    switch (inspect::peek_file_kind(a.replay)) {
      case inspect::FileKind::Bundle: return bundle_info(a);
      case inspect::FileKind::Snapshot: return snapshot_info(a);
      case inspect::FileKind::Replay: break;
    }
  }
  replay::Replay r;
  std::string name = a.replay;
  replay::ReplayStatus st;
  if (a.replay == kEmbedded) {
    name = std::string(tool().default_replay_name);
    if (tool().default_replay.empty())
      return report_error(a.json, kExitBadInput, std::string(tool().name) + " has no default replay: give a replay file");
    st = replay::decode_replay(tool().default_replay, r, name);
  } else {
    st = replay::read_replay_file(a.replay, r);
  }
  if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
  print_warnings(r.warnings);
  const std::string sim_status = inspect::replay_sim_status(r, name);
  if (a.json) {
    Json j;
    j.begin().field("ok", true);
    inspect::append_replay_fields(j, r, name, sim_status);
    j.end();
    std::printf("%s\n", j.str().c_str());
    return kExitOk;
  }
  std::printf("%s", inspect::describe_replay(r, name, sim_status).c_str());
  return kExitOk;
}
}  // namespace

Command add_info(CLI::App& root) {
  auto a = std::make_shared<InfoArgs>();
  CLI::App* app = root.add_subcommand("info", "Describe a replay file (header, ticks, hashes, checkpoints), a desync bundle or a snapshot file, or list sims");
  app->add_option("replay", a->replay,
                  "Replay file ('<embedded>' for the built-in default), desync bundle or snapshot file; omitted: list sims");
  app->add_flag("--sims", a->sims, "List the sims this build knows");
  app->add_flag("--systems", a->systems,
                "Print the system schedule of a sim (name or replay file) with declared access and conflicts");
  app->add_flag("--json", a->json, "Machine-readable output on stdout");
  app->footer("Examples:\n"
              "  lockstep info fixtures/skirmish/skirmish.replay\n"
              "  lockstep info --sims\n"
              "  lockstep info --systems skirmish\n"
              "  lockstep info --json my.replay.partial\n"
              "  lockstep info state.snap\n"
              "Exit codes: 0 ok (warnings for truncated files go to stderr), 2 unreadable file.");
  return {app, [a] { return info_cmd(*a); }};
}

}  // namespace lockstep::cli
