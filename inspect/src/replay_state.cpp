// States of a recording at a tick (replay_state.h).
#include <lockstep/inspect/replay_state.h>

#include <lockstep/hash/world_snapshot.h>
#include <lockstep/query/view.h>

#include <algorithm>
#include <vector>

namespace lockstep::inspect {

namespace {
bool checkpoint_has_views(const replay::Checkpoint& cp) noexcept {
  return snapshot_file_version(cp.snapshot) == kSnapshotFileVersionViews;
}

FileStatus error(ErrorCode code, std::string_view name, const std::string& what, std::uint64_t offset = 0) {
  FileStatus st;
  st.code = code;
  st.offset = offset;
  st.message = std::string(name) + ": " + what;
  return st;
}
}  // namespace

FileStatus advance_to(replay::Runner& runner, const replay::Replay& r, std::uint64_t tick, std::string_view name) {
  const std::uint64_t last = r.frame_count();
  if (tick > last)
    return error(ErrorCode::Mismatch, name, "tick " + std::to_string(tick) + ": expected a tick in 0.." + std::to_string(last) +
                                                " (the recording's last tick)");
  if (runner.tick() > tick)
    return error(ErrorCode::InvalidArgument, name, "the runner is already past tick " + std::to_string(tick));
  // The last checkpoint at or before `tick`, if it saves steps. A sim with views needs the
  // view state too (a view reset by a load reports every member as Added at its next update,
  // so the sim would not continue as recorded): a checkpoint without it (format 1, from an
  // older recorder) is skipped and the sim stepped from where the runner is — exact, slower.
  const replay::Checkpoint* best = nullptr;
  const bool views = viewCount(runner.world()) != 0;
  for (const replay::Checkpoint& cp : r.checkpoints)
    if (cp.tick <= tick && cp.tick > runner.tick() && (!views || checkpoint_has_views(cp))) best = &cp;
  if (best != nullptr) {
    Snapshot scratch(runner.world());
    const FileStatus fs = load_snapshot_bytes(best->snapshot, runner.world(), scratch,
                                              std::string(name) + " checkpoint at tick " + std::to_string(best->tick));
    if (!fs.ok()) return fs;
    (void)runner.rehash();
  }
  std::vector<std::byte> frame(r.header.frame_bytes());
  const TypeDescriptor& input = runner.sim().input_type();
  while (runner.tick() < tick) {
    replay::Runner::copy_to_host(input, r.frame(runner.tick()), frame);
    const Status s = runner.step(frame);
    if (!s.ok())
      return error(s.code(), name, "tick " + std::to_string(runner.tick()) + ": the sim rejected the frame: " + s.message());
  }
  return FileStatus::Ok();
}

FileStatus state_at_tick(const replay::Sim& sim, const replay::Replay& r, std::uint64_t tick, State& out,
                         std::string_view name) {
  replay::Runner runner(sim, r.header.config);
  if (!runner.status().ok())
    return error(runner.status().code(), name, std::string("cannot build the sim: ") + runner.status().message());
  FileStatus st = advance_to(runner, r, tick, name);
  if (!st.ok()) return st;
  out = capture(runner.world().storage());
  return FileStatus::Ok();
}

}  // namespace lockstep::inspect
