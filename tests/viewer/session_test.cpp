// viewer::Session natively (the same code the wasm module runs): its hashes are the Runner's,
// seeking works in both directions and through checkpoints, bad bytes fail with the offset.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/inspect/svg.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/snapshot.h>
#include <lockstep/viewer/session.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::vector<std::byte> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) out[i] = static_cast<std::byte>(c[i]);
  return out;
}

std::string hex16(std::uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The "total" of the first side's hash in a frame answer.
std::string frame_total(const std::string& frame) {
  const std::string key = "\"hash\":{\"tick\":";
  const auto h = frame.find(key);
  if (h == std::string::npos) return "";
  const auto t = frame.find("\"total\":\"", h);
  return t == std::string::npos ? "" : frame.substr(t + 9, 16);
}

class ViewerSession : public ::testing::Test {
 protected:
  void SetUp() override {
    lockstep::fixtures::register_builtin_sims();
    lockstep::inspect::mark_position("Position", "p");
  }
};

TEST_F(ViewerSession, ReplayHashesAreTheRunnersAtEveryTickSeekedToInAnyOrder) {
  const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay";
  const std::vector<std::byte> bytes = read_all(path);
  lockstep::replay::Replay r;
  ASSERT_TRUE(lockstep::replay::decode_replay(bytes, r, path).ok());
  const lockstep::replay::Sim* sim = lockstep::replay::find_sim(r.header.sim_name);
  ASSERT_NE(sim, nullptr);
  // Reference: a Runner stepping the recording from tick 0.
  std::vector<std::string> want;
  lockstep::replay::Runner runner(*sim, r.header.config);
  ASSERT_TRUE(runner.status().ok());
  want.push_back(hex16(runner.hash().total));
  std::vector<std::byte> frame(r.header.frame_bytes());
  for (std::uint64_t t = 0; t < r.frame_count(); ++t) {
    const auto f = r.frame(t);
    std::copy(f.begin(), f.end(), frame.begin());
    lockstep::replay::Runner::canonical_to_host(sim->input_type(), frame);
    ASSERT_TRUE(runner.step(frame).ok());
    want.push_back(hex16(runner.hash().total));
  }
  ASSERT_GE(want.size(), 601u);

  lockstep::viewer::Session s;
  const std::string info = s.load(bytes, "skirmish.replay");
  ASSERT_EQ(info.rfind("{\"ok\":true", 0), 0u) << info;
  EXPECT_NE(info.find("\"kind\":\"replay\""), std::string::npos) << info;
  EXPECT_NE(info.find("\"last_tick\":" + std::to_string(r.frame_count())), std::string::npos) << info;
  // Playback at the sim's own rate (Sim::tick_hz): skirmish is an RTS at 30 ticks/s.
  EXPECT_NE(info.find("\"tick_hz\":30,"), std::string::npos) << info;
  for (std::uint64_t t : {std::uint64_t{0}, std::uint64_t{600}, std::uint64_t{300}, std::uint64_t{301}, std::uint64_t{0},
                          r.frame_count()}) {
    const std::string f = s.seek(t);
    ASSERT_EQ(f.rfind("{\"ok\":true", 0), 0u) << f.substr(0, 300);
    EXPECT_EQ(frame_total(f), want[t]) << "tick " << t;
    EXPECT_NE(f.find("\"tick\":" + std::to_string(t) + ","), std::string::npos);
    // The recording's own hash is shown beside the computed one and agrees.
    if (t < r.hashes.size() && r.hashes[t].tick == t) {
      EXPECT_NE(f.find("\"recorded\":\"" + want[t] + "\""), std::string::npos) << "tick " << t;
    }
  }
  EXPECT_TRUE(s.error().empty());
  const std::string beyond = s.seek(r.frame_count() + 1);
  EXPECT_EQ(beyond.rfind("{\"ok\":false", 0), 0u);
  EXPECT_NE(s.error().find("expected 0.." + std::to_string(r.frame_count())), std::string::npos) << s.error();
}

// The playback rate is the sim's (Sim::tick_hz), not a constant of the page.
TEST_F(ViewerSession, PlaybackRateIsTheSims) {
  const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/duel/duel.replay";
  lockstep::viewer::Session s;
  const std::string info = s.load(read_all(path), "duel.replay");
  ASSERT_EQ(info.rfind("{\"ok\":true", 0), 0u) << info;
  EXPECT_NE(info.find("\"tick_hz\":60,"), std::string::npos) << info;
  EXPECT_EQ(lockstep::replay::find_sim("skirmish")->tick_hz(), 30u);
}

// Seeking loads the last checkpoint at or before the tick. Shown with a checkpoint at tick
// 300 that holds ANOTHER match's tick-300 state (seed 2): ticks after it follow that state,
// ticks before it are the recording's.
TEST_F(ViewerSession, SeekStartsFromTheLastCheckpointAtOrBeforeTheTick) {
  const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay";
  lockstep::replay::Replay r;
  ASSERT_TRUE(lockstep::replay::decode_replay(read_all(path), r, path).ok());
  const lockstep::replay::Sim* sim = lockstep::replay::find_sim(r.header.sim_name);
  ASSERT_NE(sim, nullptr);
  auto run_to = [&](const lockstep::replay::SimConfig& config, std::uint64_t from_state_of_tick, std::uint64_t tick,
                    std::vector<std::byte>* snapshot_at_from) {
    lockstep::replay::Runner runner(*sim, config);
    std::vector<std::byte> frame(r.header.frame_bytes());
    for (std::uint64_t t = 0; t < tick; ++t) {
      if (t == from_state_of_tick && snapshot_at_from != nullptr) {
        EXPECT_TRUE(lockstep::encode_snapshot(runner.world().storage(), *snapshot_at_from).ok());
      }
      const auto f = r.frame(t);
      std::copy(f.begin(), f.end(), frame.begin());
      lockstep::replay::Runner::canonical_to_host(sim->input_type(), frame);
      EXPECT_TRUE(runner.step(frame).ok());
    }
    return hex16(runner.hash().total);
  };
  lockstep::replay::SimConfig other = r.header.config;
  other.seed = r.header.config.seed + 1;
  lockstep::replay::Checkpoint cp;
  cp.tick = 300;
  (void)run_to(other, 300, 301, &cp.snapshot);
  ASSERT_FALSE(cp.snapshot.empty());
  // Reference for tick 450 from that checkpoint: the other match's state at 300, then the
  // recording's frames 300..449.
  std::string from_checkpoint;
  {
    lockstep::replay::Runner runner(*sim, r.header.config);
    lockstep::Snapshot scratch(runner.world());
    ASSERT_TRUE(lockstep::load_snapshot_bytes(cp.snapshot, runner.world(), scratch, "cp").ok());
    std::vector<std::byte> frame(r.header.frame_bytes());
    for (std::uint64_t t = 300; t < 450; ++t) {
      const auto f = r.frame(t);
      std::copy(f.begin(), f.end(), frame.begin());
      lockstep::replay::Runner::canonical_to_host(sim->input_type(), frame);
      ASSERT_TRUE(runner.step(frame).ok());
    }
    from_checkpoint = hex16(runner.hash().total);
  }
  const std::string recorded_450 = run_to(r.header.config, 0, 450, nullptr);
  ASSERT_NE(from_checkpoint, recorded_450);
  r.header.flags |= lockstep::replay::kReplayHasCheckpoints;
  r.header.checkpoint_interval = 300;
  r.checkpoints = {cp};
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::replay::encode_replay(r, bytes).ok());

  lockstep::viewer::Session s;
  const std::string info = s.load(bytes, "ckpt.replay");
  EXPECT_NE(info.find("\"checkpoints\":[300]"), std::string::npos) << info;
  EXPECT_EQ(frame_total(s.seek(450)), from_checkpoint);
  EXPECT_EQ(frame_total(s.seek(299)), run_to(r.header.config, 0, 299, nullptr));  // back, before it: from tick 0
  EXPECT_EQ(frame_total(s.seek(450)), from_checkpoint);
}

TEST_F(ViewerSession, EntitiesCarryMarkedPositionsTeamsAndNamedFields) {
  const std::vector<std::byte> bytes = read_all(std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay");
  lockstep::viewer::Session s;
  ASSERT_EQ(s.load(bytes, "skirmish.replay").rfind("{\"ok\":true", 0), 0u);
  const std::string f = s.seek(0);
  EXPECT_NE(f.find("\"position\":\"Position.p\""), std::string::npos);
  // Slot 0 is a unit of player 0 (Team.owner) at tick 0.
  const auto e0 = f.find("\"entities\":[[0,");
  ASSERT_NE(e0, std::string::npos) << f.substr(0, 400);
  const std::string row = f.substr(e0 + 12, f.find(']', e0 + 12) - e0 - 12);
  EXPECT_EQ(row.substr(row.rfind(',') + 1), "0") << row;
  const std::string e = s.entity(0, 0);
  EXPECT_NE(e.find("{\"name\":\"Team\",\"fields\":[{\"name\":\"owner\",\"value\":\"0\",\"differs\":false}"), std::string::npos) << e;
  EXPECT_NE(e.find("{\"name\":\"Position\",\"fields\":[{\"name\":\"p\""), std::string::npos) << e;
  EXPECT_EQ(s.entity(0, 1u << 30).rfind("{\"ok\":false", 0), 0u);
  EXPECT_EQ(s.entity(1, 0).rfind("{\"ok\":false", 0), 0u);
}

TEST_F(ViewerSession, BadBytesFailWithFileAndOffset) {
  std::vector<std::byte> bytes = read_all(std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay");
  lockstep::viewer::Session s;
  const std::vector<std::byte> junk(16, std::byte{'x'});
  EXPECT_EQ(s.load(junk, "junk.bin").rfind("{\"ok\":false", 0), 0u);
  EXPECT_EQ(s.error(), "junk.bin: byte 0: expected a replay (LSREPLAY or JSON), a desync bundle (LSBUNDLE) or a snapshot "
                       "file (LSSNAP)");
  bytes[bytes.size() / 2] ^= std::byte{0x55};
  EXPECT_EQ(s.load(bytes, "flipped.replay").rfind("{\"ok\":false", 0), 0u);
  EXPECT_NE(s.error().find("flipped.replay: byte "), std::string::npos) << s.error();
  EXPECT_EQ(s.seek(0).rfind("{\"ok\":false", 0), 0u);  // nothing loaded after a failed load
}

}  // namespace
