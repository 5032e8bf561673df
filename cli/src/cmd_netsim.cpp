// lockstep netsim --sim NAME --peers P --latency-ms L --jitter-ms J --loss X --ticks N --seed S
// A whole rollback match in one process over a deterministic simulated network: checks that
// every peer agrees on every confirmed tick and that an offline replay of the confirmed inputs
// reproduces them. Exit 0 ok; 1 desync / disagreement; 2 bad input; 3 did not finish.
// Floats here are display and argument parsing only: conditions are converted to integer
// microseconds and parts per million before they reach the simulation.
#include "common.h"
#include "bundle_cli.h"

#include <lockstep/rollback/netsim_match.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace lockstep::cli {

namespace {
struct NetsimArgs {
  std::string sim;
  std::uint32_t peers = 2;
  std::uint32_t players = 0;  // 0: as many as the sim accepts, up to peers
  std::uint32_t units = 0;
  std::vector<std::uint32_t> params;
  std::uint64_t ticks = 3600;
  std::uint64_t seed = 1;
  std::uint64_t bot = 0;
  bool bot_given = false;
  double latency_ms = 80;
  double jitter_ms = 30;
  double loss = 0.1;
  double duplicate = 0;
  double reorder = 0;
  std::uint32_t input_delay = 2;
  std::uint32_t max_prediction = 8;
  std::uint32_t hash_interval = 16;
  std::uint32_t tick_hz = 60;
  std::string record;
  std::string bundle_dir;
  std::string trace_out;
  std::uint32_t threads = 0;
  bool json = false;
};

std::uint32_t to_us(double ms) { return static_cast<std::uint32_t>(std::llround(ms * 1000.0)); }
std::uint32_t to_ppm(double p) { return static_cast<std::uint32_t>(std::llround(p * 1e6)); }

// What netsim_cmd decided, for the two printers.
struct Outcome {
  bool ok = false;
  bool unfinished_only = false;
  int fail_code = kExitMismatch;
  double secs = 0;
  std::string recorded, evidence;
};

void print_netsim_json(const NetsimArgs& a, const rollback::NetsimOptions& o, const rollback::NetsimReport& r, const Outcome& out) {
  Json j;
  j.begin().field("ok", out.ok).field("exit", out.ok ? int{kExitOk} : out.fail_code).field("sim", a.sim)
      .field("peers", a.peers).field("players", o.config.players).field("ticks", a.ticks)
      .field("latency_ms", a.latency_ms).field("jitter_ms", a.jitter_ms).field("loss", a.loss)
      .field("duplicate", a.duplicate).field("reorder", a.reorder).field("seed", a.seed)
      .field("input_delay", a.input_delay).field("max_prediction", a.max_prediction)
      .field("hash_interval", a.hash_interval).field("threads", a.threads);
  rollback::append_netsim_figures(j, r);
  j.field("seconds", out.secs);
  if (!out.recorded.empty()) j.field("record", out.recorded);
  if (!r.disagreement.empty()) j.field("disagreement", r.disagreement);
  if (!r.offline_mismatch.empty()) j.field("offline_mismatch", r.offline_mismatch);
  if (!out.evidence.empty()) j.field("desync", out.evidence);
  rollback::append_netsim_network_and_peers(j, r);
  j.end();
  std::printf("%s\n", j.str().c_str());
}

void print_netsim_text(const NetsimArgs& a, const rollback::NetsimOptions& o, const rollback::NetsimReport& r, const Outcome& out) {
  const bool ok = out.ok;
  const bool unfinished_only = out.unfinished_only;
  const double secs = out.secs;
  const std::string& recorded = out.recorded;
  const double sim_seconds = static_cast<double>(r.frames) / static_cast<double>(a.tick_hz);
  std::printf("netsim %s: %u peers (%u players), %llu ticks at %u Hz; one-way latency %.0f ms ± %.0f ms, loss %.1f%%, "
              "duplicate %.1f%%, reorder %.1f%%; input delay %u, prediction window %u, hash every %u ticks, seed %llu\n",
              a.sim.c_str(), a.peers, o.config.players, static_cast<unsigned long long>(a.ticks), a.tick_hz, a.latency_ms,
              a.jitter_ms, a.loss * 100, a.duplicate * 100, a.reorder * 100, a.input_delay, a.max_prediction,
              a.hash_interval, static_cast<unsigned long long>(a.seed));
  std::printf("%s", rollback::netsim_peer_table(r).c_str());
  std::printf("network: %llu sent, %llu lost, %llu duplicated, %llu reordered, %llu delivered\n",
              static_cast<unsigned long long>(r.network.sent), static_cast<unsigned long long>(r.network.lost),
              static_cast<unsigned long long>(r.network.duplicated), static_cast<unsigned long long>(r.network.reordered),
              static_cast<unsigned long long>(r.network.delivered));
  std::printf("frames: %llu (%.1f s of simulated time for %.1f s of ticks; %.2f s wall)\n",
              static_cast<unsigned long long>(r.frames), sim_seconds,
              static_cast<double>(a.ticks) / static_cast<double>(a.tick_hz), secs);
  if (ok) {
    std::printf("OK: every peer confirmed all %llu ticks with identical inputs and hashes; an offline replay of the "
                "confirmed inputs matches (final hash %s)\n",
                static_cast<unsigned long long>(a.ticks), hex(r.offline_final_hash).c_str());
  }
  if (!ok)
    std::printf("%s: %s\n", unfinished_only ? "UNFINISHED" : "DESYNC", r.desync_count != 0 ? "the peers' confirmed state hashes differ (details on stderr)"
                                 : !r.finished     ? "the match did not finish"
                                 : !r.peers_agree  ? r.disagreement.c_str()
                                                   : r.offline_mismatch.c_str());
  if (!recorded.empty())
    std::printf("recorded the confirmed inputs and hashes to %s (re-check: lockstep verify %s)\n", recorded.c_str(),
                recorded.c_str());
}

// The stderr lines of a failed match (whatever the output format).
void print_netsim_failure(const NetsimArgs& a, const rollback::NetsimReport& r, const std::string& evidence) {
  if (!r.finished)
    std::fprintf(stderr, "lockstep: netsim did not finish: not every peer confirmed %llu ticks within %llu frames\n",
                 static_cast<unsigned long long>(a.ticks), static_cast<unsigned long long>(r.frames));
  if (r.desync_count != 0)
    std::fprintf(stderr, "lockstep: DESYNC detected %llu times by the hash exchange; first: %s",
                 static_cast<unsigned long long>(r.desync_count), evidence.c_str());
  if (!r.peers_agree) std::fprintf(stderr, "lockstep: DESYNC %s\n", r.disagreement.c_str());
  if (!r.offline_agrees) std::fprintf(stderr, "lockstep: DESYNC %s\n", r.offline_mismatch.c_str());
}

// The command line's checks, then its options as the library's. Returns an exit code.
int netsim_options(const NetsimArgs& a, rollback::NetsimOptions& o) {
  if (!a.record.empty())
    if (int rc = check_output(a.record, a.json); rc != kExitOk) return rc;
  if (!a.trace_out.empty())
    if (int rc = check_output(a.trace_out, a.json); rc != kExitOk) return rc;
  if (!a.bundle_dir.empty())
    if (int rc = check_output_dir("--bundle-dir", a.bundle_dir, a.json); rc != kExitOk) return rc;
  const replay::Sim* sim = replay::find_sim_including_hidden(a.sim);
  if (sim == nullptr) return report_error(a.json, kExitBadInput, "unknown sim '" + a.sim + "' (known: " + describe_sims() + ")");
  if (a.peers < 1 || a.peers > rollback::kMaxSessionPeers) return report_error(a.json, kExitBadInput, "--peers must be 1..16");
  if (a.params.size() > 4) return report_error(a.json, kExitBadInput, "--param takes at most 4 values");
  auto bad_ms = [](double v) { return !(v >= 0.0 && v <= 10000.0); };
  auto bad_p = [](double v) { return !(v >= 0.0 && v <= 1.0); };
  if (bad_ms(a.latency_ms) || bad_ms(a.jitter_ms))
    return report_error(a.json, kExitBadInput, "--latency-ms and --jitter-ms must be 0..10000");
  if (bad_p(a.loss) || bad_p(a.duplicate) || bad_p(a.reorder))
    return report_error(a.json, kExitBadInput, "--loss, --duplicate and --reorder are probabilities in 0..1");
  if (a.loss >= 1.0 && a.peers > 1) return report_error(a.json, kExitBadInput, "--loss 1 would never deliver anything");
  o.sim = sim;
  o.config.units = a.units;
  o.config.seed = a.seed;
  for (std::size_t i = 0; i < a.params.size(); ++i) o.config.params[i] = a.params[i];
  o.config.players = a.players != 0 ? a.players : rollback::netsim_default_players(*sim, o.config, a.peers);
  if (o.config.players > a.peers) return report_error(a.json, kExitBadInput, "--players must be <= --peers");
  o.bot_seed = a.bot_given ? a.bot : a.seed;
  o.peers = a.peers;
  o.ticks = a.ticks;
  o.network.latency_us = to_us(a.latency_ms);
  o.network.jitter_us = to_us(a.jitter_ms);
  o.network.loss_ppm = to_ppm(a.loss);
  o.network.duplicate_ppm = to_ppm(a.duplicate);
  o.network.reorder_ppm = to_ppm(a.reorder);
  o.network_seed = a.seed;
  o.input_delay = a.input_delay;
  o.max_prediction = a.max_prediction;
  o.hash_interval = a.hash_interval;
  o.tick_hz = a.tick_hz;
  o.threads = a.threads;
  return kExitOk;
}

int netsim_cmd(const NetsimArgs& a) {
  rollback::NetsimOptions o;
  if (int rc = netsim_options(a, o); rc != kExitOk) return rc;
  TimingTrace trace("lockstep netsim " + a.sim);
  const auto start = std::chrono::steady_clock::now();
  rollback::NetsimMatch m = rollback::run_netsim_match(o, !a.bundle_dir.empty(), a.trace_out.empty() ? nullptr : &trace);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!m.error.empty()) return report_error(a.json, kExitBadInput, "netsim: " + m.error);
  if (!a.trace_out.empty())
    if (int rc = write_timing_trace(trace, a.trace_out, a.json); rc != kExitOk) return rc;
  std::string recorded;
  if (!a.record.empty()) {
    const replay::ReplayStatus st = replay::write_replay_file(a.record, m.confirmed);
    if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
    recorded = a.record;
  }
  std::string& evidence = m.evidence.text;
  if (m.evidence.bundle) {
    std::string path;
    if (!write_bundle_reporting(a.bundle_dir, *m.evidence.bundle, path)) return kExitBadInput;
    evidence += "desync bundle: " + path + "\n";
  }
  const rollback::NetsimReport& r = m.report;
  const bool ok = r.ok();
  const int fail_code = m.unfinished_only ? int{kExitUnfinished} : int{kExitMismatch};
  const Outcome out{ok, m.unfinished_only, fail_code, secs, recorded, evidence};
  if (a.json) print_netsim_json(a, o, r, out);
  else print_netsim_text(a, o, r, out);
  if (!ok) {
    print_netsim_failure(a, r, evidence);
    return fail_code;
  }
  return kExitOk;
}
}  // namespace

Command add_netsim(CLI::App& root) {
  auto a = std::make_shared<NetsimArgs>();
  CLI::App* app = root.add_subcommand("netsim", "Play a rollback match between in-process peers over a simulated network");
  app->add_option("--sim", a->sim, "Sim name (see 'lockstep info --sims')")->required();
  app->add_option("--peers", a->peers, "Peers (1..16); peer p owns player p, the rest spectate")->capture_default_str();
  app->add_option("--players", a->players, "Players (default: as many as the sim accepts, up to --peers)");
  app->add_option("--units", a->units, "Units, for sims that take it")->capture_default_str();
  app->add_option("--param", a->params, "Sim-specific parameters (up to 4 integers)")->delimiter(',');
  app->add_option("--ticks", a->ticks, "Ticks to play")->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10000000}));
  app->add_option("--seed", a->seed, "Seed of the network, the world and (by default) the bots")->capture_default_str();
  app->add_option("--bot", a->bot, "Bot seed (default: --seed)")->each([a](const std::string&) { a->bot_given = true; });
  app->add_option("--latency-ms", a->latency_ms, "One-way latency in ms")->capture_default_str();
  app->add_option("--jitter-ms", a->jitter_ms, "Jitter: each message's latency varies uniformly by ± this")->capture_default_str();
  app->add_option("--loss", a->loss, "Probability that a message is lost (0..1)")->capture_default_str();
  app->add_option("--duplicate", a->duplicate, "Probability that a message is delivered twice")->capture_default_str();
  app->add_option("--reorder", a->reorder, "Probability that a message is held back and overtaken")->capture_default_str();
  app->add_option("--input-delay", a->input_delay, "Input delay in ticks")->capture_default_str()
      ->check(CLI::Range(0u, 64u));
  app->add_option("--max-prediction", a->max_prediction, "Prediction window in ticks (0 = plain lockstep)")
      ->capture_default_str()->check(CLI::Range(0u, 64u));
  app->add_option("--hash-interval", a->hash_interval, "Exchange confirmed state hashes every K ticks (0 = off)")
      ->capture_default_str();
  app->add_option("--tick-hz", a->tick_hz, "Tick rate")->capture_default_str()->check(CLI::Range(1u, 1000u));
  app->add_option("--record", a->record, "Write peer 0's confirmed inputs and hashes as a replay file");
  app->add_option("--trace-out", a->trace_out, "Write a Chrome trace-event JSON timing trace, one thread per peer");
  app->add_option("--bundle-dir", a->bundle_dir, "Write a desync bundle (both peers' states) here on the first desync");
  app->add_option("--threads", a->threads,
                  "Every peer runs the sim's parallel loops on N threads of its own (0 = serial); the offline "
                  "re-check stays serial")
      ->check(CLI::Range(0, 64))->capture_default_str();
  app->add_flag("--json", a->json, "Machine-readable result on stdout");
  app->footer("Examples:\n"
              "  lockstep netsim --sim broken-peer --peers 2 --ticks 200 --hash-interval 1 --bundle-dir out/\n"
              "  lockstep netsim --sim duel --peers 2 --latency-ms 80 --jitter-ms 30 --loss 0.1 --ticks 3600 --seed 1\n"
              "  lockstep netsim --sim duel --peers 4 --latency-ms 150 --jitter-ms 50 --loss 0.2 --record match.replay\n"
              "  lockstep netsim --sim skirmish --peers 4 --units 2000 --ticks 600 --json\n"
              "The same arguments always give the same run (simulated clock, seeded network).\n"
              "Exit codes: 0 all peers agree and the offline replay matches; 1 desync or disagreement;\n"
              "2 bad arguments or unwritable --record; 3 the match did not finish (no desync seen).");
  return {app, [a] { return netsim_cmd(*a); }};
}

}  // namespace lockstep::cli
