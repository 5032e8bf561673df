// libFuzzer target for the inspect readers: desync bundles and world-free snapshot-file
// decoding. Invariants checked on every input (a violation traps, which libFuzzer reports):
//   * no reader crashes, hangs or allocates without bound (ASan/UBSan + libFuzzer's limits);
//   * a failure always names a byte offset inside the input (offset <= size);
//   * whatever decodes re-encodes to bytes that decode to the same thing, and dumping and
//     diffing what decoded never fails;
//   * the same with checksums off (to reach the body parsers).
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/state.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {
void one(std::span<const std::byte> bytes, bool verify) {
  using namespace lockstep::inspect;
  const std::size_t size = bytes.size();
  {
    Bundle b;
    const lockstep::FileStatus st = decode_bundle(bytes, b, "fuzz", verify);
    if (!st.ok() && st.offset > size) __builtin_trap();
    if (st.ok()) {
      const std::vector<std::byte> again = encode_bundle(b);
      Bundle c;
      if (!decode_bundle(again, c, "again").ok()) __builtin_trap();
      if (encode_bundle(c) != again) __builtin_trap();
      StateDiff d;
      (void)bundle_diff(b, d);
      for (const BundleSide& s : b.sides)
        if (s.has_state) (void)dump_text(s.state);
    }
  }
  {
    State s;
    const lockstep::FileStatus st = decode_state(bytes, s, "fuzz", verify);
    if (!st.ok() && st.offset > size) __builtin_trap();
    if (st.ok()) {
      const std::vector<std::byte> again = encode_state(s);
      State t;
      if (!decode_state(again, t, "again").ok()) __builtin_trap();
      if (encode_state(t) != again) __builtin_trap();
      (void)dump_json(s);
      (void)diff(s, t);
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  one(bytes, true);
  one(bytes, false);
  return 0;
}
