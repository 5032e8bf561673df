// `lockstep netsim`'s request and reports (netsim_report.h). Integers and strings only: the
// conditions' human units are converted and shown by inspect/netsim_report.h.
#include <lockstep/rollback/netsim_report.h>

#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/open_replay.h>

namespace lockstep::rollback {

namespace {
std::string n(std::uint64_t v) { return std::to_string(v); }

// Why a match is not ok, for the DESYNC / UNFINISHED line.
std::string failure_reason(const NetsimReport& r) {
  if (r.desync_count != 0) return "the peers' confirmed state hashes differ (details on stderr)";
  if (!r.finished) return "the match did not finish";
  if (!r.peers_agree) return r.disagreement;
  return r.offline_mismatch;
}
}  // namespace

std::string netsim_options_from(const inspect::NetsimRequest& a, NetsimOptions& o) {
  const replay::Sim* sim = replay::find_sim_including_hidden(a.sim);
  if (sim == nullptr) return "unknown sim '" + a.sim + "' (known: " + replay::describe_registered_sims() + ")";
  if (a.peers < 1 || a.peers > kMaxSessionPeers) return "--peers must be 1..16";
  if (a.params.size() > 4) return "--param takes at most 4 values";
  inspect::NetsimUnits units;
  if (std::string error = inspect::netsim_units_from(a, units); !error.empty()) return error;
  o.sim = sim;
  o.config.units = a.units;
  o.config.seed = a.seed;
  for (std::size_t i = 0; i < a.params.size(); ++i) o.config.params[i] = a.params[i];
  o.config.players = a.players != 0 ? a.players : netsim_default_players(*sim, o.config, a.peers);
  if (o.config.players > a.peers) return "--players must be <= --peers";
  o.bot_seed = a.bot_given ? a.bot : a.seed;
  o.peers = a.peers;
  o.ticks = a.ticks;
  o.network.latency_us = units.latency_us;
  o.network.jitter_us = units.jitter_us;
  o.network.loss_ppm = units.loss_ppm;
  o.network.duplicate_ppm = units.duplicate_ppm;
  o.network.reorder_ppm = units.reorder_ppm;
  o.network_seed = a.seed;
  o.input_delay = a.input_delay;
  o.max_prediction = a.max_prediction;
  o.hash_interval = a.hash_interval;
  o.tick_hz = a.tick_hz;
  o.threads = a.threads;
  return {};
}

std::string netsim_report_text(const inspect::NetsimRequest& a, const NetsimOptions& o, const NetsimMatch& m,
                               const NetsimOutcome& out) {
  const NetsimReport& r = m.report;
  std::string s = inspect::netsim_request_line(a, o.config.players) + netsim_peer_table(r);
  s += "network: " + n(r.network.sent) + " sent, " + n(r.network.lost) + " lost, " + n(r.network.duplicated) +
       " duplicated, " + n(r.network.reordered) + " reordered, " + n(r.network.delivered) + " delivered\n";
  s += inspect::netsim_frames_line(a, r.frames, out.wall_ns);
  if (r.ok())
    s += "OK: every peer confirmed all " + n(a.ticks) + " ticks with identical inputs and hashes; an offline replay "
         "of the confirmed inputs matches (final hash " + to_hex(r.offline_final_hash) + ")\n";
  else
    s += std::string(m.unfinished_only ? "UNFINISHED" : "DESYNC") + ": " + failure_reason(r) + "\n";
  if (!out.recorded.empty())
    s += "recorded the confirmed inputs and hashes to " + out.recorded + " (re-check: lockstep verify " +
         out.recorded + ")\n";
  return s;
}

std::string netsim_report_json(const inspect::NetsimRequest& a, const NetsimOptions& o, const NetsimMatch& m,
                               const NetsimOutcome& out) {
  const NetsimReport& r = m.report;
  inspect::JsonWriter j;
  j.begin().field("ok", r.ok()).field("exit", out.exit);
  inspect::append_netsim_request_fields(j, a, o.config.players);
  append_netsim_figures(j, r);
  inspect::append_wall_seconds(j, out.wall_ns);
  if (!out.recorded.empty()) j.field("record", out.recorded);
  if (!r.disagreement.empty()) j.field("disagreement", r.disagreement);
  if (!r.offline_mismatch.empty()) j.field("offline_mismatch", r.offline_mismatch);
  if (!out.evidence.empty()) j.field("desync", out.evidence);
  append_netsim_network_and_peers(j, r);
  j.end();
  return j.str() + "\n";
}

std::string netsim_failure_text(const inspect::NetsimRequest& a, const NetsimReport& r, const std::string& evidence) {
  std::string s;
  if (!r.finished)
    s += "lockstep: netsim did not finish: not every peer confirmed " + n(a.ticks) + " ticks within " + n(r.frames) +
         " frames\n";
  if (r.desync_count != 0)
    s += "lockstep: DESYNC detected " + n(r.desync_count) + " times by the hash exchange; first: " + evidence;
  if (!r.peers_agree) s += "lockstep: DESYNC " + r.disagreement + "\n";
  if (!r.offline_agrees) s += "lockstep: DESYNC " + r.offline_mismatch + "\n";
  return s;
}

}  // namespace lockstep::rollback
