// inspect::State: capture, snapshot-file decoding without a World, bad input.
#include "inspect_support.h"

#include <lockstep/fixtures/skirmish.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/state.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>

using namespace lockstep;
namespace sk = lockstep::fixtures::skirmish;

TEST(InspectState, CaptureMatchesTheWorldAndReencodesToTheSnapshotFileBytes) {
  auto runner = inspect_test::skirmish_at(300);
  const World& w = runner->world();
  const inspect::State s = inspect::capture(w.storage());
  EXPECT_EQ(s.tick, 300u);
  EXPECT_EQ(s.live_entities(), w.entityCount());
  ASSERT_EQ(s.components.size(), 6u);
  EXPECT_EQ(s.components[0].name, "Position");
  EXPECT_EQ(s.components[4].name, "Weapon");
  ASSERT_NE(s.components[4].field("cooldown"), nullptr);
  // Exactly the bytes encode_snapshot writes for the same state.
  std::vector<std::byte> file;
  ASSERT_TRUE(encode_snapshot(w.storage(), file).ok());
  EXPECT_EQ(inspect::encode_state(s), file);
  // Values read back through the descriptors agree with the kernel's typed access.
  const auto loc = s.locate();
  const std::uint32_t slot = 95;
  ASSERT_NE(loc[slot].archetype, inspect::kNoArchetype);
  const Entity e{slot, s.generations[slot]};
  const auto* weapon = w.get<sk::Weapon>(e);
  const auto* pos = w.get<sk::Position>(e);
  ASSERT_TRUE(weapon != nullptr && pos != nullptr);
  const auto wv = s.value(loc[slot].archetype, loc[slot].row, 4);
  EXPECT_EQ(inspect::field_text(*s.components[4].field("cooldown"), wv.data()), std::to_string(weapon->cooldown));
  const auto pv = s.value(loc[slot].archetype, loc[slot].row, 0);
  EXPECT_EQ(inspect::field_text(s.components[0].fields[0], pv.data()),
            "[" + to_string(pos->p.x) + ", " + to_string(pos->p.y) + "]");
}

TEST(InspectState, DecodesASnapshotFileWithoutAWorld) {
  auto runner = inspect_test::skirmish_at(120);
  std::vector<std::byte> file;
  ASSERT_TRUE(encode_snapshot(runner->world().storage(), file).ok());
  inspect::State s;
  const FileStatus st = inspect::decode_state(file, s, "a.lssnap");
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(s.tick, 120u);
  EXPECT_EQ(inspect::encode_state(s), file);
}

TEST(InspectState, BadSnapshotBytesNameTheOffsetAndWhatWasExpected) {
  auto runner = inspect_test::skirmish_at(10);
  std::vector<std::byte> file;
  ASSERT_TRUE(encode_snapshot(runner->world().storage(), file).ok());
  inspect::State s;
  // Truncated: the checksum no longer matches the bytes before it.
  std::vector<std::byte> cut(file.begin(), file.begin() + 100);
  FileStatus st = inspect::decode_state(cut, s, "cut.lssnap");
  EXPECT_EQ(st.code, ErrorCode::Corrupt);
  EXPECT_EQ(st.offset, 92u);
  EXPECT_NE(st.message.find("cut.lssnap: byte 92: expected checksum"), std::string::npos) << st.message;
  // Bit flip in the body.
  std::vector<std::byte> flip = file;
  flip[40] ^= std::byte{0x10};
  st = inspect::decode_state(flip, s, "flip.lssnap");
  EXPECT_EQ(st.code, ErrorCode::Corrupt);
  EXPECT_EQ(st.offset, file.size() - 8);
  // Too short for anything.
  st = inspect::decode_state(std::span<const std::byte>(file.data(), 5), s, "tiny");
  EXPECT_EQ(st.message, "tiny: byte 5: truncated: expected at least 25 bytes (snapshot header and checksum), file has 5");
}
