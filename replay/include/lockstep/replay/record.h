#pragma once
// Recording a match played by the sim's bots into memory (what `lockstep record` writes to a
// file): the canonical input frames, every tick's hash with the per-component breakdown and,
// every `checkpoint_every` ticks (0: none), a checkpoint. A game's tests record with it and
// then verify, compare or sync-test the result (lockstep/testing.h).
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/sim.h>
#include <lockstep/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::replay {

// `out` is replaced; complete on success. Errors: the config (check_config / setup), a step
// the sim refused, a checkpoint that cannot be encoded.
Status record_bots(const Sim& sim, const SimConfig& config, std::uint64_t bot_seed, std::uint64_t ticks,
                   std::uint32_t checkpoint_every, Replay& out);

// A bot-driven match as a tool names it (`lockstep record`, `synctest --sim`): the sim by name
// (hidden sims included), the world seed defaulting to the bot seed, up to four sim parameters.
struct BotMatch {
  std::string sim;
  std::uint64_t bot = 1;
  std::uint32_t players = 2;
  std::uint32_t units = 0;
  std::optional<std::uint64_t> seed;  // unset: `bot`
  std::vector<std::uint32_t> params;
};
// Finds the sim and fills `config`. Returns "" or the error: "unknown sim 'NAME' (known: ...)"
// (describe_registered_sims; `sim` null) or "a sim takes at most 4 parameters (got N)" (`sim` set).
std::string bot_match_config(const BotMatch& match, const Sim*& sim, SimConfig& config);

struct RecordOptions {
  std::uint32_t flags = kReplayHasHashes | kReplayHasComponentHashes;
  std::uint32_t block_ticks = kDefaultBlockTicks;
  std::uint32_t checkpoint_every = 0;  // 0: no checkpoints
};

// `message` e.g. "tick 12: the sim rejected the step: ..."; `file`: the file layer's status,
// when writing failed there.
using RecordFailure = Failure;

// `lockstep record`: the bots' match written to `path` — the binary form streamed as
// PATH.partial and renamed at the end (a killed recording leaves a .partial loadable up to its
// last complete block), or the JSON form for a path ending in ".json". `final_hash`: the state
// after the last tick.
bool record_bots_to_file(const Sim& sim, const SimConfig& config, std::uint64_t bot_seed, std::uint64_t ticks,
                         const RecordOptions& options, const std::string& path, StateHash& final_hash,
                         RecordFailure& why);

}  // namespace lockstep::replay
