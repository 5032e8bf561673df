// The human side of a netsim match (netsim_report.h). Floats: display and argument parsing
// only; the match gets the integer units.
#include <lockstep/inspect/netsim_report.h>

#include <cmath>

#include "appendf.h"

namespace lockstep::inspect {

namespace {
std::uint32_t to_us(double ms) { return static_cast<std::uint32_t>(std::llround(ms * 1000.0)); }
std::uint32_t to_ppm(double p) { return static_cast<std::uint32_t>(std::llround(p * 1e6)); }
double seconds(std::uint64_t ns) { return static_cast<double>(ns) / 1e9; }
}  // namespace

std::string netsim_units_from(const NetsimRequest& a, NetsimUnits& out) {
  auto bad_ms = [](double v) { return !(v >= 0.0 && v <= 10000.0); };
  auto bad_p = [](double v) { return !(v >= 0.0 && v <= 1.0); };
  if (bad_ms(a.latency_ms) || bad_ms(a.jitter_ms)) return "--latency-ms and --jitter-ms must be 0..10000";
  if (bad_p(a.loss) || bad_p(a.duplicate) || bad_p(a.reorder))
    return "--loss, --duplicate and --reorder are probabilities in 0..1";
  if (a.loss >= 1.0 && a.peers > 1) return "--loss 1 would never deliver anything";
  out.latency_us = to_us(a.latency_ms);
  out.jitter_us = to_us(a.jitter_ms);
  out.loss_ppm = to_ppm(a.loss);
  out.duplicate_ppm = to_ppm(a.duplicate);
  out.reorder_ppm = to_ppm(a.reorder);
  return {};
}

std::string netsim_request_line(const NetsimRequest& a, std::uint32_t players) {
  std::string out;
  detail::appendf(out,
                  "netsim %s: %u peers (%u players), %llu ticks at %u Hz; one-way latency %.0f ms ± %.0f ms, loss "
                  "%.1f%%, duplicate %.1f%%, reorder %.1f%%; input delay %u, prediction window %u, hash every %u "
                  "ticks, seed %llu\n",
                  a.sim.c_str(), a.peers, players, static_cast<unsigned long long>(a.ticks), a.tick_hz, a.latency_ms,
                  a.jitter_ms, a.loss * 100, a.duplicate * 100, a.reorder * 100, a.input_delay, a.max_prediction,
                  a.hash_interval, static_cast<unsigned long long>(a.seed));
  return out;
}

std::string netsim_frames_line(const NetsimRequest& a, std::uint64_t frames, std::uint64_t wall_ns) {
  std::string out;
  detail::appendf(out, "frames: %llu (%.1f s of simulated time for %.1f s of ticks; %.2f s wall)\n",
                  static_cast<unsigned long long>(frames), static_cast<double>(frames) / static_cast<double>(a.tick_hz),
                  static_cast<double>(a.ticks) / static_cast<double>(a.tick_hz), seconds(wall_ns));
  return out;
}

void append_netsim_request_fields(JsonWriter& j, const NetsimRequest& a, std::uint32_t players) {
  j.field("sim", a.sim).field("peers", a.peers).field("players", players).field("ticks", a.ticks)
      .field("latency_ms", a.latency_ms).field("jitter_ms", a.jitter_ms).field("loss", a.loss)
      .field("duplicate", a.duplicate).field("reorder", a.reorder).field("seed", a.seed)
      .field("input_delay", a.input_delay).field("max_prediction", a.max_prediction)
      .field("hash_interval", a.hash_interval).field("threads", a.threads);
}

void append_wall_seconds(JsonWriter& j, std::uint64_t wall_ns) { j.field("seconds", seconds(wall_ns)); }

}  // namespace lockstep::inspect
