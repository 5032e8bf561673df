// lockstep record --sim NAME --bot SEED --ticks N -o FILE — record a bot match
// (replay::record_bots_to_file, replay/record.h); this file parses and prints.
#include "common.h"

#include <lockstep/inspect/tool_report.h>
#include <lockstep/replay/record.h>

#include <chrono>
#include <cstdio>
#include <optional>

namespace lockstep::cli {

namespace {
struct RecordArgs {
  std::string sim;
  std::uint64_t bot = 1;
  std::uint64_t ticks = 600;
  std::string out;
  std::uint32_t players = 2;
  std::uint32_t units = 0;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::vector<std::uint32_t> params;
  bool no_hashes = false;
  bool no_component_hashes = false;
  std::uint32_t checkpoint_every = 0;
  std::uint32_t block_ticks = replay::kDefaultBlockTicks;
  bool json = false;
};

int record_cmd(const RecordArgs& a) {
  if (int rc = check_output(a.out, a.json); rc != kExitOk) return rc;
  const replay::Sim* sim = nullptr;
  replay::SimConfig config;
  const replay::BotMatch match{a.sim, a.bot, a.players, a.units, a.seed_given ? std::optional(a.seed) : std::nullopt, a.params};
  if (std::string why = replay::bot_match_config(match, sim, config); !why.empty())
    return report_error(a.json, kExitBadInput, bot_match_error(match, sim, why));
  if (a.block_ticks == 0 || a.block_ticks > replay::kMaxBlockTicks)
    return report_error(a.json, kExitBadInput, "--block-ticks must be 1..4096");
  replay::RecordOptions options;
  options.flags = 0;
  if (!a.no_hashes) options.flags |= replay::kReplayHasHashes;
  if (!a.no_hashes && !a.no_component_hashes) options.flags |= replay::kReplayHasComponentHashes;
  options.block_ticks = a.block_ticks;
  options.checkpoint_every = a.checkpoint_every;
  const auto start = std::chrono::steady_clock::now();
  StateHash final_hash{};
  replay::RecordFailure why;
  if (!replay::record_bots_to_file(*sim, config, a.bot, a.ticks, options, a.out, final_hash, why))
    return report_error(a.json, kExitBadInput, why.message, why.file ? &*why.file : nullptr);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fputs(inspect::record_report(a.out, a.sim, config, a.bot, a.ticks, final_hash, secs, a.json).c_str(), stdout);
  return kExitOk;
}
}  // namespace

Command add_record(CLI::App& root) {
  auto a = std::make_shared<RecordArgs>();
  CLI::App* app = root.add_subcommand("record", "Record a bot-driven match into a replay file");
  app->add_option("--sim", a->sim, "Sim name (see '" + tool_name() + " info --sims')")->required();
  app->add_option("--bot", a->bot, "Bot seed (every player's bot derives from it)")->required();
  app->add_option("--ticks", a->ticks, "Number of ticks to record")->required()->check(CLI::Range(std::uint64_t{0}, std::uint64_t{100000000}));
  app->add_option("-o,--output", a->out, "Output file (.replay binary; .json for the JSON form)")->required();
  app->add_option("--players", a->players, "Player count")->capture_default_str();
  app->add_option("--units", a->units, "SimConfig::units, as the sim defines it (skirmish: total units at start; 0 = the sim's default)")->capture_default_str();
  app->add_option("--seed", a->seed, "World seed (default: the bot seed)")->each([a](const std::string&) { a->seed_given = true; });
  app->add_option("--param", a->params, "Sim-specific parameters (up to 4 integers)")->delimiter(',');
  app->add_flag("--no-hashes", a->no_hashes, "Do not store per-tick state hashes");
  app->add_flag("--no-component-hashes", a->no_component_hashes, "Store only total/entities/archetypes/resources per tick");
  app->add_option("--checkpoint-every", a->checkpoint_every, "Store a snapshot checkpoint every N ticks (0 = none)")->capture_default_str();
  app->add_option("--block-ticks", a->block_ticks, "Input frames per block (1..4096)")->capture_default_str();
  app->add_flag("--json", a->json, "Machine-readable summary on stdout");
  app->footer("Examples:\n"
              "  " + tool_name() + " record --sim skirmish --bot 1 --ticks 600 --units 2000 -o skirmish.replay\n"
              "  " + tool_name() + " record --sim duel --bot 7 --ticks 1800 -o duel.replay --checkpoint-every 600\n"
              "  " + tool_name() + " record --sim duel --bot 7 --ticks 60 -o small.json\n"
              "The file is written as FILE.partial and renamed on success; a killed recording leaves\n"
              "FILE.partial, loadable up to its last complete block.\n"
              "Exit codes: 0 ok, 2 bad arguments, unknown sim or I/O error.");
  return {app, [a] { return record_cmd(*a); }};
}

}  // namespace lockstep::cli
