#pragma once
// Structured diagnostic events. The world reports misuse (e.g. an illegal mutation during
// iteration) to a pluggable EventSink. Each (subsystem, event, severity) is reported once;
// repeats are counted and summarised by World::flushEventSummary() (called at destruction).
#include <lockstep/store/entity.h>

#include <cstdint>

namespace lockstep {

enum class Severity : std::uint8_t { Info = 0, Warn = 1, Error = 2 };

enum class EventId : std::uint8_t {
  IterationWriteDuringRead = 0,  // in-place write of a Read-declared queried component
  IterationMutation = 1,         // structural move / destroy touching a matched archetype
  IterationClear = 2,            // clear() while a matched archetype holds rows
  IterationNested = 3,           // each() or flush() inside a live each()
  RateLimited = 4,               // summary: `suppressed` repeats of `summarised` were dropped
  AccessUndeclaredRead = 5,      // a running system read a component it did not declare
  AccessUndeclaredWrite = 6,     // ... wrote a component it did not declare Write
  AccessUndeclaredResource = 7,  // ... read (or wrote) a resource it did not declare (Write)
  AccessUndeclaredCommands = 8,  // ... recorded into the command buffer without declaring Commands
  // A running system took the mutable pointer of a resource it declared Read only
  // (World::resource<T>() on a World&, the only way to read a resource before 0.3). Warned
  // once per world and served: a game correct before access checks keeps working.
  AccessResourceMutableDeclaredRead = 9,
  // A system running in a concurrent stage (World::ConcurrentStage) called a structural or
  // world-wide change (`operation`); refused: record it as a command.
  ConcurrentStageChange = 10,
  Count_ = 11,
};

const char* to_string(EventId id) noexcept;

struct Event {
  const char* subsystem = "ecs";
  EventId id = EventId::IterationMutation;
  Severity severity = Severity::Warn;
  Entity entity{};                      // the entity the rejected call named (null if none)
  std::int32_t component_id = -1;       // write case
  std::int32_t archetype_id = -1;       // the entity's archetype / the matched archetype
  std::int32_t source_archetype = -1;   // structural cases
  std::int32_t target_archetype = -1;
  std::uint32_t rows = 0;               // clear case: rows in the matched archetype
  EventId summarised = EventId::Count_; // RateLimited only
  std::uint64_t suppressed = 0;         // RateLimited only
  std::int32_t resource_id = -1;        // AccessUndeclaredResource
  const char* system = nullptr;         // Access* events: the declaring system/observer's name
  const char* type_name = nullptr;      // Access* events: the component's or resource's registered name
  const char* declared = nullptr;       // Access* events: what the system declared for it: "none", "read", "write"
  const char* operation = nullptr;      // ConcurrentStageChange: the refused call ("destroy", "flush", ...)
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const Event& event) noexcept = 0;
};

// Writes one line per event to stderr. The default sink of every world.
EventSink& stderr_event_sink() noexcept;

}  // namespace lockstep
