#pragma once
// Opening a recording for replay: read (or decode) it, find the sim it was recorded with
// among the sims registered in this process (hidden test sims included) and check that sim
// still matches the recording (version, input schema). What every tool and test that
// replays a file does first; failure messages are complete sentences naming the file.
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/sim.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace lockstep::replay {

struct OpenedReplay {
  std::string name;  // the path, or the name given with the bytes
  Replay replay;
  const Sim* sim = nullptr;
  bool decoded = false;  // the file itself was read: replay.warnings are meaningful even on failure
};

// `file`: the file layer's status, when reading or checking failed there.
using OpenFailure = Failure;

bool open_replay(const std::string& path, OpenedReplay& out, OpenFailure& why);
bool open_replay(std::span<const std::byte> bytes, const std::string& name, OpenedReplay& out, OpenFailure& why);

// The registered sims by name, "skirmish, duel", or "(none built in)".
std::string describe_registered_sims();

}  // namespace lockstep::replay
