// Schedule analysis (schedule.h): declared access per system and pairwise conflicts.
#include <lockstep/replay/schedule.h>

#include <memory>

namespace lockstep::replay {

namespace {

std::string resource_name(const World& w, std::uint32_t id) { return w.storage().resource(id).name; }

}  // namespace

const char* to_string(ConflictKind kind) noexcept {
  return kind == ConflictKind::WriteWrite ? "write-write" : "read-write";
}

Schedule analyse_schedule(const World& world, const SystemList& systems, const AccessSet* access) {
  Schedule out;
  const auto list = systems.systems();
  const std::uint32_t n = static_cast<std::uint32_t>(list.size());
  const std::uint32_t components = world.componentCount();
  const std::uint32_t resources = world.resourceCount() < 256 ? world.resourceCount() : 256;
  for (std::uint32_t i = 0; i < n; ++i) {
    const AccessSet& a = access[i];
    ScheduleEntry e;
    e.name = list[i].name;
    for (std::uint32_t c = 0; c < components; ++c) {
      if (a.write_components.contains(c)) e.writes.emplace_back(world.componentDescriptor(c).name);
      else if (a.read_components.contains(c)) e.reads.emplace_back(world.componentDescriptor(c).name);
    }
    for (std::uint32_t r = 0; r < resources; ++r) {
      if (a.write_resources.contains(r)) e.writes.push_back(resource_name(world, r));
      else if (a.read_resources.contains(r)) e.reads.push_back(resource_name(world, r));
    }
    if (a.commands) e.writes.emplace_back(kCommandsAccessName);
    out.systems.push_back(std::move(e));
  }
  const StagePlan plan = plan_stages(access, n);
  out.stages = plan.stages;
  for (std::uint32_t i = 0; i < plan.systems; ++i) out.systems[i].stage = plan.stage_of[i];
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = i + 1; j < n; ++j) {
      const AccessSet& a = access[i];
      const AccessSet& b = access[j];
      auto check = [&](bool aw, bool ar, bool bw, bool br, std::string type) {
        if (aw && bw) out.conflicts.push_back({i, j, ConflictKind::WriteWrite, std::move(type), i});
        else if (aw && br) out.conflicts.push_back({i, j, ConflictKind::ReadWrite, std::move(type), i});
        else if (bw && ar) out.conflicts.push_back({i, j, ConflictKind::ReadWrite, std::move(type), j});
      };
      for (std::uint32_t c = 0; c < components; ++c)
        check(a.write_components.contains(c), a.read_components.contains(c), b.write_components.contains(c),
              b.read_components.contains(c), world.componentDescriptor(c).name);
      for (std::uint32_t r = 0; r < resources; ++r)
        check(a.write_resources.contains(r), a.read_resources.contains(r), b.write_resources.contains(r),
              b.read_resources.contains(r), resource_name(world, r));
      // Recording order into the one command buffer is state: two recorders conflict.
      check(a.commands, false, b.commands, false, kCommandsAccessName);
    }
  }
  return out;
}

bool access_conflicts(const AccessSet& a, const AccessSet& b) noexcept {
  for (std::uint32_t w = 0; w < 4; ++w) {
    const std::uint64_t aw = a.write_components.words[w], bw = b.write_components.words[w];
    if ((aw & b.read_components.words[w]) != 0 || (bw & a.read_components.words[w]) != 0) return true;
    const std::uint64_t arw = a.write_resources.words[w], brw = b.write_resources.words[w];
    if ((arw & b.read_resources.words[w]) != 0 || (brw & a.read_resources.words[w]) != 0) return true;
  }
  if ((a.write_scratch & b.read_scratch) != 0 || (b.write_scratch & a.read_scratch) != 0) return true;
  return a.commands && b.commands;  // the recording order into the one buffer is state
}

StagePlan plan_stages(const AccessSet* access, std::uint32_t count) noexcept {
  StagePlan plan;
  plan.systems = count < SystemList::kMaxSystems ? count : SystemList::kMaxSystems;
  for (std::uint32_t i = 0; i < plan.systems; ++i) {
    std::uint32_t stage = 0;
    for (std::uint32_t j = 0; j < i; ++j)
      if (plan.stage_of[j] + 1u > stage && access_conflicts(access[i], access[j])) stage = plan.stage_of[j] + 1u;
    plan.stage_of[i] = static_cast<std::uint8_t>(stage);
    if (stage + 1 > plan.stages) plan.stages = stage + 1;
  }
  return plan;
}

Status build_schedule(const Sim& sim, const SimConfig& config, Schedule& out) {
  out = Schedule{};
  const auto world = std::make_unique<World>(sim.world_config(config));
  SystemList systems;
  if (Status s = sim.setup(*world, systems); !s.ok()) return s;
  std::vector<AccessSet> access(systems.systems().size());
  for (std::size_t i = 0; i < access.size(); ++i)
    if (Status s = resolve_access(*world, systems.systems()[i], access[i]); !s.ok()) return s;
  out = analyse_schedule(*world, systems, access.data());
  return Status::Ok();
}

}  // namespace lockstep::replay
