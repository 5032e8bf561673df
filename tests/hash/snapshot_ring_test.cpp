// SnapshotRing for rollback: save every tick, roll back to any tick still in the ring, and
// re-simulate to the same hashes.
#include "hash/hash_test_support.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/store/world.h>

#include <gtest/gtest.h>

#include <vector>

using namespace hashtest;
using lockstep::StateHash;
using lockstep::World;

namespace {
Op op_for_tick(std::uint64_t t, std::uint32_t k) {
  std::uint8_t kind = static_cast<std::uint8_t>((t * 5 + k * 3) % kOpKinds);
  if (kind == kAdvanceTick) kind = kCreate;  // the tick advances once per simulated tick
  return Op{kind, static_cast<std::uint32_t>(t * 31 + k),
            static_cast<std::int64_t>(t * 1000003 + k), static_cast<std::int64_t>(t) - 17};
}
void simulate_tick(Driver& d) {
  for (std::uint32_t k = 0; k < 4; ++k) (void)d.apply(op_for_tick(d.world.tick(), k));
  (void)d.apply(Op{kStep, 0, 0, 0});
  d.world.advanceTick();
}
}  // namespace

TEST(snapshot_ring, RollbackAndResimulateReproducesHashes) {
  World w(small_config());
  register_all(w);
  Driver d(w);
  constexpr std::uint32_t kSlots = 8;
  lockstep::SnapshotRing ring(w, kSlots);
  EXPECT_EQ(ring.size(), kSlots);
  std::vector<StateHash> hashes;          // hash at the start of tick t
  std::vector<std::vector<Entity>> handles;  // driver handles at the start of tick t
  for (int i = 0; i < 30; ++i) {
    ring.save(w);
    hashes.push_back(hash_of(w));
    handles.push_back(d.handles);
    simulate_tick(d);
  }
  const StateHash final_hash = hash_of(w);
  const std::uint64_t now = w.tick();
  ASSERT_EQ(now, 30u);
  // Ticks older than the ring are gone; the last kSlots are present.
  EXPECT_EQ(ring.find(now - kSlots - 1), nullptr);
  EXPECT_EQ(ring.find(now), nullptr);  // never saved
  for (std::uint64_t t = now - kSlots; t < now; ++t) {
    const lockstep::Snapshot* s = ring.find(t);
    ASSERT_NE(s, nullptr) << t;
    EXPECT_EQ(lockstep::hash_storage(s->view()), hashes[t]);
  }
  // Roll back to each tick in the ring and re-simulate forward.
  for (std::uint64_t t = now - kSlots; t < now; ++t) {
    ASSERT_TRUE(w.load(*ring.find(t)).ok());
    d.handles = handles[t];
    EXPECT_EQ(hash_of(w), hashes[t]);
    while (w.tick() < now) {
      simulate_tick(d);
      if (w.tick() < now) {
        EXPECT_EQ(hash_of(w), hashes[w.tick()]);
      }
    }
    EXPECT_EQ(hash_of(w), final_hash) << "rolled back to " << t;
  }
}
