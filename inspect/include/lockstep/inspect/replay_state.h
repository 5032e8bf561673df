#pragma once
// States of a recording: the world of `replay` at any tick, reached through the runner from
// the nearest checkpoint at or before that tick (or from the initial state).
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/state.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>

#include <cstdint>
#include <string_view>

namespace lockstep::inspect {

// Brings `runner` (built for replay's sim and config, at any tick <= `tick` of this replay's
// history) to `tick`: loads the last checkpoint at or before `tick` when it is ahead of the
// runner, then steps the recorded frames. Errors: tick beyond the recording (Mismatch, with
// the last tick), an unreadable checkpoint, a failing step.
FileStatus advance_to(replay::Runner& runner, const replay::Replay& replay, std::uint64_t tick,
                      std::string_view name = "<replay>");
// A fresh runner brought to `tick`, captured.
FileStatus state_at_tick(const replay::Sim& sim, const replay::Replay& replay, std::uint64_t tick, State& out,
                         std::string_view name = "<replay>");

}  // namespace lockstep::inspect
