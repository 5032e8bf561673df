// Recording bots' matches into memory (record.h): the in-memory half of `lockstep record`.
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/replay/open_replay.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/runner.h>

#include <iterator>
#include <memory>
#include <string_view>
#include <vector>

namespace lockstep::replay {

Status record_bots(const Sim& sim, const SimConfig& config, std::uint64_t bot_seed, std::uint64_t ticks,
                   std::uint32_t checkpoint_every, Replay& out) {
  out = Replay{};
  Runner runner(sim, config);
  if (!runner.status().ok()) return runner.status();
  out.header = make_header(sim, config, runner.world().storage(), kReplayHasHashes | kReplayHasComponentHashes,
                           kDefaultBlockTicks, checkpoint_every);
  out.add_hash(runner.hash());
  std::vector<std::unique_ptr<Bot>> bots;
  for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim.make_bot(config, bot_seed, p));
  const std::uint32_t in = sim.input_type().size;
  std::vector<std::byte> frame(runner.frame_bytes());
  for (std::uint64_t t = 0; t < ticks; ++t) {
    for (std::uint32_t p = 0; p < config.players; ++p)
      bots[p]->generate(runner.tick(), runner.world(), std::span<std::byte>(frame.data() + std::size_t{p} * in, in));
    if (Status s = runner.step(frame); !s.ok()) return s;
    std::vector<std::byte> canonical(frame.size());
    Runner::copy_to_canonical(sim.input_type(), frame, canonical);
    out.inputs.insert(out.inputs.end(), canonical.begin(), canonical.end());
    out.add_hash(runner.hash());
    if (checkpoint_every != 0 && runner.tick() % checkpoint_every == 0) {
      Checkpoint cp;
      cp.tick = runner.tick();
      // From the World, not its StorageView: a sim with views gets format-2 checkpoints.
      if (!encode_world_snapshot(runner.world(), cp.snapshot).ok())
        return {ErrorCode::InvalidArgument, "record_bots: a checkpoint could not be encoded"};
      out.checkpoints.push_back(std::move(cp));
    }
  }
  out.complete = true;
  return Status::Ok();
}

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Where the recorded ticks go: streamed into the binary file, or kept for the JSON form.
class RecordSink {
 public:
  RecordSink(const ReplayHeader& header, const std::string& path) : header_(header), path_(path), json_(ends_with(path, ".json")) {
    memory_.header = header;
  }

  ReplayStatus open(const StateHash& initial) {
    if (json_) {
      if (header_.has_hashes()) memory_.add_hash(initial);
      return ReplayStatus::Ok();
    }
    ReplayStatus st = recorder_.open(path_, header_);
    return st.ok() ? recorder_.initial(initial) : st;
  }

  // After each tick: its canonical inputs, its hash (when recorded), a checkpoint when due.
  bool tick(std::span<const std::byte> canonical, const Runner& runner, RecordFailure& why) {
    const StateHash* h = header_.has_hashes() ? &runner.hash() : nullptr;
    const bool checkpoint = header_.checkpoint_interval != 0 && runner.tick() % header_.checkpoint_interval == 0;
    if (!json_) {
      ReplayStatus st = recorder_.tick(canonical, h);
      if (st.ok() && checkpoint) st = recorder_.checkpoint(runner.world());  // format 2 for a sim with views
      return kept(std::move(st), why);
    }
    memory_.inputs.insert(memory_.inputs.end(), canonical.begin(), canonical.end());
    if (h != nullptr) memory_.add_hash(*h);
    if (checkpoint) {
      Checkpoint cp;
      cp.tick = runner.tick();
      if (const FileStatus fs = encode_world_snapshot(runner.world(), cp.snapshot); !fs.ok()) {
        why.message = fs.message;
        return false;
      }
      memory_.checkpoints.push_back(std::move(cp));
    }
    return true;
  }

  bool close(RecordFailure& why) {
    if (!json_) return kept(recorder_.close(), why);
    memory_.complete = true;
    return kept(write_replay_file(path_, memory_, true), why);
  }

  static bool kept(ReplayStatus st, RecordFailure& why) {
    if (st.ok()) return true;
    why.message = st.message;
    why.file = std::move(st);
    return false;
  }

 private:
  const ReplayHeader& header_;
  const std::string& path_;
  const bool json_;
  ReplayRecorder recorder_;
  Replay memory_;
};

}  // namespace

bool record_bots_to_file(const Sim& sim, const SimConfig& config, std::uint64_t bot_seed, std::uint64_t ticks,
                         const RecordOptions& options, const std::string& path, StateHash& final_hash,
                         RecordFailure& why) {
  Runner runner(sim, config);
  if (!runner.status().ok()) {
    why.message = "cannot build sim '" + std::string(sim.name()) + "': " + runner.status().message();
    return false;
  }
  const ReplayHeader header =
      make_header(sim, config, runner.world().storage(), options.flags, options.block_ticks, options.checkpoint_every);
  std::vector<std::unique_ptr<Bot>> bots;
  for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim.make_bot(config, bot_seed, p));
  RecordSink sink(header, path);
  if (!RecordSink::kept(sink.open(runner.hash()), why)) return false;
  const std::uint32_t in_size = sim.input_type().size;
  std::vector<std::byte> frame(runner.frame_bytes());
  std::vector<std::byte> canonical(runner.frame_bytes());
  for (std::uint64_t t = 0; t < ticks; ++t) {
    for (std::uint32_t p = 0; p < config.players; ++p)
      bots[p]->generate(runner.tick(), runner.world(), std::span<std::byte>(frame.data() + std::size_t{p} * in_size, in_size));
    if (const Status s = runner.step(frame); !s.ok()) {
      why.message = "tick " + std::to_string(t) + ": the sim rejected the step: " + s.message();
      return false;
    }
    Runner::copy_to_canonical(sim.input_type(), frame, canonical);
    if (!sink.tick(canonical, runner, why)) return false;
  }
  if (!sink.close(why)) return false;
  final_hash = runner.hash();
  return true;
}

std::string bot_match_config(const BotMatch& match, const Sim*& sim, SimConfig& config) {
  sim = find_sim_including_hidden(match.sim);
  if (sim == nullptr) return "unknown sim '" + match.sim + "' (known: " + describe_registered_sims() + ")";
  if (match.params.size() > std::size(config.params))
    return "a sim takes at most " + std::to_string(std::size(config.params)) + " parameters (got " +
           std::to_string(match.params.size()) + ")";
  config = SimConfig{};
  config.players = match.players;
  config.units = match.units;
  config.seed = match.seed.value_or(match.bot);
  for (std::size_t i = 0; i < match.params.size(); ++i) config.params[i] = match.params[i];
  return "";
}

}  // namespace lockstep::replay
