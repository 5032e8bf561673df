#pragma once
// The schedule of a sim's systems with their declared access, the stage plan, and the
// conflicts that forbid running two of them concurrently (docs/systems.md). The report is
// tool-side (allocates; never on a tick path); plan_stages is what the runner uses.
#include <lockstep/replay/sim.h>
#include <lockstep/store/system_access.h>
#include <lockstep/world.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::replay {

struct ScheduleEntry {
  std::string name;
  std::vector<std::string> reads;   // declared Read only (components, then resources)
  std::vector<std::string> writes;  // declared Write (components, then resources, then <commands>)
  std::uint32_t stage = 0;          // its stage in plan_stages
};

enum class ConflictKind : std::uint8_t { WriteWrite = 0, ReadWrite = 1 };

// One conflicting type between systems `first` < `second` (schedule indices). For ReadWrite,
// `writer` is the index of the system that writes it.
struct AccessConflict {
  std::uint32_t first = 0;
  std::uint32_t second = 0;
  ConflictKind kind = ConflictKind::WriteWrite;
  std::string type;  // component/resource name, or "<commands>"
  std::uint32_t writer = 0;
};

struct Schedule {
  std::vector<ScheduleEntry> systems;
  std::uint32_t stages = 0;  // of plan_stages
  std::vector<AccessConflict> conflicts;  // by (first, second), then components by id, resources by id, commands
};

// Builds a world for `config` (sim.world_config + sim.setup only; no init) and analyses the
// declared systems. Returns the setup/resolution status.
Status build_schedule(const Sim& sim, const SimConfig& config, Schedule& out);

// The same on already resolved access sets of `world`.
Schedule analyse_schedule(const World& world, const SystemList& systems, const AccessSet* access);

const char* to_string(ConflictKind kind) noexcept;

// True when a and b may not run concurrently (nor in either order) by their declarations:
// one writes a component, resource or scratch the other reads or writes, or both record
// commands.
bool access_conflicts(const AccessSet& a, const AccessSet& b) noexcept;

// The stage plan (docs/systems.md, "Parallel ticks"): system i's stage is 0 when it conflicts
// with no earlier system, else one more than the latest stage of the earlier systems it
// conflicts with. So systems in one stage do not conflict with each other, and two that
// conflict run in declared order (the earlier one in an earlier stage). A pure function of the
// declared access sets, in declared order; allocation-free.
struct StagePlan {
  std::uint32_t systems = 0;
  std::uint32_t stages = 0;
  std::uint8_t stage_of[SystemList::kMaxSystems] = {};
};
StagePlan plan_stages(const AccessSet* access, std::uint32_t count) noexcept;

}  // namespace lockstep::replay
