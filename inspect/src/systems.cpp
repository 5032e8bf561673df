// Per-system localisation (systems.h).
#include <lockstep/inspect/systems.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/store/world.h>

#include <algorithm>
#include <memory>

namespace lockstep::inspect {

std::uint32_t stage_count(const replay::Runner& runner) noexcept {
  return static_cast<std::uint32_t>(runner.systems().systems().size()) + 2;
}

const char* stage_name(const replay::Runner& runner, std::uint32_t stage) noexcept {
  const auto systems = runner.systems().systems();
  if (stage == 0) return "inputs";
  if (stage <= systems.size()) return systems[stage - 1].name;
  return "flush";
}

bool step_by_stage(replay::Runner& runner, std::span<const std::byte> inputs,
                   const std::function<bool(std::uint32_t, const World&)>& after, Status* status) {
  World& w = runner.world();
  if (status != nullptr) *status = Status::Ok();
  if (inputs.size() != runner.frame_bytes()) {
    if (status != nullptr) *status = {ErrorCode::InvalidArgument, "step_by_stage: input frame has the wrong size"};
    return false;
  }
  // The tick contract of replay/sim.h, stage by stage (Runner::advance runs the same).
  w.beginTick();
  runner.sim().apply_inputs(w, inputs);
  std::uint32_t stage = 0;
  if (!after(stage++, w)) return false;
  for (std::uint32_t i = 0; i < runner.systems().systems().size(); ++i) {
    runner.run_system(i);
    if (!after(stage++, w)) return false;
  }
  const Status flushed = w.flush();
  if (!flushed.ok()) {
    if (status != nullptr) *status = flushed;
    return false;
  }
  w.advanceTick();
  (void)runner.rehash();
  return after(stage, w);
}

SystemSyncResult synctest_by_system(replay::Runner& runner, std::uint64_t ticks, const FrameFn& frames,
                                    const DiffOptions& options, const AfterTickFn& after_tick) {
  SystemSyncResult r;
  r.status = runner.status();
  if (!r.status.ok()) return r;
  World& w = runner.world();
  const std::uint32_t stages = stage_count(runner);
  Snapshot start(w);
  std::vector<Snapshot> after_stage;
  after_stage.reserve(stages);
  for (std::uint32_t i = 0; i < stages; ++i) after_stage.emplace_back(w);
  std::vector<StateHash> first(stages);
  std::vector<std::byte> frame(runner.frame_bytes());
  const std::uint64_t end = runner.tick() + ticks;
  while (runner.tick() < end) {
    const std::uint64_t t = runner.tick();
    frames(t, w, frame);
    w.save(start);
    Status st;
    const bool done1 = step_by_stage(runner, frame, [&](std::uint32_t k, const World& world) {
      first[k] = hash_world(world);
      world.save(after_stage[k]);
      return true;
    }, &st);
    if (!done1) {
      r.status = st;
      return r;
    }
    const Status loaded = w.load(start);
    if (!loaded.ok()) {
      r.status = loaded;
      return r;
    }
    std::uint32_t bad = stages;
    StateHash again{};
    const bool done2 = step_by_stage(runner, frame, [&](std::uint32_t k, const World& world) {
      again = hash_world(world);
      if (diff_hashes(first[k], again).empty()) return true;
      bad = k;
      return false;
    }, &st);
    if (bad < stages) {
      r.ok = false;
      r.tick = t;
      r.stage = bad;
      r.system = stage_name(runner, bad);
      r.first_hash = first[bad];
      r.again_hash = again;
      r.first = capture(after_stage[bad].view());
      r.again = capture(w.storage());
      r.before = capture(start.view());
      r.frame.resize(frame.size());
      replay::Runner::copy_to_canonical(runner.sim().input_type(), frame, r.frame);
      r.diff = diff(r.first, r.again, options);
      r.ticks = t + 1;
      return r;
    }
    if (!done2) {
      r.status = st;
      return r;
    }
    r.ticks = runner.tick();
    if (after_tick && !after_tick(runner.tick(), w)) {
      r.stopped = true;
      return r;
    }
  }
  return r;
}

SystemSyncResult compare_tick_by_system(replay::Runner& a, replay::Runner& b, std::span<const std::byte> inputs,
                                        const DiffOptions& options, const std::function<void(std::uint32_t)>& before_run) {
  SystemSyncResult r;
  r.status = a.status();
  if (r.status.ok()) r.status = b.status();
  if (!r.status.ok()) return r;
  if (stage_count(a) != stage_count(b)) {
    r.status = {ErrorCode::InvalidArgument, "compare_tick_by_system: the runners run different systems"};
    return r;
  }
  const std::uint32_t stages = stage_count(a);
  const std::uint64_t t = a.tick();
  r.before = capture(a.world().storage());
  std::vector<Snapshot> after_stage;
  after_stage.reserve(stages);
  for (std::uint32_t i = 0; i < stages; ++i) after_stage.emplace_back(a.world());
  std::vector<StateHash> first(stages);
  if (before_run) before_run(0);
  Status st;
  if (!step_by_stage(a, inputs, [&](std::uint32_t k, const World& world) {
        first[k] = hash_world(world);
        world.save(after_stage[k]);
        return true;
      }, &st)) {
    r.status = st;
    return r;
  }
  std::uint32_t bad = stages;
  StateHash again{};
  if (before_run) before_run(1);
  const bool done = step_by_stage(b, inputs, [&](std::uint32_t k, const World& world) {
    again = hash_world(world);
    if (diff_hashes(first[k], again).empty()) return true;
    bad = k;
    return false;
  }, &st);
  r.ticks = 1;
  if (bad == stages) {
    if (!done) r.status = st;
    return r;
  }
  r.ok = false;
  r.tick = t;
  r.stage = bad;
  r.system = stage_name(a, bad);
  r.first_hash = first[bad];
  r.again_hash = again;
  r.first = capture(after_stage[bad].view());
  r.again = capture(b.world().storage());
  r.frame.resize(inputs.size());
  replay::Runner::copy_to_canonical(a.sim().input_type(), inputs, r.frame);
  r.diff = diff(r.first, r.again, options);
  return r;
}

std::string describe(const SystemSyncResult& r) {
  if (r.ok) return "no divergence in " + std::to_string(r.ticks) + " ticks";
  std::string o = "tick " + std::to_string(r.tick) + ", system " + r.system;
  if (const DiffEntry* e = r.diff.first()) {
    o += ", " + e->where() + " " + e->a + " | " + e->b;
    if (r.diff.total > 1) o += " (+" + std::to_string(r.diff.total - 1) + " more)";
  } else {
    o += ", hashes differ but no field does";
  }
  return o;
}

FrameFn recorded_frames(const replay::Sim& sim, const replay::Replay& recording) {
  const TypeDescriptor* input = &sim.input_type();
  const replay::Replay* rec = &recording;
  return [input, rec](std::uint64_t t, const World&, std::span<std::byte> frame) {
    replay::Runner::copy_to_host(*input, rec->frame(t), frame);
  };
}

FrameFn bot_frames(const replay::Sim& sim, const replay::SimConfig& config, std::uint64_t bot_seed) {
  // Shared: std::function copies its target, and the bots carry state from tick to tick.
  auto bots = std::make_shared<std::vector<std::unique_ptr<replay::Bot>>>();
  for (std::uint32_t p = 0; p < config.players; ++p) bots->push_back(sim.make_bot(config, bot_seed, p));
  const std::uint32_t in = sim.input_type().size;
  return [bots, in](std::uint64_t t, const World& w, std::span<std::byte> frame) {
    for (std::size_t p = 0; p < bots->size(); ++p) (*bots)[p]->generate(t, w, frame.subspan(p * in, in));
  };
}

}  // namespace lockstep::inspect
