#pragma once
// Pictures of a state: entities as dots at their position, coloured by archetype, entities
// that differ in a diff highlighted in red with their first differing field as a label, the
// tick and the differing parts in the title. SVG written directly (integer coordinates in a
// 1000 × 1000 view box; no floating point).
//
// Which field is "the position" is a display annotation, not simulation state: a game marks
// it once with mark_position("Position", "p") (a vec2 or any fixed field with 1..3 elements;
// with one element the entity's slot is the second axis). capture()/decode_state() results
// get the marks through apply_position_marks(); bundles carry them as "position" facts.
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/state.h>

#include <string>
#include <string_view>
#include <vector>

namespace lockstep::inspect {

// Process-wide display annotation ("Type", "field"); idempotent.
void mark_position(std::string_view type, std::string_view field);
// The marks as "Type.field" strings (for bundle facts).
std::vector<std::string> position_marks();
// Sets Type::position_field on every type marked (by name) — from the registry, and from
// `extra` "Type.field" strings (e.g. a bundle's "position" facts).
void apply_position_marks(State& state, const std::vector<std::string>& extra = {});

// False (and `out` untouched) when no component of `state` has a marked position field.
bool render_svg(const State& state, const StateDiff* diff, std::string_view title, std::string& out);

}  // namespace lockstep::inspect
