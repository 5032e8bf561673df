// RapidCheck: recording is deterministic in the bot seed, replays reproduce recordings, and
// the file forms round-trip bit-exactly.
#include "replay_test_support.h"

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#if defined(LOCKSTEP_HAVE_FIXTURES)
#include <lockstep/fixtures/fixtures.h>
#endif

namespace replay_test {
namespace {

RC_GTEST_PROP(ReplayProperties, RandomBotSeedsRecordAndReplayIdentically, ()) {
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto players = *rc::gen::inRange<std::uint32_t>(1, 5);
  const auto ticks = *rc::gen::inRange<std::uint64_t>(0, 120);
  const auto block = *rc::gen::inRange<std::uint32_t>(1, 40);
  const SimConfig config = counter_config(players, *rc::gen::inRange<std::uint32_t>(0, 20), seed ^ 0xABCDu);
  const RecordOptions o{seed, ticks, kReplayHasHashes | kReplayHasComponentHashes, block, 0};
  const Replay a = record_memory(counter_test::counter_sim(), config, o);
  const Replay b = record_memory(counter_test::counter_sim(), config, o);
  RC_ASSERT(a == b);
  const std::string t1 = replay_trace(counter_test::counter_sim(), a);
  const std::string t2 = replay_trace(counter_test::counter_sim(), a);
  RC_ASSERT(t1 == t2);
  std::string recorded = trace_comment(a.header);
  for (std::uint64_t t = 0; t < a.hashes.size(); ++t) append_trace_line(recorded, a, t, true);
  RC_ASSERT(t1 == recorded);
}

RC_GTEST_PROP(ReplayProperties, BinaryJsonBinaryIsByteIdentical, ()) {
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto flags = *rc::gen::element(0u, std::uint32_t{kReplayHasHashes}, kReplayHasHashes | kReplayHasComponentHashes);
  const RecordOptions o{seed, *rc::gen::inRange<std::uint64_t>(0, 70), flags, *rc::gen::inRange<std::uint32_t>(1, 20),
                        *rc::gen::element(0u, 5u, 16u)};
  const Replay r = record_memory(counter_test::counter_sim(), counter_config(*rc::gen::inRange<std::uint32_t>(1, 5)), o);
  std::vector<std::byte> bin, bin2;
  RC_ASSERT(encode_replay(r, bin).ok());
  Replay back;
  RC_ASSERT(decode_replay(bin, back).ok());
  RC_ASSERT(back == r);
  std::string json;
  RC_ASSERT(encode_replay_json(back, json).ok());
  Replay j;
  RC_ASSERT(decode_replay_json(json, j).ok());
  RC_ASSERT(encode_replay(j, bin2).ok());
  RC_ASSERT(bin == bin2);
}

RC_GTEST_PROP(ReplayProperties, RandomCorruptionNeverPassesSilently, ()) {
  const Replay r = record_memory(counter_test::counter_sim(), counter_config(), {3, 30, 3, 8, 10});
  std::vector<std::byte> bin;
  RC_ASSERT(encode_replay(r, bin).ok());
  const auto flips = *rc::gen::inRange(1, 6);
  for (int i = 0; i < flips; ++i) {
    const auto at = *rc::gen::inRange<std::size_t>(0, bin.size());
    bin[at] ^= static_cast<std::byte>(*rc::gen::inRange(1, 256));
  }
  const auto cut = *rc::gen::inRange<std::size_t>(0, bin.size() + 1);
  bin.resize(cut);
  Replay out;
  const ReplayStatus st = decode_replay(bin, out);
  if (st.ok()) RC_ASSERT(!out.warnings.empty() || out == r);
  Replay unchecked;
  (void)decode_replay(bin, unchecked, "x", DecodeOptions{false});
}

#if defined(LOCKSTEP_HAVE_FIXTURES)
void fixture_round(const char* name, std::uint32_t units, std::uint64_t ticks) {
  lockstep::fixtures::register_builtin_sims();
  const Sim* sim = find_sim(name);
  if (sim == nullptr) return;  // fixture not built yet
  const auto seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 20);
  SimConfig config;
  config.players = 2;
  config.units = units;
  config.seed = seed;
  const RecordOptions o{seed, ticks, kReplayHasHashes | kReplayHasComponentHashes, 64, 0};
  const Replay a = record_memory(*sim, config, o);
  RC_ASSERT(a == record_memory(*sim, config, o));
  const std::string t1 = replay_trace(*sim, a);
  RC_ASSERT(t1 == replay_trace(*sim, a));
  std::string recorded = trace_comment(a.header);
  for (std::uint64_t t = 0; t < a.hashes.size(); ++t) append_trace_line(recorded, a, t, true);
  RC_ASSERT(t1 == recorded);
}

TEST(FixtureProperties, SkirmishRecordsAndReplaysIdentically) {
  EXPECT_TRUE(rc::check("skirmish: random bot seeds -> record -> run twice -> identical traces",
                        [] { fixture_round("skirmish", 100, 60); }));
}
TEST(FixtureProperties, DuelRecordsAndReplaysIdentically) {
  EXPECT_TRUE(rc::check("duel: random bot seeds -> record -> run twice -> identical traces",
                        [] { fixture_round("duel", 0, 240); }));
}
#endif

}  // namespace
}  // namespace replay_test
