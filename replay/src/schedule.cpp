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
