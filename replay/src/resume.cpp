#include <lockstep/replay/resume.h>

#include <lockstep/hash/world_snapshot.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/query/view.h>

#include "replay_io.h"

#include <cstdio>
#include <vector>

namespace lockstep::replay {

namespace {
std::string hex(std::uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

bool has_views(const Checkpoint& cp) noexcept { return snapshot_file_version(cp.snapshot) == kSnapshotFileVersionViews; }

// The newest checkpoint that can start the run: a recorded hash at its tick to check it against
// (a recording without hashes is stepped from tick 0), and the views' state when the sim has
// views (a format-1 checkpoint would reset them: docs/query.md, "Views in snapshot files").
// Loads it into `runner` and sets `start` to its tick; leaves both alone when there is none.
ReplayStatus load_newest_checkpoint(Runner& runner, const Replay& history, bool hashes, std::uint64_t& start) {
  using replay_detail::fail_tick;
  const bool views = viewCount(runner.world()) != 0;
  const Checkpoint* best = nullptr;
  for (const Checkpoint& cp : history.checkpoints)
    if (hashes && cp.tick > 0 && cp.tick <= history.frame_count() && cp.tick < history.hashes.size() &&
        (!views || has_views(cp)))
      best = &cp;
  if (best == nullptr) return ReplayStatus::Ok();
  const std::string where = "history checkpoint at tick " + std::to_string(best->tick);
  Snapshot scratch(runner.world());
  if (const FileStatus fs = load_snapshot_bytes(best->snapshot, runner.world(), scratch, where); !fs.ok())
    return fail_tick(ErrorCode::Mismatch, "history", fs.offset, best->tick, fs.message);
  const std::uint64_t loaded = runner.rehash().total;
  if (loaded != history.hashes[best->tick].total)
    return fail_tick(ErrorCode::Mismatch, "history", 0, best->tick,
                     "the checkpoint's state differs from the recorded hash: hash " + hex(loaded) + ", recorded " +
                         hex(history.hashes[best->tick].total));
  start = best->tick;
  return ReplayStatus::Ok();
}
}  // namespace

ReplayStatus resume_from_recording(Runner& runner, const Replay& history, ReplayRecorder* recorder) {
  using replay_detail::fail_tick;
  const std::string_view name = "history";
  if (ReplayStatus st = check_replay_sim(history, runner.sim(), name); !st.ok()) return st;
  if (runner.world().tick() != 0) return fail_tick(ErrorCode::InvalidArgument, name, 0, 0, "the runner is not at tick 0");
  if (history.header.frame_bytes() != runner.frame_bytes())
    return fail_tick(ErrorCode::Mismatch, name, 0, 0, "its input frames do not match this sim's players and input size");
  const bool hashes = history.header.has_hashes() && !history.hashes.empty();
  if (hashes && history.hashes[0].total != runner.hash().total)
    return fail_tick(ErrorCode::Mismatch, name, 0, 0,
                     "the initial state differs: hash " + hex(runner.hash().total) + ", recorded " + hex(history.hashes[0].total));
  // Start at the newest checkpoint whose state hashes to what the survivors confirmed; the
  // ticks before it are copied, not simulated. Its hash is checked before anything is copied.
  std::uint64_t start = 0;
  if (ReplayStatus st = load_newest_checkpoint(runner, history, hashes, start); !st.ok()) return st;
  if (recorder != nullptr) {
    if (start > 0) {
      if (ReplayStatus st = recorder->append_recorded(history, start); !st.ok()) return st;
    } else if (ReplayStatus st = recorder->initial(runner.hash()); !st.ok()) {
      return st;
    }
  }
  const std::uint32_t every = history.header.checkpoint_interval;
  const TypeDescriptor& input = runner.sim().input_type();
  std::vector<std::byte> frame(runner.frame_bytes());
  Snapshot checkpoint(runner.world());
  for (std::uint64_t t = start; t < history.frame_count(); ++t) {
    const std::span<const std::byte> canonical = history.frame(t);
    Runner::copy_to_host(input, canonical, frame);
    if (Status st = runner.step(frame); !st.ok())
      return fail_tick(ErrorCode::Mismatch, name, 0, t, std::string("the sim refused the tick: ") + st.message());
    const StateHash& after = runner.hash();
    if (hashes && t + 1 < history.hashes.size() && history.hashes[t + 1].total != after.total)
      return fail_tick(ErrorCode::Mismatch, name, 0, t + 1,
                       "the replayed state differs from the recording: hash " + hex(after.total) + ", recorded " +
                           hex(history.hashes[t + 1].total));
    if (recorder == nullptr) continue;
    if (ReplayStatus st = recorder->tick(canonical, &after); !st.ok()) return st;
    if (every != 0 && (t + 1) % every == 0) {
      runner.world().save(checkpoint);
      if (ReplayStatus st = recorder->checkpoint(checkpoint.view()); !st.ok()) return st;
    }
  }
  return ReplayStatus::Ok();
}

}  // namespace lockstep::replay
