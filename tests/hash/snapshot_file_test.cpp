// Snapshot files: round trips through the file system, golden checksum, truncation at every
// offset, bit flips, schema mismatches, oversize files.
#include "hash/hash_test_support.h"

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/store/world.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace hashtest;
using lockstep::ErrorCode;
using lockstep::FileStatus;
using lockstep::StateHash;
using lockstep::World;

namespace alt {
// Same name as hashtest::Health, different field layout.
struct Health {
  std::int32_t hp;
  std::int16_t max;
  std::int16_t armor;
};
LOCKSTEP_COMPONENT(Health, hp, max, armor);
// Same name and fields as hashtest::Pos but a different field name.
struct Pos {
  lockstep::fixed x, z;
};
LOCKSTEP_COMPONENT(Pos, x, z);
}  // namespace alt

namespace {

std::filesystem::path temp_dir() {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("lockstep_hash_test_" + std::to_string(static_cast<unsigned long>(::getpid())));
  std::filesystem::create_directories(dir);
  return dir;
}

std::vector<std::byte> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) out[i] = static_cast<std::byte>(raw[i]);
  return out;
}

void populate(World& w, int n) {
  for (int i = 0; i < n; ++i) {
    const Entity e = w.create();
    ASSERT_FALSE(e.is_null());
    EXPECT_TRUE(w.addComponent(e, Pos{fixed::from_int(i), fixed::from_raw(-i * 77)}).ok());
    if (i % 2 == 0) {
      EXPECT_TRUE(w.addComponent(e, Vel{fixed::from_raw(i), fixed::from_raw(1)}).ok());
    }
    if (i % 3 == 0) {
      EXPECT_TRUE(w.addComponent(e, Health{i * 10, 100}).ok());
    }
    if (i % 4 == 1) {
      EXPECT_TRUE(w.addComponent(e, Tag{static_cast<std::uint8_t>(i), i % 8 == 1, 7, 0xABCDu, e}).ok());
    }
    if (i % 5 == 4) {
      EXPECT_TRUE(w.destroy(e).ok());
    }
  }
  w.resource<Rng>()->state = 0x0123456789ABCDEFull;
  w.resource<Score>()->values[1] = -3;
  w.setTick(99);
}

class snapshot_file : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir();
    register_all(src_);
    populate(src_, 12);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
  World src_{small_config()};
};

}  // namespace

TEST_F(snapshot_file, RoundTripThroughTheFileSystemIsByteIdentical) {
  const std::string p1 = path("a.snap"), p2 = path("b.snap");
  const FileStatus w1 = lockstep::write_snapshot_file(p1, src_);
  ASSERT_TRUE(w1.ok()) << w1.message;
  EXPECT_FALSE(std::filesystem::exists(p1 + ".tmp"));

  World dst(small_config());
  register_all(dst);
  lockstep::Snapshot scratch(dst);
  const FileStatus l = lockstep::load_snapshot_file(p1, dst, scratch);
  ASSERT_TRUE(l.ok()) << l.message;
  EXPECT_EQ(hash_of(dst), hash_of(src_));

  ASSERT_TRUE(lockstep::write_snapshot_file(p2, dst).ok());
  EXPECT_EQ(read_bytes(p1), read_bytes(p2));

  // From a Snapshot as well.
  lockstep::Snapshot s(src_);
  src_.save(s);
  ASSERT_TRUE(lockstep::write_snapshot_file(p2, s).ok());
  EXPECT_EQ(read_bytes(p1), read_bytes(p2));
}

TEST_F(snapshot_file, GoldenChecksumPinsTheFormat) {
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(src_.storage(), bytes).ok());
  // The file is defined little-endian: the same bytes on every host.
  std::printf("golden file: %zu bytes, xxh3 %s\n", bytes.size(), lockstep::to_hex(lockstep::xxh3_64(bytes)).c_str());
  EXPECT_EQ(lockstep::to_hex(lockstep::xxh3_64(bytes)), "a32cf305b8fef020");
  EXPECT_EQ(std::to_integer<int>(bytes[0]), 1);
  EXPECT_EQ(std::memcmp(bytes.data() + 1, lockstep::kSnapshotFileMagic, 8), 0);
}

TEST_F(snapshot_file, ReplacesAnExistingFileAtomically) {
  const std::string p = path("c.snap");
  {
    std::ofstream old(p, std::ios::binary);
    old << "old contents";
  }
  ASSERT_TRUE(lockstep::write_snapshot_file(p, src_).ok());
  std::vector<std::byte> expect;
  ASSERT_TRUE(lockstep::encode_snapshot(src_.storage(), expect).ok());
  EXPECT_EQ(read_bytes(p), expect);
  // Writing into a directory that does not exist fails cleanly and names the path.
  const FileStatus bad = lockstep::write_snapshot_file(path("missing/dir/x.snap"), src_);
  EXPECT_EQ(bad.code, ErrorCode::IoError);
  EXPECT_NE(bad.message.find("x.snap"), std::string::npos);
}

TEST_F(snapshot_file, MissingFileIsAnIoError) {
  World dst(small_config());
  register_all(dst);
  lockstep::SnapshotParts parts;
  const FileStatus st = lockstep::read_snapshot_file(path("nope.snap"), dst, parts);
  EXPECT_EQ(st.code, ErrorCode::IoError);
  EXPECT_NE(st.message.find("nope.snap"), std::string::npos);
}

TEST_F(snapshot_file, TruncationAtEveryOffsetIsAnErrorAndLeavesTheWorldUnchanged) {
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(src_.storage(), bytes).ok());
  World dst(small_config());
  register_all(dst);
  populate(dst, 3);
  const StateHash before = hash_of(dst);
  lockstep::Snapshot scratch(dst);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const FileStatus st =
        lockstep::load_snapshot_bytes(std::span<const std::byte>(bytes).first(n), dst, scratch, "t.snap");
    ASSERT_FALSE(st.ok()) << "truncated to " << n;
    ASSERT_EQ(st.code, ErrorCode::Corrupt) << st.message;
    ASSERT_NE(st.message.find("t.snap: byte "), std::string::npos) << st.message;
    ASSERT_EQ(hash_of(dst), before);
  }
}

TEST_F(snapshot_file, EveryBitFlipIsDetected) {
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(src_.storage(), bytes).ok());
  World dst(small_config());
  register_all(dst);
  lockstep::Snapshot scratch(dst);
  const StateHash before = hash_of(dst);
  for (std::size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    std::vector<std::byte> bad = bytes;
    bad[bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
    const FileStatus st = lockstep::load_snapshot_bytes(bad, dst, scratch, "f.snap");
    ASSERT_EQ(st.code, ErrorCode::Corrupt) << "bit " << bit << ": " << st.message;
    ASSERT_EQ(hash_of(dst), before);
  }
}

TEST_F(snapshot_file, TruncatedBodyWithValidChecksumReportsTheOffset) {
  // A file cut inside the archetype table and re-sealed: the structural reader must say
  // what is missing and where.
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(src_.storage(), bytes).ok());
  const std::size_t cut = bytes.size() - 8 - 40;
  std::vector<std::byte> bad(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
  const std::uint64_t sum = lockstep::xxh3_64(bad);
  for (int i = 0; i < 8; ++i) bad.push_back(static_cast<std::byte>((sum >> (8 * i)) & 0xFFu));
  World dst(small_config());
  register_all(dst);
  lockstep::SnapshotParts parts;
  const FileStatus st = lockstep::decode_snapshot(bad, dst, parts, "cut.snap");
  EXPECT_EQ(st.code, ErrorCode::Corrupt);
  EXPECT_NE(st.message.find("cut.snap: byte "), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("truncated"), std::string::npos) << st.message;
  EXPECT_GT(st.offset, 0u);
  EXPECT_LE(st.offset, cut);
}

TEST_F(snapshot_file, SchemaMismatchNamesComponentAndField) {
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(src_.storage(), bytes).ok());
  {
    World dst(small_config());
    (void)dst.registerComponent<Pos>();
    (void)dst.registerComponent<Vel>();
    (void)dst.registerComponent<alt::Health>();
    (void)dst.registerComponent<Tag>();
    (void)dst.registerResource<Rng>();
    (void)dst.registerResource<Score>();
    lockstep::SnapshotParts parts;
    const FileStatus st = lockstep::decode_snapshot(bytes, dst, parts, "m.snap");
    EXPECT_EQ(st.code, ErrorCode::Mismatch);
    EXPECT_NE(st.message.find("component 'Health'"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("field 'max'"), std::string::npos) << st.message;
  }
  {
    World dst(small_config());
    (void)dst.registerComponent<alt::Pos>();
    (void)dst.registerComponent<Vel>();
    (void)dst.registerComponent<Health>();
    (void)dst.registerComponent<Tag>();
    (void)dst.registerResource<Rng>();
    (void)dst.registerResource<Score>();
    lockstep::SnapshotParts parts;
    const FileStatus st = lockstep::decode_snapshot(bytes, dst, parts, "m.snap");
    EXPECT_EQ(st.code, ErrorCode::Mismatch);
    EXPECT_NE(st.message.find("component 'Pos'"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("'y' in file, 'z' in world"), std::string::npos) << st.message;
  }
  {
    World dst(small_config());  // Tag missing
    (void)dst.registerComponent<Pos>();
    (void)dst.registerComponent<Vel>();
    (void)dst.registerComponent<Health>();
    (void)dst.registerResource<Rng>();
    (void)dst.registerResource<Score>();
    lockstep::SnapshotParts parts;
    const FileStatus st = lockstep::decode_snapshot(bytes, dst, parts, "m.snap");
    EXPECT_EQ(st.code, ErrorCode::Mismatch);
    EXPECT_NE(st.message.find("component count 4 in file, 3"), std::string::npos) << st.message;
  }
  {
    World dst(small_config());  // a resource the file does not have, instead of Score
    (void)dst.registerComponent<Pos>();
    (void)dst.registerComponent<Vel>();
    (void)dst.registerComponent<Health>();
    (void)dst.registerComponent<Tag>();
    (void)dst.registerResource<Rng>();
    (void)dst.registerResource<alt::Pos>();
    lockstep::SnapshotParts parts;
    const FileStatus st = lockstep::decode_snapshot(bytes, dst, parts, "m.snap");
    EXPECT_EQ(st.code, ErrorCode::Mismatch);
    EXPECT_NE(st.message.find("resource 'Score' in file is not registered"), std::string::npos) << st.message;
  }
}

TEST_F(snapshot_file, StateTooLargeForTheTargetIsRejected) {
  lockstep::WorldConfig big = small_config();
  big.max_entities = 1000;
  big.row_bytes = 1000u * 64u;
  World large(big);
  register_all(large);
  populate(large, 200);
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(large.storage(), bytes).ok());
  World dst(small_config());  // 64 slots
  register_all(dst);
  lockstep::SnapshotParts parts;
  const FileStatus st = lockstep::decode_snapshot(bytes, dst, parts, "big.snap");
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code, ErrorCode::CapacityExceeded) << st.message;
  EXPECT_NE(st.message.find("big.snap"), std::string::npos);
}

TEST_F(snapshot_file, HugeLengthFieldsDoNotAllocate) {
  // Re-sealed file whose slot count claims 2^32-1 slots: rejected by the capacity check
  // before any allocation; and within capacity but beyond the remaining bytes: truncated.
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::encode_snapshot(src_.storage(), bytes).ok());
  World dst(small_config());
  register_all(dst);
  lockstep::SnapshotParts ok_parts;
  ASSERT_TRUE(lockstep::decode_snapshot(bytes, dst, ok_parts).ok());
  // Locate the slot count: it follows the tick (99) in the state section.
  std::size_t tick_at = 0;
  for (std::size_t i = 0; i + 8 <= bytes.size(); ++i) {
    std::uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= std::to_integer<std::uint64_t>(bytes[i + k]) << (8 * k);
    if (v == 99) {
      tick_at = i;
      break;
    }
  }
  ASSERT_GT(tick_at, 0u);
  auto reseal_with_slots = [&](std::uint32_t slots) {
    std::vector<std::byte> bad = bytes;
    for (int k = 0; k < 4; ++k) bad[tick_at + 8 + k] = static_cast<std::byte>((slots >> (8 * k)) & 0xFFu);
    const std::size_t body = bad.size() - 8;
    const std::uint64_t sum = lockstep::xxh3_64(std::span<const std::byte>(bad).first(body));
    for (int i = 0; i < 8; ++i) bad[body + i] = static_cast<std::byte>((sum >> (8 * i)) & 0xFFu);
    return bad;
  };
  lockstep::SnapshotParts parts;
  FileStatus st = lockstep::decode_snapshot(reseal_with_slots(0xFFFFFFFFu), dst, parts, "h.snap");
  EXPECT_EQ(st.code, ErrorCode::CapacityExceeded) << st.message;
  EXPECT_EQ(st.offset, tick_at + 8);
  st = lockstep::decode_snapshot(reseal_with_slots(64), dst, parts, "h.snap");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message.find("h.snap: byte "), std::string::npos) << st.message;
}
