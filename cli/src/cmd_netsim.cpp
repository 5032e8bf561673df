// lockstep netsim --sim NAME --peers P --latency-ms L --jitter-ms J --loss X --ticks N --seed S
// A whole rollback match in one process over a deterministic simulated network: checks that
// every peer agrees on every confirmed tick and that an offline replay of the confirmed inputs
// reproduces them. Exit 0 ok; 1 desync / disagreement; 2 bad input; 3 did not finish.
// The match is rollback::run_netsim_match (rollback/netsim_match.h); the request, its checks
// and the reports are the tool's (netsim_report.h); this file parses, writes the outputs and
// prints.
#include "common.h"
#include "bundle_cli.h"
#include "netsim_report.h"

#include <chrono>
#include <cstdio>

namespace lockstep::cli {

namespace {
struct NetsimArgs {
  NetsimRequest q;
  std::string record;
  std::string bundle_dir;
  std::string trace_out;
  bool json = false;
};

// The command line's checks, then its options as the library's. Returns an exit code.
int netsim_options(const NetsimArgs& a, rollback::NetsimOptions& o) {
  if (!a.record.empty())
    if (int rc = check_output(a.record, a.json); rc != kExitOk) return rc;
  if (!a.trace_out.empty())
    if (int rc = check_output(a.trace_out, a.json); rc != kExitOk) return rc;
  if (!a.bundle_dir.empty())
    if (int rc = check_output_dir("--bundle-dir", a.bundle_dir, a.json); rc != kExitOk) return rc;
  if (const std::string error = netsim_options_from(a.q, o); !error.empty())
    return report_error(a.json, kExitBadInput, error);
  return kExitOk;
}

int netsim_cmd(const NetsimArgs& a) {
  rollback::NetsimOptions o;
  if (int rc = netsim_options(a, o); rc != kExitOk) return rc;
  TimingTrace trace(tool_name() + " netsim " + a.q.sim);
  const auto start = std::chrono::steady_clock::now();
  rollback::NetsimMatch m = rollback::run_netsim_match(o, !a.bundle_dir.empty(), a.trace_out.empty() ? nullptr : &trace);
  const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  if (!m.error.empty()) return report_error(a.json, kExitBadInput, "netsim: " + m.error);
  if (!a.trace_out.empty())
    if (int rc = write_timing_trace(trace, a.trace_out, a.json); rc != kExitOk) return rc;
  NetsimOutcome out;
  out.wall_ns = static_cast<std::uint64_t>(wall.count());
  if (!a.record.empty()) {
    const replay::ReplayStatus st = replay::write_replay_file(a.record, m.confirmed);
    if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
    out.recorded = a.record;
  }
  out.evidence = m.evidence.text;
  if (m.evidence.bundle) {
    std::string path;
    if (!write_bundle_reporting(a.bundle_dir, *m.evidence.bundle, path)) return kExitBadInput;
    out.evidence += "desync bundle: " + path + "\n";
  }
  const bool ok = m.report.ok();
  out.exit = ok ? int{kExitOk} : m.unfinished_only ? int{kExitUnfinished} : int{kExitMismatch};
  const std::string report = a.json ? netsim_report_json(a.q, o, m, out) : netsim_report_text(a.q, o, m, out);
  std::fputs(report.c_str(), stdout);
  if (!ok) std::fputs(netsim_failure_text(a.q, m.report, out.evidence).c_str(), stderr);
  return out.exit;
}
}  // namespace

Command add_netsim(CLI::App& root) {
  auto a = std::make_shared<NetsimArgs>();
  CLI::App* app = root.add_subcommand("netsim", "Play a rollback match between in-process peers over a simulated network");
  app->add_option("--sim", a->q.sim, "Sim name (see '" + tool_name() + " info --sims')")->required();
  app->add_option("--peers", a->q.peers, "Peers (1..16); peer p owns player p, the rest spectate")->capture_default_str();
  app->add_option("--players", a->q.players, "Players (default: as many as the sim accepts, up to --peers)");
  app->add_option("--units", a->q.units, "Units, for sims that take it")->capture_default_str();
  app->add_option("--param", a->q.params, "Sim-specific parameters (up to 4 integers)")->delimiter(',');
  app->add_option("--ticks", a->q.ticks, "Ticks to play")->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10000000}));
  app->add_option("--seed", a->q.seed, "Seed of the network, the world and (by default) the bots")->capture_default_str();
  app->add_option("--bot", a->q.bot, "Bot seed (default: --seed)")->each([a](const std::string&) { a->q.bot_given = true; });
  app->add_option("--latency-ms", a->q.latency_ms, "One-way latency in ms")->capture_default_str();
  app->add_option("--jitter-ms", a->q.jitter_ms, "Jitter: each message's latency varies uniformly by ± this")->capture_default_str();
  app->add_option("--loss", a->q.loss, "Probability that a message is lost (0..1)")->capture_default_str();
  app->add_option("--duplicate", a->q.duplicate, "Probability that a message is delivered twice")->capture_default_str();
  app->add_option("--reorder", a->q.reorder, "Probability that a message is held back and overtaken")->capture_default_str();
  app->add_option("--input-delay", a->q.input_delay, "Input delay in ticks")->capture_default_str()
      ->check(CLI::Range(0u, 64u));
  app->add_option("--max-prediction", a->q.max_prediction, "Prediction window in ticks (0 = plain lockstep)")
      ->capture_default_str()->check(CLI::Range(0u, 64u));
  app->add_option("--hash-interval", a->q.hash_interval, "Exchange confirmed state hashes every K ticks (0 = off)")
      ->capture_default_str();
  app->add_option("--tick-hz", a->q.tick_hz, "Tick rate")->capture_default_str()->check(CLI::Range(1u, 1000u));
  app->add_option("--record", a->record, "Write peer 0's confirmed inputs and hashes as a replay file");
  app->add_option("--trace-out", a->trace_out, "Write a Chrome trace-event JSON timing trace, one thread per peer");
  app->add_option("--bundle-dir", a->bundle_dir, "Write a desync bundle (both peers' states) here on the first desync");
  app->add_option("--threads", a->q.threads,
                  "Every peer runs the sim's parallel loops on N threads of its own (0 = serial); the offline "
                  "re-check stays serial")
      ->check(CLI::Range(0, 64))->capture_default_str();
  app->add_flag("--json", a->json, "Machine-readable result on stdout");
  app->footer("Examples:\n"
              "  " + tool_name() + " netsim --sim broken-peer --peers 2 --ticks 200 --hash-interval 1 --bundle-dir out/\n"
              "  " + tool_name() + " netsim --sim duel --peers 2 --latency-ms 80 --jitter-ms 30 --loss 0.1 --ticks 3600 --seed 1\n"
              "  " + tool_name() + " netsim --sim duel --peers 4 --latency-ms 150 --jitter-ms 50 --loss 0.2 --record match.replay\n"
              "  " + tool_name() + " netsim --sim skirmish --peers 4 --units 2000 --ticks 600 --json\n"
              "The same arguments always give the same run (simulated clock, seeded network).\n"
              "Exit codes: 0 all peers agree and the offline replay matches; 1 desync or disagreement;\n"
              "2 bad arguments or unwritable --record; 3 the match did not finish (no desync seen).");
  return {app, [a] { return netsim_cmd(*a); }};
}

}  // namespace lockstep::cli
