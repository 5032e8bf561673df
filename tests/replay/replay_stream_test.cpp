// ReplayStreamDecoder: a replay that is still being written, fed in arbitrary pieces (a
// followed FILE.partial, an HTTP Range stream), grows block by block and ends equal to the
// whole-file decode; damage is an error naming the byte offset.
#include "replay_test_support.h"

#include <lockstep/replay/replay_follow.h>

#include <gtest/gtest.h>

#include <cstring>

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

// A recording that grows as a recorder (or a file copy) appends it: `visible` bytes can be read.
class PieceSource final : public ByteSource {
 public:
  explicit PieceSource(std::vector<std::byte> all) : all_(std::move(all)) {}
  ReplayStatus read(std::uint64_t offset, std::span<std::byte> out, std::size_t& got) override {
    got = offset >= visible ? 0 : std::min<std::size_t>(out.size(), visible - offset);
    if (got != 0) std::memcpy(out.data(), all_.data() + offset, got);
    return ReplayStatus::Ok();
  }
  std::string describe() const override { return "pieces"; }
  std::size_t size() const { return all_.size(); }
  std::size_t visible = 0;

 private:
  std::vector<std::byte> all_;
};

// Grows `source` by `piece` bytes at a time, polling after each piece. A HASH block lands
// after the INPT block of the same ticks, so between pieces the inputs of a tick are often
// there without its hash: the follower must not step past a tick it has not checked (issue
// 39: it did, checked nothing, and finished "ok" on a recording that verify rejects).
ReplayStatus grow_and_follow(ReplayFollower& f, PieceSource& source, std::size_t piece, std::uint64_t& waits) {
  waits = 0;
  while (true) {
    source.visible = std::min(source.size(), source.visible + piece);
    const ReplayStatus st = f.poll(source);
    if (!st.ok()) return st;
    if (f.started()) {
      // Every tick from the start to the one it is at was compared; or the one it is at has no
      // recorded hash yet (it waits for it) and every recorded one from the start was compared.
      const Replay& r = f.recording();
      const std::uint64_t t = f.tick(), from = f.start_tick();
      if (t < r.hashes.size()) {
        EXPECT_EQ(f.checked_ticks(), t - from + 1) << "at tick " << t << ", checked from " << from;
      } else {
        EXPECT_EQ(f.checked_ticks(), r.hashes.size() - from) << "at tick " << t << ", checked from " << from;
        if (!r.complete) ++waits;
      }
    }
    if (source.visible == source.size()) break;
  }
  for (int i = 0; i < 100 && !f.finished(); ++i)
    if (ReplayStatus st = f.poll(source); !st.ok()) return st;
  return ReplayStatus::Ok();
}

TEST(ReplayFollow, GrownIn512BytePiecesEveryRecordedHashIsCheckedAndTheEndIsTheRecordedState) {
  const Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kStream);
  std::vector<std::byte> bytes;
  ASSERT_TRUE(encode_replay(mem, bytes).ok());
  PieceSource source(bytes);
  ReplayFollower f(counter_lookup, FollowOptions{}, "pieces");  // delay 0, the newest checkpoint: none yet
  std::uint64_t waits = 0;
  const ReplayStatus st = grow_and_follow(f, source, 512, waits);
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_GT(waits, 0u);  // the pieces did split INPT from HASH
  ASSERT_TRUE(f.finished());
  EXPECT_EQ(f.start_tick(), 0u);
  EXPECT_EQ(f.tick(), 100u);
  EXPECT_EQ(f.checked_ticks(), mem.hashes.size());  // 101: ticks 0..100, every one recorded
  EXPECT_EQ(f.runner()->hash().total, mem.hashes.back().total);
}

TEST(ReplayFollow, GrownIn512BytePiecesADesyncIsFoundAtItsTick) {
  for (const std::uint64_t bad : {std::uint64_t{0}, std::uint64_t{17}, std::uint64_t{70}, std::uint64_t{100}}) {
    Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kStream);
    mem.hashes[bad].total ^= 1;  // as if the recorder's build computed this tick differently
    std::vector<std::byte> bytes;
    ASSERT_TRUE(encode_replay(mem, bytes).ok());
    for (const std::size_t piece : {std::size_t{512}, std::size_t{97}}) {
      PieceSource source(bytes);
      ReplayFollower f(counter_lookup, FollowOptions{}, "pieces");
      std::uint64_t waits = 0;
      const ReplayStatus st = grow_and_follow(f, source, piece, waits);
      ASSERT_FALSE(st.ok()) << "tick " << bad << ", pieces of " << piece;
      EXPECT_EQ(st.code, ErrorCode::Mismatch);
      EXPECT_TRUE(st.has_tick);
      EXPECT_EQ(st.tick, bad);
      EXPECT_EQ(st.message.rfind("pieces: byte 0 (tick " + std::to_string(bad) + "): state differs from the recording", 0), 0u)
          << st.message;
      EXPECT_FALSE(f.finished());
    }
  }
}

// A complete recording whose hashes stop before its inputs do (the format allows fewer): the
// ticks without a recorded hash are stepped unchecked, as verify does, and the follower ends.
TEST(ReplayFollow, TicksBeyondTheRecordedHashesAreSteppedAtTheEnd) {
  Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kStream);
  mem.hashes.resize(51);
  mem.component_hashes.resize(51 * mem.header.components.size());
  std::vector<std::byte> bytes;
  ASSERT_TRUE(encode_replay(mem, bytes).ok());
  PieceSource source(bytes);
  ReplayFollower f(counter_lookup, FollowOptions{}, "pieces");
  std::uint64_t waits = 0;
  const ReplayStatus st = grow_and_follow(f, source, 512, waits);
  ASSERT_TRUE(st.ok()) << st.message;
  ASSERT_TRUE(f.finished());
  EXPECT_EQ(f.tick(), 100u);
  EXPECT_EQ(f.checked_ticks(), 51u);
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
