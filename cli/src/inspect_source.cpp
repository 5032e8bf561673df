// State sources for dump/diff (inspect_source.h).
#include "inspect_source.h"

#include "common.h"

#include <lockstep/hash/durable_file.h>
#include <lockstep/inspect/svg.h>

namespace lockstep::cli {

int load_state_source(const std::string& path, std::optional<std::uint64_t> tick, std::uint32_t side, bool json,
                      StateSource& out, const char* side_flag) {
  replay::OpenFailure why;
  bool ok = false;
  if (path == kEmbedded) {
    Loaded loaded;
    if (int rc = load_replay(path, json, loaded); rc != kExitOk) return rc;
    ok = inspect::state_source_at_tick(loaded, tick, out, why);
  } else {
    ok = inspect::load_state_source(path, tick, side, out, why);
    print_warnings(out.warnings);
  }
  if (ok) return kExitOk;
  // The bundle's side in the terms of the flag that chose it.
  const std::string flag(side_flag);
  if (out.problem == inspect::StateSourceProblem::NoSuchSide)
    why.message = path + ": " + flag + " " + std::to_string(side) + ": the bundle has " +
                  std::to_string(out.bundle.sides.size()) + " side(s)";
  if (out.problem == inspect::StateSourceProblem::SideWithoutState)
    why.message = path + ": side '" + out.bundle.sides[side].label + "' has hashes only, no state (use " + flag + ")";
  return report_error(json, kExitBadInput, why.message, why.file ? &*why.file : nullptr);
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
