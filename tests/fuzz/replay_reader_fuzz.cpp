// libFuzzer target for the replay readers (binary v1, JSON form) and the trace parser.
// Invariants checked on every input (a violation traps, which libFuzzer reports as a crash):
//   * no reader crashes, hangs or allocates without bound (ASan/UBSan + libFuzzer's limits);
//   * whatever decodes re-encodes, and the re-encoding decodes to the same replay;
//   * with checksums off (to reach the body parsers), the same holds.
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/trace.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

using namespace lockstep::replay;

void check_reencode(const Replay& r) {
  std::vector<std::byte> bin;
  if (!encode_replay(r, bin).ok()) __builtin_trap();
  Replay again;
  if (!decode_replay(bin, again, "reencoded").ok()) __builtin_trap();
  if (!(again == r)) __builtin_trap();
  std::string json;
  if (!encode_replay_json(r, json).ok()) __builtin_trap();
  Replay from_json;
  if (!decode_replay_json(json, from_json, "json").ok()) __builtin_trap();
  if (!(from_json == r)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  {
    Replay r;
    if (decode_replay(bytes, r, "fuzz").ok()) check_reencode(r);
  }
  {
    Replay r;
    if (decode_replay(bytes, r, "fuzz", DecodeOptions{false}).ok()) check_reencode(r);
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (looks_like_json(bytes)) {
    Replay r;
    if (decode_replay_json(text, r, "fuzz.json").ok()) {
      // JSON may hold a replay the binary form cannot (e.g. incomplete hash lists are fine in
      // both); what decodes must at least encode.
      std::vector<std::byte> bin;
      if (!encode_replay(r, bin).ok()) __builtin_trap();
    }
  }
  Trace t;
  (void)parse_trace(text, t, "fuzz.trace");
  return 0;
}
