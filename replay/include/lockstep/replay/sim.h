#pragma once
// The sim interface: the one short contract between a game and lockstep (what
// GGPOSessionCallbacks is to GGPO, minus save/load: the kernel owns all state).
//
// A sim is a stateless description of a game's rules. Everything that changes lives in the
// World it sets up (rule 4 in docs/determinism.md), which is why the engine can hash,
// snapshot, roll back and replay it without callbacks.
//
// One tick (Runner::step, replay/runner.h):
//   0. world.beginTick()                 — scratch resources zeroed (not state), views updated
//                                          (view.h: the deltas of the previous tick)
//   1. sim.apply_inputs(world, inputs)   — the tick's per-player inputs into world state
//   2. every system, in declared order   — each gets the world
//   3. world.flush()                     — the command buffer's structural changes
//   4. world.advanceTick()
//   5. hash_world(world)                 — the tick's state hash
#include <lockstep/store/component.h>
#include <lockstep/status.h>
#include <lockstep/store/system_access.h>
#include <lockstep/world.h>
#include <lockstep/store/world_config.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>

namespace lockstep::replay {

// Parameters that, with the seed, fully determine a sim's initial state. Recorded in every
// replay header. Sims document which fields they read; unused fields must be zero.
struct SimConfig {
  std::uint32_t players = 2;
  std::uint32_t units = 0;      // e.g. skirmish: units per player at start
  std::uint64_t seed = 0;
  std::uint32_t params[4] = {0, 0, 0, 0};  // sim-specific knobs
  friend bool operator==(const SimConfig&, const SimConfig&) = default;
};

// What running a system returned. Deliberately not [[nodiscard]] (Status is): callers that
// predate fallible systems may ignore it; Runner checks it.
struct SystemResult {
  Status status;
};

// A system's function: `void f(World&)`, or `Status f(World&)` for a system that can fail —
// a non-ok Status stops the tick: Runner::step returns it, naming the system and the tick.
class SystemFn {
 public:
  constexpr SystemFn() noexcept = default;
  constexpr SystemFn(std::nullptr_t) noexcept {}
  constexpr SystemFn(void (*f)(World&)) noexcept : plain_(f) {}
  constexpr SystemFn(Status (*f)(World&)) noexcept : checked_(f) {}
  // Captureless lambdas of either shape.
  template <class F>
    requires(std::is_convertible_v<F, void (*)(World&)>)
  constexpr SystemFn(F f) noexcept : plain_(static_cast<void (*)(World&)>(f)) {}
  template <class F>
    requires(std::is_convertible_v<F, Status (*)(World&)>)
  constexpr SystemFn(F f) noexcept : checked_(static_cast<Status (*)(World&)>(f)) {}
  constexpr bool fallible() const noexcept { return checked_ != nullptr; }
  friend constexpr bool operator==(const SystemFn& f, std::nullptr_t) noexcept {
    return f.plain_ == nullptr && f.checked_ == nullptr;
  }
  SystemResult operator()(World& world) const {
    if (checked_ != nullptr) return {checked_(world)};
    if (plain_ != nullptr) plain_(world);
    return {Status::Ok()};
  }

 private:
  void (*plain_)(World&) = nullptr;
  Status (*checked_)(World&) = nullptr;
};

// A system: a named step of the tick with its declared access (component and resource type
// names, kCommandsAccessName for the command buffer; Write implies Read). The runner resolves
// the names at setup (NotRegistered for an unknown one) and installs them while the system
// runs, so an undeclared access is a legality violation (docs/systems.md);
// `lockstep info --systems` prints them with the conflicts between systems.
struct System {
  static constexpr std::uint32_t kMaxAccess = 16;
  const char* name = "";
  SystemFn run;
  const char* reads[kMaxAccess] = {};   // component/resource type names, null-terminated list
  const char* writes[kMaxAccess] = {};
};

// A System from types: make_system("move", &move, Reads<Velocity, Rules>{}, Writes<Position, Commands>{}).
template <class... R, class... W>
System make_system(const char* name, SystemFn run, Reads<R...>, Writes<W...>) noexcept {
  static_assert(sizeof...(R) <= System::kMaxAccess && sizeof...(W) <= System::kMaxAccess,
                "make_system: at most 16 read and 16 written types");
  System s;
  s.name = name;
  s.run = run;
  std::uint32_t i = 0;
  ((s.reads[i++] = access_name<R>()), ...);
  i = 0;
  ((s.writes[i++] = access_name<W>()), ...);
  return s;
}

// The AccessSet of a declared system in `world`'s ids (NotRegistered for an unknown name).
Status resolve_access(const World& world, const System& system, AccessSet& out) noexcept;

// Runs one system with `access` installed on the world (null: unchecked).
SystemResult run_system(World& world, const System& system, const AccessSet* access) noexcept;

class SystemList {
 public:
  static constexpr std::uint32_t kMaxSystems = 32;
  Status add(const System& system) noexcept {
    if (count_ >= kMaxSystems) return {ErrorCode::CapacityExceeded, "SystemList: more than 32 systems"};
    if (system.run == nullptr) return {ErrorCode::InvalidArgument, "SystemList: system without a run function"};
    systems_[count_++] = system;
    return Status::Ok();
  }
  std::span<const System> systems() const noexcept { return {systems_, count_}; }

 private:
  System systems_[kMaxSystems];
  std::uint32_t count_ = 0;
};

// A scripted player: generates one player's input for a tick from its own seed and (read
// only) the current world. Bots run when recording or in netsim, never during replay, so
// their private state (their RNG) may live outside the world.
class Bot {
 public:
  virtual ~Bot() = default;
  // Writes exactly input_type().size bytes to `out`.
  virtual void generate(std::uint64_t tick, const World& world, std::span<std::byte> out) noexcept = 0;
};

// Optional drawing hint for the viewer and pictures (docs/viewer.md): which component fields
// show an entity on a 2-D canvas. Display only — never read by a simulation, never hashed.
// Every member names one field as "Component.field" (nullptr or "": not declared):
//   position  a fixed-point field with 2 or 3 elements (vec2/vec3): x = element 0, y = 1;
//   x, y      two scalar fixed fields instead (a game that keeps `x` and `y` separately);
//             they may live in different components;
//   radius    optional: a scalar fixed field, the entity's size in world units;
//   team      optional: an integer field; entities are coloured by it (else by archetype);
//   label     optional: any field, printed beside the entity.
// An entity is drawn when it has the position component(s). A sim that declares nothing is
// listed (entities and their fields) instead of drawn.
struct DrawHint {
  const char* position = nullptr;
  const char* x = nullptr;
  const char* y = nullptr;
  const char* radius = nullptr;
  const char* team = nullptr;
  const char* label = nullptr;
};

class Sim {
 public:
  virtual ~Sim() = default;

  virtual std::string_view name() const noexcept = 0;
  virtual std::uint32_t version() const noexcept = 0;
  // The per-player input struct, declared with LOCKSTEP_COMPONENT; its size is the
  // per-player input frame size. The schema hash (input_schema_hash) is derived from it.
  virtual const TypeDescriptor& input_type() const noexcept = 0;
  // Capacities the sim needs for `config`.
  virtual WorldConfig world_config(const SimConfig& config) const noexcept = 0;
  // Registers components and resources and declares systems, in a fixed order.
  virtual Status setup(World& world, SystemList& systems) const noexcept = 0;
  // Builds the initial state (tick 0) from config + seed. Called once, after setup.
  virtual Status init(World& world, const SimConfig& config) const noexcept = 0;
  // Writes the tick's inputs (players × input_type().size bytes, player order) into the
  // world, typically into a resource that systems read.
  virtual void apply_inputs(World& world, std::span<const std::byte> inputs) const noexcept = 0;
  // Optional: validates a config before anything is built (players/units ranges).
  virtual Status check_config(const SimConfig&) const noexcept { return Status::Ok(); }
  // Nominal ticks per second: the rate real-time players run the sim at (`lockstep peer`'s
  // default --tick-hz, the viewer's playback). Never part of the simulation or its hash.
  virtual std::uint32_t tick_hz() const noexcept { return 60; }
  // Optional: how the viewer draws this sim's entities (DrawHint above). Display only.
  virtual DrawHint draw_hint() const noexcept { return {}; }
  // A bot for `player`, deterministic in (seed, player, config).
  virtual std::unique_ptr<Bot> make_bot(const SimConfig& config, std::uint64_t seed,
                                        std::uint32_t player) const = 0;
};

// Process-wide list of sims the CLI can find by name (not simulation state).
void register_sim(const Sim& sim);
const Sim* find_sim(std::string_view name) noexcept;
std::span<const Sim* const> registered_sims() noexcept;
// Test and demo sims a tool accepts by name but never lists (lockstep's planted-bug sims,
// fixtures/planted/, registered only by the stock tool): find_sim does not see them,
// find_sim_including_hidden does (listed sims first). Idempotent by name.
void register_hidden_sim(const Sim& sim);
const Sim* find_sim_including_hidden(std::string_view name) noexcept;

// XXH3 of the input descriptor (type name, size, and each field's name, offset, element
// size, count and kind, canonical little-endian). Two builds agree iff their input layouts
// agree.
std::uint64_t input_schema_hash(const TypeDescriptor& input) noexcept;

}  // namespace lockstep::replay
