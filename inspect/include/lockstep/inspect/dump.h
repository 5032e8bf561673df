#pragma once
// State dumps: every entity (slot:gen, archetype) with every component field by field, and
// every resource, with the descriptors' names; fixed-point as exact decimals. Text (one
// field per line, greppable) or JSON (fixed as exact decimal strings, integers as numbers).
#include <lockstep/inspect/state.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::inspect {

struct DumpFilter {
  // Component or resource names to show (empty: all).
  std::vector<std::string> types;
  // Entities to show, "SLOT" or "SLOT:GEN" (empty: all). With a filter, resources are shown
  // only when `types` names them.
  std::vector<std::string> entities;
  // Field names, "field" or "Type.field" (empty: all).
  std::vector<std::string> fields;
  bool resources = true;  // false: entities only
  // A query-language condition (dump --where, inspect/query.h) already evaluated: when set,
  // only entities whose slot is in `where_slots` (ascending) are shown, and resources only
  // when `types` names them.
  bool where = false;
  std::vector<std::uint32_t> where_slots;
};

// Parses "12" or "12:3"; false on anything else.
bool parse_entity(std::string_view text, std::uint32_t& slot, std::uint32_t& generation, bool& has_generation);

// Text:
//   tick 300
//   entities 990 live, 1000 slots; free (reuse order): 17 4 ...
//   archetype 1: Position Team Selected Order Weapon Health (990 rows)
//   entity 0:1 archetype 1
//     Position.p = [12.5, 3.25]
//     ...
//   resource Economy
//     Economy.gold = [120, 80]
std::string dump_text(const State& state, const DumpFilter& filter = {});
// JSON object: {"tick":..,"slots":..,"live":..,"free_slots":[..],"archetypes":[..],
//   "entities":[{"entity":"0:1","slot":0,"generation":1,"archetype":1,
//                "components":{"Position":{"p":["12.5","3.25"]}}}],
//   "resources":{"Economy":{"gold":[120,80]}}}
std::string dump_json(const State& state, const DumpFilter& filter = {});

// Appends `s` as a JSON string literal (quotes, escapes).
void append_json_string(std::string& out, std::string_view s);

}  // namespace lockstep::inspect
