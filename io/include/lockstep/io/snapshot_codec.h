#pragma once
// The snapshot-file codec: the ONE reader and the ONE writer of the format (docs/hashing.md,
// "Snapshot files"). hash/ loads the decoded image into a World (snapshot_file.h) and
// inspect/ turns it into a walkable State (inspect/state.h); both go through this file, so
// what one side writes the other reads by the same code.
//
// A SnapshotImage is the file's content with nothing resolved: the file's own schema (names,
// sizes, field lists in file id order), the state with every value as canonical
// little-endian bytes, and the view section (format 2) as its canonical bytes.
//   format 1: header · schema · state · XXH3-64 checksum
//   format 2: the same with a view section (view_state.h) between state and checksum,
//             written only for a World that has views, so files of sims without views are
//             byte-identical to those older builds wrote.
// Decoding checks every length against the bytes that remain (and the caller's limits)
// before anything is allocated; errors name the file, the byte offset and what was
// expected. These are file-layer calls: they allocate and use std::string.
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
}  // namespace lockstep

namespace lockstep::io {

// The base format; also the version of every file without a view section
// (= kSnapshotFileVersion of <lockstep/hash/snapshot_file.h>).
inline constexpr std::uint32_t kSnapshotVersion = 1;
// Files that carry the view state (written only for a World with views).
inline constexpr std::uint32_t kSnapshotVersionViews = 2;
inline constexpr char kSnapshotMagic[8] = {'L', 'S', 'S', 'N', 'A', 'P', '\r', '\n'};

// What a codec call returns; hash/ and inspect/ hand it on as their FileStatus.
struct [[nodiscard]] CodecStatus {
  ErrorCode code = ErrorCode::Ok;
  std::string message;       // "<file>: byte <offset>: <what>"; empty when ok
  std::uint64_t offset = 0;  // byte offset of the problem
  bool ok() const noexcept { return code == ErrorCode::Ok; }
};

struct SnapshotField {
  std::string name;
  std::uint32_t offset = 0;
  std::uint16_t element_size = 0;  // 1, 2, 4 or 8
  std::uint16_t count = 0;
  std::uint8_t kind = 0;           // FieldKind, 1..5
  friend bool operator==(const SnapshotField&, const SnapshotField&) = default;
};

struct SnapshotType {
  std::string name;
  std::uint32_t size = 0;
  std::vector<SnapshotField> fields;  // tile [0, size) in order
  std::uint64_t at = 0;               // byte offset of the entry in the file (decoding only)
};

struct SnapshotArchetype {
  std::vector<std::uint32_t> components;        // ascending file component ids
  std::vector<std::uint32_t> slots;             // ascending live slots
  std::vector<std::vector<std::byte>> columns;  // per component: rows × size canonical bytes
};

struct SnapshotImage {
  std::uint32_t version = kSnapshotVersion;  // decoding: the file's; encoding: derived from has_views
  std::vector<SnapshotType> components;          // file id order
  std::vector<SnapshotType> resources;
  std::uint64_t tick = 0;
  std::vector<std::uint32_t> generations;        // per slot ever used
  std::vector<std::uint8_t> alive;               // per slot ever used, 0 or 1
  std::vector<std::uint32_t> free_slots;         // reuse order
  std::vector<SnapshotArchetype> archetypes;     // [0] is component-less
  std::vector<std::vector<std::byte>> resource_values;  // canonical bytes per resource
  bool has_views = false;                        // a view section (format 2)
  std::vector<std::byte> views;                  // its canonical bytes (view_state.h)
  std::uint64_t views_at = 0;                    // byte offset of the section (decoding only)
};

// Bounds from the reader's target, checked where the counts are read (before allocating):
// exceeding one is CapacityExceeded at the count's offset.
struct SnapshotLimits {
  std::uint32_t max_slots = 0xFFFFFFFFu;
  std::uint32_t max_archetypes = 256;
};

// File bytes → image. `verify_checksum` = false only for fuzzers (to reach the body parser),
// never for files.
CodecStatus decode_snapshot_image(std::span<const std::byte> bytes, SnapshotImage& out, std::string_view name = "<memory>",
                                 const SnapshotLimits& limits = {}, bool verify_checksum = true);

// Image → file bytes (`out` replaced). Format 2 when has_views, else format 1.
void encode_snapshot_image(const SnapshotImage& image, std::vector<std::byte>& out);

// A live world's storage() or a snapshot's view() → image (canonical bytes), without view
// state: a StorageView does not reach it. InvalidArgument for states a file cannot hold:
// types whose fields do not tile them, disabled components or change-tracked components.
CodecStatus snapshot_image_of(const StorageView& state, SnapshotImage& out);
// A World → image with its view state (encodeViewState), so format 2 when it has views.
CodecStatus snapshot_image_of(const World& world, SnapshotImage& out);

// The format version a snapshot file's header names, or 0 when `bytes` do not start like one.
// Unchecked (no checksum): for choosing among checkpoints, e.g. skipping format-1 ones (no
// view state) for a sim with views; decoding still checks everything.
std::uint32_t snapshot_file_version(std::span<const std::byte> bytes) noexcept;

// The XXH3-64 checksum that ends every snapshot file.
std::uint64_t snapshot_checksum(std::span<const std::byte> body) noexcept;

}  // namespace lockstep::io
