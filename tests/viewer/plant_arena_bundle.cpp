// Writes a planted desync bundle of examples/arena (the browser test's arena case): two runs of
// the same recording-free match (4 players × 40 fighters, seed 7, 60 ticks of bots), the second
// with fighter slot 5's hp lowered by 7 — a desync exactly where a game's own rules would make
// one, in arena's own components. usage: plant_arena_bundle OUT.lsbundle
#include "arena.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/world.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
  using namespace lockstep;
  if (argc != 2) {
    std::fprintf(stderr, "usage: plant_arena_bundle OUT.lsbundle\n");
    return 2;
  }
  arena::register_sims();
  const replay::Sim* sim = replay::find_sim("arena");
  if (sim == nullptr) return 2;
  replay::SimConfig config;
  config.players = 4;
  config.units = 40;
  config.seed = 7;
  std::vector<std::unique_ptr<replay::Runner>> runs;
  for (int side = 0; side < 2; ++side) {
    auto r = std::make_unique<replay::Runner>(*sim, config);
    if (!r->status().ok()) return 2;
    std::vector<std::unique_ptr<replay::Bot>> bots;
    for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim->make_bot(config, 7, p));
    const std::size_t in = sim->input_type().size;
    std::vector<std::byte> frame(in * config.players);
    for (std::uint64_t t = 0; t < 60; ++t) {
      for (std::uint32_t p = 0; p < config.players; ++p)
        bots[p]->generate(t, r->world(), std::span<std::byte>(frame).subspan(p * in, in));
      if (!r->step(frame).ok()) return 2;
    }
    runs.push_back(std::move(r));
  }
  World& w = runs[1]->world();
  (void)w.each<arena::Fighter>([](Entity e, arena::Fighter& f) { if (e.slot == 5) f.hp -= 7; }, Write{});
  inspect::Bundle b;
  b.source = "planted";
  inspect::set_sim(b, *sim, config);
  b.tick = 60;
  b.report = "planted: fighter 5's hp lowered by 7 on side B";
  const inspect::State sa = inspect::capture(runs[0]->world().storage());
  const inspect::State sb = inspect::capture(w.storage());
  b.facts = inspect::build_facts(sim, &sa);
  b.sides.push_back({"A", true, sa, inspect::breakdown(hash_world(runs[0]->world()))});
  b.sides.push_back({"B", true, sb, inspect::breakdown(hash_world(w))});
  const std::vector<std::byte> bytes = inspect::encode_bundle(b);
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return out.good() ? 0 : 2;
}
