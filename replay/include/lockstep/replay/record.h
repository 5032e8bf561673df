#pragma once
// Recording a match played by the sim's bots into memory (what `lockstep record` writes to a
// file): the canonical input frames, every tick's hash with the per-component breakdown and,
// every `checkpoint_every` ticks (0: none), a checkpoint. A game's tests record with it and
// then verify, compare or sync-test the result (lockstep/testing.h).
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/sim.h>
#include <lockstep/status.h>

#include <cstdint>

namespace lockstep::replay {

// `out` is replaced; complete on success. Errors: the config (check_config / setup), a step
// the sim refused, a checkpoint that cannot be encoded.
Status record_bots(const Sim& sim, const SimConfig& config, std::uint64_t bot_seed, std::uint64_t ticks,
                   std::uint32_t checkpoint_every, Replay& out);

}  // namespace lockstep::replay
