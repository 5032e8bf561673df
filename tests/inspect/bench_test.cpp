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

TEST(Bench, StatsForAPersonFromTheRawFigures) {
  inspect::BenchFigures f;
  f.build_ns = 5000000;
  f.run_ns = 2000000000;
  f.tick_ns = {3000, 3000, 3000, 3000};
  f.hash_ns = {1000, 1000, 1000, 1000};
  f.tick_cpu_ns = {1000, 1000, 1000, 1000};
  f.hash_cpu_ns = {3000, 3000, 3000, 3000};
  f.save_ns = {500};
  f.load_ns = {250};
  f.final_hash.total = 0xbeef;
  const inspect::BenchStats b = inspect::bench_stats(f, 4);
  EXPECT_DOUBLE_EQ(b.tp.p50_us, 3.0);
  EXPECT_DOUBLE_EQ(b.tp.max_us, 3.0);
  EXPECT_DOUBLE_EQ(b.hp.p99_us, 1.0);
  EXPECT_DOUBLE_EQ(b.sp.p50_us, 0.5);
  EXPECT_DOUBLE_EQ(b.lp.p50_us, 0.25);
  EXPECT_DOUBLE_EQ(b.build_ms, 5.0);
  EXPECT_DOUBLE_EQ(b.wall_s, 2.0);
  EXPECT_DOUBLE_EQ(b.hash_share, 25.0);      // 4 us of 16 us
  EXPECT_DOUBLE_EQ(b.hash_share_p50, 25.0);  // 1 of 3 + 1
  EXPECT_DOUBLE_EQ(b.hash_share_cpu, 75.0);  // 3 of 1 + 3
  EXPECT_DOUBLE_EQ(b.tps, 250000.0);         // 4 ticks in 16 us
  EXPECT_EQ(b.final_hash, "000000000000beef");
  const inspect::BenchStats none = inspect::bench_stats(inspect::BenchFigures{}, 0);
  EXPECT_DOUBLE_EQ(none.hash_share, 0.0);
  EXPECT_DOUBLE_EQ(none.tps, 0.0);
}

}  // namespace
