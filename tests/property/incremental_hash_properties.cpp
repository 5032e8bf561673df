// RapidCheck: IncrementalHasher == hash_world on random operation sequences (docs/hashing.md,
// "Incremental hashing"). Hashes are taken at random points, so several writes of every kind
// accumulate between two incremental hashes; snapshot save/restore (rollback) is one of the
// operations.
#include "hash/hash_rc_support.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/query/dynamic_query.h>
#include <lockstep/query/where.h>
#include <lockstep/hash/incremental_hash.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <vector>

using namespace hashtest;
using lockstep::IncrementalHasher;
using lockstep::StateHash;
using lockstep::World;

namespace {

// Operations the base Driver does not cover: every other way of writing state.
enum ExtraOp : std::uint8_t {
  kHash,             // compare incremental with full (also done at the end)
  kGetMutable,       // getMutable<Health> on one entity
  kCachedWrite,      // CachedQuery<write<Vel>>
  kDynamicWrite,     // DynamicQuery write("Tag")
  kSetEnabled,       // enable bits live in `entities`
  kTrack,            // trackChanges<Pos>: change ticks live in `entities`
  kSave,             // snapshot the world (rollback ring)
  kRestore,          // load the last snapshot
  kRawBytes,         // get_bytes_mutable (tools)
  kResourceReadOnly, // const resource<T>() must not be needed for correctness, only speed
  kWhereWrite,       // each_where over a CachedQuery with a Write term
  kExtraKinds
};

struct Step {
  bool extra = false;
  std::uint8_t kind = 0;
  Op op;
};

struct Harness {
  World world{small_config()};
  Driver driver{world};
  IncrementalHasher hasher;
  lockstep::Snapshot snap;
  bool saved = false;
  std::vector<Entity> saved_handles;
  lockstep::CachedQuery<lockstep::term::write<Vel>> vel_query;
  lockstep::CachedQuery<lockstep::term::write<Health>> health_query;

  Harness() {
    register_all(world);
    snap.reserve(world);
  }

  void check() {
    const StateHash inc = hasher.hash(world);
    const StateHash full = lockstep::hash_world(world);
    RC_ASSERT(inc == full);
    RC_ASSERT(inc.total == full.total);
  }

  void apply(const Step& s) {
    if (!s.extra) {
      (void)driver.apply(s.op);
      return;
    }
    const Entity e = driver.pick(s.op.index);
    switch (s.kind % kExtraKinds) {
      case kHash:
        check();
        break;
      case kGetMutable:
        if (Health* h = world.getMutable<Health>(e)) h->hp = static_cast<std::int32_t>(s.op.a);
        break;
      case kCachedWrite:
        (void)vel_query.each(world, [&](Entity, Vel& v) { v.x = fixed::from_raw(v.x.raw() + s.op.a % 1000); });
        break;
      case kDynamicWrite: {
        lockstep::DynamicQuery q;
        if (lockstep::QueryBuilder(world).write("Tag").build(q).ok())
          (void)q.each(world, [&](const lockstep::DynamicRow& row) {
            std::byte* p = row.write(0);
            if (p != nullptr) p[0] = static_cast<std::byte>(s.op.a);
          });
        break;
      }
      case kSetEnabled:
        (void)world.setEnabled<Pos>(e, (s.op.a & 1) != 0);
        break;
      case kTrack:
        (void)world.trackChanges<Pos>();
        break;
      case kSave:
        world.save(snap);
        saved = true;
        saved_handles = driver.handles;
        break;
      case kRestore:
        if (saved && world.load(snap).ok()) driver.handles = saved_handles;
        break;
      case kRawBytes:
        if (std::byte* p = world.get_bytes_mutable(e, 0)) p[0] = static_cast<std::byte>(s.op.b);
        break;
      case kResourceReadOnly: {
        const World& cw = world;
        RC_ASSERT(cw.resource<Rng>() != nullptr);
        break;
      }
      case kWhereWrite: {
        const lockstep::Predicate p = lockstep::field(&Health::hp) < static_cast<std::int32_t>(s.op.a % 1000);
        (void)lockstep::each_where(health_query, world, p, [&](Entity, Health& h) { h.max = static_cast<std::int32_t>(s.op.b); });
        break;
      }
      default:
        break;
    }
  }
};

}  // namespace

namespace rc {
template <>
struct Arbitrary<Step> {
  static Gen<Step> arbitrary() {
    return gen::apply(
        [](bool extra, int kind, const hashtest::Op& op) {
          Step s;
          s.extra = extra;
          s.kind = static_cast<std::uint8_t>(kind);
          s.op = op;
          return s;
        },
        gen::arbitrary<bool>(), gen::inRange<int>(0, kExtraKinds), gen::arbitrary<hashtest::Op>());
  }
};
}  // namespace rc

RC_GTEST_PROP(incremental_hash, EqualsFullHashOnRandomOperationSequences, (const std::vector<Step>& steps)) {
  Harness h;
  h.check();
  for (const Step& s : steps) h.apply(s);
  h.check();
}

// The same, hashing after every operation (the runner's pattern: one hash per tick).
RC_GTEST_PROP(incremental_hash, EqualsFullHashAfterEveryOperation, (const std::vector<Step>& steps)) {
  Harness h;
  for (const Step& s : steps) {
    h.apply(s);
    h.check();
  }
}

// Exact reuse: nothing written since the last hash → nothing recomputed; one component
// written → exactly that component recomputed; one resource → exactly that resource.
TEST(incremental_hash, RecomputesExactlyWhatWasWritten) {
  World w(small_config());
  register_all(w);
  Entity e;
  ASSERT_TRUE(w.tryCreate(e).ok());
  ASSERT_TRUE(w.addComponent(e, Pos{fixed::from_raw(1), fixed::from_raw(2)}).ok());
  ASSERT_TRUE(w.addComponent(e, Vel{fixed::from_raw(3), fixed::from_raw(4)}).ok());
  IncrementalHasher hasher;
  EXPECT_EQ(hasher.hash(w), lockstep::hash_world(w));
  EXPECT_EQ(hasher.last_recomputed(), 4u + 2u);  // first call: 4 components + 2 resources
  EXPECT_EQ(hasher.hash(w), lockstep::hash_world(w));
  EXPECT_EQ(hasher.last_recomputed(), 0u);
  w.getMutable<Vel>(e)->x = fixed::from_raw(99);
  EXPECT_EQ(hasher.hash(w), lockstep::hash_world(w));
  EXPECT_EQ(hasher.last_recomputed(), 1u);
  w.resource<Score>()->round = 7;
  const StateHash after_resource = hasher.hash(w);
  EXPECT_EQ(after_resource, lockstep::hash_world(w));
  EXPECT_EQ(hasher.last_recomputed(), 1u);
  // A read-only resource access marks nothing.
  const World& cw = w;
  EXPECT_EQ(cw.resource<Score>()->round, 7);
  EXPECT_EQ(hasher.hash(w), after_resource);
  EXPECT_EQ(hasher.last_recomputed(), 0u);
  // A structural change dirties the components of both archetypes involved (Pos, Vel).
  ASSERT_TRUE(w.removeComponent<Vel>(e).ok());
  EXPECT_EQ(hasher.hash(w), lockstep::hash_world(w));
  EXPECT_EQ(hasher.last_recomputed(), 2u);
  // Another world (even with equal state) never reuses this cache.
  World other(small_config());
  register_all(other);
  EXPECT_EQ(hasher.hash(other), lockstep::hash_world(other));
  EXPECT_EQ(hasher.last_recomputed(), 4u + 2u);
}
