#pragma once
// Snapshot files: a world's complete state (or a Snapshot's) on disk, byte-identical on every
// host. Written with cereal's PortableBinaryOutputArchive in little-endian mode; the exact
// layout is in docs/hashing.md ("Snapshot files"):
//   header (magic, format version) · schema (component and resource names, sizes, fields) ·
//   state (tick, entity table, free slots, archetypes with rows and columns, resources) ·
//   XXH3-64 checksum of everything before it.
// Reading maps the file's schema onto the target world's ids by name and validates every
// length before allocating; errors say what was wrong and where (file, byte offset).
// These are file-layer calls (not a hot path): they allocate and may use std::string.
#include <lockstep/store/snapshot.h>
#include <lockstep/status.h>
#include <lockstep/store/storage_view.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep {

class World;

inline constexpr std::uint32_t kSnapshotFileVersion = 1;
inline constexpr char kSnapshotFileMagic[8] = {'L', 'S', 'S', 'N', 'A', 'P', '\r', '\n'};

// Result of a file-layer call: an ErrorCode plus a message naming the file and byte offset.
struct [[nodiscard]] FileStatus {
  ErrorCode code = ErrorCode::Ok;
  std::string message;       // empty when ok
  std::uint64_t offset = 0;  // byte offset of the problem in the file (0 when not applicable)

  bool ok() const noexcept { return code == ErrorCode::Ok; }
  static FileStatus Ok() { return {}; }
};

// ---- writing ----------------------------------------------------------------------------
// Encodes `state` (a world's storage() or a snapshot's view()) into `out` (replaced).
FileStatus encode_snapshot(const StorageView& state, std::vector<std::byte>& out);
// Encodes and writes to `path` via a new `<path>.XXXXXX.tmp` + rename (an existing file is replaced only
// when the new one is complete).
FileStatus write_snapshot_file(const std::string& path, const StorageView& state);
FileStatus write_snapshot_file(const std::string& path, const World& world);
FileStatus write_snapshot_file(const std::string& path, const Snapshot& snapshot);

// ---- reading ----------------------------------------------------------------------------
// Decodes file bytes into host-order parts whose ids are `target`'s ids. `name` is used in
// messages. Checks: size bound from target's capacities, checksum, every length against the
// remaining bytes, structure, and schema equality by name (Mismatch names type and field).
FileStatus decode_snapshot(std::span<const std::byte> bytes, const World& target, SnapshotParts& out,
                           std::string_view name = "<memory>");
FileStatus read_snapshot_file(const std::string& path, const World& target, SnapshotParts& out);
// decode → scratch.assign(world, parts) → world.load(scratch). On any error `world` is
// unchanged (World::load validates untrusted snapshots completely before changing state).
FileStatus load_snapshot_bytes(std::span<const std::byte> bytes, World& world, Snapshot& scratch,
                               std::string_view name = "<memory>");
FileStatus load_snapshot_file(const std::string& path, World& world, Snapshot& scratch);

// Largest file (bytes) that could hold a state of `target` (its capacities and schema).
// Reading rejects larger files before allocating.
std::uint64_t max_snapshot_file_size(const World& target) noexcept;

}  // namespace lockstep
