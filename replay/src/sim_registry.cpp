#include <lockstep/replay/sim.h>

#include <vector>

namespace lockstep::replay {

namespace {
std::vector<const Sim*>& registry() {
  // lockstep: allow(static) the tool's list of sim definitions, not simulation state
  static std::vector<const Sim*> sims;
  return sims;
}
std::vector<const Sim*>& hidden_registry() {
  // lockstep: allow(static) the tool's list of hidden test sims, not simulation state
  static std::vector<const Sim*> sims;
  return sims;
}
}  // namespace

void register_sim(const Sim& sim) {
  for (const Sim* s : registry())
    if (s->name() == sim.name()) return;
  registry().push_back(&sim);
}

const Sim* find_sim(std::string_view name) noexcept {
  for (const Sim* s : registry())
    if (s->name() == name) return s;
  return nullptr;
}

void register_hidden_sim(const Sim& sim) {
  for (const Sim* s : hidden_registry())
    if (s->name() == sim.name()) return;
  hidden_registry().push_back(&sim);
}

const Sim* find_sim_including_hidden(std::string_view name) noexcept {
  if (const Sim* s = find_sim(name)) return s;
  for (const Sim* s : hidden_registry())
    if (s->name() == name) return s;
  return nullptr;
}

std::span<const Sim* const> registered_sims() noexcept { return {registry().data(), registry().size()}; }

}  // namespace lockstep::replay
