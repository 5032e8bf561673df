#pragma once
// A world state named by a file, whatever kind of file it is: a snapshot file, one side of a
// desync bundle, or a replay at a tick (replayed from its nearest checkpoint). What `lockstep
// dump`, `diff` and `query` read; a game's own tools read states the same way. Position
// marks (inspect/svg.h) are applied, so pictures of the state work.
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/state.h>
#include <lockstep/replay/open_replay.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::inspect {

// Why a bundle's side gave no state (StateSource::problem), for a caller that names its own
// option for the side.
enum class StateSourceProblem : std::uint8_t {
  None,              // loaded, or failed for another reason (the message says it)
  NoSuchSide,        // "PATH: side N: the bundle has K side(s)"
  SideWithoutState,  // "PATH: side 'LABEL' has hashes only, no state (another side may hold one)"
};

struct StateSource {
  std::string label;  // "FILE", "FILE@300", "FILE (peer 1)"
  State state;
  bool is_bundle = false;
  Bundle bundle;  // when is_bundle
  std::vector<std::string> warnings;  // the replay file's (e.g. an interrupted recording)
  StateSourceProblem problem = StateSourceProblem::None;  // after a failed load
};

// Loads `path`. `tick`: replays only (default: the last tick). `side`: bundles only. Replays
// are opened with replay::open_replay (their sim must be registered).
bool load_state_source(const std::string& path, std::optional<std::uint64_t> tick, std::uint32_t side,
                       StateSource& out, replay::OpenFailure& why);

// The state of an opened replay at `tick` (default: the last tick), labelled "NAME@tick".
bool state_source_at_tick(const replay::OpenedReplay& opened, std::optional<std::uint64_t> tick, StateSource& out,
                          replay::OpenFailure& why);

}  // namespace lockstep::inspect
