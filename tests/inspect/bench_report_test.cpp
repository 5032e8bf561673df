// inspect/bench_report.h: `lockstep bench`'s text, JSON and CSV reports as strings, from
// figures and statistics given here (so every character is known).
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/inspect/bench_report.h>

#include <gtest/gtest.h>

using namespace lockstep;

namespace {

std::uint64_t no_allocations() noexcept { return 0; }

struct Fixture {
  inspect::BenchOptions o;
  inspect::BenchFigures f;
  inspect::BenchStats b;
  inspect::ThreadsComparison cmp;
  Fixture() {
    o.sim = &fixtures::duel_sim();
    o.config.players = 2;
    o.config.units = 0;
    o.warmup = 5;
    o.ticks = 20;
    f.entities = 7;
    f.snapshot_bytes = 1234;
    f.allocations_during_ticks = 0;
    f.allocations_during_snapshots = 3;
    f.trace = std::make_unique<inspect::TimingTrace>("test");
    b.tp = {12.5, 20.3, 30, 13};
    b.hp = {2.5, 4, 5, 2.75};
    b.tc = {11, 19, 0, 0};
    b.hc = {2, 3.5, 0, 0};
    b.sp = {100.3, 0, 0, 0};
    b.lp = {80.5, 0, 0, 0};
    b.build_ms = 1.5;
    b.wall_s = 0.25;
    b.hash_share = 16.5;
    b.hash_share_p50 = 16.3;
    b.hash_share_cpu = 15.5;
    b.tps = 66666.4;
    b.final_hash = "0123456789abcdef";
    cmp.serial_p50_us = 12.5;
    cmp.parallel_p50_us = 6.4;
    cmp.speedup = 2;
  }
};

TEST(BenchReport, TextHasEveryLineAndSaysWhenAllocationsWereNotCounted) {
  Fixture x;
  const std::string table = "slices (measured ticks)               kind           p50 us     p99 us     max us   total ms\n";
  EXPECT_EQ(inspect::slice_table(*x.f.trace), table);
  EXPECT_EQ(inspect::bench_report_text(x.o, x.f, x.b, x.cmp),
            "bench          duel  players 2  units 0  entities 7  ticks 20 (+5 warm-up)\n"
            "tick           p50      12.5 us   p99      20.3 us   max      30.0 us   (inputs+systems+flush)\n"
            "hash           p50       2.5 us   p99       4.0 us   max       5.0 us   (16.5% of tick+hash time; 16.3% at p50)\n"
            "tick cpu       p50      11.0 us   p99      19.0 us   (this thread's CPU time)\n"
            "hash cpu       p50       2.0 us   p99       3.5 us   (15.5% of tick+hash CPU time at p50)\n"
            "snapshot       save p50 100.3 us   load p50 80.5 us   (1234 bytes)\n"
            "allocations    not counted (tool built with NO_ALLOCATION_COUNTER)\n"
            "throughput     66666 ticks/s (tick+hash)   world build 1.5 ms   final hash 0123456789abcdef\n" +
                table);
  x.o.heap_allocations = &no_allocations;
  x.o.threads = 2;
  x.f.snapshot_load_ok = false;
  const std::string text = inspect::bench_report_text(x.o, x.f, x.b, x.cmp);
  EXPECT_NE(text.find("\nsnapshot       save p50 100.3 us   load p50 80.5 us   (1234 bytes)  LOAD FAILED\n"
                      "allocations    0 heap allocations during ticks, 3 during snapshots\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nthreads        2: tick p50 6.4 us vs 12.5 us serial (same ticks, alternating): "
                      "speedup 2.00x, hashes equal\n"),
            std::string::npos)
      << text;
}

TEST(BenchReport, JsonIsOneObjectWithTheThreadsFieldsOnlyWithThreads) {
  Fixture x;
  const std::string json = inspect::bench_report_json(x.o, x.f, x.b, x.cmp);
  EXPECT_EQ(json.rfind("{\"ok\":true,\"sim\":\"duel\",\"players\":2,\"units\":0,\"entities\":7,\"ticks\":20,\"warmup\":5,"
                       "\"build_ms\":1.5,\"tick_p50_us\":12.5,",
                       0),
            0u)
      << json;
  EXPECT_NE(json.find(",\"final_hash\":\"0123456789abcdef\",\"threads\":0,\"slices\":[]}\n"), std::string::npos) << json;
  // The two figures the scale targets are read from (issue 37: ticks/s and p99 tick time at 100k units).
  EXPECT_NE(json.find(",\"tick_p50_us\":12.5,\"tick_p99_us\":20.3,\"tick_max_us\":30,"), std::string::npos) << json;
  EXPECT_NE(json.find(",\"ticks_per_second\":66666.4,\"wall_seconds\":0.25,"), std::string::npos) << json;
  x.o.threads = 2;
  EXPECT_NE(inspect::bench_report_json(x.o, x.f, x.b, x.cmp)
                .find(",\"threads\":2,\"serial_tick_p50_us\":12.5,\"parallel_tick_p50_us\":6.4,\"speedup\":2,"
                      "\"hashes_equal\":true,\"concurrent_stages\":false,\"slices\":[]}\n"),
            std::string::npos);
  x.o.concurrent_stages = true;
  EXPECT_NE(inspect::bench_report_json(x.o, x.f, x.b, x.cmp).find("\"concurrent_stages\":true,\"slices\":[]}\n"),
            std::string::npos);
  EXPECT_NE(inspect::bench_report_text(x.o, x.f, x.b, x.cmp)
                .find("\nthreads        2 with concurrent stages: tick p50 6.4 us vs 12.5 us serial "),
            std::string::npos);
}

TEST(BenchReport, CsvIsAHeaderAndOneRow) {
  Fixture x;
  EXPECT_EQ(inspect::bench_report_csv(x.o, x.f, x.b),
            "sim,players,units,entities,ticks,tick_p50_us,tick_p99_us,tick_max_us,hash_p50_us,hash_p99_us,hash_max_us,"
            "hash_share_percent,snapshot_save_p50_us,snapshot_load_p50_us,snapshot_bytes,heap_allocations,"
            "ticks_per_second,final_hash,tick_cpu_p50_us,tick_cpu_p99_us,hash_cpu_p50_us,hash_cpu_p99_us\n"
            "duel,2,0,7,20,12.50,20.30,30.00,2.50,4.00,5.00,16.50,100.30,80.50,1234,0,66666.4,0123456789abcdef,"
            "11.00,19.00,2.00,3.50\n");
}

}  // namespace
