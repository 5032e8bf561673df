// System access enforcement (system_access.h, docs/systems.md).
#include "access_check.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/store/system_access.h>
#include <lockstep/world.h>

#include <cstring>

namespace lockstep {

Status AccessSet::declare(const World& world, const char* type_name, bool write) noexcept {
  if (type_name == nullptr) return {ErrorCode::InvalidArgument, "AccessSet: null type name"};
  if (std::strcmp(type_name, kCommandsAccessName) == 0) {
    commands = true;
    return Status::Ok();
  }
  const std::int32_t c = world.componentIdByName(type_name);
  if (c >= 0) {
    read_components.insert(static_cast<std::uint32_t>(c));
    if (write) write_components.insert(static_cast<std::uint32_t>(c));
    return Status::Ok();
  }
  const std::int32_t r = world.resourceIdByName(type_name);
  if (r < 0) {
    const std::int32_t sc = world.scratchIdByName(type_name);
    if (sc >= 0) {
      read_scratch = static_cast<std::uint16_t>(read_scratch | (1u << sc));
      if (write) write_scratch = static_cast<std::uint16_t>(write_scratch | (1u << sc));
      return Status::Ok();
    }
  }
  if (r < 0)
    return {ErrorCode::NotRegistered,
            "system access: a declared type is neither a registered component nor a registered resource"};
  if (r >= 256) return {ErrorCode::CapacityExceeded, "system access: resource ids >= 256 cannot be declared"};
  read_resources.insert(static_cast<std::uint32_t>(r));
  if (write) write_resources.insert(static_cast<std::uint32_t>(r));
  return Status::Ok();
}

namespace {
// What the installed set declared for one type, for the reader of the event.
const char* declared_component(const AccessSet* a, std::uint32_t id) noexcept {
  if (a == nullptr || !a->read_components.contains(id)) return "none";
  return a->write_components.contains(id) ? "write" : "read";
}
const char* declared_resource(const AccessSet* a, std::uint32_t id) noexcept {
  if (a == nullptr || id >= 256 || !a->read_resources.contains(id)) return "none";
  return a->write_resources.contains(id) ? "write" : "read";
}
}  // namespace

Status World::access_violation(AccessKind kind, std::uint32_t id, Entity e) const noexcept {
  Event ev;
  ev.subsystem = "access";
  ev.entity = e;
  ev.system = call().access != nullptr ? call().access->name : nullptr;
  switch (kind) {
    case AccessKind::ReadComponent:
    case AccessKind::WriteComponent:
      ev.id = kind == AccessKind::ReadComponent ? EventId::AccessUndeclaredRead : EventId::AccessUndeclaredWrite;
      ev.component_id = static_cast<std::int32_t>(id);
      if (id < component_count_) ev.type_name = components_[id].descriptor->name;
      ev.declared = declared_component(call().access, id);
      break;
    case AccessKind::ReadResource:
    case AccessKind::WriteResource:
      ev.id = EventId::AccessUndeclaredResource;
      ev.resource_id = static_cast<std::int32_t>(id);
      if (id < resource_count_) ev.type_name = resources_[id].descriptor->name;
      ev.declared = declared_resource(call().access, id);
      break;
    case AccessKind::Commands:
      ev.id = EventId::AccessUndeclaredCommands;
      ev.type_name = kCommandsAccessName;
      break;
  }
  if (e.slot < slot_count_ && !e.is_null() && valid(e)) ev.archetype_id = entity_archetype_[e.slot];
  // Reporting counts events (diagnostics, not state): also from const accessors such as get().
  return const_cast<World*>(this)->report(ev);
}

void World::install_access(const AccessSet* access) noexcept {
  call().access = access;
  // In a concurrent stage the buffer checks every recording against the recording thread's
  // installed set (ConcurrentStage turned it on for the stage); lanes must not write it.
  if (!lanes_) commands_->access_world_ = access != nullptr ? this : nullptr;
}

std::byte* World::resource_bytes(std::int32_t id, bool write) noexcept {
  if (id < 0) return nullptr;
  const auto u = static_cast<std::uint32_t>(id);
  const AccessKind kind = write ? AccessKind::WriteResource : AccessKind::ReadResource;
  if (call().access != nullptr && (u >= 256 || !call().access->allows(kind, u))) {
    // Before access checks (0.2), the mutable resource<T>() on a World& was how a system read
    // a resource. A system that declared the resource Read and reads it that way was correct
    // then; refusing it now would hand it a null it never had to expect (a game written
    // against 0.1 crashed on it).
    // Serve it, mark the resource written (the system may write through the pointer; the
    // incremental hash must see it) and warn once per world with the names.
    if (write && u < 256 && call().access->allows(AccessKind::ReadResource, u)) {
      Event ev;
      ev.subsystem = "access";
      ev.id = EventId::AccessResourceMutableDeclaredRead;
      ev.system = call().access->name;
      ev.resource_id = id;
      ev.type_name = resources_[u].descriptor->name;
      ev.declared = "read";
      note(ev);
    } else {
      (void)access_violation(kind, u, Entity::null());
      return nullptr;
    }
  }
  if (write) marks_.resource_written(u);
  return resource_data_ptr(u);
}

namespace detail {

Status AccessCheck::destroy(World& w, Entity e, const IdSet256& mask) noexcept {
  if (w.call().access == nullptr || w.call().access->write_components.contains_all(mask)) return Status::Ok();
  for (std::uint32_t id = 0; id < w.component_count_; ++id)
    if (mask.contains(id) && !w.call().access->write_components.contains(id))
      return w.access_violation(AccessKind::WriteComponent, id, e);
  return Status::Ok();
}

Status command_access(const World& w, std::uint8_t op, std::uint32_t type_key) noexcept {
  if (w.access() == nullptr) return Status::Ok();
  if (!w.access()->commands) return AccessCheck::violation(w, AccessKind::Commands, 0, Entity::null());
  const auto o = static_cast<CommandBuffer::Op>(op);
  if (o != CommandBuffer::Op::Add && o != CommandBuffer::Op::Remove) return Status::Ok();
  const std::int32_t id = AccessCheck::component_id(w, type_key);
  if (id < 0) return Status::Ok();  // the flush reports unregistered types
  if (!w.access()->write_components.contains(static_cast<std::uint32_t>(id)))
    return AccessCheck::violation(w, AccessKind::WriteComponent, static_cast<std::uint32_t>(id), Entity::null());
  return Status::Ok();
}

Status check_query_access(const World& w, const QuerySpec& spec) noexcept {
  const AccessSet* a = w.access();
  if (a == nullptr) return Status::Ok();
  for (std::uint32_t k = 0; k < spec.fetch_count; ++k) {
    const QueryFetch& f = spec.fetch[k];
    if (f.missing) continue;
    const AccessKind kind = f.access == Access::Read ? AccessKind::ReadComponent : AccessKind::WriteComponent;
    if (!a->allows(kind, f.id)) return AccessCheck::violation(w, kind, f.id, Entity::null());
  }
  return Status::Ok();
}

}  // namespace detail
}  // namespace lockstep
