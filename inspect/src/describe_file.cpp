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

}  // namespace lockstep::inspect
