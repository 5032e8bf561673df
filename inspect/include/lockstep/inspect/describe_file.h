#pragma once
// What a lockstep file is and holds, without running anything (`lockstep info FILE`; a game's
// own tools and crash reporters describe files the same way).
#include <lockstep/inspect/state.h>
#include <lockstep/replay/replay_file.h>

#include <cstdint>
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

}  // namespace lockstep::inspect
