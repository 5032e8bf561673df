// lockstep info FILE — describe a replay file, a desync bundle or a snapshot file without
// running anything.
#include "common.h"

#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/state.h>

#include <cstring>

#include <sys/stat.h>

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
    j.begin().field("ok", true).field("sim", sim->name()).begin_array("systems");
    for (const replay::ScheduleEntry& e : schedule.systems) {
      j.begin().field("name", e.name).begin_array("reads");
      for (const std::string& r : e.reads) j.value(r);
      j.end_array().begin_array("writes");
      for (const std::string& w : e.writes) j.value(w);
      j.end_array().end();
    }
    j.end_array().begin_array("conflicts");
    for (const replay::AccessConflict& c : schedule.conflicts)
      j.begin().field("first", schedule.systems[c.first].name).field("second", schedule.systems[c.second].name)
          .field("kind", replay::to_string(c.kind)).field("type", c.type)
          .field("writer", schedule.systems[c.writer].name).end();
    j.end_array().end();
    std::printf("%s\n", j.str().c_str());
    return kExitOk;
  }
  std::printf("schedule of %.*s (%zu systems, run in this order; declared access is enforced while each runs)\n",
              static_cast<int>(sim->name().size()), sim->name().data(), schedule.systems.size());
  for (std::size_t i = 0; i < schedule.systems.size(); ++i) {
    const replay::ScheduleEntry& e = schedule.systems[i];
    std::printf("  %2zu %s\n       reads  %s\n       writes %s\n", i + 1, e.name.c_str(),
                e.reads.empty() ? "-" : join(e.reads).c_str(), e.writes.empty() ? "-" : join(e.writes).c_str());
  }
  std::printf("conflicts (report only: pairs that could not run in parallel): %zu\n", schedule.conflicts.size());
  for (const replay::AccessConflict& c : schedule.conflicts)
    std::printf("  %s x %s  %s on %s (written by %s)\n", schedule.systems[c.first].name.c_str(),
                schedule.systems[c.second].name.c_str(), replay::to_string(c.kind), c.type.c_str(),
                schedule.systems[c.writer].name.c_str());
  return kExitOk;
}

// Peeks at regular files only: a pipe's first bytes would be gone for the replay reader.
enum class FileKind { Other, Bundle, Snapshot };
FileKind peek_kind(const std::string& path) {
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) return FileKind::Other;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return FileKind::Other;
  std::byte head[16] = {};
  const std::size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (inspect::looks_like_bundle(std::span<const std::byte>(head, n))) return FileKind::Bundle;
  // The snapshot magic follows one leading byte (docs/hashing.md, "Snapshot files").
  if (n >= 9 && std::memcmp(head + 1, kSnapshotFileMagic, 8) == 0) return FileKind::Snapshot;
  return FileKind::Other;
}

int snapshot_info(const InfoArgs& a) {
  inspect::State s;
  const FileStatus st = inspect::read_state_file(a.replay, s);
  if (!st.ok()) return report_error(a.json, kExitBadInput, st.message);
  std::vector<std::string> components, resources;
  for (const inspect::Type& t : s.components) components.push_back(t.name);
  for (const inspect::Type& t : s.resources) resources.push_back(t.name);
  std::uint64_t archetypes_in_use = 0;
  for (const inspect::Archetype& at : s.archetypes) archetypes_in_use += at.slots.empty() ? 0 : 1;
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("snapshot", a.replay).field("format_version", std::uint64_t{kSnapshotFileVersion})
        .field("tick", s.tick).field("entities", s.live_entities()).field("slots", std::uint64_t{s.slot_count()})
        .field("archetypes", std::uint64_t{s.archetypes.size()}).field("archetypes_in_use", archetypes_in_use);
    j.begin_array("components");
    for (const std::string& c : components) j.value(c);
    j.end_array().begin_array("resources");
    for (const std::string& r : resources) j.value(r);
    j.end_array().end();
    std::printf("%s\n", j.str().c_str());
    return kExitOk;
  }
  std::printf("snapshot      %s (format v%u)\n", a.replay.c_str(), kSnapshotFileVersion);
  std::printf("tick          %llu\n", static_cast<unsigned long long>(s.tick));
  std::printf("entities      %llu live (%u slots)\n", static_cast<unsigned long long>(s.live_entities()), s.slot_count());
  std::printf("archetypes    %zu (%llu holding entities)\n", s.archetypes.size(),
              static_cast<unsigned long long>(archetypes_in_use));
  std::printf("components    %s\n", components.empty() ? "-" : join(components).c_str());
  std::printf("resources     %s\n", resources.empty() ? "-" : join(resources).c_str());
  return kExitOk;
}

int bundle_info(const InfoArgs& a) {
  inspect::Bundle b;
  const FileStatus st = inspect::read_bundle_file(a.replay, b);
  if (!st.ok()) return report_error(a.json, kExitBadInput, st.message);
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("bundle", a.replay).field("source", b.source).field("sim", b.sim_name)
        .field("sim_version", b.sim_version).field("tick", b.tick).field("system", b.system).field("report", b.report);
    j.begin_array("sides");
    for (const inspect::BundleSide& s : b.sides)
      j.begin().field("label", s.label).field("state", s.has_state).field("total", hex(s.hash.total)).end();
    j.end_array().field("agreeing_state", b.has_agreeing).field("inputs_from", b.inputs_from);
    j.begin("facts");
    for (const auto& [k, v] : b.facts) j.field(k, v);
    j.end().end();
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
    switch (peek_kind(a.replay)) {
      case FileKind::Bundle: return bundle_info(a);
      case FileKind::Snapshot: return snapshot_info(a);
      case FileKind::Other: break;
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
  const replay::ReplayHeader& h = r.header;
  const replay::Sim* sim = replay::find_sim(h.sim_name);
  std::string sim_status = "unknown to this build";
  if (sim != nullptr) {
    const replay::ReplayStatus cs = replay::check_replay_sim(r, *sim, name);
    sim_status = cs.ok() ? "matches this build" : "MISMATCH: " + cs.message;
  }
  const std::uint64_t frames = r.frame_count();
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("replay", name).field("format_version", replay::kReplayFormatVersion)
        .field("sim", h.sim_name).field("sim_version", h.sim_version).field("input_schema", hex(h.input_schema))
        .field("input_size", h.input_size).field("sim_status", sim_status);
    j.begin("config").field("players", h.config.players).field("units", h.config.units).field("seed", h.config.seed);
    j.begin_array("params");
    for (std::uint32_t p : h.config.params) j.value(std::to_string(p));
    j.end_array().end();
    j.field("ticks", frames).field("block_ticks", h.block_ticks).field("hashes", std::uint64_t{r.hashes.size()})
        .field("component_hashes", h.has_component_hashes()).field("checkpoint_interval", h.checkpoint_interval)
        .field("checkpoints", std::uint64_t{r.checkpoints.size()}).field("complete", r.complete);
    if (!r.hashes.empty()) j.field("final_hash", hex(r.hashes.back().total));
    j.begin_array("components");
    for (const std::string& c : h.components) j.value(c);
    j.end_array();
    j.begin_array("warnings");
    for (const std::string& w : r.warnings) j.value(w);
    j.end_array().end();
    std::printf("%s\n", j.str().c_str());
    return kExitOk;
  }
  std::printf("replay        %s (format v%u)\n", name.c_str(), replay::kReplayFormatVersion);
  std::printf("sim           %s v%u (%s)\n", h.sim_name.c_str(), h.sim_version, sim_status.c_str());
  std::printf("input         %u bytes/player, schema %s\n", h.input_size, hex(h.input_schema).c_str());
  std::printf("config        players %u  units %u  seed %llu  params %u,%u,%u,%u\n", h.config.players, h.config.units,
              static_cast<unsigned long long>(h.config.seed), h.config.params[0], h.config.params[1], h.config.params[2],
              h.config.params[3]);
  std::printf("ticks         %llu (%u frames per block)\n", static_cast<unsigned long long>(frames), h.block_ticks);
  std::printf("hashes        %llu%s\n", static_cast<unsigned long long>(r.hashes.size()),
              h.has_component_hashes() ? " (with per-component hashes)" : (h.has_hashes() ? "" : " (not recorded)"));
  if (!r.hashes.empty())
    std::printf("final hash    %s (tick %llu)\n", hex(r.hashes.back().total).c_str(),
                static_cast<unsigned long long>(r.hashes.back().tick));
  if (h.checkpoint_interval != 0) {
    std::printf("checkpoints   %zu (every %u ticks):", r.checkpoints.size(), h.checkpoint_interval);
    for (const replay::Checkpoint& cp : r.checkpoints) std::printf(" %llu", static_cast<unsigned long long>(cp.tick));
    std::printf("\n");
  }
  if (!h.components.empty()) std::printf("components    %s\n", join(h.components).c_str());
  std::printf("complete      %s\n", r.complete ? "yes" : "NO (interrupted recording; see warning)");
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
