// libFuzzer target for the snapshot-file codec (io/snapshot_codec.h) through hash/'s reader
// (decode_snapshot + World::load via load_snapshot_bytes), against the worlds of both fixtures
// and a world with a view (format 2: the view section, view_state.h; seed
// corpus/snapshot/views-v2.snap, whose schema is this world's), and world-free through
// io::decode_snapshot_image (what inspect/ reads with). Invariants checked on every input
// (a violation traps):
//   * what decodes without a world re-encodes to the same body (decode/encode are inverse);
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
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/query/cached_query.h>
#include <lockstep/io/snapshot_codec.h>
#include <lockstep/query/view.h>
#include <lockstep/replay/runner.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/world.h>

#include <algorithm>
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

// The world of the views seed: FzUnit, FzMark and a view of FzUnit.hp < 5.
struct FzUnit {
  std::int32_t hp;
  std::uint32_t team;
};
LOCKSTEP_COMPONENT(FzUnit, hp, team);
struct FzMark {
  std::uint16_t kind;
  std::uint16_t level;
};
LOCKSTEP_COMPONENT(FzMark, kind, level);

std::unique_ptr<World> view_world() {
  WorldConfig c;
  c.max_entities = 32;
  c.max_components = 4;
  c.max_archetypes = 8;
  c.row_bytes = 32u * 64u;
  c.resource_bytes = 64;
  auto w = std::make_unique<World>(c);
  (void)w->registerComponent<FzUnit>();
  (void)w->registerComponent<FzMark>();
  CachedQuery<term::read<FzUnit>> q;
  ViewId id;
  (void)registerView(*w, q, field(&FzUnit::hp) < 5, id);
  return w;
}

struct ViewTarget {
  std::unique_ptr<World> world = view_world();
  std::unique_ptr<World> fresh = view_world();
  Snapshot scratch{*world};
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

void one(World& world, World& fresh, Snapshot& scratch, std::span<const std::byte> bytes) {
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
  const FileStatus st = load_snapshot_bytes(bytes, world, scratch, "fuzz");
  if (!st.ok()) {  // decoded but refused by World::load's validation
    if (st.offset > size || st.message.empty()) __builtin_trap();
    if (hash_world(world).total != before) __builtin_trap();
    return;
  }
  std::vector<std::byte> again;  // from the World: a format-2 input re-encodes with its views
  if (!encode_world_snapshot(world, again).ok()) __builtin_trap();
  World& other = fresh;
  if (!load_snapshot_bytes(again, other, scratch, "again").ok()) __builtin_trap();
  if (hash_world(other).total != hash_world(world).total) __builtin_trap();
  std::vector<std::byte> twice;
  if (!encode_world_snapshot(other, twice).ok() || twice != again) __builtin_trap();
}

// World-free: the checksum is not checked (verify_checksum = false) so mutations reach the
// body parser; whatever decodes re-encodes to the same body.
void world_free(std::span<const std::byte> bytes) {
  io::SnapshotImage img;
  const io::CodecStatus st = io::decode_snapshot_image(bytes, img, "fuzz", {}, false);
  if (!st.ok()) {
    if (st.offset > bytes.size() || st.message.empty()) __builtin_trap();
    return;
  }
  std::vector<std::byte> again;
  io::encode_snapshot_image(img, again);
  if (again.size() != bytes.size() || !std::equal(again.begin(), again.end() - 8, bytes.begin())) __builtin_trap();
}

void all(std::span<const std::byte> bytes) {
  Target* t = targets();
  for (int i = 0; i < 2; ++i) one(t[i].runner->world(), t[i].fresh->world(), t[i].scratch, bytes);
  static ViewTarget v;
  one(*v.world, *v.fresh, v.scratch, bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  world_free(bytes);
  all(bytes);
  if (size >= 17) {  // the file ends with XXH3-64 (little-endian) of everything before it
    std::vector<std::byte> fixed(bytes.begin(), bytes.end());
    const std::uint64_t sum = xxh3_64(std::span<const std::byte>(fixed).first(size - 8));
    for (int b = 0; b < 8; ++b) fixed[size - 8 + b] = static_cast<std::byte>(sum >> (8 * b));
    all(fixed);
  }
  return 0;
}
