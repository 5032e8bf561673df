#pragma once
// lockstep::cli — every `lockstep` subcommand as a library, so a game builds its own tool
// (docs/cli.md, "Your own tool"). A tool registers its sims (replay::register_sim) and
// calls lockstep::cli::main; the stock `lockstep` binary is built exactly this way from the
// fixtures (lockstep_add_tool in cli/CMakeLists.txt; docs/embedding.md).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace lockstep::cli {

struct ToolInfo {
  // Program name shown in usage and messages.
  std::string_view name = "lockstep";
  // The replay `run`/`info` use when given none (e.g. a recording compiled into the tool);
  // empty: those subcommands require a replay argument.
  std::span<const std::byte> default_replay{};
  // How the default replay is named in messages, e.g. "<embedded>/skirmish.replay".
  std::string_view default_replay_name = "<embedded>";
  // Counts the process's heap allocations so far (lockstep::alloc_counter, linked by
  // lockstep_add_tool); null: `bench` says allocations were not counted.
  std::uint64_t (*heap_allocations)() noexcept = nullptr;
};

// Parses argv and runs one subcommand. Returns the process exit code: 0 ok, 1 mismatch or
// desync found, 2 bad input or usage.
int main(int argc, char** argv, const ToolInfo& tool = {});

}  // namespace lockstep::cli
