#pragma once
// Verifying a recording (docs/replay-format.md, "Verifying"): replay its inputs through this
// build's sim and compare every tick with what the recording says — its per-tick hashes, its
// checkpoints (snapshots loaded into a second world and hashed) and, optionally, a golden
// trace. This is `lockstep verify`, as a library call a game's own code and tests make
// (lockstep/testing.h wraps it for GoogleTest); the CLI only parses and prints.
//
//   replay::Runner runner(sim, rec.header.config);
//   replay::VerifyResult v = replay::verify(runner, rec, {.replay_name = "match.replay"});
//   if (v.bad_input()) ...             // v.error: unreadable checkpoint, the sim refused a step, ...
//   else if (!v.ok) ...                // v.tick is the first divergent tick, v.against / v.differs say how
//
// On a divergence the runner's world is left at the divergent tick (what the field-level
// forensics of inspect/ capture: inspect/forensics.h).
#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/trace.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lockstep::replay {

struct VerifyOptions {
  std::string replay_name = "replay";  // in messages
  const Trace* golden = nullptr;       // also compare every tick with this trace
  std::string golden_name;             // in messages: "golden trace <name> line N"
  // When set, holds the state of the tick before the last one checked (reserved by the
  // checks): the last agreeing state when a divergence is found (desync bundles).
  Snapshot* previous = nullptr;
};

struct VerifyResult {
  std::string error;             // non-empty: bad input (names the replay and tick); nothing was decided
  bool ok = true;                // false (and no error): `tick` is the first divergent tick
  std::uint64_t tick = 0;
  std::string against;           // "recorded hashes", "golden trace F line N", "checkpoint", "golden trace F"
  std::string differs;           // the differing parts, ", "-joined (or why the lengths differ)
  bool lengths_differ = false;   // the divergence is the golden trace's length, not a state
  std::uint64_t ticks = 0;       // the recording's frame count
  std::uint64_t recorded_checked = 0, golden_checked = 0, checkpoints_checked = 0;
  StateHash final_hash{};        // the runner's hash at the end (ok) or at `tick` (divergence)
  bool bad_input() const noexcept { return !error.empty(); }
  bool compared_nothing() const noexcept { return recorded_checked == 0 && golden_checked == 0 && checkpoints_checked == 0; }
};

// The per-tick checks of verify, for a caller with its own stepping loop (inspect's
// per-system verify runs each tick twice stage by stage and checks the same things).
class VerifyChecks {
 public:
  // `runner` is the world being verified (built from the recording's sim and config).
  VerifyChecks(Runner& runner, const Replay& recording, const VerifyOptions& options);
  VerifyChecks(const VerifyChecks&) = delete;
  VerifyChecks& operator=(const VerifyChecks&) = delete;
  ~VerifyChecks();

  // Setup: the recorded component list must match this build's sim (result().error otherwise).
  bool usable() const noexcept { return result_.error.empty(); }
  // Checks state `tick` (0 = initial) whose hash is `h`; false stops (divergence or bad input,
  // recorded in result()).
  bool check(std::uint64_t tick, const StateHash& h);
  // After the last tick: the golden trace's length must match (a divergence otherwise).
  void finish(std::uint64_t last_tick);
  VerifyResult& result() noexcept { return result_; }
  const VerifyOptions& options() const noexcept { return opt_; }

 private:
  Runner& runner_;
  const Replay& rec_;
  const VerifyOptions& opt_;
  StorageView schema_;
  std::unique_ptr<Runner> scratch_;
  Snapshot scratch_snapshot_, cur_;
  std::size_t next_cp_ = 0;
  VerifyResult result_;
};

// Replays every frame of `recording` through `runner` (fresh: at tick 0) with the checks above.
VerifyResult verify(Runner& runner, const Replay& recording, const VerifyOptions& options = {});

// Two recordings of the same inputs (another build, machine or compiler) compared tick by tick
// through their recorded hashes (`verify A --against B`). `error` non-empty: not the same sim,
// config, component list or inputs, or no hashes; else ok, or `tick` and the differing parts.
struct RecordingComparison {
  std::string error;
  bool ok = true;
  std::uint64_t tick = 0;
  std::string differs;
  std::uint64_t ticks_compared = 0;
};
RecordingComparison compare_recordings(const Replay& a, const std::string& name_a, const Replay& b,
                                       const std::string& name_b);

// The parts of `h` that differ from the recording's hash of `tick` ("total", "entities", ...,
// component names); empty when equal.
std::vector<std::string> diff_recorded(const Replay& r, std::uint64_t tick, const StateHash& h);
std::string join_parts(const std::vector<std::string>& parts, const char* sep = ", ");

}  // namespace lockstep::replay
