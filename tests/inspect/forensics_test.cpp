// The gates' forensics as library calls (inspect/forensics.h, replay/verify.h): a verify
// divergence and a two-recording comparison each give the exact tick and parts and complete a
// two-sided desync bundle with the agreeing state before it — no CLI involved (issue 22).
#include "inspect_support.h"

#include <lockstep/fixtures/fixtures.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/forensics.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/verify.h>

#include <gtest/gtest.h>

using namespace lockstep;

namespace {
using inspect_test::duel_config;
void expect_round_trip(const inspect::Bundle& b) {
  const std::vector<std::byte> bytes = inspect::encode_bundle(b);
  inspect::Bundle back;
  ASSERT_TRUE(inspect::decode_bundle(bytes, back, "b.lsbundle").ok());
  EXPECT_EQ(inspect::encode_bundle(back), bytes);
}
}  // namespace

TEST(Forensics, AVerifyDivergenceCompletesATwoSidedBundle) {
  replay::Replay rec;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 40, 1, rec).ok());
  rec.hashes[20].total ^= 1;
  replay::Runner runner(fixtures::duel_sim(), rec.header.config);
  Snapshot prev;
  replay::VerifyOptions opt;
  opt.replay_name = "d.replay";
  opt.previous = &prev;
  const replay::VerifyResult v = replay::verify(runner, rec, opt);
  ASSERT_FALSE(v.bad_input()) << v.error;
  ASSERT_FALSE(v.ok);
  EXPECT_EQ(v.tick, 20u);
  EXPECT_EQ(v.against, "recorded hashes");
  EXPECT_EQ(v.differs, "total");
  EXPECT_EQ(v.recorded_checked, 21u);
  EXPECT_EQ(v.checkpoints_checked, 19u);  // ticks 1..19 (checkpoints are checked after the hashes)
  const auto fields = inspect::verify_field_diff(rec, v.tick, "d.replay", runner);
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(inspect::summary(*fields), "tick 20: equal");  // only the recorded hash was changed
  const inspect::Bundle b = inspect::verify_bundle(fixtures::duel_sim(), rec, "d.replay", runner, &prev, v.tick, "report");
  EXPECT_EQ(b.source, "verify");
  EXPECT_EQ(b.tick, 20u);
  ASSERT_EQ(b.sides.size(), 2u);
  EXPECT_EQ(b.sides[0].label, "recording d.replay");
  EXPECT_EQ(b.sides[1].label, "this build");
  EXPECT_TRUE(b.sides[0].has_state);
  EXPECT_TRUE(b.sides[1].has_state);
  EXPECT_EQ(b.sides[0].hash.total, rec.hashes[20].total);
  ASSERT_TRUE(b.has_agreeing);
  EXPECT_EQ(b.agreeing.tick, 19u);
  EXPECT_EQ(b.inputs_from, 19u);
  EXPECT_EQ(b.inputs.size(), std::size_t{rec.header.frame_bytes()});
  expect_round_trip(b);
}

TEST(Forensics, TwoRecordingsCompareAndCompleteATwoSidedBundle) {
  replay::Replay a, b;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 40, 1, a).ok());
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 40, 1, b).ok());
  EXPECT_TRUE(replay::compare_recordings(a, "a", b, "b").ok);
  b.hashes[25].entities ^= 1;
  const replay::RecordingComparison c = replay::compare_recordings(a, "a", b, "b");
  ASSERT_TRUE(c.error.empty()) << c.error;
  ASSERT_FALSE(c.ok);
  EXPECT_EQ(c.tick, 25u);
  EXPECT_EQ(c.differs, "entities");  // only that part was changed
  EXPECT_EQ(c.ticks_compared, 41u);
  const inspect::AgainstForensics f = inspect::against_forensics(a, "a", b, "b", c);
  EXPECT_EQ(f.report, "first divergent tick 25: differs: entities; tick 25: equal");
  const inspect::Bundle bu = inspect::against_bundle(fixtures::duel_sim(), a, "a", b, "b", c, f);
  ASSERT_EQ(bu.sides.size(), 2u);
  EXPECT_EQ(bu.sides[0].label, "A a");
  EXPECT_EQ(bu.sides[1].label, "B b");
  EXPECT_TRUE(bu.sides[0].has_state && bu.sides[1].has_state);
  ASSERT_TRUE(bu.has_agreeing);
  EXPECT_EQ(bu.agreeing.tick, 24u);
  EXPECT_EQ(bu.inputs.size(), std::size_t{a.header.frame_bytes()});
  expect_round_trip(bu);
}

TEST(Forensics, ADifferentInputFrameIsBadInputNotADivergence) {
  replay::Replay a, b;
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 3, 20, 0, a).ok());
  ASSERT_TRUE(replay::record_bots(fixtures::duel_sim(), duel_config(), 4, 20, 0, b).ok());
  const replay::RecordingComparison c = replay::compare_recordings(a, "a", b, "b");
  EXPECT_EQ(c.error.rfind("b: tick ", 0), 0u) << c.error;
  EXPECT_NE(c.error.find(": the input frame differs from a (the comparison needs two recordings of the same inputs)"),
            std::string::npos)
      << c.error;
}
