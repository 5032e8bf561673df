// The completeness gate of `verify` and `run`: a replay without its END block is either an
// interrupted recording or a damaged file, so a CI gate that reads the exit code must not
// pass it by checking only the prefix that loaded. It is accepted only when asked for.
#include "common.h"

namespace lockstep::cli {

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

int require_complete(const Loaded& loaded, bool allow_partial, bool json) {
  if (loaded.replay.complete || allow_partial || ends_with(loaded.name, ".partial")) return kExitOk;
  return report_error(json, kExitBadInput,
                      loaded.name + ": incomplete replay (no END block: the recording was interrupted or the file is "
                                    "damaged); only ticks 0.." +
                          std::to_string(loaded.replay.frame_count()) +
                          " could be checked. Pass --allow-partial to check them anyway.");
}

}  // namespace lockstep::cli
