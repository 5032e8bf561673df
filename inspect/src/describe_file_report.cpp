// `lockstep info`'s answer as one call (describe_file.h): the per-request dispatch and the
// JSON wrappers around the describe_* / append_*_fields reports.
#include <lockstep/inspect/describe_file.h>

#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/open_replay.h>
#include <lockstep/replay/sim.h>
#include <lockstep/version.h>

#include "appendf.h"

namespace lockstep::inspect {

namespace {

using detail::appendf;

FileReport failed(std::string error, std::optional<replay::ReplayStatus> status = std::nullopt,
                  FileReportProblem problem = FileReportProblem::Other) {
  FileReport r;
  r.error = std::move(error);
  r.status = std::move(status);
  r.problem = problem;
  return r;
}

// {"ok":true, <fields>} and '\n'.
template <typename Fields>
std::string json_report(Fields&& fields) {
  JsonWriter j;
  j.begin().field("ok", true);
  fields(j);
  j.end();
  return j.str() + "\n";
}

// Which build read the file. A bundle records the build that wrote it (its "lockstep",
// "compiler", ... facts); a replay file does not: format v1 has no field for it (every earlier
// reader refuses an unknown block, and the recordings of one match by two builds would no
// longer be byte-identical), so for a replay the reader is all `info` can name.
constexpr const char* kReadBy = "read by       lockstep " LOCKSTEP_VERSION_STRING;
constexpr const char* kReplayWriterUnknown = " (a replay file does not record the lockstep version that wrote it)";

bool is_embedded(const FileReportRequest& q) { return q.path == q.embedded_path; }
std::string no_embedded(const FileReportRequest& q) {
  return q.tool_name + " has no default replay: give a replay file";
}

FileReport systems_report(const FileReportRequest& q) {
  FileReport r;
  const replay::Sim* sim = replay::find_sim(q.path);
  replay::SimConfig config;
  if (sim == nullptr) {
    if (q.path.empty())
      return failed("a system schedule needs a sim name (" + replay::describe_registered_sims() + ") or a replay file",
                    std::nullopt, FileReportProblem::NoScheduleSubject);
    if (is_embedded(q) && q.embedded.empty()) return failed(no_embedded(q));
    replay::OpenedReplay loaded;
    replay::OpenFailure why;
    const bool opened = is_embedded(q) ? replay::open_replay(q.embedded, q.embedded_name, loaded, why)
                                       : replay::open_replay(q.path, loaded, why);
    if (loaded.decoded) r.warnings = loaded.replay.warnings;
    if (!opened) {
      FileReport f = failed(why.message, why.file);
      f.warnings = std::move(r.warnings);
      return f;
    }
    sim = loaded.sim;
    config = loaded.replay.header.config;
  }
  replay::Schedule schedule;
  if (Status st = replay::build_schedule(*sim, config, schedule); !st.ok()) {
    FileReport f = failed("setup of " + std::string(sim->name()) + " failed: " + st.message(), std::nullopt,
                          FileReportProblem::ScheduleSetup);
    f.warnings = std::move(r.warnings);
    return f;
  }
  if (!q.json) {
    r.out = describe_schedule(sim->name(), schedule);
    return r;
  }
  r.out = json_report([&](JsonWriter& j) {
    j.field("sim", sim->name());
    append_schedule_fields(j, schedule);
  });
  return r;
}

// The listed sims (hidden test sims are not listed).
std::string sims_report(bool json) {
  if (json)
    return json_report([](JsonWriter& j) {
      j.begin_array("sims");
      for (const replay::Sim* s : replay::registered_sims()) j.value(s->name());
      j.end_array();
    });
  std::string out;
  for (const replay::Sim* s : replay::registered_sims())
    appendf(out, "%.*s v%u  input %s (%u bytes, schema %s)\n", static_cast<int>(s->name().size()), s->name().data(),
            s->version(), s->input_type().name, s->input_type().size,
            to_hex(replay::input_schema_hash(s->input_type())).c_str());
  return out;
}

FileReport bundle_report(const FileReportRequest& q) {
  Bundle b;
  if (const FileStatus st = read_bundle_file(q.path, b); !st.ok()) return failed(st.message);
  FileReport r;
  if (q.json) {
    r.out = json_report([&](JsonWriter& j) {
      append_bundle_fields(j, q.path, b);
      j.field("reader_version", LOCKSTEP_VERSION_STRING);
    });
    return r;
  }
  appendf(r.out, "bundle        %s\n%s", q.path.c_str(), describe_bundle(b).c_str());
  if (!b.report.empty()) appendf(r.out, "report        %s\n", b.report.c_str());
  r.out += std::string(kReadBy) + "\n";
  return r;
}

FileReport snapshot_report(const FileReportRequest& q) {
  SnapshotSummary sum;
  if (const FileStatus st = describe_snapshot_file(q.path, sum); !st.ok()) return failed(st.message);
  FileReport r;
  r.out = q.json ? json_report([&](JsonWriter& j) { append_snapshot_fields(j, q.path, sum); })
                 : describe_snapshot_summary(q.path, sum);
  return r;
}

FileReport replay_report(const FileReportRequest& q) {
  replay::Replay rp;
  std::string name = q.path;
  replay::ReplayStatus st;
  if (is_embedded(q)) {
    name = q.embedded_name;
    if (q.embedded.empty()) return failed(no_embedded(q));
    st = replay::decode_replay(q.embedded, rp, name);
  } else {
    st = replay::read_replay_file(q.path, rp);
  }
  if (!st.ok()) return failed(st.message, st);
  FileReport r;
  r.warnings = rp.warnings;
  const std::string sim_status = replay_sim_status(rp, name);
  r.out = q.json ? json_report([&](JsonWriter& j) {
                    append_replay_fields(j, rp, name, sim_status);
                    j.field("reader_version", LOCKSTEP_VERSION_STRING);
                  })
                 : describe_replay(rp, name, sim_status) + kReadBy + kReplayWriterUnknown + "\n";
  return r;
}

}  // namespace

FileReport describe_file_report(const FileReportRequest& q) {
  if (q.systems) return systems_report(q);
  if (q.sims && !q.path.empty())
    return failed("listing the sims of this build takes no file (got '" + q.path +
                      "'); without the listing the file is described",
                  std::nullopt, FileReportProblem::SimsWithPath);
  if (q.sims || q.path.empty()) {
    FileReport r;
    r.out = sims_report(q.json);
    return r;
  }
  if (!is_embedded(q)) {
    switch (peek_file_kind(q.path)) {
      case FileKind::Bundle: return bundle_report(q);
      case FileKind::Snapshot: return snapshot_report(q);
      case FileKind::Replay: break;
    }
  }
  return replay_report(q);
}

}  // namespace lockstep::inspect
