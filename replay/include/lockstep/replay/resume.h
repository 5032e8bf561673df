#pragma once
// Resuming a match from another process's recording (docs/rollback.md, "Rejoin"): a restarted
// peer steps a fresh runner through the confirmed history it fetched from a survivor, checks
// every recorded hash on the way (a damaged or foreign history is refused at its first
// divergent tick), and writes the same frames, hashes and checkpoints into its own recorder, so
// that its recording comes out byte-identical to the survivor's once the match is over.
// File layer: allocates (never on a game's tick path).
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>

namespace lockstep::replay {

// `runner` must be at tick 0 with the history's sim and config (check_replay_sim). Brings it to
// tick history.frame_count(): from the newest checkpoint whose state hashes to the recorded
// hash of its tick (with the views' state when the sim has views), else from tick 0, stepping
// the rest and checking every recorded hash; the ticks before the checkpoint are copied into
// `recorder` verbatim (ReplayRecorder::append_recorded), not simulated. `recorder` (may be null) was opened with history.header; it gets
// the initial hash, every tick and a checkpoint every header.checkpoint_interval ticks, as
// RecorderSink writes them during a match. Errors name the tick and both hashes.
ReplayStatus resume_from_recording(Runner& runner, const Replay& history, ReplayRecorder* recorder);

}  // namespace lockstep::replay
