// ReplayStreamDecoder: a replay that is still being written, fed in arbitrary pieces (a
// followed FILE.partial, an HTTP Range stream), grows block by block and ends equal to the
// whole-file decode; damage is an error naming the byte offset.
#include "replay_test_support.h"

#include <lockstep/replay/replay_follow.h>

#include <gtest/gtest.h>

namespace replay_test {
namespace {

const RecordOptions kStream{3, 100, kReplayHasHashes | kReplayHasComponentHashes, 16, 32};

std::vector<std::byte> encoded_replay() {
  const Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kStream);
  std::vector<std::byte> bytes;
  EXPECT_TRUE(encode_replay(mem, bytes).ok());
  return bytes;
}

TEST(ReplayStream, FedInAnyPiecesItGrowsByBlocksAndEndsAsTheFile) {
  const std::vector<std::byte> bytes = encoded_replay();
  Replay whole;
  ASSERT_TRUE(decode_replay(bytes, whole).ok());
  for (std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{4096}}) {
    ReplayStreamDecoder s("stream");
    std::uint64_t last_frames = 0, growths = 0;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
      const std::size_t n = std::min(piece, bytes.size() - at);
      ASSERT_TRUE(s.feed(std::span<const std::byte>(bytes.data() + at, n)).ok()) << "piece " << piece << " at " << at;
      const Replay& r = s.replay();
      // What is there is always a prefix of the whole, in whole blocks.
      ASSERT_LE(r.frame_count(), whole.frame_count());
      ASSERT_TRUE(std::equal(r.inputs.begin(), r.inputs.end(), whole.inputs.begin()));
      EXPECT_TRUE(r.frame_count() % kStream.block_ticks == 0 || r.frame_count() == whole.frame_count());
      EXPECT_LE(s.bytes_parsed(), s.bytes_received());
      if (r.frame_count() > last_frames) ++growths;
      last_frames = r.frame_count();
    }
    EXPECT_TRUE(s.complete());
    EXPECT_EQ(s.replay(), whole) << "piece " << piece;
    EXPECT_EQ(s.replay().checkpoints.size(), 3u);
    if (piece < 1000) {
      EXPECT_GE(growths, 6u) << "piece " << piece;  // 100 ticks in 16-tick blocks
    }
  }
}

TEST(ReplayStream, DamageAndExtraBytesAreErrorsWithTheOffset) {
  std::vector<std::byte> bytes = encoded_replay();
  {
    ReplayStreamDecoder s("damaged");
    std::vector<std::byte> bad = bytes;
    bad[200] ^= std::byte{0x40};
    const ReplayStatus st = s.feed(bad);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message.find("damaged: byte "), std::string::npos) << st.message;
    EXPECT_FALSE(s.feed(std::span<const std::byte>(bytes.data(), 1)).ok());  // errors are final
  }
  {
    ReplayStreamDecoder s("extra");
    ASSERT_TRUE(s.feed(bytes).ok());
    ASSERT_TRUE(s.complete());
    const std::byte more[1] = {std::byte{0}};
    const ReplayStatus st = s.feed(more);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message.find("bytes after the END block"), std::string::npos) << st.message;
  }
  {
    ReplayStreamDecoder s("notreplay");
    const char junk[] = "GIF89a....";
    EXPECT_FALSE(s.feed(std::as_bytes(std::span<const char>(junk, 3))).ok());
  }
  {
    ReplayStreamDecoder s("short");  // a correct beginning waits for more
    EXPECT_TRUE(s.feed(std::span<const std::byte>(bytes.data(), 5)).ok());
    EXPECT_FALSE(s.has_header());
    EXPECT_TRUE(s.feed(std::span<const std::byte>(bytes.data() + 5, 400)).ok());
    EXPECT_TRUE(s.has_header());
  }
}

}  // namespace
}  // namespace replay_test

namespace replay_test {
namespace {

const Sim* counter_lookup(std::string_view name) {
  return name == counter_test::counter_sim().name() ? &counter_test::counter_sim() : nullptr;
}

// A file written in pieces while a follower polls it: the follower starts at the newest
// checkpoint it finds, checks every tick after it, and ends on the recording's last hash.
TEST(ReplayFollow, FollowsAGrowingFileFromItsNewestCheckpoint) {
  const Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kStream);
  std::vector<std::byte> bytes;
  ASSERT_TRUE(encode_replay(mem, bytes).ok());
  const std::string path = temp_path("follow.replay");
  std::remove(path.c_str());
  const std::string partial = path + ".partial";
  GrowingFileSource source(path);
  FollowOptions o;
  o.delay_ticks = 10;
  ReplayFollower f(counter_lookup, o, "follow.replay");
  ASSERT_TRUE(f.poll(source).ok());  // nothing there yet: waits
  EXPECT_FALSE(f.started());
  std::FILE* w = std::fopen(partial.c_str(), "wb");
  ASSERT_NE(w, nullptr);
  const std::size_t half = bytes.size() * 6 / 10;
  std::fwrite(bytes.data(), 1, half, w);
  std::fflush(w);
  ASSERT_TRUE(f.poll(source).ok());
  ASSERT_TRUE(f.started());
  const std::uint64_t start = f.start_tick();
  EXPECT_GT(start, 0u);
  EXPECT_EQ(start % 32, 0u);  // a checkpoint
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(f.poll(source).ok());
  EXPECT_EQ(f.tick() + o.delay_ticks, f.recorded_ticks());  // holds the delay while live
  std::fwrite(bytes.data() + half, 1, bytes.size() - half, w);
  std::fclose(w);
  std::rename(partial.c_str(), path.c_str());  // the recorder's close
  for (int i = 0; i < 20 && !f.finished(); ++i) ASSERT_TRUE(f.poll(source).ok());
  EXPECT_TRUE(f.finished());
  EXPECT_EQ(f.tick(), 100u);
  EXPECT_EQ(f.checked_ticks(), 100u - start + 1);
  EXPECT_EQ(f.runner()->hash().total, mem.hashes.back().total);
  std::remove(path.c_str());
}

TEST(ReplayFollow, AStateThatDiffersFromTheRecordingNamesTheTick) {
  Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kStream);
  mem.hashes[70].total ^= 1;  // as if the recorder's build computed tick 70 differently
  std::vector<std::byte> bytes;
  ASSERT_TRUE(encode_replay(mem, bytes).ok());
  const std::string path = temp_path("differs.replay");
  {
    std::FILE* w = std::fopen(path.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), w);
    std::fclose(w);
  }
  FollowOptions o;
  o.start = FollowOptions::Start::Tick;
  o.tick = 40;  // from the checkpoint at 32
  GrowingFileSource source(path);
  ReplayFollower f(counter_lookup, o, "differs.replay");
  ReplayStatus st;
  for (int i = 0; i < 10 && st.ok() && !f.finished(); ++i) st = f.poll(source);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(f.start_tick(), 32u);
  EXPECT_EQ(st.code, ErrorCode::Mismatch);
  EXPECT_NE(st.message.find("differs.replay: byte 0 (tick 70): state differs from the recording"), std::string::npos)
      << st.message;
  // An unknown sim is a clear error too.
  ReplayFollower nosim([](std::string_view) -> const Sim* { return nullptr; }, FollowOptions{}, "x.replay");
  GrowingFileSource again(path);
  const ReplayStatus e = nosim.poll(again);
  EXPECT_NE(e.message.find("which this tool does not have"), std::string::npos) << e.message;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace replay_test

TEST(ReplayFollow, ParsesTheStartAsSpectateFromTakesIt) {
  using Start = lockstep::replay::FollowOptions::Start;
  lockstep::replay::FollowOptions o;
  o.start = Start::Beginning;
  EXPECT_TRUE(lockstep::replay::parse_follow_start("newest", o));
  EXPECT_EQ(o.start, Start::NewestCheckpoint);
  EXPECT_TRUE(lockstep::replay::parse_follow_start("0", o));
  EXPECT_EQ(o.start, Start::Beginning);
  EXPECT_TRUE(lockstep::replay::parse_follow_start("checkpoint", o));
  EXPECT_EQ(o.start, Start::NewestCheckpoint);
  EXPECT_TRUE(lockstep::replay::parse_follow_start("1200", o));
  EXPECT_EQ(o.start, Start::Tick);
  EXPECT_EQ(o.tick, 1200u);
  EXPECT_TRUE(lockstep::replay::parse_follow_start("begin", o));
  EXPECT_EQ(o.start, Start::Beginning);
  for (const char* bad : {"", "-1", "12x", "checkpoints", "12345678901234567890"}) {
    EXPECT_FALSE(lockstep::replay::parse_follow_start(bad, o)) << bad;
    EXPECT_EQ(o.start, Start::Beginning) << bad;
  }
}
