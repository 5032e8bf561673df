#pragma once
// Snapshot files of a World together with its views' state (format 2; docs/hashing.md,
// "Snapshot files", and docs/query.md, "Views in snapshot files"). encode_snapshot and
// write_snapshot_file(StorageView / Snapshot) see only what a StorageView shows and write
// format 1; a World also knows its views. load_snapshot_bytes / load_snapshot_file restore
// the views of a format-2 file and reset them for a format-1 one.
#include <lockstep/hash/snapshot_file.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace lockstep {

class World;

// Files that carry the view state (written only for a World with views).
inline constexpr std::uint32_t kSnapshotFileVersionViews = 2;

// `world` → snapshot-file bytes: format 2 with its view state when it has views, else
// format 1 (the bytes encode_snapshot(world.storage()) writes).
FileStatus encode_world_snapshot(const World& world, std::vector<std::byte>& out);

// The format version a snapshot file's header names, or 0 when `bytes` do not start like one.
// Unchecked (no checksum): for choosing among checkpoints — a sim with views resumes only from
// format-2 ones; decoding still checks everything.
std::uint32_t snapshot_file_version(std::span<const std::byte> bytes) noexcept;

}  // namespace lockstep
