#pragma once
// Stepping a runner through a recording's frames, with a look at every tick's hash: the loop
// behind `lockstep run`, `trace` and `snapshot`, and a game's own replay tools (a verify of its
// own, a state at a tick, a timing run). Allocates the frame buffer once (file layer, not a
// game's tick path).
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::replay {

struct SteppedRecording {
  // The sim rejected a step: "NAME: tick T: the sim rejected the step: WHY" (empty: none did).
  std::string error;
  bool stopped = false;     // on_tick returned false
  std::uint64_t run_ns = 0;  // wall time of the stepping (set when every frame was stepped)
};

// Steps `runner` (at tick 0, built with `sim` and the recording's config) through every frame
// of `recording`, its inputs converted from canonical bytes. `on_tick(tick, hash)` sees the
// initial state (tick 0) and the state after every step; returning false stops the run. With
// `step_ns`, each step's wall time (inputs → hash) is appended (display figures only).
SteppedRecording step_recording(Runner& runner, const Sim& sim, const Replay& recording, std::string_view name,
                                const std::function<bool(std::uint64_t tick, const StateHash& hash)>& on_tick,
                                std::vector<std::uint64_t>* step_ns = nullptr);

}  // namespace lockstep::replay
