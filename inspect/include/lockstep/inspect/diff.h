#pragma once
// Field-level diff of two states (the one implementation behind `lockstep diff`, verify,
// synctest, netsim and RollbackSession's desync bundles).
//
// Walk order — the order a desync hunter asks the questions in:
//   tick → schema (types present on one side or laid out differently) → entity table
//   (generations, liveness) → free-slot order → archetype structure → components (by
//   component id, then entity slot, then field, then array element) → resources (by id,
//   field, element).
// Every difference is counted; the first `limit` are kept in detail, and per-part totals
// summarise the rest ("Weapon: 2 fields on 2 entities").
#include <lockstep/inspect/state.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::inspect {

enum class DiffKind : std::uint8_t {
  Tick = 1,
  Schema = 2,       // a type on one side only, or with another layout
  Entity = 3,       // generation or liveness of a slot differs (one-sided entities)
  FreeList = 4,     // the free-slot reuse order differs
  Archetype = 5,    // an archetype's component set, or an entity's archetype, differs
  Component = 6,    // a component field of an entity present on both sides
  Resource = 7,     // a resource field
};
const char* to_string(DiffKind kind) noexcept;

struct DiffEntry {
  DiffKind kind = DiffKind::Tick;
  std::string part;          // component/resource name (Component, Resource, Schema)
  std::uint32_t slot = 0;    // Entity, Component, Archetype (entity)
  std::uint32_t generation = 0;
  std::string field;         // field name; "" for whole values
  // Array element (unit) index, or -1 for the whole field (single values, vec2/vec3).
  std::int64_t index = -1;
  std::string a, b;          // both values as printed by dump
  // "Weapon[95:1].cooldown", "Economy.gold[1]", "entity 7", "tick", ...
  std::string where() const;
};

struct PartCount {
  DiffKind kind = DiffKind::Tick;
  std::string part;          // name for Component/Resource/Schema, else the kind's name
  std::uint64_t differences = 0;
  std::uint64_t entities = 0;  // Component: distinct entities
};

struct DiffOptions {
  std::uint64_t limit = 50;  // entries kept in detail
};

struct StateDiff {
  std::uint64_t tick_a = 0, tick_b = 0;
  std::vector<DiffEntry> entries;  // the first `limit`, in walk order
  std::uint64_t total = 0;         // all differences found
  std::vector<PartCount> parts;    // walk order of first appearance
  bool equal() const noexcept { return total == 0; }
  bool truncated() const noexcept { return total > entries.size(); }
  const DiffEntry* first() const noexcept { return entries.empty() ? nullptr : &entries.front(); }
};

StateDiff diff(const State& a, const State& b, const DiffOptions& options = {});

// Text report:
//   tick 140 | tick 140
//   differs: Weapon (1 difference, 1 entity), Economy (1 difference)
//     Weapon[95:1].cooldown: 40 | 10
//     Economy.gold[1]: 120 | 124
//   (2 differences; all shown)
// `labels` names the sides in the first line when given ("peer 0 | peer 1").
std::string format_text(const StateDiff& d, const std::string& label_a = {}, const std::string& label_b = {});
// {"equal":false,"tick_a":..,"tick_b":..,"total":..,"truncated":..,"parts":[{"kind":..,"part":..,
//   "differences":..,"entities":..}],"entries":[{"kind":..,"where":..,"part":..,"slot":..,
//   "generation":..,"field":..,"index":..,"a":..,"b":..}]}
std::string format_json(const StateDiff& d);
// One line: "tick 140: Weapon[95:1].cooldown 40 | 10 (+2 more)" or "tick 140: equal".
std::string summary(const StateDiff& d);

}  // namespace lockstep::inspect
