#pragma once
// Sync test (docs/rollback.md, "Sync test"): the GGPO/GGRS way to catch non-determinism
// before it reaches the network. A RollbackSession in sync-test mode simulates every tick,
// then rolls back `distance` ticks, resimulates them through the same load/resimulate path
// a real rollback takes and compares every resimulated hash with the first one. A sim that
// keeps state outside the world (a static counter, a cache, a pointer-ordered container)
// produces different states the second time and is reported with the tick and components.
#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/status.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace lockstep::rollback {

struct SyncTestResult {
  Status status;                 // setup or sim failure (bad input), not a mismatch
  bool ok = true;                // no mismatch found
  std::uint64_t ticks = 0;       // ticks simulated (first simulations)
  std::uint64_t rollbacks = 0;
  std::uint64_t resimulated_ticks = 0;
  // First mismatch (when !ok): the tick, the first simulation's and the resimulation's hash.
  std::uint64_t tick = 0;
  StateHash first{};
  StateHash again{};
  HashDiff diff{};
};

// Produces tick `tick`'s frame (players × input size, host order) from the world about to
// simulate it.
using FrameSource = std::function<void(std::uint64_t tick, const World& world, std::span<std::byte> frame)>;

// Sync-tests `ticks` ticks on `runner` (at tick 0) with check distance 1..64; stops at the
// first mismatch.
SyncTestResult run_synctest(replay::Runner& runner, std::uint32_t distance, std::uint64_t ticks, const FrameSource& frames);
// ... with the inputs of a replay (which must belong to `sim`).
SyncTestResult synctest_replay(const replay::Sim& sim, const replay::Replay& replay, std::uint32_t distance,
                               std::uint32_t threads = 0);
// ... with the sim's bots (seed `bot_seed`) for `ticks` ticks. `threads` (both): the runner's
// thread count for the sim's parallel loops (Runner::setThreads; 0 = serial) — the rolled-back
// and resimulated ticks run on the pool too, so a racing parallel loop shows as a desync.
SyncTestResult synctest_bots(const replay::Sim& sim, const replay::SimConfig& config, std::uint64_t bot_seed, std::uint64_t ticks,
                             std::uint32_t distance, std::uint32_t threads = 0);

// What differs at a failed sync test's tick (`result.ok` false): the parts and components of
// the two hashes, named from a freshly built world of `sim` + `config` (schema only), e.g.
// "components: Pos"; "total A vs B" (hex) when the world cannot be built.
std::string describe_synctest_difference(const replay::Sim& sim, const replay::SimConfig& config, const SyncTestResult& result);

// What `lockstep synctest` prints for a mismatch at check distance `distance` (`parts` from
// describe_synctest_difference; `source` names the replay or "SIM (bot B)"), each ending in '\n':
// `log` the stderr lines ("DESYNC SOURCE: rolling back D ticks and resimulating changed tick
// T: PARTS" and the two hashes; a tool prefixes its name), `report` the stdout text ("DESYNC at tick T (check
// distance D): PARTS", or the JSON object with "exit":1 when `json`).
struct SyncTestReport {
  std::string log, report;
};
SyncTestReport synctest_desync_report(const std::string& source, std::uint32_t distance, const SyncTestResult& result,
                                      const std::string& parts, bool json);

}  // namespace lockstep::rollback
