#pragma once
// Watching a match from its live recording (docs/rollback.md, "Spectators at scale").
//
// A peer's recorder writes the confirmed match as an append-only block file, flushed block by
// block, with checkpoints every N ticks (`lockstep peer --record FILE --checkpoint-every N`).
// Any number of watchers can follow that file — from the disk, or over HTTP from any static
// web server or CDN that serves it with Range requests — without the players sending them
// anything: ReplayFollower reads what a ByteSource has, starts at the newest checkpoint (or
// a chosen tick, or tick 0), simulates the recorded inputs, checks every tick's state hash
// against the recording, and stays a chosen number of ticks behind the newest recorded one.
// File layer: allocates (never on a game's tick path).
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace lockstep::replay {

// Where the bytes of a growing recording come from.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to out.size() bytes at `offset` (the bytes already read end there). Returns
  // the count (0: nothing new yet), or an error (unreadable, the source shrank, ...).
  virtual ReplayStatus read(std::uint64_t offset, std::span<std::byte> out, std::size_t& got) = 0;
  virtual std::string describe() const = 0;
};

// A local file that may still be written: PATH, or while it does not exist PATH.partial (a
// recorder's file before close; the open handle keeps reading it after the rename).
class GrowingFileSource final : public ByteSource {
 public:
  explicit GrowingFileSource(std::string path);
  ~GrowingFileSource() override;
  ReplayStatus read(std::uint64_t offset, std::span<std::byte> out, std::size_t& got) override;
  std::string describe() const override;

 private:
  std::string path_, opened_;
  std::FILE* file_ = nullptr;
};

struct FollowOptions {
  enum class Start : std::uint8_t {
    NewestCheckpoint,  // the newest checkpoint in the recording when it is first read (else tick 0)
    Tick,              // `tick`: loaded from the newest checkpoint at or before it, then stepped
    Beginning,         // tick 0
  };
  Start start = Start::NewestCheckpoint;
  std::uint64_t tick = 0;
  // Stay this many ticks behind the newest recorded tick while the recording grows (a
  // broadcast delay); once it is complete, play to its end.
  std::uint64_t delay_ticks = 0;
  // Ticks simulated per poll() at most (catch-up speed).
  std::uint32_t max_ticks_per_poll = 256;
};

// Sets `o.start` (and `o.tick`) from its text form (`spectate --from`): "checkpoint" or
// "newest" (the newest checkpoint), "begin" or "0" (tick 0), or a tick number of at most 19
// digits. False (nothing changed) for anything else.
bool parse_follow_start(const std::string& text, FollowOptions& o);

class ReplayFollower {
 public:
  // `find_sim` maps the recording's sim name to a sim of this build (null: unknown).
  ReplayFollower(std::function<const Sim*(std::string_view)> find_sim, FollowOptions options,
                 std::string name = "stream");
  ~ReplayFollower();
  ReplayFollower(const ReplayFollower&) = delete;
  ReplayFollower& operator=(const ReplayFollower&) = delete;

  // Reads what `source` has (bounded), parses the complete blocks, then simulates what the
  // delay allows, checking each tick's hash. Errors: the source's, the recording's (file,
  // byte offset, tick), an unknown sim, a state that differs from the recording (tick, both
  // totals) — final.
  ReplayStatus poll(ByteSource& source);

  bool started() const noexcept;   // the start point is chosen and the world built
  bool finished() const noexcept;  // the recording is complete and its last tick simulated
  std::uint64_t start_tick() const noexcept;  // where watching began (a checkpoint, or 0)
  std::uint64_t tick() const noexcept;        // the world's tick now
  std::uint64_t recorded_ticks() const noexcept;  // frames in the recording so far
  std::uint64_t checked_ticks() const noexcept;   // ticks whose hash was compared
  const Replay& recording() const noexcept;
  const Runner* runner() const noexcept;  // null before started()

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lockstep::replay
