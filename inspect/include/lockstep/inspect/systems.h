#pragma once
// Per-system localisation: one tick run stage by stage (apply_inputs → every system in
// declared order → flush + tick advance), with a look at the world after each stage, and a
// sync test that runs every tick twice from the same state, hashes after every stage and
// names the FIRST stage whose output differs — "tick 140, system movement,
// Weapon[95:1].cooldown 40 | 10".
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/state.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/status.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace lockstep::inspect {

// Stage names: "inputs" (apply_inputs), each system's name, "flush" (command buffer + tick).
std::uint32_t stage_count(const replay::Runner& runner) noexcept;
const char* stage_name(const replay::Runner& runner, std::uint32_t stage) noexcept;

// One tick of `runner` exactly as Runner::step runs it, calling `after(stage, world)` after
// every stage; returning false stops the tick there (the world is then mid-tick). Returns
// whether the tick completed; a failing flush is returned in `status`.
bool step_by_stage(replay::Runner& runner, std::span<const std::byte> inputs,
                   const std::function<bool(std::uint32_t stage, const World& world)>& after, Status* status = nullptr);

using FrameFn = std::function<void(std::uint64_t tick, const World& world, std::span<std::byte> frame)>;

// The frames of a recording (host byte order), tick by tick; `recording` must outlive the result.
FrameFn recorded_frames(const replay::Sim& sim, const replay::Replay& recording);
// The frames the sim's bots generate for `config.players` players from `bot_seed`.
FrameFn bot_frames(const replay::Sim& sim, const replay::SimConfig& config, std::uint64_t bot_seed);

struct SystemSyncResult {
  Status status;              // setup or sim failure (bad input), not a divergence
  bool ok = true;             // no divergence found
  bool stopped = false;       // `after_tick` asked to stop (ok stays true)
  std::uint64_t ticks = 0;    // ticks checked
  // First divergence (when !ok): `tick` is the tick being simulated (the world's tick while
  // its systems run; it produces state tick + 1), `stage` the first stage whose output
  // differed between the two runs. Mid-tick states carry `tick`; the "flush" stage's tick + 1.
  std::uint64_t tick = 0;
  std::uint32_t stage = 0;
  std::string system;
  StateHash first_hash{}, again_hash{};
  State before;               // the (agreeing) state both runs started the tick from
  State first, again;         // both states right after `stage`
  std::vector<std::byte> frame;  // the tick's canonical input frame
  StateDiff diff;
};

// Called after each tick that reproduced stage by stage, with the world at the tick's end
// (tick = the world's new tick); returning false stops the run (`stopped`). `verify
// --per-system` checks the recording's hashes here, so one pass does both.
using AfterTickFn = std::function<bool(std::uint64_t tick, const World& world)>;

// Runs `ticks` ticks from the runner's current state; each tick runs twice from the same
// snapshot with a hash after every stage. Stops at the first difference.
SystemSyncResult synctest_by_system(replay::Runner& runner, std::uint64_t ticks, const FrameFn& frames,
                                    const DiffOptions& options = {}, const AfterTickFn& after_tick = {});

// One tick run on two runners whose worlds agree at the tick's start (two peers of a match,
// each in its own world), stage by stage with a hash after every stage: the first stage whose
// output differs between them, in SystemSyncResult's terms (`first` is a's state after that
// stage, `again` b's, `before` a's state at the tick's start; ok when every stage agrees).
// `inputs` is the tick's frame in host byte order. `before_run(0)` is called just before a's
// tick and `before_run(1)` just before b's (a netsim peer's input layer). a runs the whole
// tick first, then b: a bug that writes into another world (a pointer cached from a) shows.
SystemSyncResult compare_tick_by_system(replay::Runner& a, replay::Runner& b, std::span<const std::byte> inputs,
                                        const DiffOptions& options = {},
                                        const std::function<void(std::uint32_t side)>& before_run = {});

// "tick 140, system skirmish.movement, Weapon[95:1].cooldown 40 | 10 (+2 more)"
std::string describe(const SystemSyncResult& r);

}  // namespace lockstep::inspect
