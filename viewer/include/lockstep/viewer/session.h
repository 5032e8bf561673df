#pragma once
// viewer::Session — what the browser page asks the wasm module (docs/viewer.md).
//
// One loaded file at a time: a replay (binary or JSON), a desync bundle or a snapshot file,
// given as bytes. Answers are JSON text, so the same code is exercised natively by the unit
// tests and behind the three C functions the wasm module exports (src/wasm/bindings.cpp).
//
//   load(bytes, name) → {"ok":true,"kind":"replay"|"bundle"|"snapshot","name":..,"sim":..,
//                        "first_tick":..,"last_tick":..,"tick_hz":..,"checkpoints":[..],..}
//                       or {"ok":false,"error":"<file>: byte N: what"}
//   seek(tick)        → the frame: {"ok":true,"tick":..,"sides":[side..],"diverged":[slots],
//                        "diff":{...format_json...}} — replays re-simulate from the nearest
//                       checkpoint at or before `tick` (or keep stepping forward); bundles and
//                       snapshots have one fixed frame (tick ignored).
//   entity(side, slot)→ {"ok":true,"slot":..,"generation":..,"archetype":..,"components":
//                        [{"name":..,"fields":[{"name":..,"value":..,"differs":bool}]}]}
//
// A side: {"label":..,"tick":..,"hash":{"total":"16 hex",..,"components":[{"name","hash"}]}
// (replays: computed by the runner, plus "recorded" when the replay holds the tick's hash;
// bundles: the side's recorded breakdown), "position":"Type.field" or null, and "entities":
// [[slot, generation, archetype, x_raw, y_raw, team], ...] — positions as raw 48.16 fixed
// values (the page divides for display), team = the entity's owner/team/player field or -1.
// Since 0.3: every live entity is listed; x/y are null where nothing is drawn. Positions and
// team come from the sim's replay::DrawHint (a vec2 field or two scalar fields), else the
// legacy inspect::mark_position annotation; the side also carries "radii" and "labels"
// (arrays alongside "entities", or null when the hint declares none) and "draw_problem" (a
// declared hint that does not fit the state).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace lockstep::viewer {

class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  std::string load(std::span<const std::byte> bytes, std::string_view name);
  std::string seek(std::uint64_t tick);
  std::string entity(std::uint32_t side, std::uint32_t slot) const;
  // Every live entity's field values at the current frame, compactly (what a self-contained
  // page embeds instead of one entity() answer per entity): {"ok":true,"tick":..,"schema":
  // [{"<archetype>":[[component,[field..]]..]} per side],"sides":[[[value..] per entity, in
  // the frame's entities order] per side]}. Values are printed as entity() prints them.
  std::string details() const;
  // Replays: steps the recording once and keeps in-memory checkpoints (snapshot bytes, at
  // most `max_bytes`, at least 16 ticks apart) beside the file's own, so that any later seek
  // re-simulates at most one interval — what `view --serve` does before it listens. Not for a
  // sim with views (snapshots do not carry view state; such a sim is stepped as before).
  // Returns "" or the error; no-op for bundles and snapshots.
  std::string index(std::uint64_t max_bytes);
  // The last load/seek error as plain text ("" after a success).
  const std::string& error() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lockstep::viewer
