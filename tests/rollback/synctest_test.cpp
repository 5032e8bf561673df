// Sync test: both fixtures pass at check distances 1..8; a sim with state outside the
// world is caught with the tick and the component.
#include "rollback/rollback_support.h"

#include <lockstep/rollback/synctest.h>

#include <gtest/gtest.h>

using namespace rollback_test;

TEST(synctest, DuelPassesAtDistances1To8) {
  for (std::uint32_t d = 1; d <= 8; ++d) {
    const SyncTestResult r = synctest_bots(fixtures::duel_sim(), duel_config(7), 7, 400 / kScale, d);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.ok) << "distance " << d << " tick " << r.tick;
    EXPECT_EQ(r.ticks, 400 / kScale);
    EXPECT_EQ(r.rollbacks, r.ticks);
  }
}

TEST(synctest, SkirmishPassesAtDistances1To8) {
  for (std::uint32_t d = 1; d <= 8; ++d) {
    const SyncTestResult r = synctest_bots(fixtures::skirmish_sim(), skirmish_config(3, 150, d), d, 240 / kScale, d);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.ok) << "distance " << d << " tick " << r.tick;
    // Every tick but the first d rolls back the full distance.
    EXPECT_EQ(r.resimulated_ticks, d * r.ticks - d * (d - 1) / 2);
  }
}

TEST(synctest, Skirmish8EightPlayersPass) {
  for (std::uint32_t d : {1u, 4u, 8u}) {
    const SyncTestResult r = synctest_bots(fixtures::skirmish8_sim(), skirmish_config(8, 400, d), d, 120 / kScale, d);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.ok) << "distance " << d << " tick " << r.tick;
    EXPECT_EQ(r.resimulated_ticks, d * r.ticks - d * (d - 1) / 2);
  }
}

TEST(synctest, ReplayInputsPass) {
  // The confirmed history of a networked match, sync-tested from its replay form.
  NetsimOptions o = duel_netsim(2, 200, 50, 20, 50000, 4);
  Netsim net(o);
  ASSERT_TRUE(net.run().ok());
  const SyncTestResult r = synctest_replay(fixtures::duel_sim(), net.confirmed(0), 4);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.ticks, 200u);
}

TEST(synctest, BrokenSimIsCaught) {
  for (std::uint32_t d : {1u, 3u, 8u}) {
    SimConfig c;
    c.players = 2;
    const SyncTestResult r = synctest_bots(broken_sim(), c, 1, 100, d);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_FALSE(r.ok) << "distance " << d;
    EXPECT_GE(r.tick, 1u);
    EXPECT_NE(r.first.total, r.again.total);
    ASSERT_EQ(r.diff.component_count, 1u);
    EXPECT_EQ(r.diff.components[0], 0u);  // Counter, the component the static leaks into
  }
}

TEST(synctest, TheDifferenceIsNamedFromTheSimsSchema) {
  SimConfig c;
  c.players = 2;
  const SyncTestResult r = synctest_bots(broken_sim(), c, 1, 100, 2);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(describe_synctest_difference(broken_sim(), c, r),
            "tick " + std::to_string(r.tick) + ": total differs; components: Counter");
  SimConfig unbuildable = c;
  unbuildable.players = 0;
  ASSERT_FALSE(Runner(broken_sim(), unbuildable).status().ok());
  EXPECT_EQ(describe_synctest_difference(broken_sim(), unbuildable, r),
            "total " + to_hex(r.first.total) + " vs " + to_hex(r.again.total));
}

TEST(synctest, RejectsBadDistance) {
  const SyncTestResult r = synctest_bots(fixtures::duel_sim(), duel_config(), 1, 10, 0);
  EXPECT_EQ(r.status.code(), ErrorCode::InvalidArgument);
  const SyncTestResult r2 = synctest_bots(fixtures::duel_sim(), duel_config(), 1, 10, 65);
  EXPECT_EQ(r2.status.code(), ErrorCode::InvalidArgument);
}

TEST(synctest, TheDesyncReportAsTheToolPrintsIt) {
  SyncTestResult r;
  r.ok = false;
  r.tick = 41;
  r.first.total = 0x1234;
  r.again.total = 0xabcd;
  const SyncTestReport text = synctest_desync_report("duel (bot 3)", 8, r, "components: Pos", false);
  EXPECT_EQ(text.log, "DESYNC duel (bot 3): rolling back 8 ticks and resimulating changed tick 41: components: Pos\n"
                      "  first simulation " + to_hex(0x1234) + ", resimulation " + to_hex(0xabcd) +
                      " — the sim keeps state outside the world or is non-deterministic\n");
  EXPECT_EQ(text.report, "DESYNC at tick 41 (check distance 8): components: Pos\n");
  const SyncTestReport json = synctest_desync_report("duel (bot 3)", 8, r, "components: Pos", true);
  EXPECT_EQ(json.log, text.log);
  EXPECT_EQ(json.report, "{\"ok\":false,\"exit\":1,\"source\":\"duel (bot 3)\",\"check_distance\":8,\"tick\":41,"
                         "\"first_hash\":\"" + to_hex(0x1234) + "\",\"resimulated_hash\":\"" + to_hex(0xabcd) +
                         "\",\"differs\":\"components: Pos\"}\n");
}
