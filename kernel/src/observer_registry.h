#pragma once
// The observers of one world and their working memory (observers.cpp). Allocated by the first
// World::observe (setup time); nothing here allocates afterwards.
#include <lockstep/store/command_buffer.h>
#include <lockstep/store/observers.h>
#include <lockstep/store/guard.h>
#include <lockstep/store/system_access.h>
#include <lockstep/store/world_config.h>

#include <cstdint>
#include <memory>

namespace lockstep::detail {

struct ObserverRegistry {
  struct Entry {
    ObserverFn fn = nullptr;
    AccessSet access;
    std::uint32_t component = 0;
    ObserverEvent event = ObserverEvent::OnAdd;
  };

  explicit ObserverRegistry(const WorldConfig& c)
      : buffers{std::make_unique<CommandBuffer>(c), std::make_unique<CommandBuffer>(c)},
        order(new std::uint32_t[c.command_capacity == 0 ? 1 : c.command_capacity]) {}

  Entry entries[kMaxObservers];
  std::uint32_t count = 0;
  IdSet256 observed[3];  // per ObserverEvent: components with at least one observer
  // Commands observers record while a flush runs go to buffers[pending]; the follow-up
  // rounds flush them alternately, so a round never records into the buffer it applies.
  std::unique_ptr<CommandBuffer> buffers[2];
  std::uint32_t pending = 0;
  bool cascading = false;    // observers_finish is running the follow-up rounds
  std::uint32_t depth = 0;   // observers currently running (nested by direct sets)
  std::unique_ptr<std::uint32_t[]> order;  // the flush's staged entries by slot ascending
  std::uint32_t ordered = 0;
};

}  // namespace lockstep::detail
