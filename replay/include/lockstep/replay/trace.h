#pragma once
// Traces: the per-tick state-hash stream as text that diffs well (docs/replay-format.md,
// "Trace format"). One line per tick:
//
//   <tick> <total> [entities=<hex> archetypes=<hex> resources=<hex> <Component>=<hex> ...]
//
// Hashes are 16 lowercase hex digits. Lines starting with '#' are comments (the first one
// names the sim and config). Ticks ascend from 0 (the initial state) without gaps.
// File-layer code: allocates freely.
#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/store/storage_view.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lockstep::replay {

struct TraceLine {
  std::uint64_t tick = 0;
  std::uint64_t total = 0;
  std::vector<std::pair<std::string, std::uint64_t>> parts;  // in line order
  std::uint64_t line_number = 0;                             // 1-based, in the parsed file
};

struct Trace {
  std::vector<std::string> comments;
  std::vector<TraceLine> lines;
};

// "# lockstep trace v1 sim=NAME version=V players=P units=U seed=S"
std::string trace_comment(const ReplayHeader& header);
// Appends one line (with '\n') for `h`; component names from `schema`.
void append_trace_line(std::string& out, const StateHash& h, const StorageView& schema, bool components);
// Same for a recorded hash (components named by the header).
void append_trace_line(std::string& out, const Replay& replay, std::uint64_t tick, bool components);

inline constexpr std::uint64_t kMaxTraceBytes = 1ull << 30;

ReplayStatus parse_trace(std::string_view text, Trace& out, std::string_view name = "<trace>");
ReplayStatus read_trace_file(const std::string& path, Trace& out);

// Compares a computed hash against a golden line. Returns the names that differ ("total",
// "tick", "entities", ..., component names); empty when the line matches. Parts missing
// from the golden line are not compared; parts the golden line names but `h` lacks differ.
std::vector<std::string> diff_trace_line(const TraceLine& golden, const StateHash& h, const StorageView& schema);

}  // namespace lockstep::replay
