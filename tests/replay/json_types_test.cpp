// JSON replays: a value of the wrong type names its key path, line and column (cereal alone
// said "rapidjson internal assertion failure" at byte 0), and a UTF-8 byte order mark before
// the JSON is skipped with offsets kept those of the file.
#include "replay_test_support.h"

#include <lockstep/replay/replay_file.h>

#include <gtest/gtest.h>

#include <string>

namespace replay_test {
namespace {

std::string small_json() {
  const Replay mem = record_memory(counter_test::counter_sim(), counter_config(), RecordOptions{7, 12, kReplayHasHashes, 8, 0});
  std::string text;
  EXPECT_TRUE(encode_replay_json(mem, text).ok());
  return text;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ReplayJson, WrongTypeNamesKeyLineAndColumn) {
  const std::string good = small_json();
  Replay r;
  ASSERT_TRUE(decode_replay_json(good, r, "good.json").ok());

  ReplayStatus st = decode_replay_json(R"({"lockstep_replay": {"config": {"players": "2"}}})", r, "w.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code, ErrorCode::Corrupt);
  EXPECT_EQ(st.message, R"(w.json: byte 43: JSON line 1:44: "lockstep_replay.config.players" must be an integer 0..4294967295, found a string)");
  st = decode_replay_json("{\"lockstep_replay\":\n {\"complete\": 1}}", r, "b.json");
  EXPECT_EQ(st.message, R"(b.json: byte 34: JSON line 2:15: "lockstep_replay.complete" must be true or false, found 1)");
  st = decode_replay_json(R"({"lockstep_replay": {"config": {"params": [1, 4294967296]}}})", r, "p.json");
  EXPECT_EQ(st.message, R"(p.json: byte 46: JSON line 1:47: "lockstep_replay.config.params[1]" must be an integer 0..4294967295, found 4294967296)");
  st = decode_replay_json(R"({"lockstep_replay": {"tick_hashes": [{"tick": 1}, {"tick": "x"}]}})", r, "t.json");
  EXPECT_EQ(st.message, R"(t.json: byte 59: JSON line 1:60: "lockstep_replay.tick_hashes[1].tick" must be an integer 0..18446744073709551615, found a string)");
  st = decode_replay_json(R"({"lockstep_replay": {"config": null}})", r, "n.json");
  EXPECT_EQ(st.message, R"(n.json: byte 35: JSON line 1:36: "lockstep_replay.config" must be an object, found null)");
  st = decode_replay_json(R"({"lockstep_replay": 5})", r, "r.json");
  EXPECT_EQ(st.message, R"(r.json: byte 20: JSON line 1:21: "lockstep_replay" must be an object, found 5)");
  st = decode_replay_json(replaced(good, "\"frames\": [", "\"frames\": [-1, "), r, "f.json");
  EXPECT_NE(st.message.find(R"("lockstep_replay.frames[0]" must be a string, found -1)"), std::string::npos) << st.message;
  // Keys the format does not have are not checked (cereal ignores them).
  EXPECT_TRUE(decode_replay_json(replaced(good, "\"sim\":", "\"note\": [1, {\"x\": null}],\n    \"sim\":"), r, "extra.json").ok());
}

TEST(ReplayJson, ByteOrderMarkIsSkipped) {
  const std::string good = small_json();
  Replay plain, bom;
  ASSERT_TRUE(decode_replay_json(good, plain, "plain.json").ok());
  ASSERT_TRUE(decode_replay_json("\xEF\xBB\xBF" + good, bom, "bom.json").ok());
  EXPECT_EQ(bom, plain);
  const std::string with_bom = "\xEF\xBB\xBF" + good;
  EXPECT_TRUE(looks_like_json(std::as_bytes(std::span<const char>(with_bom.data(), with_bom.size()))));
  // Offsets stay those of the file: the BOM's three bytes count.
  const ReplayStatus st = decode_replay_json("\xEF\xBB\xBF{\"lockstep_replay\": {\"complete\": 1}}", bom, "b.json");
  EXPECT_EQ(st.message, R"(b.json: byte 36: JSON line 1:37: "lockstep_replay.complete" must be true or false, found 1)");
}

}  // namespace
}  // namespace replay_test
