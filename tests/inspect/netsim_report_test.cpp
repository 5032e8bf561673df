// inspect/netsim_report.h: a netsim request's conditions in human units, checked and converted
// to the simulated network's integer units, and the report lines that show them.
#include <lockstep/inspect/netsim_report.h>

#include <gtest/gtest.h>

#include <limits>

using namespace lockstep;

namespace {

TEST(NetsimRequest, ConditionsBecomeMicrosecondsAndPartsPerMillion) {
  inspect::NetsimRequest q;
  q.latency_ms = 80.4;
  q.jitter_ms = 0.0005;  // rounds to 1 µs
  q.loss = 0.1;
  q.duplicate = 0.0000004;  // rounds to 0 ppm
  q.reorder = 1;
  inspect::NetsimUnits u;
  EXPECT_EQ(inspect::netsim_units_from(q, u), "");
  EXPECT_EQ(u.latency_us, 80400u);
  EXPECT_EQ(u.jitter_us, 1u);
  EXPECT_EQ(u.loss_ppm, 100000u);
  EXPECT_EQ(u.duplicate_ppm, 0u);
  EXPECT_EQ(u.reorder_ppm, 1000000u);
}

TEST(NetsimRequest, ConditionsOutOfRangeAreRefusedWithTheFlagsNamed) {
  inspect::NetsimUnits u;
  inspect::NetsimRequest q;
  q.jitter_ms = 10000.5;
  EXPECT_EQ(inspect::netsim_units_from(q, u), "--latency-ms and --jitter-ms must be 0..10000");
  q = {};
  q.latency_ms = -1;
  EXPECT_EQ(inspect::netsim_units_from(q, u), "--latency-ms and --jitter-ms must be 0..10000");
  q = {};
  q.reorder = 1.5;
  EXPECT_EQ(inspect::netsim_units_from(q, u), "--loss, --duplicate and --reorder are probabilities in 0..1");
  q = {};
  q.duplicate = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(inspect::netsim_units_from(q, u), "--loss, --duplicate and --reorder are probabilities in 0..1");
  q = {};
  q.loss = 1;
  EXPECT_EQ(inspect::netsim_units_from(q, u), "--loss 1 would never deliver anything");
  q.peers = 1;  // a single peer sends nothing
  EXPECT_EQ(inspect::netsim_units_from(q, u), "");
  EXPECT_EQ(u.loss_ppm, 1000000u);
}

TEST(NetsimRequest, TheRequestLineAndTheFramesLine) {
  inspect::NetsimRequest q;
  q.sim = "duel";
  q.peers = 3;
  q.ticks = 600;
  q.latency_ms = 150;
  q.jitter_ms = 50;
  q.loss = 0.2;
  q.duplicate = 0.015;
  q.seed = 7;
  EXPECT_EQ(inspect::netsim_request_line(q, 2),
            "netsim duel: 3 peers (2 players), 600 ticks at 60 Hz; one-way latency 150 ms ± 50 ms, loss 20.0%, "
            "duplicate 1.5%, reorder 0.0%; input delay 2, prediction window 8, hash every 16 ticks, seed 7\n");
  EXPECT_EQ(inspect::netsim_frames_line(q, 630, 1'234'000'000),
            "frames: 630 (10.5 s of simulated time for 10.0 s of ticks; 1.23 s wall)\n");
}

TEST(NetsimRequest, JsonFieldsInTheReportsOrder) {
  inspect::NetsimRequest q;
  q.sim = "skirmish";
  q.threads = 2;
  inspect::JsonWriter j;
  j.begin();
  inspect::append_netsim_request_fields(j, q, 2);
  inspect::append_wall_seconds(j, 2'500'000'000);
  j.end();
  EXPECT_EQ(j.str(),
            "{\"sim\":\"skirmish\",\"peers\":2,\"players\":2,\"ticks\":3600,\"latency_ms\":80,\"jitter_ms\":30,"
            "\"loss\":0.1,\"duplicate\":0,\"reorder\":0,\"seed\":1,\"input_delay\":2,\"max_prediction\":8,"
            "\"hash_interval\":16,\"threads\":2,\"seconds\":2.5}");
}

}  // namespace
