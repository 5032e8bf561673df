// `lockstep netsim`'s request and reports (netsim_report.h). Floats: display and argument
// parsing only; the match gets the integer units.
#include "netsim_report.h"

#include "common.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/open_replay.h>
#include <lockstep/replay/sim.h>
#include <lockstep/rollback/session.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <iterator>

namespace lockstep::cli {

namespace {
std::uint32_t netsim_us(double ms) { return static_cast<std::uint32_t>(std::llround(ms * 1000.0)); }
std::uint32_t netsim_ppm(double p) { return static_cast<std::uint32_t>(std::llround(p * 1e6)); }
double netsim_seconds(std::uint64_t ns) { return static_cast<double>(ns) / 1e9; }
std::string netsim_n(std::uint64_t v) { return std::to_string(v); }

// printf-style formatting of one report line (display only). MinGW's `printf` archetype is
// Microsoft's; libstdc++ builds with __USE_MINGW_ANSI_STDIO, so gnu_printf is the true one.
#if defined(__MINGW32__)
__attribute__((format(gnu_printf, 1, 2)))
#elif defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
std::string netsim_line(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data(), out.size(), format, again);
    out.resize(static_cast<std::size_t>(n));
  }
  va_end(again);
  return out;
}

// The report's first line (`players`: those of the match).
std::string netsim_request_line(const NetsimRequest& a, std::uint32_t players) {
  return netsim_line("netsim %s: %u peers (%u players), %llu ticks at %u Hz; one-way latency %.0f ms ± %.0f ms, loss "
                     "%.1f%%, duplicate %.1f%%, reorder %.1f%%; input delay %u, prediction window %u, hash every %u "
                     "ticks, seed %llu\n",
                     a.sim.c_str(), a.peers, players, static_cast<unsigned long long>(a.ticks), a.tick_hz, a.latency_ms,
                     a.jitter_ms, a.loss * 100, a.duplicate * 100, a.reorder * 100, a.input_delay, a.max_prediction,
                     a.hash_interval, static_cast<unsigned long long>(a.seed));
}

// "frames: F (S s of simulated time for T s of ticks; W s wall)\n".
std::string netsim_frames_line(const NetsimRequest& a, std::uint64_t frames, std::uint64_t wall_ns) {
  return netsim_line("frames: %llu (%.1f s of simulated time for %.1f s of ticks; %.2f s wall)\n",
                     static_cast<unsigned long long>(frames), static_cast<double>(frames) / static_cast<double>(a.tick_hz),
                     static_cast<double>(a.ticks) / static_cast<double>(a.tick_hz), netsim_seconds(wall_ns));
}

// Why a match is not ok, for the DESYNC / UNFINISHED line.
std::string netsim_failure_reason(const rollback::NetsimReport& r) {
  if (r.desync_count != 0) return "the peers' confirmed state hashes differ (details on stderr)";
  if (!r.finished) return "the match did not finish";
  if (!r.peers_agree) return r.disagreement;
  return r.offline_mismatch;
}
}  // namespace

std::string netsim_options_from(const NetsimRequest& a, rollback::NetsimOptions& o) {
  const replay::Sim* sim = replay::find_sim_including_hidden(a.sim);
  if (sim == nullptr) return "unknown sim '" + a.sim + "' (known: " + replay::describe_registered_sims() + ")";
  if (a.peers < 1 || a.peers > rollback::kMaxSessionPeers) return "--peers must be 1..16";
  if (a.params.size() > std::size(o.config.params)) return "--param takes at most 4 values";
  auto bad_ms = [](double v) { return !(v >= 0.0 && v <= 10000.0); };
  auto bad_p = [](double v) { return !(v >= 0.0 && v <= 1.0); };
  if (bad_ms(a.latency_ms) || bad_ms(a.jitter_ms)) return "--latency-ms and --jitter-ms must be 0..10000";
  if (bad_p(a.loss) || bad_p(a.duplicate) || bad_p(a.reorder))
    return "--loss, --duplicate and --reorder are probabilities in 0..1";
  if (a.loss >= 1.0 && a.peers > 1) return "--loss 1 would never deliver anything";
  o.sim = sim;
  o.config.units = a.units;
  o.config.seed = a.seed;
  for (std::size_t i = 0; i < a.params.size(); ++i) o.config.params[i] = a.params[i];
  o.config.players = a.players != 0 ? a.players : rollback::netsim_default_players(*sim, o.config, a.peers);
  if (o.config.players > a.peers) return "--players must be <= --peers";
  o.bot_seed = a.bot_given ? a.bot : a.seed;
  o.peers = a.peers;
  o.ticks = a.ticks;
  o.network.latency_us = netsim_us(a.latency_ms);
  o.network.jitter_us = netsim_us(a.jitter_ms);
  o.network.loss_ppm = netsim_ppm(a.loss);
  o.network.duplicate_ppm = netsim_ppm(a.duplicate);
  o.network.reorder_ppm = netsim_ppm(a.reorder);
  o.network_seed = a.seed;
  o.input_delay = a.input_delay;
  o.max_prediction = a.max_prediction;
  o.hash_interval = a.hash_interval;
  o.tick_hz = a.tick_hz;
  o.threads = a.threads;
  return {};
}

std::string netsim_report_text(const NetsimRequest& a, const rollback::NetsimOptions& o, const rollback::NetsimMatch& m,
                               const NetsimOutcome& out) {
  const rollback::NetsimReport& r = m.report;
  std::string s = netsim_request_line(a, o.config.players) + rollback::netsim_peer_table(r);
  s += "network: " + netsim_n(r.network.sent) + " sent, " + netsim_n(r.network.lost) + " lost, " +
       netsim_n(r.network.duplicated) + " duplicated, " + netsim_n(r.network.reordered) + " reordered, " +
       netsim_n(r.network.delivered) + " delivered\n";
  s += netsim_frames_line(a, r.frames, out.wall_ns);
  if (r.ok())
    s += "OK: every peer confirmed all " + netsim_n(a.ticks) + " ticks with identical inputs and hashes; an offline "
         "replay of the confirmed inputs matches (final hash " + to_hex(r.offline_final_hash) + ")\n";
  else
    s += std::string(m.unfinished_only ? "UNFINISHED" : "DESYNC") + ": " + netsim_failure_reason(r) + "\n";
  if (!out.recorded.empty())
    s += "recorded the confirmed inputs and hashes to " + out.recorded + " (re-check: " + tool_name() + " verify " +
         out.recorded + ")\n";
  return s;
}

std::string netsim_report_json(const NetsimRequest& a, const rollback::NetsimOptions& o, const rollback::NetsimMatch& m,
                               const NetsimOutcome& out) {
  const rollback::NetsimReport& r = m.report;
  inspect::JsonWriter j;
  j.begin().field("ok", r.ok()).field("exit", out.exit);
  j.field("sim", a.sim).field("peers", a.peers).field("players", o.config.players).field("ticks", a.ticks)
      .field("latency_ms", a.latency_ms).field("jitter_ms", a.jitter_ms).field("loss", a.loss)
      .field("duplicate", a.duplicate).field("reorder", a.reorder).field("seed", a.seed)
      .field("input_delay", a.input_delay).field("max_prediction", a.max_prediction)
      .field("hash_interval", a.hash_interval).field("threads", a.threads);
  rollback::append_netsim_figures(j, r);
  j.field("seconds", netsim_seconds(out.wall_ns));
  if (!out.recorded.empty()) j.field("record", out.recorded);
  if (!r.disagreement.empty()) j.field("disagreement", r.disagreement);
  if (!r.offline_mismatch.empty()) j.field("offline_mismatch", r.offline_mismatch);
  if (!out.evidence.empty()) j.field("desync", out.evidence);
  rollback::append_netsim_network_and_peers(j, r);
  j.end();
  return j.str() + "\n";
}

std::string netsim_failure_text(const NetsimRequest& a, const rollback::NetsimReport& r, const std::string& evidence) {
  std::string s;
  if (!r.finished)
    s += tool_name() + ": netsim did not finish: not every peer confirmed " + netsim_n(a.ticks) + " ticks within " +
         netsim_n(r.frames) + " frames\n";
  if (r.desync_count != 0)
    s += tool_name() + ": DESYNC detected " + netsim_n(r.desync_count) + " times by the hash exchange; first: " + evidence;
  if (!r.peers_agree) s += tool_name() + ": DESYNC " + r.disagreement + "\n";
  if (!r.offline_agrees) s += tool_name() + ": DESYNC " + r.offline_mismatch + "\n";
  return s;
}

}  // namespace lockstep::cli
