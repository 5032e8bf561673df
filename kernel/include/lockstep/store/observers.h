#pragma once
// Observers (docs/observers.md): hooks called when a component appears on an entity (OnAdd),
// disappears from it (OnRemove) or is explicitly assigned (OnSet).
//
//   OnAdd     T was added: addComponent on an entity without T, a buffered add, the
//             components of a buffered create. Fires after the change (the value is there).
//   OnRemove  T goes away: removeComponent, destroy (every component), clear(). Fires BEFORE
//             the change, so the observer still reads the value.
//   OnSet     T's value was assigned: every addComponent (direct or buffered), after OnAdd when
//             T is new. In-place writes — getMutable, Write fetches of queries — do not fire it
//             (use change ticks for those): OnSet reports exactly the explicit assignments.
//
// When: direct calls fire at the call; a flush fires for its net effect per entity (an add
// and a remove of T in the same flush cancel out), in this order — every OnRemove before the
// flush applies anything, then, after it applied everything, every OnAdd, then every OnSet;
// inside each group by component id ascending, then entity slot ascending, then observer
// registration order.
//
// While an observer runs: direct structural changes, iteration and flush are refused as
// iteration-legality violations; structural changes go through world.commands() and are
// applied by a follow-up round of the same flush (at most kMaxObserverRounds rounds), or by
// the next flush when the observer fired at a direct call. Its declared AccessSet is
// installed (system_access.h). Observers are configuration, like systems: registered at
// setup, not state (snapshots neither save nor restore them; load fires nothing).
#include <lockstep/store/entity.h>
#include <lockstep/store/system_access.h>

#include <cstdint>

namespace lockstep {

class World;

enum class ObserverEvent : std::uint8_t { OnAdd = 0, OnRemove = 1, OnSet = 2 };
const char* to_string(ObserverEvent event) noexcept;

// A stateless function: all state lives in the world (docs/determinism.md, rule 4).
using ObserverFn = void (*)(World& world, Entity entity);

inline constexpr std::uint32_t kMaxObservers = 64;
inline constexpr std::uint32_t kMaxObserverRounds = 16;  // follow-up flush rounds per flush()
inline constexpr std::uint32_t kMaxObserverDepth = 4;    // observers fired by observers' direct sets

}  // namespace lockstep
