// replay/record.h, record_bots_to_file: what `lockstep record` writes, as a library call; the
// binary and JSON files read back as the in-memory recording of the same bots.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/open_replay.h>
#include <lockstep/replay/record.h>

#include <gtest/gtest.h>

#include <filesystem>

namespace lockstep::replay {
namespace {

namespace fs = std::filesystem;

SimConfig duel_config() {
  SimConfig c;
  c.players = 2;
  c.seed = 3;
  return c;
}

TEST(RecordFile, BinaryAndJsonReadBackAsTheMemoryRecording) {
  const fs::path dir = fs::temp_directory_path() / "lockstep-record-file-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  Replay memory;
  ASSERT_TRUE(record_bots(fixtures::duel_sim(), duel_config(), 5, 50, 10, memory).ok());
  RecordOptions options;
  options.checkpoint_every = 10;
  for (const char* name : {"m.replay", "m.json"}) {
    const std::string path = (dir / name).string();
    StateHash final_hash{};
    RecordFailure why;
    ASSERT_TRUE(record_bots_to_file(fixtures::duel_sim(), duel_config(), 5, 50, options, path, final_hash, why))
        << why.message;
    EXPECT_EQ(final_hash.total, memory.hashes.back().total);
    EXPECT_EQ(final_hash.tick, 50u);
    EXPECT_FALSE(fs::exists(path + ".partial"));
    Replay back;
    ASSERT_TRUE(read_replay_file(path, back).ok()) << name;
    EXPECT_TRUE(back.complete);
    EXPECT_EQ(back.header, memory.header) << name;
    EXPECT_EQ(back.inputs, memory.inputs) << name;
    EXPECT_EQ(back.hashes, memory.hashes) << name;
    ASSERT_EQ(back.checkpoints.size(), 5u) << name;
    EXPECT_EQ(back.checkpoints.back().tick, 50u);
  }
  fs::remove_all(dir);
}

TEST(RecordFile, NamesWhatFailed) {
  SimConfig three = duel_config();
  three.players = 3;
  StateHash final_hash{};
  RecordFailure why;
  EXPECT_FALSE(record_bots_to_file(fixtures::duel_sim(), three, 5, 10, {}, "unused.replay", final_hash, why));
  EXPECT_EQ(why.message.rfind("cannot build sim 'duel': ", 0), 0u) << why.message;
  EXPECT_FALSE(why.file.has_value());

  RecordFailure io;
  EXPECT_FALSE(record_bots_to_file(fixtures::duel_sim(), duel_config(), 5, 10, {}, "/nonexistent/dir/x.replay",
                                   final_hash, io));
  ASSERT_TRUE(io.file.has_value());
  EXPECT_EQ(io.message, io.file->message);
}

// bot_match_config: the sim by name (hidden ones too), the seed defaulting to the bot seed.
TEST(RecordFile, BotMatchConfig) {
  fixtures::register_builtin_sims();
  const Sim* sim = nullptr;
  SimConfig config;
  EXPECT_EQ(bot_match_config(BotMatch{"duel", 7, 3, 40, std::nullopt, {5, 6}}, sim, config), "");
  EXPECT_EQ(sim, find_sim_including_hidden("duel"));
  EXPECT_EQ(config.players, 3u);
  EXPECT_EQ(config.units, 40u);
  EXPECT_EQ(config.seed, 7u);
  EXPECT_EQ(config.params[0], 5u);
  EXPECT_EQ(config.params[1], 6u);
  EXPECT_EQ(config.params[2], 0u);
  EXPECT_EQ(bot_match_config(BotMatch{"duel", 7, 2, 0, 11, {}}, sim, config), "");
  EXPECT_EQ(config.seed, 11u);
  EXPECT_EQ(config.params[0], 0u);
  EXPECT_EQ(bot_match_config(BotMatch{"nope", 1, 2, 0, std::nullopt, {}}, sim, config),
            "unknown sim 'nope' (known: " + describe_registered_sims() + ")");
  EXPECT_EQ(sim, nullptr);
  EXPECT_EQ(bot_match_config(BotMatch{"duel", 1, 2, 0, std::nullopt, {1, 2, 3, 4, 5}}, sim, config),
            "a sim takes at most 4 parameters (got 5)");
  EXPECT_EQ(sim, find_sim_including_hidden("duel"));  // found: the parameters were refused
}

}  // namespace
}  // namespace lockstep::replay
