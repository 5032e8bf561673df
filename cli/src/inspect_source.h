#pragma once
// Shared by `lockstep dump`, `diff` and `query`: a state named on the command line
// (inspect/state_source.h), with the tool's embedded default replay, errors printed.
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/state_source.h>

#include <cstdint>
#include <optional>
#include <string>

namespace lockstep::cli {

using inspect::StateSource;

// Loads `path`. `tick`: replays only (default: the last tick). `side`: bundles only (0/1),
// given by the flag `side_flag` (named in the errors about it). On bad input prints the error
// (with --json also to stdout) and returns kExitBadInput.
int load_state_source(const std::string& path, std::optional<std::uint64_t> tick, std::uint32_t side, bool json,
                      StateSource& out, const char* side_flag = "--side");

// Writes the picture of `state` (diverged entities of `diff` highlighted) to `path`.
int write_svg(const std::string& path, const inspect::State& state, const inspect::StateDiff* diff,
              const std::string& title, bool json);

}  // namespace lockstep::cli
