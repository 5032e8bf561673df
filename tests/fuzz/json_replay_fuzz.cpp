// libFuzzer target for the JSON replay reader (decode_replay_json: the syntax pre-check with
// line:column errors and duplicate-key refusal, then the cereal JSON archive). The replay
// reader target only reaches it for inputs that happen to look like JSON; this one is seeded
// with JSON recordings so its mutations stay inside the JSON grammar. Invariants (a violation
// traps):
//   * no crash, hang or unbounded allocation (ASan/UBSan + libFuzzer's limits);
//   * a failure carries a message;
//   * what decodes re-encodes as JSON to text that decodes to the same replay, and that
//     re-encoding is a fixed point; it also encodes in the binary form.
#include <lockstep/replay/replay_file.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace lockstep::replay;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Replay r;
  const ReplayStatus st = decode_replay_json(text, r, "fuzz.json");
  if (!st.ok()) {
    if (st.message.empty()) __builtin_trap();
    return 0;
  }
  std::string json;
  if (!encode_replay_json(r, json).ok()) __builtin_trap();
  Replay again;
  if (!decode_replay_json(json, again, "again.json").ok()) __builtin_trap();
  if (!(again == r)) __builtin_trap();
  std::string json2;
  if (!encode_replay_json(again, json2).ok() || json2 != json) __builtin_trap();
  std::vector<std::byte> bin;
  if (!encode_replay(r, bin).ok()) __builtin_trap();
  return 0;
}
