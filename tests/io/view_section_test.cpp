// The view section of snapshot files (format 2, view_state.h) as untrusted input: every
// corrupted count, flag, id and length is refused with its byte offset and what was wrong,
// by the one decoder both hash/ and inspect/ use, and a refused load leaves the world as it
// was. A world whose views differ from the file's refuses the section.
#include <lockstep/query/cached_query.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/inspect/state.h>
#include <lockstep/io/snapshot_codec.h>
#include <lockstep/query/view.h>
#include <lockstep/query/view_state.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

using namespace lockstep;

struct Unit {
  std::int32_t hp;
  std::uint32_t team;
};
LOCKSTEP_COMPONENT(Unit, hp, team);
struct Mark {
  std::uint16_t kind;
  std::uint16_t level;
};
LOCKSTEP_COMPONENT(Mark, kind, level);

WorldConfig config() {
  WorldConfig c;
  c.max_entities = 32;
  c.max_components = 4;
  c.max_archetypes = 8;
  c.row_bytes = 32u * 64u;
  c.resource_bytes = 64;
  return c;
}

// A world with one view (Unit.hp < 5; with `watch_mark` instead a view of every Mark) whose state after two updates has members, delta lists
// and a journal of two slots.
std::unique_ptr<World> make_world(bool watch_mark = false) {
  auto w = std::make_unique<World>(config());
  EXPECT_TRUE(w->registerComponent<Unit>().ok());
  EXPECT_TRUE(w->registerComponent<Mark>().ok());
  ViewId id;
  if (watch_mark) {
    CachedQuery<term::read<Mark>> q;
    EXPECT_TRUE(registerView(*w, q, id).ok());
  } else {
    CachedQuery<term::read<Unit>> q;
    EXPECT_TRUE(registerView(*w, q, field(&Unit::hp) < 5, id).ok());
  }
  return w;
}

void populate(World& w) {
  std::vector<Entity> e;
  for (std::int32_t i = 0; i < 6; ++i) {
    e.push_back(w.create());
    EXPECT_TRUE(w.addComponent(e.back(), Unit{i + 1, static_cast<std::uint32_t>(i % 2)}).ok());
  }
  w.beginTick();
  w.advanceTick();
  w.getMutable<Unit>(e[4])->hp = 0;  // joins the view at the next update
  w.getMutable<Unit>(e[0])->hp = 9;  // leaves it
  w.beginTick();
  w.advanceTick();
  w.getMutable<Unit>(e[1])->hp = 1;  // journal entries: slots 1 and 5
  w.getMutable<Unit>(e[5])->hp = 7;
}

void reseal(std::vector<std::byte>& bytes) {
  const std::size_t body = bytes.size() - 8;
  const std::uint64_t sum = io::snapshot_checksum(std::span<const std::byte>(bytes).first(body));
  for (int i = 0; i < 8; ++i) bytes[body + static_cast<std::size_t>(i)] = static_cast<std::byte>((sum >> (8 * i)) & 0xFFu);
}

void put32(std::vector<std::byte>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}

class ViewSection : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = make_world();
    populate(*src_);
    ASSERT_TRUE(encode_world_snapshot(*src_, file_).ok());
    io::SnapshotImage img;
    ASSERT_TRUE(io::decode_snapshot_image(file_, img).ok());
    ASSERT_TRUE(img.has_views);
    at_ = img.views_at;
  }
  // Both sides decode the same corrupt file to the same error, and a load leaves dst alone.
  void expect_refused(std::vector<std::byte> bad, std::size_t offset, const std::string& what) {
    reseal(bad);
    const std::string want = "c.lssnap: byte " + std::to_string(offset) + ": " + what;
    inspect::State s;
    const FileStatus a = inspect::decode_state(bad, s, "c.lssnap");
    EXPECT_EQ(a.code, ErrorCode::Corrupt);
    EXPECT_EQ(a.offset, offset);
    EXPECT_EQ(a.message, want);
    auto dst = make_world();
    populate(*dst);
    const std::uint64_t before = hash_world(*dst).total;
    Snapshot scratch(*dst);
    const FileStatus b = load_snapshot_bytes(bad, *dst, scratch, "c.lssnap");
    EXPECT_EQ(b.message, want);
    EXPECT_EQ(hash_world(*dst).total, before);
  }
  std::unique_ptr<World> src_;
  std::vector<std::byte> file_;
  std::size_t at_ = 0;  // offset of the view section in file_
};

}  // namespace

TEST_F(ViewSection, AWorldWithViewsWritesFormat2AndItLoadsBackExactly) {
  EXPECT_EQ(snapshot_file_version(file_), kSnapshotFileVersionViews);
  // The journal holds slots 1 and 5 (two entries), after the counts and the column bits.
  EXPECT_EQ(std::to_integer<unsigned>(file_[at_ + 8]), 2u);
  auto dst = make_world();
  Snapshot scratch(*dst);
  const FileStatus st = load_snapshot_bytes(file_, *dst, scratch, "ok.lssnap");
  ASSERT_TRUE(st.ok()) << st.message;
  std::vector<std::byte> again;
  ASSERT_TRUE(encode_world_snapshot(*dst, again).ok());
  EXPECT_EQ(again, file_);
  // The next update sees the same deltas in both worlds.
  src_->beginTick();
  dst->beginTick();
  ViewDeltas a, b;
  ASSERT_TRUE(viewDeltas(*src_, ViewId{0}, a).ok());
  ASSERT_TRUE(viewDeltas(*dst, ViewId{0}, b).ok());
  // Slot 1 (hp 2 -> 1) stayed a member with another value: Modified, in both.
  ASSERT_EQ(a.modified.size(), 1u);
  EXPECT_EQ(a.modified[0].slot, 1u);
  auto slots = [](std::span<const Entity> l) {
    std::vector<std::uint32_t> v;
    for (const Entity& e : l) v.push_back(e.slot);
    return v;
  };
  EXPECT_EQ(slots(b.added), slots(a.added));
  EXPECT_EQ(slots(b.removed), slots(a.removed));
  EXPECT_EQ(slots(b.modified), slots(a.modified));
  EXPECT_EQ(b.members, a.members);
  EXPECT_EQ(a.members, 4u);
}

TEST_F(ViewSection, CorruptCountsFlagsAndIdsAreRefusedAtTheirOffset) {
  std::vector<std::byte> bad = file_;
  put32(bad, at_, 17);
  expect_refused(bad, at_, "views: count");
  bad = file_;
  put32(bad, at_ + 4, 2);
  expect_refused(bad, at_ + 4, "views: rescan flag");
  bad = file_;
  put32(bad, at_ + 8, 33);
  expect_refused(bad, at_ + 8, "views: journal longer than the slot table");
  bad = file_;
  bad[at_ + 12 + 8 * 3 + 7] = std::byte{0x80};  // component 255
  expect_refused(bad, at_ + 12 + 24, "views: journal names a component that does not exist");
  bad = file_;
  put32(bad, at_ + 44, 0xFFFFFFFFu);  // first journal slot
  expect_refused(bad, at_ + 44, "views: journal slot");
  bad = file_;
  for (int i = 0; i < 4; ++i) bad[at_ + 48 + static_cast<std::size_t>(i)] = bad[at_ + 44 + static_cast<std::size_t>(i)];
  expect_refused(bad, at_ + 48, "views: journal lists a slot twice");
  const std::size_t view = at_ + 52;  // after two journal slots
  bad = file_;
  put32(bad, view + 8, 5);
  expect_refused(bad, view + 8, "view: member count does not match the member table");
  bad = file_;
  put32(bad, view + 0, 3);
  expect_refused(bad, view + 0, "view: stride does not match the watched components");
  bad = file_;
  put32(bad, view + 48, 9);
  expect_refused(bad, view + 48, "view: watched component id");
  bad = file_;
  put32(bad, view + 28, 2);
  expect_refused(bad, view + 28, "view: fresh flag is not 0 or 1");
}

TEST_F(ViewSection, ALengthThatDisagreesWithTheFileIsRefusedBeforeAnyAllocation) {
  std::vector<std::byte> bad = file_;
  const std::size_t len_at = at_ - 8;
  for (int i = 0; i < 8; ++i) bad[len_at + static_cast<std::size_t>(i)] = std::byte{0xFF};
  const std::uint64_t n = file_.size() - 8 - at_;
  expect_refused(bad, len_at,
                 "expected a view section of the " + std::to_string(n) + " bytes before the checksum, length is " +
                     std::to_string(~std::uint64_t{0}));
}

TEST_F(ViewSection, AWorldWhoseViewsDifferRefusesTheSection) {
  auto other = make_world(/*watch_mark=*/true);
  Snapshot scratch(*other);
  const FileStatus st = load_snapshot_bytes(file_, *other, scratch, "v.lssnap");
  EXPECT_EQ(st.code, ErrorCode::Mismatch);
  EXPECT_EQ(st.offset, at_);
  EXPECT_EQ(st.message, "v.lssnap: byte " + std::to_string(at_) +
                            ": view section: load: the snapshot's views differ from the world's");
  EXPECT_EQ(other->tick(), 0u);
}
