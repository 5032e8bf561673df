// The stock `lockstep` tool: the fixtures' sims plus the skirmish recording as the default
// replay, handed to the CLI library. A game's own tool is the same few lines
// (docs/cli.md, "Your own tool").
#include <lockstep/cli/cli.h>
#include <lockstep/fixtures/fixtures.h>

#include <cstddef>
#include <span>

namespace lockstep::cli {
// embedded_replay.cpp, generated at build time from fixtures/skirmish/skirmish.replay.
extern const unsigned char kEmbeddedReplay[];
extern const std::size_t kEmbeddedReplaySize;
extern const char kEmbeddedReplayName[];
}  // namespace lockstep::cli

int main(int argc, char** argv) {
  lockstep::fixtures::register_builtin_sims();
  lockstep::cli::ToolInfo tool;
  tool.name = "lockstep";
  tool.default_replay = std::span<const std::byte>(reinterpret_cast<const std::byte*>(lockstep::cli::kEmbeddedReplay),
                                                   lockstep::cli::kEmbeddedReplaySize);
  tool.default_replay_name = lockstep::cli::kEmbeddedReplayName;
  return lockstep::cli::main(argc, argv, tool);
}
