// lockstep synctest REPLAY | --sim NAME --bot SEED --ticks N   [--check-distance D]
// Every tick: roll back D ticks, resimulate, compare every hash with the first simulation.
// Exit 0: deterministic under rollback. 1: the first mismatching tick and the differing
// components are named. 2: bad input or usage.
#include "common.h"
#include "bundle_cli.h"
#include "per_system.h"

#include <lockstep/inspect/systems.h>
#include <lockstep/inspect/tool_report.h>
#include <lockstep/inspect/verify_report.h>

#include <lockstep/replay/record.h>
#include <lockstep/rollback/session.h>
#include <lockstep/rollback/synctest.h>

#include <chrono>
#include <cstdio>
#include <optional>

namespace lockstep::cli {

namespace {
struct SyncArgs {
  std::string replay;
  std::string sim;
  std::uint64_t bot = 1;
  bool bot_given = false;
  std::uint64_t ticks = 600;
  std::uint32_t players = 2;
  std::uint32_t units = 0;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::vector<std::uint32_t> params;
  std::uint32_t distance = 2;
  bool per_system = false;
  std::string bundle_dir;
  std::uint32_t threads = 0;
  bool json = false;
};

// The by-system sync test (inspect/systems.h): every tick run twice from the same state with
// a hash after every stage; names tick, system, entity and field.
int synctest_by_system_cmd(const SyncArgs& a, const replay::Sim& sim, const replay::SimConfig& config,
                           const replay::Replay* rec, const std::string& name) {
  replay::Runner runner(sim, config);
  if (!runner.status().ok())
    return report_error(a.json, kExitBadInput, name + ": cannot build the sim: " + runner.status().message());
  runner.setThreads(a.threads);
  const std::uint64_t ticks = rec != nullptr ? rec->frame_count() : a.ticks;
  const inspect::SystemSyncResult r = inspect::synctest_by_system(
      runner, ticks, rec != nullptr ? inspect::recorded_frames(sim, *rec) : inspect::bot_frames(sim, config, a.bot));
  if (!r.status.ok())
    return report_error(a.json, kExitBadInput, name + ": cannot run the sync test: " + r.status.message());
  if (r.ok) {
    std::fputs(inspect::system_sync_ok_report(name, r, a.json).c_str(), stdout);
    return kExitOk;
  }
  return report_system_divergence("synctest", name, sim, config, r, a.bundle_dir, a.json);
}

int synctest_cmd(const SyncArgs& a) {
  if (a.replay.empty() == a.sim.empty())
    return report_error(a.json, kExitBadInput, "synctest: give either a REPLAY file or --sim NAME (with --bot/--ticks)");
  if (a.distance == 0 || a.distance > rollback::kMaxPredictionWindow)
    return report_error(a.json, kExitBadInput, "synctest: --check-distance must be 1..64");
  if (!a.bundle_dir.empty())
    if (int rc = check_output_dir("--bundle-dir", a.bundle_dir, a.json); rc != kExitOk) return rc;
  rollback::SyncTestResult r;
  std::string name;
  const replay::Sim* sim = nullptr;
  replay::SimConfig config;
  const auto start = std::chrono::steady_clock::now();
  if (!a.replay.empty()) {
    Loaded loaded;
    if (int rc = load_replay(a.replay, a.json, loaded); rc != kExitOk) return rc;
    name = loaded.name;
    sim = loaded.sim;
    config = loaded.replay.header.config;
    if (a.per_system || !a.bundle_dir.empty()) return synctest_by_system_cmd(a, *sim, config, &loaded.replay, name);
    r = rollback::synctest_replay(*sim, loaded.replay, a.distance, a.threads);
  } else {
    const replay::BotMatch match{a.sim, a.bot, a.players, a.units, a.seed_given ? std::optional(a.seed) : std::nullopt, a.params};
    if (std::string why = replay::bot_match_config(match, sim, config); !why.empty())
      return report_error(a.json, kExitBadInput, bot_match_error(match, sim, why));
    name = a.sim + " (bot " + std::to_string(a.bot) + ")";
    if (a.per_system || !a.bundle_dir.empty()) return synctest_by_system_cmd(a, *sim, config, nullptr, name);
    r = rollback::synctest_bots(*sim, config, a.bot, a.ticks, a.distance, a.threads);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.status.ok())
    return report_error(a.json, kExitBadInput, name + ": cannot run the sync test: " + r.status.message());
  if (!r.ok) {
    const std::string parts = rollback::describe_synctest_difference(*sim, config, r);
    const rollback::SyncTestReport report = rollback::synctest_desync_report(name, a.distance, r, parts, a.json);
    std::fputs((tool_name() + ": " + report.log).c_str(), stderr);
    // The plain gate names the tick and the components; the per-system one the rest.
    std::fprintf(stderr,
                 "%s: hint: run it again with --per-system to name the system, entity and field that differ, and "
                 "--bundle-dir DIR to keep both states for '%s diff'\n",
                 tool_name().c_str(), tool_name().c_str());
    std::fputs(report.report.c_str(), stdout);
    return kExitMismatch;
  }
  std::fputs(inspect::synctest_ok_report(name, a.distance, r.ticks, r.rollbacks, r.resimulated_ticks, secs, a.json).c_str(),
             stdout);
  return kExitOk;
}
}  // namespace

Command add_synctest(CLI::App& root) {
  auto a = std::make_shared<SyncArgs>();
  CLI::App* app = root.add_subcommand("synctest", "Roll back and resimulate every tick; fail on any hash difference");
  app->add_option("replay", a->replay, "Replay file whose inputs drive the test");
  app->add_option("--sim", a->sim, "Sim name: drive it with its bots instead of a replay");
  app->add_option("--bot", a->bot, "Bot seed (with --sim; default 1, as for record; the report names it)")->each([a](const std::string&) { a->bot_given = true; });
  app->add_option("--ticks", a->ticks, "Ticks to test (with --sim)")->capture_default_str()
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{100000000}));
  app->add_option("--players", a->players, "Player count (with --sim)")->capture_default_str();
  app->add_option("--units", a->units, "Units, for sims that take it (with --sim)")->capture_default_str();
  app->add_option("--seed", a->seed, "World seed (with --sim; default: the bot seed)")
      ->each([a](const std::string&) { a->seed_given = true; });
  app->add_option("--param", a->params, "Sim-specific parameters (up to 4 integers)")->delimiter(',');
  app->add_option("-d,--check-distance", a->distance, "Ticks rolled back and resimulated every tick (1..64)")
      ->capture_default_str();
  app->add_flag("--per-system", a->per_system,
                "Run every tick twice from the same state, hash after every system, and name the first "
                "system, entity and field that differ");
  app->add_option("--bundle-dir", a->bundle_dir, "Write a desync bundle here on the first divergence (implies --per-system)");
  app->add_option("--threads", a->threads, "Run the sim's parallel loops on N threads (0 = serial), resimulation included")
      ->check(CLI::Range(0, 64))->capture_default_str();
  app->add_flag("--json", a->json, "Machine-readable result on stdout");
  app->footer("Examples:\n"
              "  " + tool_name() + " synctest fixtures/skirmish/skirmish.replay --check-distance 8\n"
              "  " + tool_name() + " synctest --sim broken-static --ticks 50 --per-system --bundle-dir /tmp\n"
              "  " + tool_name() + " synctest --sim duel --bot 7 --ticks 1800 --check-distance 4\n"
              "Exit codes: 0 every resimulated hash matches; 1 the first mismatching tick and the\n"
              "differing components are named; 2 bad arguments or unreadable replay.");
  return {app, [a] { return synctest_cmd(*a); }};
}

}  // namespace lockstep::cli
