#pragma once
// Desync forensics of the gates (verify, verify --against, synctest, verify --per-system):
// the field-level answer and the desync bundle each builds from what it had in hand. In the
// library so that a game's own code and tests get the same answers by library calls;
// `lockstep` only prints them.
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/state.h>
#include <lockstep/inspect/systems.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/replay/verify.h>
#include <lockstep/store/snapshot.h>

#include <cstdint>
#include <optional>
#include <string>

namespace lockstep::inspect {

// The recording's checkpoint state at `tick`, if it has one (decoded without a World).
std::optional<State> checkpoint_state(const replay::Replay& r, std::uint64_t tick, const std::string& name);

// The recorded hash breakdown of `tick` (no per-resource sub-hashes: recordings carry only
// the combined resources hash).
HashBreakdown recorded_breakdown(const replay::Replay& r, std::uint64_t tick);

// Field level at a verify divergence: the recording's checkpoint of `tick` against the
// runner's state (nullopt when the recording has no checkpoint there).
std::optional<StateDiff> verify_field_diff(const replay::Replay& r, std::uint64_t tick, const std::string& name,
                                           const replay::Runner& runner);

// Bundle for a verify mismatch at `tick`: this build's state (the runner's world), the
// recording's hashes (and its checkpoint state when it has one), the agreeing state before
// (`prev`, tick - 1, when kept: VerifyOptions::previous) and the frames between.
Bundle verify_bundle(const replay::Sim& sim, const replay::Replay& r, const std::string& name,
                     const replay::Runner& runner, const Snapshot* prev, std::uint64_t tick, const std::string& report);

// verify A --against B beyond hashes: both recordings' checkpoint states of the divergent
// tick (when both have one), their field-level diff, and the bundle (with the last
// checkpoint before the tick as the agreeing state).
struct AgainstForensics {
  std::optional<State> a, b;
  std::optional<StateDiff> diff;
  std::string report;  // "first divergent tick T: differs: PARTS[; field summary]"
};
AgainstForensics against_forensics(const replay::Replay& a, const std::string& name_a, const replay::Replay& b,
                                   const std::string& name_b, const replay::RecordingComparison& c);
Bundle against_bundle(const replay::Sim& sim, const replay::Replay& a, const std::string& name_a,
                      const replay::Replay& b, const std::string& name_b, const replay::RecordingComparison& c,
                      const AgainstForensics& f);

// A by-system divergence (synctest --per-system, verify --per-system) as a bundle: both states
// after the diverging stage, the agreeing state before the tick and the tick's input frame.
// `source` names the gate in the bundle and its file name ("synctest", "verify").
Bundle synctest_bundle(const replay::Sim& sim, const replay::SimConfig& config, const SystemSyncResult& r,
                       const std::string& report, const std::string& source = "synctest");

// `verify --per-system`: verify's checks (recorded hashes, golden trace, checkpoints) with
// every tick run twice from the same state, stage by stage (synctest_by_system), in one pass.
// `checks` carries the verify answer; `by_system` the first stage that did not reproduce
// (by_system.ok == false), which takes precedence.
void verify_by_system(replay::Runner& runner, const replay::Replay& r, replay::VerifyChecks& checks,
                      SystemSyncResult& by_system);

}  // namespace lockstep::inspect
