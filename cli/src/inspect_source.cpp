// State sources for dump/diff (inspect_source.h).
#include "inspect_source.h"

#include "common.h"

#include <lockstep/hash/durable_file.h>
#include <lockstep/inspect/replay_state.h>
#include <lockstep/inspect/svg.h>

#include <cstring>

namespace lockstep::cli {

int load_state_source(const std::string& path, std::optional<std::uint64_t> tick, std::uint32_t side, bool json,
                      StateSource& out) {
  std::vector<std::byte> head;
  if (path != kEmbedded) {
    const FileStatus st = inspect::read_file_bytes(path, head, inspect::kMaxBundleBytes);
    if (!st.ok()) return report_error(json, kExitBadInput, st.message);
  }
  if (inspect::looks_like_bundle(head)) {
    out.is_bundle = true;
    const FileStatus st = inspect::decode_bundle(head, out.bundle, path);
    if (!st.ok()) return report_error(json, kExitBadInput, st.message);
    if (side >= out.bundle.sides.size())
      return report_error(json, kExitBadInput, path + ": --side " + std::to_string(side) + ": the bundle has " +
                                                   std::to_string(out.bundle.sides.size()) + " side(s)");
    const inspect::BundleSide& s = out.bundle.sides[side];
    if (!s.has_state)
      return report_error(json, kExitBadInput, path + ": side '" + s.label + "' has hashes only, no state (use --side)");
    out.state = s.state;
    std::vector<std::string> marks;
    for (const auto& [k, v] : out.bundle.facts)
      if (k == "position") marks.push_back(v);
    inspect::apply_position_marks(out.state, marks);
    out.label = path + " (" + s.label + ")";
    return kExitOk;
  }
  if (head.size() >= 9 && std::memcmp(head.data() + 1, kSnapshotFileMagic, 8) == 0) {
    const FileStatus st = inspect::decode_state(head, out.state, path);
    if (!st.ok()) return report_error(json, kExitBadInput, st.message);
    inspect::apply_position_marks(out.state);
    out.label = path;
    return kExitOk;
  }
  Loaded loaded;
  if (int rc = load_replay(path, json, loaded); rc != kExitOk) return rc;
  const std::uint64_t t = tick.value_or(loaded.replay.frame_count());
  const FileStatus st = inspect::state_at_tick(*loaded.sim, loaded.replay, t, out.state, loaded.name);
  if (!st.ok()) return report_error(json, kExitBadInput, st.message);
  inspect::apply_position_marks(out.state);
  out.label = loaded.name + "@" + std::to_string(t);
  return kExitOk;
}

int write_svg(const std::string& path, const inspect::State& state, const inspect::StateDiff* diff,
              const std::string& title, bool json) {
  std::string svg;
  if (!inspect::render_svg(state, diff, title, svg))
    return report_error(json, kExitBadInput,
                        "--svg: no component of this state has a marked position field (inspect::mark_position)");
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(path, svg.data(), svg.size(), failure))
    return report_error(json, kExitBadInput, failure.failed_path + ": " + failure.what);
  return kExitOk;
}

}  // namespace lockstep::cli
