#pragma once
// What a lockstep file is and holds, without running anything (`lockstep info FILE`; a game's
// own tools and crash reporters describe files the same way).
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/json_writer.h>
#include <lockstep/inspect/state.h>
#include <lockstep/replay/schedule.h>
#include <lockstep/replay/replay_file.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace lockstep::inspect {

enum class FileKind { Replay, Bundle, Snapshot };

// By the first bytes of a regular file. Anything else (a pipe, a missing file) is a Replay:
// peeking would consume a pipe's first bytes, and the replay reader reports what is wrong.
FileKind peek_file_kind(const std::string& path);

struct SnapshotSummary {
  State state;
  std::vector<std::string> components, resources;  // type names, by id
  std::uint64_t archetypes_in_use = 0;              // holding at least one entity
};
FileStatus describe_snapshot_file(const std::string& path, SnapshotSummary& out);

// Whether this build can replay `r`: "matches this build", "unknown to this build" (no listed
// sim of that name) or "MISMATCH: <why>" (version or input schema changed).
std::string replay_sim_status(const replay::Replay& r, const std::string& name);

// `lockstep info`'s reports, for a game's own tool or log: text (one "label  value" line each,
// every line ending in '\n') and the same as fields of an open JSON object.
//
// A replay: "replay", "sim", "input", "config", "ticks", "hashes", "final hash", "checkpoints",
// "components", "complete" lines; JSON fields replay, format_version, sim, sim_version,
// input_schema, input_size, sim_status, config {players, units, seed, params}, ticks,
// block_ticks, hashes, component_hashes, checkpoint_interval, checkpoints, complete,
// final_hash (when hashed), components, warnings.
std::string describe_replay(const replay::Replay& r, const std::string& name, const std::string& sim_status);
void append_replay_fields(JsonWriter& j, const replay::Replay& r, const std::string& name, const std::string& sim_status);
// A snapshot file: "snapshot", "tick", "entities", "archetypes", "components", "resources"
// lines; JSON fields snapshot, format_version, tick, entities, slots, archetypes,
// archetypes_in_use, components, resources.
std::string describe_snapshot_summary(const std::string& path, const SnapshotSummary& sum);
void append_snapshot_fields(JsonWriter& j, const std::string& path, const SnapshotSummary& sum);
// A desync bundle as JSON fields: bundle, source, sim, sim_version, tick, system, report,
// sides [{label, state, total}], agreeing_state, inputs_from, facts {...}.
void append_bundle_fields(JsonWriter& j, const std::string& path, const Bundle& b);
// A sim's system schedule with declared access and the conflicting pairs (docs/systems.md):
// text as `info --systems` prints it, and JSON arrays systems [{name, reads, writes}] and
// conflicts [{first, second, kind, type, writer}].
std::string describe_schedule(std::string_view sim_name, const replay::Schedule& schedule);
void append_schedule_fields(JsonWriter& j, const replay::Schedule& schedule);

// `lockstep info`'s whole answer as one call, for a game's own tool: what to describe.
struct FileReportRequest {
  // A replay file, a desync bundle or a snapshot file (told apart by peek_file_kind); with
  // `systems`, a sim name or a replay file; empty (and not `systems`): list the sims.
  std::string path;
  bool json = false;     // the report as one JSON object {"ok":true,...} instead of text
  bool sims = false;     // list the sims registered in this process (takes no path)
  bool systems = false;  // the system schedule of a sim, or of a replay's sim and config
  // A recording given as bytes for the path `embedded_path` (a tool's built-in default
  // replay), named `embedded_name` in messages. No bytes: that path is refused, naming
  // `tool_name`.
  std::string embedded_path = "<embedded>";
  std::span<const std::byte> embedded{};
  std::string embedded_name = "<embedded>";
  std::string tool_name = "lockstep";
};

// What to print. `error` non-empty: bad input and nothing described (`out` empty); `status`
// is then the replay file layer's status when the failure was there. `warnings` (a damaged or
// truncated replay's) are shown first, also beside an error.
// What a failed request was refused for (FileReport::problem), for a caller that names its own
// options: Other (the file: `error` and `status` say it), SimsWithPath ("listing the sims of this
// build takes no file (got 'PATH'); ..."), NoScheduleSubject ("a system schedule needs a sim name
// (...) or a replay file"), ScheduleSetup ("setup of SIM failed: ...").
enum class FileReportProblem : std::uint8_t { None, Other, SimsWithPath, NoScheduleSubject, ScheduleSetup };

struct FileReport {
  std::string out;  // the text report (every line ending in '\n'), or one JSON object and '\n'
  std::vector<std::string> warnings;
  std::string error;
  std::optional<replay::ReplayStatus> status;
  FileReportProblem problem = FileReportProblem::None;  // with `error`
};

// `sims` with a path is refused (SimsWithPath); `systems` describes the schedule (describe_schedule /
// append_schedule_fields, with "ok" and "sim" fields); no path lists the sims ("NAME vVERSION
// input TYPE (N bytes, schema HEX)" lines; JSON array "sims"); otherwise the file by its kind:
// a bundle ("bundle" line, describe_bundle, "report" line; append_bundle_fields), a snapshot
// (describe_snapshot_summary; append_snapshot_fields) or a replay (describe_replay;
// append_replay_fields).
FileReport describe_file_report(const FileReportRequest& request);

}  // namespace lockstep::inspect
