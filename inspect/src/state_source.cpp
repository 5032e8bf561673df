// A state named by a file (state_source.h).
#include <lockstep/inspect/state_source.h>

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/replay_state.h>
#include <lockstep/inspect/svg.h>

#include <cstring>

namespace lockstep::inspect {

namespace {

bool failed(const std::string& message, replay::OpenFailure& why) {
  why.message = message;
  return false;
}

bool bundle_side(const std::string& path, std::span<const std::byte> bytes, std::uint32_t side, StateSource& out,
                 replay::OpenFailure& why) {
  out.is_bundle = true;
  const FileStatus st = decode_bundle(bytes, out.bundle, path);
  if (!st.ok()) return failed(st.message, why);
  if (side >= out.bundle.sides.size()) {
    out.problem = StateSourceProblem::NoSuchSide;
    return failed(path + ": side " + std::to_string(side) + ": the bundle has " + std::to_string(out.bundle.sides.size()) +
                      " side(s)",
                  why);
  }
  const BundleSide& s = out.bundle.sides[side];
  if (!s.has_state) {
    out.problem = StateSourceProblem::SideWithoutState;
    return failed(path + ": side '" + s.label + "' has hashes only, no state (another side may hold one)", why);
  }
  out.state = s.state;
  std::vector<std::string> marks;
  for (const auto& [k, v] : out.bundle.facts)
    if (k == "position") marks.push_back(v);
  apply_position_marks(out.state, marks);
  out.label = path + " (" + s.label + ")";
  return true;
}

}  // namespace

bool state_source_at_tick(const replay::OpenedReplay& opened, std::optional<std::uint64_t> tick, StateSource& out,
                          replay::OpenFailure& why) {
  const std::uint64_t t = tick.value_or(opened.replay.frame_count());
  const FileStatus st = state_at_tick(*opened.sim, opened.replay, t, out.state, opened.name);
  if (!st.ok()) return failed(st.message, why);
  apply_position_marks(out.state);
  out.label = opened.name + "@" + std::to_string(t);
  return true;
}

bool load_state_source(const std::string& path, std::optional<std::uint64_t> tick, std::uint32_t side,
                       StateSource& out, replay::OpenFailure& why) {
  std::vector<std::byte> head;
  if (const FileStatus st = read_file_bytes(path, head, kMaxBundleBytes); !st.ok()) return failed(st.message, why);
  if (looks_like_bundle(head)) return bundle_side(path, head, side, out, why);
  // The snapshot magic follows one leading byte (docs/hashing.md, "Snapshot files").
  if (head.size() >= 9 && std::memcmp(head.data() + 1, kSnapshotFileMagic, 8) == 0) {
    const FileStatus st = decode_state(head, out.state, path);
    if (!st.ok()) return failed(st.message, why);
    apply_position_marks(out.state);
    out.label = path;
    return true;
  }
  replay::OpenedReplay opened;
  const bool ok = replay::open_replay(path, opened, why);
  if (opened.decoded) out.warnings = opened.replay.warnings;
  return ok && state_source_at_tick(opened, tick, out, why);
}

}  // namespace lockstep::inspect
