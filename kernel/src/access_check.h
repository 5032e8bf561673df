#pragma once
// System access checks that need World's internals (system_access.cpp).
#include <lockstep/store/world.h>

namespace lockstep::detail {

struct AccessCheck {
  // A direct destroy (or clear, with a null entity) writes every component in `mask`.
  static Status destroy(World& w, Entity e, const IdSet256& mask) noexcept;
  static Status violation(const World& w, AccessKind kind, std::uint32_t id, Entity e) noexcept {
    return w.access_violation(kind, id, e);
  }
  static std::int32_t component_id(const World& w, std::uint32_t type_key) noexcept { return w.component_id_of(type_key); }
};

}  // namespace lockstep::detail
