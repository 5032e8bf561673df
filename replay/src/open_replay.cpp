// Opening a recording with its sim (open_replay.h).
#include <lockstep/replay/open_replay.h>

#include "replay_io.h"

namespace lockstep::replay {

namespace {

bool resolve_sim(OpenedReplay& out, OpenFailure& why) {
  out.sim = find_sim_including_hidden(out.replay.header.sim_name);
  if (out.sim == nullptr) {
    why.message = out.name + ": recorded with sim '" + replay_detail::printable_name(out.replay.header.sim_name) +
                  "', which this build does not have (known: " + describe_registered_sims() + ")";
    return false;
  }
  ReplayStatus st = check_replay_sim(out.replay, *out.sim, out.name);
  if (!st.ok()) {
    why.message = st.message;
    why.file = std::move(st);
    return false;
  }
  return true;
}

bool decoded(ReplayStatus st, OpenedReplay& out, OpenFailure& why) {
  if (!st.ok()) {
    why.message = st.message;
    why.file = std::move(st);
    return false;
  }
  out.decoded = true;
  return resolve_sim(out, why);
}

}  // namespace

bool open_replay(const std::string& path, OpenedReplay& out, OpenFailure& why) {
  out.name = path;
  return decoded(read_replay_file(path, out.replay), out, why);
}

bool open_replay(std::span<const std::byte> bytes, const std::string& name, OpenedReplay& out, OpenFailure& why) {
  out.name = name;
  return decoded(decode_replay(bytes, out.replay, out.name), out, why);
}

std::string describe_registered_sims() {
  std::string s;
  for (const Sim* sim : registered_sims()) {
    if (!s.empty()) s += ", ";
    s += sim->name();
  }
  return s.empty() ? std::string("(none built in)") : s;
}

}  // namespace lockstep::replay
