// Replay files v1: recorder == encoder, round trips, crash safety, and bad input of every kind
// (truncation at every byte, bit flips, wrong magic/version/sim/schema, garbage).
#include "replay_test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace replay_test {
namespace {

const RecordOptions kSmall{7, 40, kReplayHasHashes | kReplayHasComponentHashes, 8, 16};

TEST(Runner, BuildsStepsAndRejectsBadFrames) {
  Runner runner(counter_test::counter_sim(), counter_config());
  ASSERT_TRUE(runner.status().ok()) << runner.status().message();
  EXPECT_EQ(runner.frame_bytes(), 2u * sizeof(counter_test::CounterInput));
  EXPECT_EQ(runner.tick(), 0u);
  EXPECT_EQ(runner.hash().tick, 0u);
  std::vector<std::byte> frame(runner.frame_bytes());
  ASSERT_TRUE(runner.step(frame).ok());
  EXPECT_EQ(runner.tick(), 1u);
  EXPECT_EQ(runner.hash().tick, 1u);
  EXPECT_EQ(runner.hash(), hash_world(runner.world()));
  std::vector<std::byte> short_frame(3);
  EXPECT_EQ(runner.step(short_frame).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(runner.tick(), 1u);
}

TEST(Runner, SameInputsSameHashes) {
  Runner a(counter_test::counter_sim(), counter_config()), b(counter_test::counter_sim(), counter_config());
  std::vector<std::byte> frame(a.frame_bytes());
  for (int t = 0; t < 50; ++t) {
    const counter_test::CounterInput in[2] = {{t % 9 - 4, static_cast<std::uint32_t>(t % 4)}, {3, 1}};
    std::memcpy(frame.data(), in, sizeof in);
    ASSERT_TRUE(a.step(frame).ok());
    ASSERT_TRUE(b.step(frame).ok());
    ASSERT_EQ(a.hash(), b.hash()) << "tick " << t;
  }
  EXPECT_GT(a.world().entityCount(), 5u);
}

class BadAccessSim final : public counter_test::CounterSim {
 public:
  Status setup(World& w, SystemList& systems) const noexcept override {
    Status s = CounterSim::setup(w, systems);
    System bad;
    bad.name = "bad";
    bad.run = [](World&) {};
    bad.reads[0] = "NoSuchType";
    if (s.ok()) s = systems.add(bad);
    return s;
  }
};

TEST(Runner, RejectsUndeclaredSystemAccess) {
  BadAccessSim sim;
  Runner runner(sim, counter_config());
  EXPECT_EQ(runner.status().code(), ErrorCode::NotRegistered);
}

TEST(ReplayFile, RecorderWritesExactlyTheEncodedBytes) {
  const Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kSmall);
  std::vector<std::byte> encoded;
  ASSERT_TRUE(encode_replay(mem, encoded).ok());
  const std::string path = temp_path("rec.replay");
  ASSERT_TRUE(record_file(path, counter_test::counter_sim(), counter_config(), kSmall).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  EXPECT_EQ(read_bytes(path), encoded);
  Replay back;
  ASSERT_TRUE(read_replay_file(path, back).ok());
  EXPECT_TRUE(back.warnings.empty());
  EXPECT_EQ(back, mem);
  EXPECT_EQ(back.checkpoints.size(), 2u);
  EXPECT_EQ(back.hashes.size(), 41u);
  std::filesystem::remove(path);
}

TEST(ReplayFile, EveryOptionCombinationRoundTrips) {
  for (std::uint32_t flags : {0u, std::uint32_t{kReplayHasHashes}, kReplayHasHashes | kReplayHasComponentHashes}) {
    for (std::uint64_t ticks : {0ull, 1ull, 7ull, 8ull, 9ull, 33ull}) {
      for (std::uint32_t ck : {0u, 4u, 8u}) {
        RecordOptions o{3, ticks, flags, 8, ck};
        const Replay mem = record_memory(counter_test::counter_sim(), counter_config(3), o);
        std::vector<std::byte> bin, bin2;
        ASSERT_TRUE(encode_replay(mem, bin).ok());
        Replay back;
        ASSERT_TRUE(decode_replay(bin, back).ok()) << flags << " " << ticks << " " << ck;
        EXPECT_TRUE(back.warnings.empty());
        EXPECT_EQ(back, mem);
        std::string json;
        ASSERT_TRUE(encode_replay_json(mem, json).ok());
        Replay from_json;
        ASSERT_TRUE(decode_replay_json(json, from_json).ok());
        ASSERT_TRUE(encode_replay(from_json, bin2).ok());
        EXPECT_EQ(bin, bin2) << "binary -> JSON -> binary changed the bytes";
        const std::string path = temp_path("rt.replay");
        ASSERT_TRUE(record_file(path, counter_test::counter_sim(), counter_config(3), o).ok());
        EXPECT_EQ(read_bytes(path), bin) << flags << " " << ticks << " " << ck;
        std::filesystem::remove(path);
      }
    }
  }
}

TEST(ReplayFile, ReplayReproducesRecordedHashes) {
  const Replay mem = record_memory(counter_test::counter_sim(), counter_config(4, 9, 11), {5, 120, 3, 16, 0});
  std::string recorded = trace_comment(mem.header);
  for (std::uint64_t t = 0; t < mem.hashes.size(); ++t) append_trace_line(recorded, mem, t, true);
  EXPECT_EQ(replay_trace(counter_test::counter_sim(), mem), recorded);
}

TEST(ReplayFile, KilledRecorderLeavesALoadablePartialFile) {
  const std::string path = temp_path("killed.replay");
  RecordOptions o = kSmall;
  o.ticks = 29;  // 3 full blocks of 8 + 5 pending frames
  ASSERT_TRUE(record_file(path, counter_test::counter_sim(), counter_config(), o, /*close=*/false).ok());
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_TRUE(std::filesystem::exists(path + ".partial"));
  Replay r;
  ASSERT_TRUE(read_replay_file(path + ".partial", r).ok());
  EXPECT_FALSE(r.complete);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("no END block"), std::string::npos) << r.warnings[0];
  // The destructor writes the pending frames as a last complete block.
  EXPECT_EQ(r.frame_count(), 29u);
  const Replay full = record_memory(counter_test::counter_sim(), counter_config(), o);
  EXPECT_TRUE(std::equal(r.inputs.begin(), r.inputs.end(), full.inputs.begin()));
  std::filesystem::remove(path + ".partial");
}

TEST(ReplayFile, RecorderNeverWritesThroughAPlantedPartialName) {
  // A symlink planted at PATH.partial (or a crashed recording's file) is left alone: the
  // recorder writes PATH.XXXXXX.partial and still renames it to PATH on close().
  const std::string path = temp_path("planted.replay");
  const std::string victim = temp_path("planted-victim");
  { std::ofstream(victim) << "precious"; }
  std::filesystem::remove(path + ".partial");
  std::filesystem::create_symlink(victim, path + ".partial");
  ASSERT_TRUE(record_file(path, counter_test::counter_sim(), counter_config(), kSmall).ok());
  EXPECT_EQ(read_bytes(victim), (std::vector<std::byte>{std::byte{'p'}, std::byte{'r'}, std::byte{'e'}, std::byte{'c'},
                                                         std::byte{'i'}, std::byte{'o'}, std::byte{'u'}, std::byte{'s'}}));
  EXPECT_TRUE(std::filesystem::is_symlink(path + ".partial"));
  Replay back;
  ASSERT_TRUE(read_replay_file(path, back).ok());
  EXPECT_TRUE(back.complete);
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".partial");
  std::filesystem::remove(victim);
}

TEST(ReplayFile, ExistingFileIsReplacedOnlyOnClose) {
  const std::string path = temp_path("keep.replay");
  ASSERT_TRUE(record_file(path, counter_test::counter_sim(), counter_config(), kSmall).ok());
  const auto before = read_bytes(path);
  RecordOptions o = kSmall;
  o.bot_seed = 99;
  ASSERT_TRUE(record_file(path, counter_test::counter_sim(), counter_config(), o, /*close=*/false).ok());
  EXPECT_EQ(read_bytes(path), before);
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".partial");
}

// ---- bad input ------------------------------------------------------------------------

std::vector<std::byte> small_file() {
  const Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kSmall);
  std::vector<std::byte> bin;
  EXPECT_TRUE(encode_replay(mem, bin).ok());
  return bin;
}

// Offsets where a block starts (after the preamble).
std::vector<std::size_t> block_edges(const std::vector<std::byte>& bin) {
  std::vector<std::size_t> edges;
  std::size_t pos = 16;
  while (pos + 16 <= bin.size()) {
    edges.push_back(pos);
    std::uint32_t len = 0;
    for (int i = 0; i < 4; ++i) len |= std::uint32_t{std::to_integer<std::uint8_t>(bin[pos + 4 + i])} << (8 * i);
    pos += 16 + len + 8;
  }
  edges.push_back(bin.size());
  return edges;
}

TEST(ReplayBadInput, TruncatedAtEveryByteOffset) {
  const auto bin = small_file();
  Replay full;
  ASSERT_TRUE(decode_replay(bin, full).ok());
  const auto edges = block_edges(bin);
  const std::size_t head_end = edges.at(1);
  ASSERT_GT(bin.size(), 500u);
  for (std::size_t n = 0; n < bin.size(); ++n) {
    Replay r;
    const ReplayStatus st = decode_replay(std::span<const std::byte>(bin.data(), n), r, "trunc.replay");
    if (n < head_end) {
      EXPECT_FALSE(st.ok()) << "prefix " << n << " has no complete header";
      EXPECT_EQ(st.code, ErrorCode::Corrupt);
      EXPECT_NE(st.message.find("trunc.replay: byte "), std::string::npos) << st.message;
      continue;
    }
    ASSERT_TRUE(st.ok()) << "prefix " << n << ": " << st.message;
    EXPECT_FALSE(r.complete);
    ASSERT_FALSE(r.warnings.empty()) << "prefix " << n << " loaded without a warning";
    EXPECT_NE(r.warnings[0].find("trunc.replay: byte "), std::string::npos);
    // A loaded prefix is a prefix of the recording.
    ASSERT_LE(r.inputs.size(), full.inputs.size());
    EXPECT_TRUE(std::equal(r.inputs.begin(), r.inputs.end(), full.inputs.begin()));
    ASSERT_LE(r.hashes.size(), full.hashes.size());
    EXPECT_TRUE(std::equal(r.hashes.begin(), r.hashes.end(), full.hashes.begin()));
    EXPECT_LE(r.hashes.size(), r.frame_count() + 1);
    const bool at_edge = std::find(edges.begin(), edges.end(), n) != edges.end();
    if (!at_edge) {
      EXPECT_NE(r.warnings[0].find("file ends inside"), std::string::npos) << r.warnings[0];
    }
  }
}

TEST(ReplayBadInput, EverySingleBitFlipIsDetected) {
  const auto bin = small_file();
  std::size_t errors = 0, warned = 0;
  for (std::size_t i = 0; i < bin.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      auto bad = bin;
      bad[i] ^= static_cast<std::byte>(1u << bit);
      Replay r;
      const ReplayStatus st = decode_replay(bad, r, "flip.replay");
      // The file was complete: no flip may pass as an interrupted recording (which would
      // load a prefix with only a warning).
      if (!st.ok()) {
        ++errors;
        // Mismatch: a flipped format-version field reads as another version.
        EXPECT_TRUE(st.code == ErrorCode::Corrupt || (i >= 8 && i < 12 && st.code == ErrorCode::Mismatch)) << st.message;
        EXPECT_NE(st.message.find("flip.replay: byte "), std::string::npos);
      } else {
        ++warned;
        ADD_FAILURE() << "bit " << bit << " of byte " << i << " loaded " << r.frame_count() << " ticks, complete "
                      << r.complete << (r.warnings.empty() ? std::string() : ": " + r.warnings[0]);
      }
      // Without checksums, the body parsers see the corruption: they must not crash either.
      Replay unchecked;
      (void)decode_replay(bad, unchecked, "flip.replay", DecodeOptions{false});
    }
  }
  EXPECT_EQ(warned, 0u);
  EXPECT_EQ(errors, bin.size() * 8);
}

// A flipped bit in a block's length field that points past the end of a complete file is
// damage, not truncation: the file still ends with an intact END block.
TEST(ReplayBadInput, LengthFieldFlipsOfACompleteFileAreCorrupt) {
  const auto bin = small_file();
  const auto edges = block_edges(bin);
  std::size_t overruns = 0;
  for (std::size_t e = 0; e + 1 < edges.size(); ++e) {
    const std::size_t at = edges[e] + 4;
    for (int bit = 0; bit < 32; ++bit) {
      auto bad = bin;
      bad[at + bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
      Replay r;
      const ReplayStatus st = decode_replay(bad, r, "len.replay");
      ASSERT_FALSE(st.ok()) << "length bit " << bit << " of the block at byte " << edges[e] << " passed";
      EXPECT_EQ(st.code, ErrorCode::Corrupt);
      EXPECT_EQ(st.offset, edges[e]) << st.message;
      if (st.message.find("past the end of the file") != std::string::npos) ++overruns;
    }
  }
  // Every block's high length bits overrun the file (the rest fail their checksum).
  EXPECT_GT(overruns, edges.size());
}

TEST(ReplayBadInput, WrongMagicVersionReservedAreErrors) {
  auto bin = small_file();
  {
    auto bad = bin;
    bad[0] = std::byte{'X'};
    Replay r;
    const ReplayStatus st = decode_replay(bad, r, "m.replay");
    EXPECT_EQ(st.code, ErrorCode::Corrupt);
    EXPECT_NE(st.message.find("bad magic"), std::string::npos);
  }
  {
    auto bad = bin;
    bad[8] = std::byte{2};
    Replay r;
    const ReplayStatus st = decode_replay(bad, r, "v.replay");
    EXPECT_EQ(st.code, ErrorCode::Mismatch);
    EXPECT_NE(st.message.find("version 2"), std::string::npos) << st.message;
    EXPECT_EQ(st.offset, 8u);
  }
  {
    auto bad = bin;
    bad[12] = std::byte{1};
    Replay r;
    EXPECT_EQ(decode_replay(bad, r).code, ErrorCode::Corrupt);
  }
}

class OtherSim final : public counter_test::CounterSim {
 public:
  std::string_view name() const noexcept override { return "other"; }
};

TEST(ReplayBadInput, WrongSimVersionOrSchemaIsAMismatch) {
  Replay r = record_memory(counter_test::counter_sim(), counter_config(), kSmall);
  EXPECT_TRUE(check_replay_sim(r, counter_test::counter_sim()).ok());
  const counter_test::CounterSim v2(2);
  ReplayStatus st = check_replay_sim(r, v2, "x.replay");
  EXPECT_EQ(st.code, ErrorCode::Mismatch);
  EXPECT_NE(st.message.find("version 1"), std::string::npos) << st.message;
  OtherSim other;
  st = check_replay_sim(r, other, "x.replay");
  EXPECT_EQ(st.code, ErrorCode::Mismatch);
  EXPECT_NE(st.message.find("'counter'"), std::string::npos) << st.message;
  r.header.input_schema ^= 1;
  std::vector<std::byte> bin;
  ASSERT_TRUE(encode_replay(r, bin).ok());
  Replay back;
  ASSERT_TRUE(decode_replay(bin, back).ok());
  st = check_replay_sim(back, counter_test::counter_sim(), "x.replay");
  EXPECT_EQ(st.code, ErrorCode::Mismatch);
  EXPECT_NE(st.message.find("input schema"), std::string::npos) << st.message;
}

TEST(ReplayBadInput, ErrorsNameFileOffsetAndTick) {
  auto bin = small_file();
  const auto edges = block_edges(bin);
  ASSERT_GT(edges.size(), 5u);
  const std::size_t at = edges[4];  // a block after HEAD, CKPT-free region
  auto bad = bin;
  bad[at + 20] ^= std::byte{0x40};  // inside the body
  Replay r;
  const ReplayStatus st = decode_replay(bad, r, "where.replay");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.offset, at);
  EXPECT_TRUE(st.has_tick);
  EXPECT_NE(st.message.find("where.replay: byte " + std::to_string(at) + " (tick "), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("checksum mismatch"), std::string::npos) << st.message;
}

TEST(ReplayBadInput, GarbageAndEmptyInputs) {
  Replay r;
  EXPECT_FALSE(decode_replay({}, r).ok());
  std::vector<std::byte> junk(4096);
  std::uint64_t s = 12345;
  for (auto& b : junk) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    b = static_cast<std::byte>(s >> 56);
  }
  EXPECT_FALSE(decode_replay(junk, r).ok());
  // A valid preamble followed by garbage.
  auto bin = small_file();
  std::copy(junk.begin(), junk.end() - 100, bin.begin() + 16);
  EXPECT_FALSE(decode_replay(bin, r).ok());
  // A huge claimed block length must not allocate: it reads as truncation/corruption.
  auto big = small_file();
  const auto edges = block_edges(big);
  big[edges[1] + 7] = std::byte{0x7F};
  EXPECT_FALSE(decode_replay(big, r).ok() && r.warnings.empty());
  EXPECT_FALSE(read_replay_file("/nonexistent/dir/x.replay", r).ok());
}

TEST(ReplayBadInput, JsonErrors) {
  Replay r;
  EXPECT_FALSE(decode_replay_json("", r).ok());
  EXPECT_FALSE(decode_replay_json("{", r).ok());
  EXPECT_FALSE(decode_replay_json("{\"lockstep_replay\": {}}", r).ok());
  EXPECT_FALSE(decode_replay_json(std::string(100000, '[') + std::string(100000, ']'), r).ok());
  const Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kSmall);
  std::string json;
  ASSERT_TRUE(encode_replay_json(mem, json).ok());
  std::string bad = json;
  bad.replace(bad.find("\"frames\": [") + 12, 4, "zzzz");
  const ReplayStatus st = decode_replay_json(bad, r, "h.json");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message.find("h.json"), std::string::npos) << st.message;
  for (std::size_t n = 0; n < json.size(); n += 97) {
    Replay t;
    EXPECT_FALSE(decode_replay_json(std::string_view(json).substr(0, n), t).ok()) << n;
  }
}

// ---- traces -----------------------------------------------------------------------------

TEST(Trace, ParsesWhatItWritesAndNamesDifferences) {
  const Replay mem = record_memory(counter_test::counter_sim(), counter_config(), kSmall);
  const std::string text = replay_trace(counter_test::counter_sim(), mem);
  Trace trace;
  ASSERT_TRUE(parse_trace(text, trace).ok());
  ASSERT_EQ(trace.lines.size(), mem.frame_count() + 1);
  EXPECT_EQ(trace.comments.size(), 1u);
  Runner runner(counter_test::counter_sim(), mem.header.config);
  const StorageView schema = runner.world().storage();
  EXPECT_TRUE(diff_trace_line(trace.lines[0], runner.hash(), schema).empty());
  TraceLine changed = trace.lines[0];
  changed.parts.back().second ^= 1;  // the Value component
  const auto d = diff_trace_line(changed, runner.hash(), schema);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], "Value");
  Trace bad;
  EXPECT_FALSE(parse_trace("0 123\n", bad).ok());
  EXPECT_FALSE(parse_trace("1 0000000000000000\n", bad).ok());  // must start at tick 0
  EXPECT_FALSE(parse_trace("0 0000000000000000 x\n", bad).ok());
  EXPECT_TRUE(parse_trace("# c\n0 0000000000000000\n\n1 00000000000000ff a=0000000000000001\n", bad).ok());
  EXPECT_EQ(bad.lines.size(), 2u);
}

}  // namespace
}  // namespace replay_test


namespace replay_test {
namespace {
// JSON replays: syntax errors and duplicate keys name the line and column (cereal alone said
// "rapidjson internal assertion failure: IsObject()" and kept one of two duplicate keys).
TEST(ReplayBadInput, JsonErrorsNameLineAndColumn) {
  Replay r;
  ReplayStatus st = decode_replay_json("{\n  \"lockstep_replay\": {\n    \"frames\": [1,, 2]\n  }\n}\n", r, "syntax.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code, ErrorCode::Corrupt);
  EXPECT_NE(st.message.find("syntax.json: byte 42: JSON line 3:18: Invalid value."), std::string::npos) << st.message;

  st = decode_replay_json("{\"lockstep_replay\": {\"sim\": \"duel\",\n \"sim\": \"skirmish\"}}", r, "dup.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code, ErrorCode::Corrupt);
  EXPECT_NE(st.message.find("JSON line 2:2: duplicate key \"sim\""), std::string::npos) << st.message;

  st = decode_replay_json("{\"lockstep_replay\": {}} {", r, "two.json");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message.find("JSON line 1:25: unexpected text after the end of the document"), std::string::npos)
      << st.message;

  // A replay holds integers only. The check runs before any floating-point conversion: the
  // fuzzer found that rapidjson converting "0e0160" calls clz(0) (undefined behaviour).
  st = decode_replay_json("0e0160", r, "exp.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code, ErrorCode::Corrupt);
  EXPECT_NE(st.message.find("exp.json: byte 0: JSON line 1:1: number 0e0160 is not an integer"), std::string::npos)
      << st.message;
  st = decode_replay_json("{\"lockstep_replay\": {\n \"seed\": -1.5}}", r, "frac.json");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message.find("frac.json: byte 31: JSON line 2:10: number -1.5 is not an integer"), std::string::npos) << st.message;

  // Same key names in different objects are fine (the reader then reports what is missing).
  st = decode_replay_json("{\"lockstep_replay\": {\"config\": {\"seed\": 1}, \"seed\": 2}}", r, "nested.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message.find("duplicate"), std::string::npos) << st.message;
}

}  // namespace
}  // namespace replay_test
