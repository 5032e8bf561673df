// replay/open_replay.h: a recording opened with the sim it was recorded with, and each way
// that fails, with the exact message a tool prints.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/open_replay.h>
#include <lockstep/replay/record.h>

#include <gtest/gtest.h>

namespace lockstep::replay {
namespace {

Replay duel_recording() {
  SimConfig c;
  c.players = 2;
  c.seed = 3;
  Replay rec;
  EXPECT_TRUE(record_bots(fixtures::duel_sim(), c, 3, 30, 1, rec).ok());
  return rec;
}

TEST(OpenReplay, FindsAndChecksTheRecordingsSim) {
  fixtures::register_builtin_sims();
  std::vector<std::byte> bytes;
  ASSERT_TRUE(encode_replay(duel_recording(), bytes).ok());
  OpenedReplay out;
  OpenFailure why;
  ASSERT_TRUE(open_replay(bytes, "d.replay", out, why)) << why.message;
  EXPECT_EQ(out.name, "d.replay");
  EXPECT_EQ(out.sim, &fixtures::duel_sim());
  EXPECT_TRUE(out.decoded);
  EXPECT_EQ(out.replay.frame_count(), 30u);
}

TEST(OpenReplay, NamesAnUnknownSimAndTheKnownOnes) {
  fixtures::register_builtin_sims();
  Replay rec = duel_recording();
  rec.header.sim_name = "nosuchsim";
  std::vector<std::byte> bytes;
  ASSERT_TRUE(encode_replay(rec, bytes).ok());
  OpenedReplay out;
  OpenFailure why;
  EXPECT_FALSE(open_replay(bytes, "x.replay", out, why));
  EXPECT_TRUE(out.decoded);
  EXPECT_FALSE(why.file.has_value());
  EXPECT_EQ(why.message, "x.replay: recorded with sim 'nosuchsim', which this build does not have (known: " +
                             describe_registered_sims() + ")");
  EXPECT_NE(describe_registered_sims().find("duel"), std::string::npos);
}

TEST(OpenReplay, KeepsTheFileLayersStatus) {
  OpenedReplay out;
  OpenFailure why;
  EXPECT_FALSE(open_replay("/nonexistent/dir/none.replay", out, why));
  EXPECT_FALSE(out.decoded);
  ASSERT_TRUE(why.file.has_value());
  EXPECT_FALSE(why.file->ok());
  EXPECT_EQ(why.message, why.file->message);
  const std::vector<std::byte> garbage(40, std::byte{0x5a});
  OpenFailure bad;
  EXPECT_FALSE(open_replay(garbage, "g.replay", out, bad));
  ASSERT_TRUE(bad.file.has_value());
  EXPECT_EQ(bad.message.rfind("g.replay", 0), 0u) << bad.message;
}

}  // namespace
}  // namespace lockstep::replay
