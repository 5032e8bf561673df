#pragma once
// The view state (view.h) as snapshot files carry it (format 2; docs/hashing.md, "View
// section"). A world's views are derived state — membership, the values compared against at
// the last update, the current Added/Removed/Modified lists and the change journal — that the
// state hash does not cover but a sim's future depends on. Files that carry it let a tool
// resume a recording of a sim with views from a checkpoint; files without it (format 1)
// still load and reset the views, as before.
//
// Layout: little-endian integers, no padding, no pointers:
//   u32 view count · u32 rescan flag (0/1) · u32 journal length J · 4 × u64 bits of the
//   components handed out column-wide · J × u32 journal slots (distinct) ·
//   per view: u32 stride, watched count W, member count, high slot H, added A, removed R,
//   modified M, fresh flag (0/1) · u64 tick of the last update · u64 updates ·
//   W × u32 watched component ids (ascending) · H × u32 member generations (0 = none) ·
//   H records of stride bytes (per watched component: a state byte 0 absent / 1 present /
//   2 disabled, then its value's canonical bytes) · (A + R + M) × (u32 slot, u32 generation).
// These are file-layer calls: they allocate.
#include <lockstep/status.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace lockstep {

class World;

// Canonical bytes of `world`'s view state; `out` is empty when it has no views (such a world
// is written as a format-1 file, byte for byte as before views were carried). A Snapshot's
// saved view state is not reachable here: files are written from the World.
Status encodeViewState(const World& world, std::vector<std::byte>& out);

// The largest view state `world`'s registered views can produce (0 without views): readers
// bound a file's view section by it.
std::size_t maxViewStateBytes(const World& world) noexcept;

// Checks view-state bytes without a world: every count against `slot_limit` (slot ids are
// below it) and the remaining bytes, every component id against `component_sizes` (the
// file's component sizes by id), the strides, flags, state bytes and generations, and the
// exact length. On failure `offset` is the byte offset inside `bytes` and the Status says
// what was wrong.
Status checkViewState(std::span<const std::byte> bytes, std::span<const std::uint32_t> component_sizes,
                      std::uint32_t slot_limit, std::uint64_t& offset);

// Loading a file's view section into a world, in two steps around World::load (which resets
// the views of any snapshot built from a file):
//   prepareViewState — before anything changes: checks `bytes` against `world`'s components,
//     capacities and registered views (count, watched components, record sizes) and converts
//     them to `host`; Corrupt with `offset` inside `bytes`, or Mismatch when the views differ;
//   restoreViewState — after World::load succeeded: installs `host`. Cannot fail.
Status prepareViewState(const World& world, std::span<const std::byte> bytes, std::vector<std::byte>& host,
                        std::uint64_t& offset);
void restoreViewState(World& world, std::span<const std::byte> host) noexcept;

}  // namespace lockstep
