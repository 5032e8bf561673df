#include <lockstep/store/events.h>
#include <lockstep/store/field.h>

#include <cstdio>

namespace lockstep {

const char* to_string(EventId id) noexcept {
  switch (id) {
    case EventId::IterationWriteDuringRead: return "iteration_write_during_read";
    case EventId::IterationMutation: return "iteration_mutation";
    case EventId::IterationClear: return "iteration_clear";
    case EventId::IterationNested: return "iteration_nested";
    case EventId::RateLimited: return "rate_limited";
    case EventId::AccessUndeclaredRead: return "access_undeclared_read";
    case EventId::AccessUndeclaredWrite: return "access_undeclared_write";
    case EventId::AccessUndeclaredResource: return "access_undeclared_resource";
    case EventId::AccessUndeclaredCommands: return "access_undeclared_commands";
    case EventId::AccessResourceMutableDeclaredRead: return "access_mutable_resource_declared_read";
    case EventId::ConcurrentStageChange: return "concurrent_stage_change";
    case EventId::Count_: break;
  }
  return "unknown";
}

const char* to_string(FieldKind kind) noexcept {
  switch (kind) {
    case FieldKind::SignedInt: return "int";
    case FieldKind::UnsignedInt: return "uint";
    case FieldKind::Fixed: return "fixed";
    case FieldKind::Bool: return "bool";
    case FieldKind::Entity: return "entity";
  }
  return "unknown";
}

namespace {
const char* severity_name(Severity s) noexcept {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warn: return "warn";
    case Severity::Error: return "error";
  }
  return "?";
}

class StderrSink final : public EventSink {
 public:
  void on_event(const Event& e) noexcept override {
    if (e.id == EventId::RateLimited) {
      std::fprintf(stderr, "lockstep %s %s: %s event=%s suppressed=%llu\n", e.subsystem,
                   severity_name(e.severity), to_string(e.id), to_string(e.summarised),
                   static_cast<unsigned long long>(e.suppressed));
      return;
    }
    if (e.id == EventId::ConcurrentStageChange) {
      std::fprintf(stderr,
                   "lockstep %s %s: %s system=%s operation=%s (refused in a concurrent stage: record it as a "
                   "command)\n",
                   e.subsystem, severity_name(e.severity), to_string(e.id), e.system != nullptr ? e.system : "-",
                   e.operation != nullptr ? e.operation : "-");
      return;
    }
    if (e.system != nullptr) {
      // Names first: the reader fixes the declaration of `system` for `type` (ids are only
      // positions in one world's registration order).
      const char* kind = e.resource_id >= 0 ? "resource" : "component";
      std::fprintf(stderr, "lockstep %s %s: %s system=%s %s=%s declared=%s", e.subsystem,
                   severity_name(e.severity), to_string(e.id), e.system, kind,
                   e.type_name != nullptr ? e.type_name : "-", e.declared != nullptr ? e.declared : "none");
      if (e.id == EventId::AccessResourceMutableDeclaredRead)
        std::fprintf(stderr, " (served: read it with readResource<T>() or const World&, or declare it Write)");
      std::fprintf(stderr, " entity_id=%u generation=%u component_id=%d resource_id=%d\n", e.entity.slot,
                   e.entity.generation, e.component_id, e.resource_id);
      return;
    }
    std::fprintf(stderr,
                 "lockstep %s %s: %s entity_id=%u generation=%u component_id=%d archetype_id=%d "
                 "source_archetype=%d target_archetype=%d rows=%u\n",
                 e.subsystem, severity_name(e.severity), to_string(e.id), e.entity.slot,
                 e.entity.generation, e.component_id, e.archetype_id, e.source_archetype,
                 e.target_archetype, e.rows);
  }
};
}  // namespace

EventSink& stderr_event_sink() noexcept {
  // lockstep: allow(static) stateless diagnostics sink (stderr), not simulation state
  static StderrSink sink;
  return sink;
}

}  // namespace lockstep
