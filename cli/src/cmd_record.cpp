// lockstep record --sim NAME --bot SEED --ticks N -o FILE — record a bot match.
#include "common.h"

#include <chrono>
#include <cstdio>

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

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The success lines of `record` (text or JSON).
void print_recorded(const RecordArgs& a, const replay::SimConfig& config, const StateHash& h, double secs) {
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("output", a.out).field("sim", a.sim).field("players", config.players)
        .field("units", config.units).field("seed", config.seed).field("bot", a.bot).field("ticks", a.ticks)
        .field("final_hash", hex(h.total)).field("seconds", secs).end();
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("recorded %llu ticks of %s (players %u, units %u, seed %llu, bot %llu) to %s\n",
                static_cast<unsigned long long>(a.ticks), a.sim.c_str(), config.players, config.units,
                static_cast<unsigned long long>(config.seed), static_cast<unsigned long long>(a.bot), a.out.c_str());
    std::printf("final hash %s (tick %llu), %.2f s\n", hex(h.total).c_str(), static_cast<unsigned long long>(h.tick), secs);
  }
}

int record_cmd(const RecordArgs& a) {
  if (int rc = check_output(a.out, a.json); rc != kExitOk) return rc;
  const replay::Sim* sim = replay::find_sim_including_hidden(a.sim);
  if (sim == nullptr)
    return report_error(a.json, kExitBadInput, "unknown sim '" + a.sim + "' (known: " + describe_sims() + ")");
  if (a.params.size() > 4) return report_error(a.json, kExitBadInput, "--param takes at most 4 values");
  if (a.block_ticks == 0 || a.block_ticks > replay::kMaxBlockTicks)
    return report_error(a.json, kExitBadInput, "--block-ticks must be 1..4096");
  replay::SimConfig config;
  config.players = a.players;
  config.units = a.units;
  config.seed = a.seed_given ? a.seed : a.bot;
  for (std::size_t i = 0; i < a.params.size(); ++i) config.params[i] = a.params[i];
  replay::Runner runner(*sim, config);
  if (!runner.status().ok())
    return report_error(a.json, kExitBadInput, "cannot build sim '" + a.sim + "': " + runner.status().message());

  std::uint32_t flags = 0;
  if (!a.no_hashes) flags |= replay::kReplayHasHashes;
  if (!a.no_hashes && !a.no_component_hashes) flags |= replay::kReplayHasComponentHashes;
  const replay::ReplayHeader header =
      replay::make_header(*sim, config, runner.world().storage(), flags, a.block_ticks, a.checkpoint_every);

  std::vector<std::unique_ptr<replay::Bot>> bots;
  for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim->make_bot(config, a.bot, p));

  const bool json_out = ends_with(a.out, ".json");
  replay::ReplayRecorder recorder;
  replay::Replay memory;  // for --output *.json
  memory.header = header;
  replay::ReplayStatus st;
  if (!json_out) {
    st = recorder.open(a.out, header);
    if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
    st = recorder.initial(runner.hash());
  } else if (header.has_hashes()) {
    memory.add_hash(runner.hash());
  }
  const std::uint32_t in_size = sim->input_type().size;
  std::vector<std::byte> frame(runner.frame_bytes());
  std::vector<std::byte> canonical(runner.frame_bytes());
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t t = 0; t < a.ticks && st.ok(); ++t) {
    for (std::uint32_t p = 0; p < config.players; ++p)
      bots[p]->generate(runner.tick(), runner.world(), std::span<std::byte>(frame.data() + std::size_t{p} * in_size, in_size));
    const Status s = runner.step(frame);
    if (!s.ok())
      return report_error(a.json, kExitBadInput, "tick " + std::to_string(t) + ": the sim rejected the step: " + s.message());
    canonical = frame;
    replay::Runner::host_to_canonical(sim->input_type(), canonical);
    const StateHash* h = header.has_hashes() ? &runner.hash() : nullptr;
    if (!json_out) {
      st = recorder.tick(canonical, h);
      if (st.ok() && a.checkpoint_every != 0 && runner.tick() % a.checkpoint_every == 0)
        st = recorder.checkpoint(runner.world().storage());
    } else {
      memory.inputs.insert(memory.inputs.end(), canonical.begin(), canonical.end());
      if (h != nullptr) memory.add_hash(*h);
      if (a.checkpoint_every != 0 && runner.tick() % a.checkpoint_every == 0) {
        replay::Checkpoint cp;
        cp.tick = runner.tick();
        const FileStatus fs = encode_snapshot(runner.world().storage(), cp.snapshot);
        if (!fs.ok()) return report_error(a.json, kExitBadInput, fs.message);
        memory.checkpoints.push_back(std::move(cp));
      }
    }
  }
  if (st.ok()) {
    if (!json_out) {
      st = recorder.close();
    } else {
      memory.complete = true;
      st = replay::write_replay_file(a.out, memory, true);
    }
  }
  if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  print_recorded(a, config, runner.hash(), secs);
  return kExitOk;
}
}  // namespace

Command add_record(CLI::App& root) {
  auto a = std::make_shared<RecordArgs>();
  CLI::App* app = root.add_subcommand("record", "Record a bot-driven match into a replay file");
  app->add_option("--sim", a->sim, "Sim name (see 'lockstep info --sims')")->required();
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
              "  lockstep record --sim skirmish --bot 1 --ticks 600 --units 2000 -o skirmish.replay\n"
              "  lockstep record --sim duel --bot 7 --ticks 1800 -o duel.replay --checkpoint-every 600\n"
              "  lockstep record --sim duel --bot 7 --ticks 60 -o small.json\n"
              "The file is written as FILE.partial and renamed on success; a killed recording leaves\n"
              "FILE.partial, loadable up to its last complete block.\n"
              "Exit codes: 0 ok, 2 bad arguments, unknown sim or I/O error.");
  return {app, [a] { return record_cmd(*a); }};
}

}  // namespace lockstep::cli
