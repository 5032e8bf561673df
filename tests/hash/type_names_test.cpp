// Type names identify components and resources in snapshot files: a world refuses a second
// type with a name already registered (which used to register fine and make every snapshot
// of that world unloadable), and LOCKSTEP_COMPONENT_NAMED gives same-named types distinct names.
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/store/world.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace physics {
struct Pos {
  std::int32_t x, y;
};
LOCKSTEP_COMPONENT(Pos, x, y);
struct Clock {
  std::uint32_t t;
};
LOCKSTEP_COMPONENT(Clock, t);
}  // namespace physics

namespace render {
struct Pos {
  std::int32_t u, v;
};
LOCKSTEP_COMPONENT(Pos, u, v);
struct Clock {
  std::uint32_t frame;
};
LOCKSTEP_COMPONENT(Clock, frame);
}  // namespace render

namespace ui {
struct Pos {
  std::int32_t px, py;
};
LOCKSTEP_COMPONENT_NAMED(Pos, "ui.Pos", px, py);
}  // namespace ui

using namespace lockstep;

TEST(TypeNames, SecondComponentWithTheSameNameIsRefused) {
  World w;
  ASSERT_TRUE(w.registerComponent<physics::Pos>().ok());
  const Status s = w.registerComponent<render::Pos>();
  EXPECT_EQ(s.code(), ErrorCode::AlreadyRegistered);
  EXPECT_NE(std::string(s.message()).find("same name"), std::string::npos) << s.message();
  EXPECT_EQ(w.componentCount(), 1u);
  EXPECT_EQ(w.componentId<render::Pos>(), -1);
}

TEST(TypeNames, SecondResourceWithTheSameNameIsRefused) {
  World w;
  ASSERT_TRUE(w.registerResource<physics::Clock>().ok());
  const Status s = w.registerResource<render::Clock>();
  EXPECT_EQ(s.code(), ErrorCode::AlreadyRegistered);
  EXPECT_NE(std::string(s.message()).find("same name"), std::string::npos) << s.message();
  EXPECT_EQ(w.resourceCount(), 1u);
}

TEST(TypeNames, NamedTypesRegisterAndTheirSnapshotsLoad) {
  World w;
  ASSERT_TRUE(w.registerComponent<physics::Pos>().ok());
  ASSERT_TRUE(w.registerComponent<ui::Pos>().ok());
  EXPECT_STREQ(w.componentDescriptor(1).name, "ui.Pos");
  const Entity e = w.create();
  ASSERT_TRUE(w.addComponent(e, physics::Pos{3, -4}).ok());
  ASSERT_TRUE(w.addComponent(e, ui::Pos{7, 8}).ok());
  std::vector<std::byte> bytes;
  ASSERT_TRUE(encode_snapshot(w.storage(), bytes).ok());

  World other;
  ASSERT_TRUE(other.registerComponent<physics::Pos>().ok());
  ASSERT_TRUE(other.registerComponent<ui::Pos>().ok());
  Snapshot scratch;
  scratch.reserve(other);
  const FileStatus st = load_snapshot_bytes(bytes, other, scratch, "named.snap");
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(hash_world(other).total, hash_world(w).total);
  const ui::Pos* p = other.get<ui::Pos>(e);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->px, 7);
  EXPECT_EQ(p->py, 8);
}
