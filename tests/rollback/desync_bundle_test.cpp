// A session's desync bundle: both peers' states of the desync tick, read back to the same
// field-level answer.
#include "rollback_support.h"

#include <lockstep/inspect/diff.h>
#include <lockstep/rollback/desync_bundle.h>
#include <lockstep/rollback/netsim.h>

#include <gtest/gtest.h>

using namespace lockstep;
using namespace lockstep::rollback;
using rollback_test::broken_sim;

TEST(DesyncBundle, HoldsBothPeersStatesAndDiffsToTheCounterField) {
  NetsimOptions o;
  o.sim = &broken_sim();
  o.config.players = 2;
  o.peers = 2;
  o.ticks = 100;
  o.network.latency_us = 30000;
  Netsim sim(o);
  ASSERT_TRUE(sim.status().ok());
  const NetsimReport& r = sim.run();
  ASSERT_GT(r.desync_count, 0u);
  const NetsimDesync& d = r.desyncs.front();
  RollbackSession& mine = sim.session(d.peer);
  const Snapshot* theirs = sim.session(d.event.peer).checkpoint(d.event.tick);
  if (theirs == nullptr) theirs = sim.session(d.event.peer).desync_snapshot();
  ASSERT_NE(theirs, nullptr);
  const inspect::Bundle b = session_desync_bundle(mine, theirs, "netsim");
  ASSERT_EQ(b.sides.size(), 2u);
  EXPECT_EQ(b.tick, d.event.tick);
  EXPECT_EQ(b.sides[0].hash.total, d.event.local_total);
  EXPECT_EQ(b.sides[1].hash.total, d.event.remote_total);
  // Through bytes and back: the same diff as the live states give.
  inspect::Bundle back;
  ASSERT_TRUE(inspect::decode_bundle(inspect::encode_bundle(b), back, "b").ok());
  inspect::StateDiff from_file, live;
  ASSERT_TRUE(inspect::bundle_diff(back, from_file));
  live = inspect::diff(inspect::capture(mine.desync_snapshot()->view()), inspect::capture(theirs->view()));
  EXPECT_EQ(inspect::format_text(from_file), inspect::format_text(live));
  ASSERT_FALSE(from_file.equal());
  EXPECT_EQ(from_file.entries[0].part, "Counter");
  EXPECT_EQ(from_file.entries[0].field, "value");
  EXPECT_NE(from_file.entries[0].a, from_file.entries[0].b);
}
