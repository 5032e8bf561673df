#pragma once
// Internal pieces of the replay file codec shared by the binary and JSON forms.
#include <lockstep/replay/replay_file.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::replay::replay_detail {

constexpr std::uint32_t fourcc(char a, char b, char c, char d) noexcept {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(a)) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b)) << 8) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(c)) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(d)) << 24);
}
inline constexpr std::uint32_t kKindHead = fourcc('H', 'E', 'A', 'D');
inline constexpr std::uint32_t kKindInputs = fourcc('I', 'N', 'P', 'T');
inline constexpr std::uint32_t kKindHashes = fourcc('H', 'A', 'S', 'H');
inline constexpr std::uint32_t kKindCheckpoint = fourcc('C', 'K', 'P', 'T');
inline constexpr std::uint32_t kKindEnd = fourcc('E', 'N', 'D', '_');

inline constexpr std::uint64_t kPreambleBytes = 16;    // magic + version + reserved
inline constexpr std::uint64_t kBlockFrameBytes = 16;  // kind + length + first tick
inline constexpr std::uint64_t kChecksumBytes = 8;

void append_preamble(std::vector<std::byte>& out);
void append_head(std::vector<std::byte>& out, const ReplayHeader& h);
void append_inputs(std::vector<std::byte>& out, std::uint64_t first_tick, std::uint32_t frame_bytes,
                   std::span<const std::byte> frames);
void append_hashes(std::vector<std::byte>& out, std::span<const TickHash> hashes,
                   std::span<const std::uint64_t> components, std::uint32_t component_count);
void append_checkpoint(std::vector<std::byte>& out, const Checkpoint& cp);
void append_end(std::vector<std::byte>& out, std::uint64_t frames, std::uint64_t hash_count, std::uint64_t final_total);

std::string where(std::string_view file, std::uint64_t offset, bool has_tick, std::uint64_t tick);
ReplayStatus fail(ErrorCode code, std::string_view file, std::uint64_t offset, const std::string& what);
ReplayStatus fail_tick(ErrorCode code, std::string_view file, std::uint64_t offset, std::uint64_t tick,
                       const std::string& what);
std::string kind_name(std::uint32_t kind);
// A name read from a file (a sim's, a component's), safe to print in a message: bytes outside
// printable ASCII and the backslash as \xNN / \\, at most `max_bytes` of it. A recording from
// a relay or a web server may be anyone's bytes; a terminal must not run them.
std::string printable_name(std::string_view text, std::size_t max_bytes = kMaxSimName);
ReplayStatus validate_header(const ReplayHeader& h, std::string_view file, std::uint64_t offset);
// JSON syntax and duplicate keys, with line:column (json_syntax.cpp).
ReplayStatus check_json_syntax(std::string_view text, std::string_view name);

}  // namespace lockstep::replay::replay_detail
