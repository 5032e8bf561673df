#pragma once
// Desync bundles from the CLI gates (verify, synctest, netsim): building them from what the
// gate had in hand and writing them into --bundle-dir.
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/systems.h>
#include <lockstep/replay/sim.h>

#include <string>

namespace lockstep::cli {

// A synctest's by-system divergence as a bundle: both states after the diverging stage,
// the agreeing state before the tick and the tick's input frame.
// `source` names the gate in the bundle and its file name ("synctest", "verify").
inspect::Bundle synctest_bundle(const replay::Sim& sim, const replay::SimConfig& config,
                                const inspect::SystemSyncResult& r, const std::string& report,
                                const std::string& source = "synctest");
// Writes `b` into `dir`; prints "bundle: PATH" to stderr. Returns false (message printed)
// when the write failed.
bool write_bundle_reporting(const std::string& dir, const inspect::Bundle& b, std::string& path);

}  // namespace lockstep::cli
