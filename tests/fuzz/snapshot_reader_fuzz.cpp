// libFuzzer target for the snapshot-file reader of hash/ (decode_snapshot + World::load via
// load_snapshot_bytes), against the worlds of both fixtures (their schemas differ, so one
// input is read against two targets). Invariants checked on every input (a violation traps):
//   * no crash, hang or unbounded allocation (ASan/UBSan + libFuzzer's limits);
//   * a failure names a byte offset inside the input (offset <= size) and says what;
//   * a failed load leaves the world unchanged (same state hash as before);
//   * what loads re-encodes to bytes that load into a fresh world with the same state hash,
//     and encoding is idempotent (encode(load(encode(w))) == encode(w));
//   * the same with the checksum recomputed over the mutated body (the stored checksum would
//     otherwise stop almost every mutation before the schema and state parsers).
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/runner.h>
#include <lockstep/snapshot.h>
#include <lockstep/world.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace {

using namespace lockstep;

struct Target {
  std::unique_ptr<replay::Runner> runner;  // the world loaded into (state replaced by loads)
  std::unique_ptr<replay::Runner> fresh;   // a second world for the re-encoding check
  Snapshot scratch;
};

std::unique_ptr<replay::Runner> make(const replay::Sim& sim, std::uint32_t units) {
  replay::SimConfig config;
  config.players = 2;
  config.units = units;
  return std::make_unique<replay::Runner>(sim, config);
}

Target* targets() {
  static Target t[2] = {{make(fixtures::duel_sim(), 0), make(fixtures::duel_sim(), 0), {}},
                        {make(fixtures::skirmish_sim(), 4), make(fixtures::skirmish_sim(), 4), {}}};
  return t;
}

void one(Target& t, std::span<const std::byte> bytes) {
  World& world = t.runner->world();
  const std::uint64_t size = bytes.size();
  {
    // load_snapshot_bytes decodes first and touches the world only after decoding succeeded,
    // so an input that does not decode needs no load (and no hashing: that keeps it fast).
    SnapshotParts parts;
    const FileStatus st = decode_snapshot(bytes, world, parts, "fuzz");
    if (!st.ok()) {
      if (st.offset > size || st.message.empty()) __builtin_trap();
      return;
    }
  }
  const std::uint64_t before = hash_world(world).total;
  const FileStatus st = load_snapshot_bytes(bytes, world, t.scratch, "fuzz");
  if (!st.ok()) {  // decoded but refused by World::load's validation
    if (st.offset > size || st.message.empty()) __builtin_trap();
    if (hash_world(world).total != before) __builtin_trap();
    return;
  }
  std::vector<std::byte> again;
  if (!encode_snapshot(world.storage(), again).ok()) __builtin_trap();
  World& other = t.fresh->world();
  if (!load_snapshot_bytes(again, other, t.scratch, "again").ok()) __builtin_trap();
  if (hash_world(other).total != hash_world(world).total) __builtin_trap();
  std::vector<std::byte> twice;
  if (!encode_snapshot(other.storage(), twice).ok() || twice != again) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  Target* t = targets();
  for (int i = 0; i < 2; ++i) one(t[i], bytes);
  if (size >= 17) {  // the file ends with XXH3-64 (little-endian) of everything before it
    std::vector<std::byte> fixed(bytes.begin(), bytes.end());
    const std::uint64_t sum = xxh3_64(std::span<const std::byte>(fixed).first(size - 8));
    for (int b = 0; b < 8; ++b) fixed[size - 8 + b] = static_cast<std::byte>(sum >> (8 * b));
    for (int i = 0; i < 2; ++i) one(t[i], fixed);
  }
  return 0;
}
