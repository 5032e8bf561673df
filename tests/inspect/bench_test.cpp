// inspect/bench.h: the tick benchmark as a library call returns one figure per measured tick
// and snapshot iteration, the same final state as a plain run, and counts allocations
// through the counter it is given.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/inspect/bench.h>
#include <lockstep/replay/record.h>

#include <gtest/gtest.h>

using namespace lockstep;

namespace {

std::uint64_t g_fake_allocations = 0;
std::uint64_t fake_counter() noexcept { return g_fake_allocations; }

TEST(Bench, MeasuresEveryTickAndEndsInTheRecordedState) {
  inspect::BenchOptions o;
  o.sim = &fixtures::duel_sim();
  o.config.players = 2;
  o.config.seed = 3;
  o.bot_seed = 3;
  o.warmup = 5;
  o.ticks = 20;
  o.snapshot_iters = 4;
  o.heap_allocations = &fake_counter;
  const inspect::BenchFigures f = inspect::run_bench(o);
  ASSERT_TRUE(f.error.empty()) << f.error;
  EXPECT_EQ(f.tick_ns.size(), 20u);
  EXPECT_EQ(f.hash_ns.size(), 20u);
  EXPECT_EQ(f.tick_cpu_ns.size(), 20u);
  EXPECT_EQ(f.hash_cpu_ns.size(), 20u);
  EXPECT_EQ(f.save_ns.size(), 4u);
  EXPECT_EQ(f.load_ns.size(), 4u);
  EXPECT_EQ(f.allocations_during_ticks, 0u);  // the fake counter never moves
  EXPECT_EQ(f.allocations_during_snapshots, 0u);
  EXPECT_TRUE(f.snapshot_load_ok);
  EXPECT_GT(f.snapshot_bytes, 0u);
  ASSERT_NE(f.trace, nullptr);
  EXPECT_FALSE(f.trace->stats().empty());

  // 25 ticks of the same bots: the recorder's final hash.
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), o.config, 3, 25, 0, rec).ok());
  EXPECT_EQ(f.final_hash.tick, 25u);
  EXPECT_EQ(f.final_hash.total, rec.hashes.back().total);
}

TEST(Bench, ReportsASimThatCannotBeBuilt) {
  inspect::BenchOptions o;
  o.sim = &fixtures::duel_sim();
  o.config.players = 3;
  const inspect::BenchFigures f = inspect::run_bench(o);
  EXPECT_EQ(f.error.rfind("cannot build sim 'duel': ", 0), 0u) << f.error;
  EXPECT_EQ(f.trace, nullptr);
}

}  // namespace
