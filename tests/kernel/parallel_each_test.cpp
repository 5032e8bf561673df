// World::parallelEach / parallelEachChunk (docs/systems.md, "Parallel ticks"): the same rows,
// values, enable-bit skips, change ticks and write marks as the serial each, on every thread
// count; a chunk partition that depends on the data only; reductions combined in chunk order.
#include "support/kernel_types.h"

#include <lockstep/exec/thread_pool.h>

#include <gtest/gtest.h>

#include <memory>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

constexpr std::uint32_t kThreadCounts[] = {0, 1, 2, 4, 8};

WorldConfig config() {
  WorldConfig c;
  c.max_entities = 4096;
  c.max_tracked_components = 2;
  return c;
}

// Three archetypes ({Pos,Vel}, {Pos,Vel,Health}, {Pos,Vel,Flag}) of 1300, 700 and 5 rows, with
// holes from destroys, a tail from late arrivals, disabled Vel on some rows and Vel tracked.
void build(World& w) {
  register_all(w);
  w.setGuardPolicy(GuardPolicy::Reject);
  ASSERT_TRUE(w.trackChanges<Vel>().ok());
  std::vector<Entity> es;
  for (int i = 0; i < 2100; ++i) {
    const Entity e = w.create();
    ASSERT_TRUE(w.addComponent(e, Pos{i, -i}).ok());
    ASSERT_TRUE(w.addComponent(e, Vel{i % 7, i % 5}).ok());
    if (i % 3 == 1) {
      ASSERT_TRUE(w.addComponent(e, Health{i, 100}).ok());
    }
    es.push_back(e);
  }
  for (int i = 0; i < 2100; i += 37) ASSERT_TRUE(w.destroy(es[i]).ok());  // holes
  for (int i = 5; i < 30; i += 5) ASSERT_TRUE(w.addComponent(es[i], Flag{true}).ok());
  for (int i = 2; i < 2100; i += 11)
    if (i % 37 != 0) {
      ASSERT_TRUE(w.setEnabled<Vel>(es[i], false).ok());
    }
  w.setTick(7);
}

// One Write pass: every visited row moves by its velocity and records its visit.
auto mover() {
  return [](Entity e, Pos& p, const Vel& v) {
    p.x += v.x + static_cast<std::int64_t>(e.slot);
    p.y -= v.y;
  };
}

TEST(ParallelEach, SameStateChangeTicksAndSkipsAsSerialEachOnEveryThreadCount) {
  World serial{config()};
  build(serial);
  ASSERT_TRUE((serial.each<Pos, Vel>(mover(), Write{}, Read{}).ok()));
  ASSERT_TRUE((serial.each<Vel, Pos>([](Entity, Vel& v, const Pos& p) { v.x += p.y & 3; }, Write{}, Read{}).ok()));
  const std::vector<std::uint8_t> expected = dump(serial);
  for (const std::uint32_t threads : kThreadCounts) {
    SCOPED_TRACE(threads);
    std::unique_ptr<ThreadPool> pool = threads == 0 ? nullptr : std::make_unique<ThreadPool>(threads);
    World w{config()};
    build(w);
    w.setThreadPool(pool.get());
    ASSERT_TRUE((w.parallelEach<Pos, Vel>(mover(), Write{}, Read{}).ok()));
    ASSERT_TRUE((w.parallelEach<Vel, Pos>([](Entity, Vel& v, const Pos& p) { v.x += p.y & 3; }, Write{}, Read{}).ok()));
    EXPECT_EQ(dump(w), expected);
    // Enable bits and change ticks (not in dump): the disabled rows were skipped (their Vel
    // kept its tick of 0), the written ones stamped with tick 7 — as in the serial world.
    std::uint32_t stamped = 0, skipped = 0;
    for (std::uint32_t slot = 0; slot < 2100; ++slot) {
      const Entity e{slot, 1};
      std::uint64_t added_s = 0, changed_s = 0, added_p = 0, changed_p = 0;
      const bool has_s = serial.changeTicks<Vel>(e, added_s, changed_s);
      ASSERT_EQ(w.changeTicks<Vel>(e, added_p, changed_p), has_s) << slot;
      if (!has_s) continue;
      EXPECT_EQ(added_p, added_s) << slot;
      EXPECT_EQ(changed_p, changed_s) << slot;
      EXPECT_EQ(w.isEnabled<Vel>(e), serial.isEnabled<Vel>(e)) << slot;
      (changed_p == 7 ? stamped : skipped) += 1;
    }
    EXPECT_EQ(stamped, 1857u);  // 2043 live - 186 disabled (i = 2 mod 11, minus 5 destroyed)
    EXPECT_EQ(skipped, 186u);
    // Write marks (what incremental hashing re-hashes): stamped as by the serial loops.
    EXPECT_EQ(w.writeMarks().component[0], serial.writeMarks().component[0]);
    EXPECT_EQ(w.writeMarks().component[1], serial.writeMarks().component[1]);
  }
}

TEST(ParallelEach, ChunksArePerArchetypeRunsOfFixedRowsWhateverTheThreadCount) {
  std::vector<std::uint32_t> reference;
  for (const std::uint32_t threads : kThreadCounts) {
    SCOPED_TRACE(threads);
    std::unique_ptr<ThreadPool> pool = threads == 0 ? nullptr : std::make_unique<ThreadPool>(threads);
    World w{config()};
    build(w);
    w.setThreadPool(pool.get());
    // Archetypes {Pos,Vel} 1359 live rows, {Pos,Vel,Health} 679, {Pos,Vel,Flag} 3,
    // {Pos,Vel,Health,Flag} 2 (the intermediate {Pos} is empty): 3 + 2 + 1 + 1 chunks.
    ASSERT_EQ((w.parallelChunkCount<Pos, Vel>()), 7u);
    ASSERT_EQ((w.parallelChunkCount<Pos, Health>()), 3u);
    std::vector<std::uint32_t> chunk_of(2100, 0xFFFFFFFFu);
    ASSERT_TRUE((w.parallelEachChunk<Pos, Health>([&](std::uint32_t chunk, Entity e, const Pos&,
                                                      const Health&) { chunk_of[e.slot] = chunk; },
                                                  Read{}, Read{})
                     .ok()));
    if (reference.empty()) reference = chunk_of;
    EXPECT_EQ(chunk_of, reference);
  }
  // Chunk 0: the 512 lowest slots of {Pos,Vel,Health}; chunk 1: its other 167; chunk 2: the
  // next archetype, {Pos,Vel,Health,Flag} (slots 10 and 25), in a chunk of its own.
  std::uint32_t per_chunk[3] = {0, 0, 0};
  std::uint32_t last_of_chunk0 = 0, first_of_chunk1 = 0xFFFFFFFFu;
  for (std::uint32_t slot = 0; slot < reference.size(); ++slot) {
    const std::uint32_t c = reference[slot];
    if (c == 0xFFFFFFFFu) continue;
    ASSERT_LT(c, 3u);
    ++per_chunk[c];
    if (c == 0) last_of_chunk0 = slot;
    if (c == 1 && first_of_chunk1 == 0xFFFFFFFFu) first_of_chunk1 = slot;
  }
  EXPECT_EQ(per_chunk[0], 512u);
  EXPECT_EQ(per_chunk[1], 167u);
  EXPECT_EQ(per_chunk[2], 2u);
  EXPECT_EQ(reference[10], 2u);
  EXPECT_EQ(reference[25], 2u);
  EXPECT_LT(last_of_chunk0, first_of_chunk1);
}

TEST(ParallelEach, ReductionCombinedInChunkOrderIsTheSameOnEveryThreadCount) {
  // An order-sensitive fold (h = h * 31 + partial) over per-chunk sums: equal on every thread
  // count only because partials are combined in chunk index order.
  std::uint64_t reference = 0;
  for (const std::uint32_t threads : kThreadCounts) {
    SCOPED_TRACE(threads);
    std::unique_ptr<ThreadPool> pool = threads == 0 ? nullptr : std::make_unique<ThreadPool>(threads);
    World w{config()};
    build(w);
    w.setThreadPool(pool.get());
    std::vector<std::uint64_t> partial((w.parallelChunkCount<Pos, Health>()), 0);
    ASSERT_EQ(partial.size(), 3u);  // 679 rows of {Pos,Vel,Health}, 2 of {Pos,Vel,Health,Flag}
    ASSERT_TRUE((w.parallelEachChunk<Pos, Health>(
                     [&](std::uint32_t chunk, Entity, const Pos& p, const Health& h) {
                       partial[chunk] += static_cast<std::uint64_t>(p.x) * 3 + static_cast<std::uint64_t>(h.hp);
                     },
                     Read{}, Read{})
                     .ok()));
    std::uint64_t h = 0;
    for (const std::uint64_t s : partial) h = h * 31 + s;
    if (threads == 0) reference = h;
    EXPECT_EQ(h, reference);
  }
  // And it is the serial each's answer, folded over the same 512-row runs.
  World w{config()};
  build(w);
  std::uint64_t sums[3] = {0, 0, 0};
  std::uint32_t row = 0;
  ASSERT_TRUE((w.each<Pos, Health>(
                   [&](Entity e, const Pos& p, const Health& hh) {
                     const std::uint32_t chunk = w.has<Flag>(e) ? 2 : row++ / 512;
                     sums[chunk] += static_cast<std::uint64_t>(p.x) * 3 + static_cast<std::uint64_t>(hh.hp);
                   },
                   Read{}, Read{})
                   .ok()));
  EXPECT_EQ((sums[0] * 31 + sums[1]) * 31 + sums[2], reference);
}

TEST(ParallelEach, RefusedInsideAnotherLoopAndUnderUndeclaredAccessLikeEach) {
  ThreadPool pool(2);
  World w{config()};
  build(w);
  w.setThreadPool(&pool);
  CapturingSink sink;
  w.setEventSink(&sink);
  Status inner = Status::Ok();
  ASSERT_TRUE((w.each<Health>(
                   [&](Entity, const Health&) {
                     if (inner.ok()) inner = w.parallelEach<Pos>([](Entity, Pos&) {}, Write{});
                   },
                   Read{})
                   .ok()));
  EXPECT_EQ(inner.code(), ErrorCode::InvalidArgument);
  AccessSet set;
  ASSERT_TRUE(access_of(w, Reads<Pos>{}, Writes<Health>{}, "test.mover", set).ok());
  {
    World::AccessScope scope(w, &set);
    EXPECT_EQ((w.parallelEach<Pos, Vel>(mover(), Write{}, Read{}).code()), ErrorCode::InvalidArgument);
  }
  w.setEventSink(nullptr);
  ASSERT_FALSE(sink.events.empty());
  const Event& last = sink.events.back();
  EXPECT_EQ(last.id, EventId::AccessUndeclaredWrite);
  EXPECT_STREQ(last.system, "test.mover");
  EXPECT_STREQ(last.type_name, "Pos");
}

}  // namespace

namespace {
// Odd element sizes, so that the arrays end in the middle of a 64-byte line.
struct WideScratch {
  std::uint8_t bytes[7];
};
LOCKSTEP_COMPONENT(WideScratch, bytes);
struct TinyScratch {
  std::uint8_t byte;
};
LOCKSTEP_COMPONENT(TinyScratch, byte);
}  // namespace

// beginTick() clears scratch on the pool when the world has one (each thread a share of every
// array): every byte of every array is zero afterwards, on every thread count, for a total
// above the size where the pool is used (70 and 102 KB) and below it (7 bytes, or the tiny array only).
TEST(ParallelScratch, BeginTickOnAPoolZeroesEveryByteOfEveryArray) {
  for (const std::uint32_t threads : kThreadCounts) {
    for (const std::uint32_t wide : {0u, 1u, 9999u, 14629u}) {
      World w;
      register_all(w);
      if (wide != 0) {
        ASSERT_TRUE(w.registerScratch<WideScratch>(wide).ok());
      }
      ASSERT_TRUE(w.registerScratch<TinyScratch>(3).ok());
      std::unique_ptr<ThreadPool> pool;
      if (threads > 0) {
        pool = std::make_unique<ThreadPool>(threads);
        w.setThreadPool(pool.get());
      }
      for (int round = 0; round < 2; ++round) {
        std::uint8_t* const a = wide != 0 ? &w.scratch<WideScratch>()->bytes[0] : nullptr;
        std::uint8_t* const b = &w.scratch<TinyScratch>()->byte;
        for (std::uint32_t i = 0; i < wide * 7; ++i) a[i] = static_cast<std::uint8_t>(0xA0 + i % 31 + 1);
        for (std::uint32_t i = 0; i < 3; ++i) b[i] = 0xEE;
        w.beginTick();
        std::uint32_t nonzero = 0, first = 0xFFFFFFFFu;
        for (std::uint32_t i = 0; i < wide * 7; ++i) {
          if (a[i] == 0) continue;
          ++nonzero;
          if (first == 0xFFFFFFFFu) first = i;
        }
        EXPECT_EQ(nonzero, 0u) << threads << " threads, " << wide << " wide elements: first non-zero byte " << first;
        EXPECT_EQ(b[0] | b[1] | b[2], 0) << threads << " threads, " << wide << " wide elements";
      }
    }
  }
}
