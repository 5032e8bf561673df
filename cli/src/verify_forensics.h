#pragma once
// `lockstep verify` beyond hashes: the field-level answer at the first divergent tick (from
// the recording's checkpoint of that tick), desync bundles (--bundle-dir) and the
// cross-build gate `verify A --against B` (two recordings of the same inputs).
#include "common.h"

#include <lockstep/inspect/bundle.h>
#include <lockstep/snapshot.h>

#include <optional>
#include <string>

namespace lockstep::cli {

// The recording's checkpoint state at `tick`, if it has one (decoded without a World).
std::optional<inspect::State> checkpoint_state(const replay::Replay& r, std::uint64_t tick, const std::string& name);

// The recorded hash breakdown of `tick` (no per-resource sub-hashes: recordings carry only
// the combined resources hash).
inspect::HashBreakdown recorded_breakdown(const replay::Replay& r, std::uint64_t tick);

// Bundle for a verify mismatch at `tick`: this build's state (the runner's world), the
// recording's hashes (and its checkpoint state when it has one), the agreeing state before
// (`prev`, tick - 1, when kept) and the frame between.
inspect::Bundle verify_bundle(const Loaded& loaded, const replay::Runner& runner, const Snapshot* prev,
                              std::uint64_t tick, const std::string& report);

// verify A --against B. Exit 0 same hashes everywhere; 1 first divergent tick (+ field-level
// diff when both recorded a checkpoint there); 2 bad input or not the same inputs.
int verify_against(const std::string& a, const std::string& b, const std::string& bundle_dir, bool json);

}  // namespace lockstep::cli
