#pragma once
// System access (docs/systems.md): the component/resource sets a system or an observer
// declares it reads and writes. While one is installed on a world (World::AccessScope),
// every typed access is checked against it and an undeclared one is reported like any other
// legality violation (GuardPolicy::Abort: report + abort with file/line; Reject: report,
// refuse, InvalidArgument or null).
//
// What needs what:
//   each / CachedQuery / DynamicQuery   read fetch → Read or Write of T; write fetch → Write of T
//                                       (filter and row terms — with, none, any, enabled,
//                                       changed, ... — look at archetypes and row state only:
//                                       no declaration needed)
//   get<T>                              Read or Write of T
//   getMutable<T>, setEnabled<T>,
//   addComponent<T>, removeComponent<T> Write of T
//   destroy(e) (direct)                 Write of every component e holds
//   clear()                             Write of every component of every non-empty archetype
//   create() (direct), has<T>           nothing
//   readResource<T>, const resource<T>  Read or Write of resource T
//   resource<T> (mutable pointer)       Write of resource T
//   commands().anything                 Commands (the buffer's recording order is shared
//                                       state); add/remove of T there also Write of T
#include <lockstep/store/component.h>
#include <lockstep/store/guard.h>
#include <lockstep/status.h>

#include <cstdint>
#include <type_traits>

namespace lockstep {

class World;

// Marker type: "this system records into the world's command buffer" (name "<commands>").
struct Commands {};
inline constexpr const char* kCommandsAccessName = "<commands>";

template <class... Ts>
struct Reads {};
template <class... Ts>
struct Writes {};

enum class AccessKind : std::uint8_t { ReadComponent = 0, WriteComponent = 1, ReadResource = 2, WriteResource = 3, Commands = 4 };

// Resolved access of one system/observer, in the ids of one world. Write implies Read.
struct AccessSet {
  detail::IdSet256 read_components;   // declared Read or Write
  detail::IdSet256 write_components;  // declared Write
  detail::IdSet256 read_resources;
  detail::IdSet256 write_resources;
  bool commands = false;
  // Scratch resources (World::registerScratch) by scratch index: declared for the stage plan
  // (replay/schedule.h), which must order a system that fills a scratch before the ones that
  // read it. Not checked while the system runs (scratch<T>() is a plain pointer).
  std::uint16_t read_scratch = 0;   // declared Read or Write
  std::uint16_t write_scratch = 0;  // declared Write
  const char* name = "";  // reported with violations (events carry it)

  bool allows(AccessKind kind, std::uint32_t id) const noexcept {
    switch (kind) {
      case AccessKind::ReadComponent: return read_components.contains(id);
      case AccessKind::WriteComponent: return write_components.contains(id);
      case AccessKind::ReadResource: return read_resources.contains(id);
      case AccessKind::WriteResource: return write_resources.contains(id);
      case AccessKind::Commands: return commands;
    }
    return false;
  }

  // Adds one declared name: a registered component, a registered resource, a registered
  // scratch type or kCommandsAccessName. NotRegistered when it is none of them; CapacityExceeded for a
  // resource id ≥ 256.
  Status declare(const World& world, const char* type_name, bool write) noexcept;
};

// The name a type is declared by: its descriptor name, or kCommandsAccessName for Commands.
template <class T>
const char* access_name() noexcept {
  if constexpr (std::is_same_v<T, Commands>) return kCommandsAccessName;
  else return describe<T>().name;
}

// AccessSet from types: access_of(world, Reads<Team, Rules>{}, Writes<Position, Commands>{}, "move", out).
template <class... R, class... W>
Status access_of(const World& world, Reads<R...>, Writes<W...>, const char* name, AccessSet& out) noexcept {
  out = AccessSet{};
  out.name = name;
  Status s = Status::Ok();
  ((s = s.ok() ? out.declare(world, access_name<R>(), false) : s), ...);
  ((s = s.ok() ? out.declare(world, access_name<W>(), true) : s), ...);
  return s;
}

}  // namespace lockstep
