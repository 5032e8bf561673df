// Nested described structs as fields (component.h): flattened at describe() time into leaf
// fields with path names, so hashing and snapshots need no change and a nested type hashes
// exactly like the flat type with the same leaves.
#include <lockstep/store/component.h>
#include <lockstep/store/entity.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/math/vec.h>
#include <lockstep/store/world.h>

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>

namespace nested {
struct Player {
  std::int32_t kills;
  std::uint16_t deaths;
  std::uint8_t alive;
  std::uint8_t team;
};
LOCKSTEP_COMPONENT(Player, kills, deaths, alive, team);
struct Pad {
  std::int8_t dx, dy;
};
LOCKSTEP_COMPONENT(Pad, dx, dy);
struct Score {
  Player players[3];
  std::uint32_t round;
  Pad in[2];
  std::array<Pad, 1> extra;
  std::uint16_t reserved;
};
LOCKSTEP_COMPONENT(Score, players, round, in, extra, reserved);
struct Body {
  lockstep::vec2 pos;
  lockstep::Entity target;
};
LOCKSTEP_COMPONENT(Body, pos, target);
struct Unit {
  Body body;  // a nested struct, not an array
  std::int64_t hp;
};
LOCKSTEP_COMPONENT(Unit, body, hp);
}  // namespace nested

namespace flat {  // the same leaves, spelled out by hand; same type names as in `nested`
struct Score {
  std::int32_t k0; std::uint16_t d0; std::uint8_t a0, t0;
  std::int32_t k1; std::uint16_t d1; std::uint8_t a1, t1;
  std::int32_t k2; std::uint16_t d2; std::uint8_t a2, t2;
  std::uint32_t round;
  std::int8_t x0, y0, x1, y1, x2, y2;
  std::uint16_t reserved;
};
LOCKSTEP_COMPONENT(Score, k0, d0, a0, t0, k1, d1, a1, t1, k2, d2, a2, t2, round, x0, y0, x1, y1, x2, y2, reserved);
}  // namespace flat

namespace {

std::string names(const lockstep::TypeDescriptor& d) {
  std::string out;
  for (std::uint32_t i = 0; i < d.field_count; ++i) out += std::string(i ? " " : "") + d.fields[i].name;
  return out;
}

TEST(NestedFields, ArraysOfStructsFlattenIntoPathNamedLeaves) {
  const lockstep::TypeDescriptor& d = lockstep::describe<nested::Score>();
  EXPECT_STREQ(d.name, "Score");
  EXPECT_EQ(d.size, sizeof(nested::Score));
  EXPECT_EQ(names(d),
            "players[0].kills players[0].deaths players[0].alive players[0].team "
            "players[1].kills players[1].deaths players[1].alive players[1].team "
            "players[2].kills players[2].deaths players[2].alive players[2].team "
            "round in[0].dx in[0].dy in[1].dx in[1].dy extra[0].dx extra[0].dy reserved");
  ASSERT_EQ(d.field_count, 20u);
  EXPECT_EQ(d.fields[4].offset, offsetof(nested::Score, players) + sizeof(nested::Player));  // players[1].kills
  EXPECT_EQ(d.fields[4].kind, lockstep::FieldKind::SignedInt);
  EXPECT_EQ(d.fields[5].element_size, 2);                                                   // players[1].deaths
  EXPECT_EQ(d.fields[12].offset, offsetof(nested::Score, round));
  EXPECT_EQ(d.fields[16].offset, offsetof(nested::Score, in) + 2 + 1);                      // in[1].dy
  // Same leaves as the hand-written flat type: offsets, sizes, kinds.
  const lockstep::TypeDescriptor& f = lockstep::describe<flat::Score>();
  ASSERT_EQ(f.field_count, d.field_count);
  for (std::uint32_t i = 0; i < d.field_count; ++i) {
    EXPECT_EQ(d.fields[i].offset, f.fields[i].offset) << i;
    EXPECT_EQ(d.fields[i].element_size, f.fields[i].element_size) << i;
    EXPECT_EQ(d.fields[i].count, f.fields[i].count) << i;
    EXPECT_EQ(d.fields[i].kind, f.fields[i].kind) << i;
  }
  // Described once: the same storage every call.
  EXPECT_EQ(&lockstep::describe<nested::Score>(), &d);
}

TEST(NestedFields, PlainNestedStructKeepsLeafKinds) {
  const lockstep::TypeDescriptor& d = lockstep::describe<nested::Unit>();
  EXPECT_EQ(names(d), "body.pos body.target hp");
  ASSERT_EQ(d.field_count, 3u);
  EXPECT_EQ(d.fields[0].kind, lockstep::FieldKind::Fixed);
  EXPECT_EQ(d.fields[0].count, 2);
  EXPECT_EQ(d.fields[1].kind, lockstep::FieldKind::Entity);
  EXPECT_EQ(d.fields[1].offset, offsetof(nested::Body, target));
  EXPECT_EQ(d.fields[2].offset, offsetof(nested::Unit, hp));
}

template <class Score>
lockstep::StateHash hash_with(const Score& value) {
  lockstep::World w;
  EXPECT_TRUE(w.registerResource<Score>().ok());
  *w.resource<Score>() = value;
  return lockstep::hash_world(w);
}

TEST(NestedFields, NestedTypeHashesExactlyLikeItsFlatTwin) {
  nested::Score n{};
  n.players[1].kills = -7;
  n.players[2].deaths = 513;
  n.round = 0x01020304;
  n.in[1].dy = -1;
  n.extra[0].dx = 5;
  flat::Score f{};
  static_assert(sizeof(n) == sizeof(f));
  std::memcpy(&f, &n, sizeof n);
  const lockstep::StateHash hn = hash_with(n);
  EXPECT_EQ(hn.total, hash_with(f).total);
  // And a change in one nested leaf changes it.
  nested::Score m = n;
  m.players[1].kills = -8;
  EXPECT_NE(hash_with(m).total, hn.total);
}

TEST(NestedFields, SnapshotRoundTripOfANestedComponent) {
  lockstep::World w;
  ASSERT_TRUE(w.registerComponent<nested::Unit>().ok());
  const lockstep::Entity a = w.create(), b = w.create();
  ASSERT_TRUE(w.addComponent(a, nested::Unit{{lockstep::vec2{lockstep::fixed(3), lockstep::fixed(-2)}, b}, 40}).ok());
  const lockstep::StateHash before = lockstep::hash_world(w);
  lockstep::Snapshot snap(w);
  w.save(snap);
  ASSERT_TRUE(w.addComponent(a, nested::Unit{{lockstep::vec2{}, a}, 1}).ok());
  EXPECT_NE(lockstep::hash_world(w).total, before.total);
  ASSERT_TRUE(w.load(snap).ok());
  EXPECT_EQ(lockstep::hash_world(w).total, before.total);
  EXPECT_EQ(w.get<nested::Unit>(a)->body.target, b);
}

}  // namespace
