// Scratch resources (docs/kernel.md, "Scratch resources"): world-owned per-tick memory,
// zeroed by beginTick() and load(), never part of the state (hash, snapshot, StorageView).
#include "support/kernel_types.h"

#include <lockstep/world.h>

#include <gtest/gtest.h>

using namespace lockstep;
using namespace lockstep_test;

namespace {
struct Cells {
  std::int32_t value;
  std::uint16_t owner;
  std::uint16_t reserved;
};
LOCKSTEP_COMPONENT(Cells, value, owner, reserved);
struct Header {
  std::uint64_t count;
};
LOCKSTEP_COMPONENT(Header, count);
}  // namespace

TEST(Scratch, RegisteredZeroedAndSized) {
  World w;
  register_all(w);
  ASSERT_TRUE(w.registerScratch<Cells>(100).ok());
  ASSERT_TRUE(w.registerScratch<Header>().ok());
  EXPECT_EQ(w.scratchCount<Cells>(), 100u);
  EXPECT_EQ(w.scratchCount<Header>(), 1u);
  EXPECT_EQ(w.scratchBytes(), 100u * 8u + 8u);
  Cells* c = w.scratch<Cells>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c) % 64u, 0u);
  for (std::uint32_t i = 0; i < 100; ++i) EXPECT_EQ(c[i].value, 0);
  EXPECT_EQ(w.scratch<Pos>(), nullptr);  // a component type is not a scratch type
  EXPECT_EQ(w.scratchCount<Pos>(), 0u);
  EXPECT_EQ(w.registerScratch<Cells>(5).code(), ErrorCode::AlreadyRegistered);
  EXPECT_EQ(w.registerScratch<Pos>(0).code(), ErrorCode::InvalidArgument);
}

TEST(Scratch, BeginTickAndLoadZeroEveryElement) {
  World w;
  register_all(w);
  ASSERT_TRUE(w.registerScratch<Cells>(10).ok());
  Cells* c = w.scratch<Cells>();
  c[9].value = 7;
  c[0].owner = 3;
  w.beginTick();
  EXPECT_EQ(c[9].value, 0);
  EXPECT_EQ(c[0].owner, 0u);
  Snapshot snap(w);
  w.save(snap);
  c[4].value = -1;
  ASSERT_TRUE(w.load(snap).ok());
  EXPECT_EQ(c[4].value, 0);
}

TEST(Scratch, NotState) {
  World a, b;
  register_all(a);
  register_all(b);
  ASSERT_TRUE(a.registerScratch<Cells>(10).ok());
  a.scratch<Cells>()[3].value = 123;  // only a has scratch, and non-zero
  const Entity ea = a.create(), eb = b.create();
  ASSERT_TRUE(a.addComponent(ea, Pos{1, 2}).ok());
  ASSERT_TRUE(b.addComponent(eb, Pos{1, 2}).ok());
  EXPECT_EQ(dump(a), dump(b));  // every byte StorageView exposes
  Snapshot sa(a), sb(b);
  a.save(sa);
  b.save(sb);
  EXPECT_EQ(sa.live_bytes(), sb.live_bytes());
  EXPECT_EQ(a.scratch<Cells>()[3].value, 123);  // save leaves it alone
}

namespace {
#define LOCKSTEP_TEST_SCRATCH_TYPE(N) \
  struct S##N {                       \
    std::uint32_t v;                  \
  };                                  \
  LOCKSTEP_COMPONENT(S##N, v);
LOCKSTEP_TEST_SCRATCH_TYPE(0)
LOCKSTEP_TEST_SCRATCH_TYPE(1)
LOCKSTEP_TEST_SCRATCH_TYPE(2)
LOCKSTEP_TEST_SCRATCH_TYPE(3)
LOCKSTEP_TEST_SCRATCH_TYPE(4)
LOCKSTEP_TEST_SCRATCH_TYPE(5)
LOCKSTEP_TEST_SCRATCH_TYPE(6)
LOCKSTEP_TEST_SCRATCH_TYPE(7)
LOCKSTEP_TEST_SCRATCH_TYPE(8)
LOCKSTEP_TEST_SCRATCH_TYPE(9)
LOCKSTEP_TEST_SCRATCH_TYPE(10)
LOCKSTEP_TEST_SCRATCH_TYPE(11)
LOCKSTEP_TEST_SCRATCH_TYPE(12)
LOCKSTEP_TEST_SCRATCH_TYPE(13)
LOCKSTEP_TEST_SCRATCH_TYPE(14)
LOCKSTEP_TEST_SCRATCH_TYPE(15)
LOCKSTEP_TEST_SCRATCH_TYPE(16)
#undef LOCKSTEP_TEST_SCRATCH_TYPE
}  // namespace

TEST(Scratch, AtMostSixteenPerWorld) {
  World w;
  const Status st[] = {w.registerScratch<S0>(),  w.registerScratch<S1>(),  w.registerScratch<S2>(),
                       w.registerScratch<S3>(),  w.registerScratch<S4>(),  w.registerScratch<S5>(),
                       w.registerScratch<S6>(),  w.registerScratch<S7>(),  w.registerScratch<S8>(),
                       w.registerScratch<S9>(),  w.registerScratch<S10>(), w.registerScratch<S11>(),
                       w.registerScratch<S12>(), w.registerScratch<S13>(), w.registerScratch<S14>(),
                       w.registerScratch<S15>()};
  for (const Status& s : st) EXPECT_TRUE(s.ok());
  EXPECT_EQ(w.registerScratch<S16>(3).code(), ErrorCode::CapacityExceeded);
  EXPECT_EQ(w.scratch<S16>(), nullptr);
  EXPECT_EQ(w.scratchBytes(), 16u * 4u);
}
