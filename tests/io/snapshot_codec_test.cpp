// One snapshot codec (io/snapshot_codec.h): the file hash/ writes is read by inspect/ through
// the same decoder, with exact values; a bad file gets the same error, byte for byte, from
// both sides; and both writers produce the same bytes.
#include "hash/hash_test_support.h"

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/inspect/state.h>
#include <lockstep/io/snapshot_codec.h>
#include <lockstep/store/world.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace hashtest;
using lockstep::FileStatus;
using lockstep::World;
namespace inspect = lockstep::inspect;
namespace io = lockstep::io;

namespace {

// Three entities with exact values; the middle one destroyed (a free slot, generation 2).
void build(World& w) {
  register_all(w);
  const Entity a = w.create(), b = w.create(), c = w.create();
  (void)w.addComponent(a, Pos{fixed::from_raw(3 << 16), fixed::from_raw(-(5 << 15))});  // 3, -2.5
  (void)w.addComponent(a, Health{70, 100});
  (void)w.addComponent(c, Health{-4, 9});
  (void)w.addComponent(c, Tag{7, true, 513, 0xA5A5A5A5u, a});
  (void)w.destroy(b);
  *w.resource<Rng>() = Rng{0x0123456789ABCDEFull};
  for (int i = 0; i < 41; ++i) w.advanceTick();
}

std::string temp_file(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("lockstep_io_test_" + std::to_string(static_cast<unsigned long>(::getpid())));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string field(const inspect::State& s, std::uint32_t slot, const char* comp, const char* name) {
  const std::int32_t c = s.component_id(comp);
  if (c < 0) return "<no component>";
  const auto loc = s.locate();
  if (slot >= loc.size() || loc[slot].archetype == inspect::kNoArchetype) return "<free>";
  const auto v = s.value(loc[slot].archetype, loc[slot].row, static_cast<std::uint32_t>(c));
  const inspect::Field* f = s.components[static_cast<std::size_t>(c)].field(name);
  if (v.empty() || f == nullptr) return "<absent>";
  return inspect::field_text(*f, v.data());
}

void reseal(std::vector<std::byte>& bytes) {
  const std::size_t body = bytes.size() - 8;
  const std::uint64_t sum = io::snapshot_checksum(std::span<const std::byte>(bytes).first(body));
  for (int i = 0; i < 8; ++i) bytes[body + static_cast<std::size_t>(i)] = static_cast<std::byte>((sum >> (8 * i)) & 0xFFu);
}

}  // namespace

TEST(SnapshotCodec, AFileWrittenByHashIsReadByInspectWithExactValues) {
  World w(small_config());
  build(w);
  const std::string path = temp_file("exact.lssnap");
  ASSERT_TRUE(lockstep::write_snapshot_file(path, w).ok());
  inspect::State s;
  const FileStatus st = inspect::read_state_file(path, s);
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(s.tick, 41u);
  ASSERT_EQ(s.slot_count(), 3u);
  EXPECT_EQ(s.generations, (std::vector<std::uint32_t>{1, 2, 1}));
  EXPECT_EQ(s.alive, (std::vector<std::uint8_t>{1, 0, 1}));
  EXPECT_EQ(s.free_slots, (std::vector<std::uint32_t>{1}));
  ASSERT_EQ(s.components.size(), 4u);
  EXPECT_EQ(s.components[3].name, "Tag");
  EXPECT_EQ(field(s, 0, "Pos", "x"), "3");
  EXPECT_EQ(field(s, 0, "Pos", "y"), "-2.5");
  EXPECT_EQ(field(s, 0, "Health", "hp"), "70");
  EXPECT_EQ(field(s, 0, "Health", "max"), "100");
  EXPECT_EQ(field(s, 2, "Health", "hp"), "-4");
  EXPECT_EQ(field(s, 2, "Tag", "kind"), "7");
  EXPECT_EQ(field(s, 2, "Tag", "flag"), "true");
  EXPECT_EQ(field(s, 2, "Tag", "level"), "513");
  EXPECT_EQ(field(s, 2, "Tag", "mask"), "2779096485");
  EXPECT_EQ(field(s, 2, "Tag", "target"), "0:1");
  EXPECT_EQ(field(s, 1, "Health", "hp"), "<free>");
  const std::int32_t rng = s.resource_id("Rng");
  ASSERT_GE(rng, 0);
  EXPECT_EQ(inspect::field_text(s.resources[static_cast<std::size_t>(rng)].fields[0],
                                s.resource_values[static_cast<std::size_t>(rng)].data()),
            "81985529216486895");
  std::filesystem::remove(path);
}

TEST(SnapshotCodec, BothWritersProduceTheSameBytesAndTheVersionOfAFileWithoutViewsIsOne) {
  World w(small_config());
  build(w);
  std::vector<std::byte> from_hash;
  ASSERT_TRUE(lockstep::encode_snapshot(w.storage(), from_hash).ok());
  EXPECT_EQ(io::snapshot_file_version(from_hash), lockstep::kSnapshotFileVersion);
  // A World without views writes the same bytes through the path that carries views.
  std::vector<std::byte> from_world;
  ASSERT_TRUE(lockstep::encode_world_snapshot(w, from_world).ok());
  EXPECT_EQ(from_world, from_hash);
  EXPECT_EQ(inspect::encode_state(inspect::capture(w.storage())), from_hash);
  inspect::State s;
  ASSERT_TRUE(inspect::decode_state(from_hash, s).ok());
  EXPECT_EQ(inspect::encode_state(s), from_hash);
}

// The same corrupt bytes get the same error from the World side and the State side: one
// decoder, not two that happen to agree.
TEST(SnapshotCodec, ACorruptFileGetsTheSameErrorFromHashAndInspect) {
  World w(small_config());
  build(w);
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(w.storage(), bytes).ok());
  io::SnapshotImage img;
  ASSERT_TRUE(io::decode_snapshot_image(bytes, img).ok());
  // The liveness table follows the tick (8 bytes), the slot count and 3 generations.
  std::size_t tick_at = 0;
  for (std::size_t i = 0; i + 8 <= bytes.size(); ++i)
    if (std::to_integer<unsigned>(bytes[i]) == 41 && std::to_integer<unsigned>(bytes[i + 1]) == 0 &&
        std::to_integer<unsigned>(bytes[i + 8]) == 3) {
      tick_at = i;
      break;
    }
  ASSERT_GT(tick_at, 0u);
  const std::size_t alive_at = tick_at + 8 + 4 + 3 * 4;
  bytes[alive_at + 1] = std::byte{2};
  reseal(bytes);
  World dst(small_config());
  register_all(dst);
  lockstep::SnapshotParts parts;
  const FileStatus from_hash = lockstep::decode_snapshot(bytes, dst, parts, "bad.lssnap");
  inspect::State s;
  const FileStatus from_inspect = inspect::decode_state(bytes, s, "bad.lssnap");
  EXPECT_EQ(from_hash.code, lockstep::ErrorCode::Corrupt);
  EXPECT_EQ(from_hash.offset, alive_at + 1);
  EXPECT_EQ(from_hash.message, "bad.lssnap: byte " + std::to_string(alive_at + 1) +
                                   ": liveness of slot 1: expected 0 or 1, found 2");
  EXPECT_EQ(from_inspect.code, from_hash.code);
  EXPECT_EQ(from_inspect.offset, from_hash.offset);
  EXPECT_EQ(from_inspect.message, from_hash.message);
}

TEST(SnapshotCodec, AnUnknownVersionIsRefusedAtItsOffset) {
  World w(small_config());
  build(w);
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(w.storage(), bytes).ok());
  bytes[9] = std::byte{3};
  reseal(bytes);
  inspect::State s;
  const FileStatus st = inspect::decode_state(bytes, s, "v3");
  EXPECT_EQ(st.code, lockstep::ErrorCode::Mismatch);
  EXPECT_EQ(st.message, "v3: byte 9: expected snapshot format version 1 or 2, found 3");
}
