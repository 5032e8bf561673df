// step_recording (step_recording.h).
#include <lockstep/replay/step_recording.h>

#include <algorithm>
#include <chrono>

namespace lockstep::replay {

namespace {
// lockstep: allow(time) timing figures of a replay tool (run --trace-out, bench tables), never simulated
using Clock = std::chrono::steady_clock;
std::uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  // lockstep: allow(time) timing figures of a replay tool (run --trace-out, bench tables), never simulated
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}
}  // namespace

SteppedRecording step_recording(Runner& runner, const Sim& sim, const Replay& r, std::string_view name,
                                const std::function<bool(std::uint64_t, const StateHash&)>& on_tick,
                                std::vector<std::uint64_t>* step_ns) {
  SteppedRecording out;
  const std::uint64_t frames = r.frame_count();
  std::vector<std::byte> frame(r.header.frame_bytes());
  if (step_ns != nullptr) step_ns->reserve(step_ns->size() + frames);
  if (!on_tick(0, runner.hash())) {
    out.stopped = true;
    return out;
  }
  const Clock::time_point start = Clock::now();
  for (std::uint64_t t = 0; t < frames; ++t) {
    Runner::copy_to_host(sim.input_type(), r.frame(t), frame);
    const Clock::time_point t0 = Clock::now();
    const Status s = runner.step(frame);
    const Clock::time_point t1 = Clock::now();
    if (!s.ok()) {
      out.error = std::string(name) + ": tick " + std::to_string(t) + ": the sim rejected the step: " + s.message();
      return out;
    }
    if (step_ns != nullptr) step_ns->push_back(ns_between(t0, t1));
    if (!on_tick(t + 1, runner.hash())) {
      out.stopped = true;
      return out;
    }
  }
  out.run_ns = ns_between(start, Clock::now());
  return out;
}

}  // namespace lockstep::replay
