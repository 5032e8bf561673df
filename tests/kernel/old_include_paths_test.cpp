// A game written against 0.2's header paths builds and runs unchanged: this file includes only
// the paths the kernel had before the split into math/, store/, query/ and exec/ (they forward
// until 0.4.0, CHANGELOG) and uses what they declared — World, each, parallelEach on a pool,
// cached queries, fixed point, the RNG, snapshots — with exact answers.
#include <lockstep/cached_query.h>
#include <lockstep/command_buffer.h>
#include <lockstep/component.h>
#include <lockstep/dynamic_query.h>
#include <lockstep/entity.h>
#include <lockstep/events.h>
#include <lockstep/field.h>
#include <lockstep/fixed.h>
#include <lockstep/fixed_math.h>
#include <lockstep/observers.h>
#include <lockstep/predicate.h>
#include <lockstep/query.h>
#include <lockstep/query_terms.h>
#include <lockstep/query_where.h>
#include <lockstep/rng.h>
#include <lockstep/snapshot.h>
#include <lockstep/status.h>
#include <lockstep/storage_view.h>
#include <lockstep/system_access.h>
#include <lockstep/thread_pool.h>
#include <lockstep/type_key.h>
#include <lockstep/vec.h>
#include <lockstep/view.h>
#include <lockstep/view_state.h>
#include <lockstep/world.h>
#include <lockstep/world_config.h>

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using namespace lockstep;

struct OldPos {
  fixed x;
  fixed y;
};
LOCKSTEP_COMPONENT(OldPos, x, y);
struct OldVel {
  fixed dx;
  fixed dy;
};
LOCKSTEP_COMPONENT(OldVel, dx, dy);

TEST(OldIncludePaths, AGameWrittenAgainstThePreviousPathsBuildsAndRuns) {
  WorldConfig config;
  config.max_entities = 2000;
  World w(config);
  ASSERT_TRUE(w.registerComponent<OldPos>().ok());
  ASSERT_TRUE(w.registerComponent<OldVel>().ok());
  ASSERT_TRUE(w.registerResource<Rng>(Rng(42)).ok());
  for (int i = 0; i < 1500; ++i)
    (void)w.createWith(OldPos{fixed(i), fixed(0)}, OldVel{fixed::ratio(1, 2), fixed(1)});
  ASSERT_EQ(w.entityCount(), 1500u);

  ThreadPool pool(2);
  w.setThreadPool(&pool);
  EXPECT_EQ(w.threadPool(), &pool);
  EXPECT_EQ(w.parallelChunkCount<OldPos>(), 3u);  // 1500 rows in 512-row chunks
  const Status moved = w.parallelEach<OldPos, OldVel>(
      [](Entity, OldPos& p, const OldVel& v) {
        p.x += v.dx;
        p.y += v.dy;
      },
      Write{}, Read{});
  ASSERT_TRUE(moved.ok()) << moved.message();
  fixed sum_x(0);
  ASSERT_TRUE(w.each<OldPos>([&](Entity, const OldPos& p) { sum_x += p.x; }, Read{}).ok());
  // Σ (i + 1/2) for i < 1500 = 1,124,250 + 750.
  EXPECT_EQ(sum_x, fixed(1125000));

  CachedQuery<term::read<OldPos>, term::write<OldVel>> q;
  std::uint32_t visited = 0;
  const Status queried = q.each(w, [&](Entity, const OldPos&, OldVel& v) {
    v.dy = fixed(2);
    ++visited;
  });
  ASSERT_TRUE(queried.ok()) << queried.message();
  EXPECT_EQ(visited, 1500u);

  Snapshot snap(w);
  w.save(snap);
  Rng* rng = w.resource<Rng>();
  ASSERT_NE(rng, nullptr);
  const std::uint64_t first = rng->next_u64();
  ASSERT_TRUE(w.load(snap).ok());
  EXPECT_EQ(w.resource<Rng>()->next_u64(), first);  // the RNG is state: restored with the world

  EXPECT_EQ(sqrt(fixed(16)), fixed(4));
  const vec2 v = vec2{fixed(1), fixed(2)} + vec2{fixed(3), fixed(4)};
  EXPECT_EQ(v.x, fixed(4));
  EXPECT_EQ(v.y, fixed(6));
  w.setThreadPool(nullptr);
}

}  // namespace
