#pragma once
// The per-system gate shared by `synctest --per-system` and `verify --per-system`: every tick
// run twice from the same state with a hash after every stage (inspect/systems.h), and one
// report of the first stage whose output differs ("tick 140, system movement, ...").
#include "common.h"

#include <lockstep/inspect/systems.h>
#include <lockstep/replay/sim.h>

#include <cstdint>
#include <functional>
#include <string>

namespace lockstep::cli {

// Prints the divergence (stdout: DESYNC line + field diff, or JSON; stderr: one summary line),
// writes a bundle into `bundle_dir` when given. Returns kExitMismatch, or kExitBadInput when
// the bundle could not be written. `gate` names the command in the bundle ("synctest"/"verify").
int report_system_divergence(const std::string& gate, const std::string& name, const replay::Sim& sim,
                             const replay::SimConfig& config, const inspect::SystemSyncResult& r,
                             const std::string& bundle_dir, bool json);

// `verify --per-system`: replays `loaded`'s frames stage by stage, each tick twice from the
// same state, calling `on_tick(tick, hash)` at tick 0 and after every tick that reproduced
// (verify's checks of recorded hashes, golden trace and checkpoints). Returns on_tick's first
// non-zero code, kExitBadInput when the sim failed, kExitMismatch with `out.ok == false` when
// a stage did not reproduce, else kExitOk.
int replay_frames_by_system(const Loaded& loaded, replay::Runner& runner,
                            const std::function<int(std::uint64_t tick, const StateHash& hash)>& on_tick,
                            inspect::SystemSyncResult& out);

}  // namespace lockstep::cli
