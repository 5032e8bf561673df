// Describing lockstep files (describe_file.h).
#include <lockstep/inspect/describe_file.h>

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/replay/sim.h>

#include <cstdio>
#include <cstring>

#include <sys/stat.h>

namespace lockstep::inspect {

FileKind peek_file_kind(const std::string& path) {
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) return FileKind::Replay;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return FileKind::Replay;
  std::byte head[16] = {};
  const std::size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (looks_like_bundle(std::span<const std::byte>(head, n))) return FileKind::Bundle;
  // The snapshot magic follows one leading byte (docs/hashing.md, "Snapshot files").
  if (n >= 9 && std::memcmp(head + 1, kSnapshotFileMagic, 8) == 0) return FileKind::Snapshot;
  return FileKind::Replay;
}

FileStatus describe_snapshot_file(const std::string& path, SnapshotSummary& out) {
  const FileStatus st = read_state_file(path, out.state);
  if (!st.ok()) return st;
  for (const Type& t : out.state.components) out.components.push_back(t.name);
  for (const Type& t : out.state.resources) out.resources.push_back(t.name);
  for (const Archetype& at : out.state.archetypes) out.archetypes_in_use += at.slots.empty() ? 0 : 1;
  return st;
}

std::string replay_sim_status(const replay::Replay& r, const std::string& name) {
  const replay::Sim* sim = replay::find_sim(r.header.sim_name);
  if (sim == nullptr) return "unknown to this build";
  const replay::ReplayStatus cs = replay::check_replay_sim(r, *sim, name);
  return cs.ok() ? "matches this build" : "MISMATCH: " + cs.message;
}

namespace {
std::string joined(const std::vector<std::string>& parts) {
  if (parts.empty()) return "-";
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

// printf into a string (report lines).
template <class... Args>
void appendf(std::string& out, const char* format, Args... args) {
  char line[512];
  const int n = std::snprintf(line, sizeof line, format, args...);
  if (n > 0 && static_cast<std::size_t>(n) < sizeof line) {
    out += line;
    return;
  }
  std::string big(static_cast<std::size_t>(n > 0 ? n : 0) + 1, '\0');
  std::snprintf(big.data(), big.size(), format, args...);
  big.pop_back();
  out += big;
}
}  // namespace

std::string describe_replay(const replay::Replay& r, const std::string& name, const std::string& sim_status) {
  const replay::ReplayHeader& h = r.header;
  std::string o;
  appendf(o, "replay        %s (format v%u)\n", name.c_str(), replay::kReplayFormatVersion);
  appendf(o, "sim           %s v%u (%s)\n", h.sim_name.c_str(), h.sim_version, sim_status.c_str());
  appendf(o, "input         %u bytes/player, schema %s\n", h.input_size, to_hex(h.input_schema).c_str());
  appendf(o, "config        players %u  units %u  seed %llu  params %u,%u,%u,%u\n", h.config.players, h.config.units,
          static_cast<unsigned long long>(h.config.seed), h.config.params[0], h.config.params[1], h.config.params[2],
          h.config.params[3]);
  appendf(o, "ticks         %llu (%u frames per block)\n", static_cast<unsigned long long>(r.frame_count()), h.block_ticks);
  appendf(o, "hashes        %llu%s\n", static_cast<unsigned long long>(r.hashes.size()),
          h.has_component_hashes() ? " (with per-component hashes)" : (h.has_hashes() ? "" : " (not recorded)"));
  if (!r.hashes.empty())
    appendf(o, "final hash    %s (tick %llu)\n", to_hex(r.hashes.back().total).c_str(),
            static_cast<unsigned long long>(r.hashes.back().tick));
  if (h.checkpoint_interval != 0) {
    appendf(o, "checkpoints   %zu (every %u ticks):", r.checkpoints.size(), h.checkpoint_interval);
    for (const replay::Checkpoint& cp : r.checkpoints) o += " " + std::to_string(cp.tick);
    o += "\n";
  }
  if (!h.components.empty()) o += "components    " + joined(h.components) + "\n";
  o += std::string("complete      ") + (r.complete ? "yes" : "NO (interrupted recording; see warning)") + "\n";
  return o;
}

void append_replay_fields(JsonWriter& j, const replay::Replay& r, const std::string& name, const std::string& sim_status) {
  const replay::ReplayHeader& h = r.header;
  j.field("replay", name).field("format_version", replay::kReplayFormatVersion)
      .field("sim", h.sim_name).field("sim_version", h.sim_version).field("input_schema", to_hex(h.input_schema))
      .field("input_size", h.input_size).field("sim_status", sim_status);
  j.begin("config").field("players", h.config.players).field("units", h.config.units).field("seed", h.config.seed);
  j.begin_array("params");
  for (std::uint32_t p : h.config.params) j.value(std::to_string(p));
  j.end_array().end();
  j.field("ticks", r.frame_count()).field("block_ticks", h.block_ticks).field("hashes", std::uint64_t{r.hashes.size()})
      .field("component_hashes", h.has_component_hashes()).field("checkpoint_interval", h.checkpoint_interval)
      .field("checkpoints", std::uint64_t{r.checkpoints.size()}).field("complete", r.complete);
  if (!r.hashes.empty()) j.field("final_hash", to_hex(r.hashes.back().total));
  j.begin_array("components");
  for (const std::string& c : h.components) j.value(c);
  j.end_array().begin_array("warnings");
  for (const std::string& w : r.warnings) j.value(w);
  j.end_array();
}

std::string describe_snapshot_summary(const std::string& path, const SnapshotSummary& sum) {
  const State& s = sum.state;
  std::string o;
  appendf(o, "snapshot      %s (format v%u)\n", path.c_str(), kSnapshotFileVersion);
  appendf(o, "tick          %llu\n", static_cast<unsigned long long>(s.tick));
  appendf(o, "entities      %llu live (%u slots)\n", static_cast<unsigned long long>(s.live_entities()), s.slot_count());
  appendf(o, "archetypes    %zu (%llu holding entities)\n", s.archetypes.size(),
          static_cast<unsigned long long>(sum.archetypes_in_use));
  o += "components    " + joined(sum.components) + "\n";
  o += "resources     " + joined(sum.resources) + "\n";
  return o;
}

void append_snapshot_fields(JsonWriter& j, const std::string& path, const SnapshotSummary& sum) {
  const State& s = sum.state;
  j.field("snapshot", path).field("format_version", std::uint64_t{kSnapshotFileVersion})
      .field("tick", s.tick).field("entities", s.live_entities()).field("slots", std::uint64_t{s.slot_count()})
      .field("archetypes", std::uint64_t{s.archetypes.size()}).field("archetypes_in_use", sum.archetypes_in_use);
  j.begin_array("components");
  for (const std::string& c : sum.components) j.value(c);
  j.end_array().begin_array("resources");
  for (const std::string& r : sum.resources) j.value(r);
  j.end_array();
}

void append_bundle_fields(JsonWriter& j, const std::string& path, const Bundle& b) {
  j.field("bundle", path).field("source", b.source).field("sim", b.sim_name)
      .field("sim_version", b.sim_version).field("tick", b.tick).field("system", b.system).field("report", b.report);
  j.begin_array("sides");
  for (const BundleSide& s : b.sides)
    j.begin().field("label", s.label).field("state", s.has_state).field("total", to_hex(s.hash.total)).end();
  j.end_array().field("agreeing_state", b.has_agreeing).field("inputs_from", b.inputs_from);
  j.begin("facts");
  for (const auto& [k, v] : b.facts) j.field(k, v);
  j.end();
}

std::string describe_schedule(std::string_view sim_name, const replay::Schedule& schedule) {
  std::string o;
  appendf(o,
          "schedule of %.*s (%zu systems in %u stages; run in this order, or stage by stage with concurrent "
          "stages; declared access is enforced while each runs)\n",
          static_cast<int>(sim_name.size()), sim_name.data(), schedule.systems.size(), schedule.stages);
  for (std::size_t i = 0; i < schedule.systems.size(); ++i) {
    const replay::ScheduleEntry& e = schedule.systems[i];
    appendf(o, "  %2zu %s  (stage %u)\n       reads  %s\n       writes %s\n", i + 1, e.name.c_str(), e.stage,
            joined(e.reads).c_str(), joined(e.writes).c_str());
  }
  appendf(o, "conflicts (pairs that may not run concurrently: they keep declared order, in different stages): %zu\n",
          schedule.conflicts.size());
  for (const replay::AccessConflict& c : schedule.conflicts)
    o += "  " + schedule.systems[c.first].name + " x " + schedule.systems[c.second].name + "  " +
         replay::to_string(c.kind) + " on " + c.type + " (written by " + schedule.systems[c.writer].name + ")\n";
  return o;
}

void append_schedule_fields(JsonWriter& j, const replay::Schedule& schedule) {
  j.begin_array("systems");
  for (const replay::ScheduleEntry& e : schedule.systems) {
    j.begin().field("name", e.name).field("stage", std::uint64_t{e.stage}).begin_array("reads");
    for (const std::string& r : e.reads) j.value(r);
    j.end_array().begin_array("writes");
    for (const std::string& w : e.writes) j.value(w);
    j.end_array().end();
  }
  j.end_array().field("stages", std::uint64_t{schedule.stages}).begin_array("conflicts");
  for (const replay::AccessConflict& c : schedule.conflicts)
    j.begin().field("first", schedule.systems[c.first].name).field("second", schedule.systems[c.second].name)
        .field("kind", replay::to_string(c.kind)).field("type", c.type)
        .field("writer", schedule.systems[c.writer].name).end();
  j.end_array();
}

}  // namespace lockstep::inspect
