#pragma once
// Replay files, format v1 (byte-by-byte specification: docs/replay-format.md).
//
//   preamble  "LSREPLAY" · u32 format version (1) · u32 reserved (0)
//   block*    u32 kind · u32 body length · u64 first tick · body · u64 XXH3-64(kind..body)
//             kinds: HEAD (exactly one, first) · INPT input frames · HASH per-tick state hashes
//                    · CKPT snapshot checkpoint · END_ (clean close)
//
// Bodies are cereal PortableBinaryOutputArchive archives in little-endian mode, so files are
// byte-identical on every host. A file that lost its tail (a recorder killed mid-write) loads
// up to its last complete block with a warning. Every error names the file, the byte offset
// and, where one applies, the tick. Reading never trusts a length: each is checked against
// the bytes that remain and a fixed maximum before anything is allocated.
//
// These are file-layer calls: they allocate and use std::string (never on a tick path).
#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/sim.h>
#include <lockstep/status.h>
#include <lockstep/store/storage_view.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::replay {

inline constexpr char kReplayMagic[8] = {'L', 'S', 'R', 'E', 'P', 'L', 'A', 'Y'};
inline constexpr std::uint32_t kReplayFormatVersion = 1;

// Sane maxima, checked before allocating.
inline constexpr std::uint32_t kMaxBlockBody = 64u << 20;       // bytes of one block body
inline constexpr std::uint64_t kMaxReplayFileBytes = 1ull << 32;  // whole file (4 GiB)
inline constexpr std::uint64_t kMaxStreamedReplayBytes = 256ull << 20;  // from a pipe or device (256 MiB)
inline constexpr std::uint32_t kMaxBlockTicks = 4096;           // frames per INPT block
inline constexpr std::uint32_t kMaxSimName = 64;
inline constexpr std::uint32_t kMaxTypeName = 255;
inline constexpr std::uint32_t kMaxPlayers = 64;
inline constexpr std::uint32_t kMaxInputSize = 4096;
inline constexpr std::uint32_t kDefaultBlockTicks = 64;

enum ReplayFlags : std::uint32_t {
  kReplayHasHashes = 1u << 0,           // HASH blocks: total, entities, archetypes, resources
  kReplayHasComponentHashes = 1u << 1,  // ... plus one hash per component (needs kReplayHasHashes)
  kReplayHasCheckpoints = 1u << 2,      // CKPT blocks every checkpoint_interval ticks
};

struct ReplayHeader {
  std::string sim_name;
  std::uint32_t sim_version = 0;
  std::uint64_t input_schema = 0;  // input_schema_hash(sim.input_type())
  std::uint32_t input_size = 0;    // bytes of one player's input struct
  SimConfig config{};              // includes players and the world seed
  std::uint32_t block_ticks = kDefaultBlockTicks;
  std::uint32_t flags = 0;
  std::uint32_t checkpoint_interval = 0;  // ticks between CKPT blocks; 0 when none
  std::vector<std::string> components;    // names of the per-component hash columns

  std::uint32_t frame_bytes() const noexcept { return config.players * input_size; }
  bool has_hashes() const noexcept { return (flags & kReplayHasHashes) != 0; }
  bool has_component_hashes() const noexcept { return (flags & kReplayHasComponentHashes) != 0; }
  friend bool operator==(const ReplayHeader&, const ReplayHeader&) = default;
};

// Recorded hash of the state at `tick` (tick 0 = the initial state).
struct TickHash {
  std::uint64_t tick = 0;
  std::uint64_t total = 0;
  std::uint64_t entities = 0;
  std::uint64_t archetypes = 0;
  std::uint64_t resources = 0;
  friend bool operator==(const TickHash&, const TickHash&) = default;
};

struct Checkpoint {
  std::uint64_t tick = 0;
  std::vector<std::byte> snapshot;  // a snapshot file (lockstep/hash/snapshot_file.h)
  friend bool operator==(const Checkpoint&, const Checkpoint&) = default;
};

// A replay in memory.
struct Replay {
  ReplayHeader header;
  // frame_count() frames of header.frame_bytes() canonical (little-endian) bytes each;
  // frame t is applied to the world at tick t (producing tick t + 1).
  std::vector<std::byte> inputs;
  // hashes[t] is the state at tick t; empty without kReplayHasHashes; at most frames + 1.
  std::vector<TickHash> hashes;
  // hashes.size() × header.components.size(), row per tick.
  std::vector<std::uint64_t> component_hashes;
  std::vector<Checkpoint> checkpoints;  // ascending ticks
  bool complete = false;                // an END_ block was read (clean close)
  std::vector<std::string> warnings;    // e.g. truncation; filled by the readers

  std::uint64_t frame_count() const noexcept {
    const std::uint32_t fb = header.frame_bytes();
    return fb == 0 ? 0 : inputs.size() / fb;
  }
  std::span<const std::byte> frame(std::uint64_t t) const noexcept {
    const std::size_t fb = header.frame_bytes();
    return {inputs.data() + static_cast<std::size_t>(t) * fb, fb};
  }
  std::span<const std::uint64_t> components_at(std::uint64_t t) const noexcept {
    const std::size_t n = header.components.size();
    if (component_hashes.size() < (t + 1) * n) return {};
    return {component_hashes.data() + static_cast<std::size_t>(t) * n, n};
  }
  // Appends one recorded state hash (tick must be hashes.size()).
  void add_hash(const StateHash& h);
  friend bool operator==(const Replay& a, const Replay& b) noexcept {
    return a.header == b.header && a.inputs == b.inputs && a.hashes == b.hashes &&
           a.component_hashes == b.component_hashes && a.checkpoints == b.checkpoints && a.complete == b.complete;
  }
};

// Result of a file-layer call. `message` is complete ("FILE: byte N (tick T): what").
struct [[nodiscard]] ReplayStatus {
  ErrorCode code = ErrorCode::Ok;
  std::string message;
  std::uint64_t offset = 0;
  std::uint64_t tick = 0;
  bool has_tick = false;

  bool ok() const noexcept { return code == ErrorCode::Ok; }
  static ReplayStatus Ok() { return {}; }
};

// Why a call that reads or writes a replay file failed (open_replay, record_bots_to_file): the
// complete message, and the file layer's status when the failure was there.
struct Failure {
  std::string message;
  std::optional<ReplayStatus> file;
};

struct DecodeOptions {
  // The fuzzer turns this off to reach body parsing; never off for real files.
  bool verify_checksums = true;
};

// Fills a header for `sim` + `config` (components from a built world's schema when
// `component_hashes` is set).
ReplayHeader make_header(const Sim& sim, const SimConfig& config, const StorageView& schema, std::uint32_t flags,
                         std::uint32_t block_ticks = kDefaultBlockTicks, std::uint32_t checkpoint_interval = 0);

// ---- binary -----------------------------------------------------------------------------
// Encodes a whole replay exactly as ReplayRecorder would have written it.
ReplayStatus encode_replay(const Replay& replay, std::vector<std::byte>& out);
ReplayStatus decode_replay(std::span<const std::byte> bytes, Replay& out, std::string_view name = "<memory>",
                           DecodeOptions options = {});

// ---- JSON (cereal JSON archive; hand-made fixtures) ------------------------------------
ReplayStatus encode_replay_json(const Replay& replay, std::string& out);
ReplayStatus decode_replay_json(std::string_view text, Replay& out, std::string_view name = "<memory>");

// ---- files ------------------------------------------------------------------------------
// Reads a binary or JSON replay (sniffed from the first byte: '{' or whitespace = JSON).
ReplayStatus read_replay_file(const std::string& path, Replay& out);
// Writes via a fresh PATH.XXXXXX.tmp + rename (hash::write_file_atomically), so an existing
// file is replaced only by a complete one.
// JSON when `json` is set.
ReplayStatus write_replay_file(const std::string& path, const Replay& replay, bool json = false);
bool looks_like_json(std::span<const std::byte> bytes) noexcept;

// Checks that `replay` was recorded by this `sim` (name, version, input schema and size).
ReplayStatus check_replay_sim(const Replay& replay, const Sim& sim, std::string_view name = "<replay>");

// ---- streaming recorder -----------------------------------------------------------------
// Writes PATH.partial block by block, flushing after each block, and renames it to PATH on
// close(). PATH.partial is created exclusively, never through a symlink; when anything
// already exists under that name (a crashed recording, a planted link) it is left alone and
// PATH.XXXXXX.partial is used instead (partial_path() names it).
// A process killed mid-recording leaves that .partial file, which read_replay_file loads
// up to its last complete block (with a warning). PATH is inspected first
// (hash::inspect_destination): a symlink's target is what gets replaced, and a device or FIFO
// is written directly (partial_path() == its path, nothing renamed). Order of calls:
//   open(path, header) → [initial(hash0)] → { tick(frame, hash) [checkpoint(state)] }* → close()
// Decodes a replay that is still being written (a recorder's FILE.partial being followed, an
// HTTP Range stream): feed() the bytes in order as they arrive; every complete block is
// parsed at once and a block not complete yet waits for more, so replay() grows block by
// block. Errors are those of decode_replay (file = `name`, byte offset, tick) and are
// final. Bytes after the END block, or more than kMaxReplayFileBytes in all, are errors.
class ReplayStreamDecoder {
 public:
  explicit ReplayStreamDecoder(std::string name);
  ~ReplayStreamDecoder();
  ReplayStreamDecoder(const ReplayStreamDecoder&) = delete;
  ReplayStreamDecoder& operator=(const ReplayStreamDecoder&) = delete;

  ReplayStatus feed(std::span<const std::byte> more);
  const Replay& replay() const noexcept;  // the complete blocks so far
  bool has_header() const noexcept;       // the HEAD block was read
  bool complete() const noexcept;         // the END block was read
  std::uint64_t bytes_received() const noexcept;
  std::uint64_t bytes_parsed() const noexcept;  // offset of the first byte not yet in a block

 private:
  struct State;
  std::unique_ptr<State> state_;
};

class ReplayRecorder {
 public:
  ReplayRecorder() = default;
  ~ReplayRecorder();  // without close(): writes the complete blocks it has, leaves .partial
  ReplayRecorder(const ReplayRecorder&) = delete;
  ReplayRecorder& operator=(const ReplayRecorder&) = delete;

  ReplayStatus open(const std::string& path, const ReplayHeader& header);
  // Hash of the initial state (tick 0); required when the header has hashes.
  ReplayStatus initial(const StateHash& hash0);
  // One tick: its canonical input frame and the hash of the state after it (ignored when the
  // header has no hashes; may be null then).
  ReplayStatus tick(std::span<const std::byte> canonical_frame, const StateHash* after);
  // A checkpoint of the current state (its tick must be the number of frames so far). From a
  // StorageView: snapshot-file format 1; from a World: format 2 with the views' state when it
  // has views (docs/query.md, "Views in snapshot files"), so seeking can start there.
  ReplayStatus checkpoint(const StorageView& state);
  ReplayStatus checkpoint(const World& world);
  // Copies ticks [0, through) of a recording with the same header, verbatim: the initial hash,
  // frames, hashes with their component rows, and every checkpoint at a tick <= `through`, in
  // the order a recorder of that match wrote them, so the bytes come out as the original's. The
  // recorder must be fresh (nothing written yet). Used by resume_from_recording.
  ReplayStatus append_recorded(const Replay& from, std::uint64_t through);
  ReplayStatus close();

  const std::string& partial_path() const noexcept { return partial_; }
  std::uint64_t frames() const noexcept { return frames_; }
  std::uint64_t bytes_written() const noexcept { return written_; }

 private:
  ReplayStatus flush_pair();
  ReplayStatus write(const std::vector<std::byte>& bytes);
  ReplayStatus can_checkpoint(std::uint64_t tick) const;
  ReplayStatus add_checkpoint(Checkpoint cp);

  std::FILE* file_ = nullptr;
  std::string path_;
  std::string partial_;
  ReplayHeader header_;
  Replay pending_;  // frames/hashes of the block being filled, and queued checkpoints
  std::uint64_t frames_ = 0;
  std::uint64_t pair_start_ = 0;
  std::uint64_t last_total_ = 0;
  std::uint64_t written_ = 0;
  std::uint64_t head_bytes_ = 0;  // preamble and header: what a fresh recorder has written
  std::uint64_t hashes_ = 0;
  bool hash0_written_ = false;
  bool direct_ = false;  // writing a device/FIFO in place
};

}  // namespace lockstep::replay
