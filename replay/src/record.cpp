// Recording bots' matches into memory (record.h): the in-memory half of `lockstep record`.
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/runner.h>

#include <memory>
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
    std::vector<std::byte> canonical = frame;
    Runner::host_to_canonical(sim.input_type(), canonical);
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

}  // namespace lockstep::replay
