#pragma once
// The report of the per-system gate shared by `synctest --per-system` and `verify
// --per-system` (the gate itself: inspect/systems.h, inspect/forensics.h): the first stage
// whose output differs ("tick 140, system movement, ...").
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

}  // namespace lockstep::cli
