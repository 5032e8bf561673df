#pragma once
// Shared by `lockstep dump` and `lockstep diff`: a state named on the command line — a
// snapshot file, a desync bundle (one of its sides), or a replay at --tick (replayed
// through the runner from its nearest checkpoint).
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/state.h>

#include <cstdint>
#include <optional>
#include <string>

namespace lockstep::cli {

struct StateSource {
  std::string label;                 // "FILE", "FILE@tick 300", "FILE side peer 1"
  inspect::State state;
  bool is_bundle = false;
  inspect::Bundle bundle;            // when is_bundle
};

// Loads `path`. `tick`: replays only (default: the last tick). `side`: bundles only (0/1).
// On bad input prints the error (with --json also to stdout) and returns kExitBadInput.
int load_state_source(const std::string& path, std::optional<std::uint64_t> tick, std::uint32_t side, bool json,
                      StateSource& out);

// Writes the picture of `state` (diverged entities of `diff` highlighted) to `path`.
int write_svg(const std::string& path, const inspect::State& state, const inspect::StateDiff* diff,
              const std::string& title, bool json);

}  // namespace lockstep::cli
