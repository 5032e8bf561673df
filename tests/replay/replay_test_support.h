#pragma once
// Helpers shared by the replay test suites: record a sim with its bots (in memory or through
// the streaming recorder), replay into a trace, temp paths, file bytes.
#include "counter_sim.h"

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/trace.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

namespace replay_test {

using namespace lockstep;
using namespace lockstep::replay;

struct RecordOptions {
  std::uint64_t bot_seed = 1;
  std::uint64_t ticks = 100;
  std::uint32_t flags = kReplayHasHashes | kReplayHasComponentHashes;
  std::uint32_t block_ticks = 16;
  std::uint32_t checkpoint_every = 0;
};

// Records with the bots into an in-memory Replay (the same content the recorder writes).
inline Replay record_memory(const Sim& sim, const SimConfig& config, const RecordOptions& o) {
  Runner runner(sim, config);
  EXPECT_TRUE(runner.status().ok()) << runner.status().message();
  Replay r;
  r.header = make_header(sim, config, runner.world().storage(), o.flags, o.block_ticks, o.checkpoint_every);
  if (r.header.has_hashes()) r.add_hash(runner.hash());
  std::vector<std::unique_ptr<Bot>> bots;
  for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim.make_bot(config, o.bot_seed, p));
  const std::uint32_t in = sim.input_type().size;
  std::vector<std::byte> frame(runner.frame_bytes());
  for (std::uint64_t t = 0; t < o.ticks; ++t) {
    for (std::uint32_t p = 0; p < config.players; ++p)
      bots[p]->generate(runner.tick(), runner.world(), std::span<std::byte>(frame.data() + p * in, in));
    EXPECT_TRUE(runner.step(frame).ok());
    std::vector<std::byte> canon(frame.size());
    Runner::copy_to_canonical(sim.input_type(), frame, canon);
    r.inputs.insert(r.inputs.end(), canon.begin(), canon.end());
    if (r.header.has_hashes()) r.add_hash(runner.hash());
    if (o.checkpoint_every != 0 && runner.tick() % o.checkpoint_every == 0) {
      Checkpoint cp;
      cp.tick = runner.tick();
      EXPECT_TRUE(encode_snapshot(runner.world().storage(), cp.snapshot).ok());
      r.checkpoints.push_back(std::move(cp));
    }
  }
  r.complete = true;
  return r;
}

// Same through ReplayRecorder into `path`. With `close` false the recorder is destroyed
// without close() (a crash-like stop): PATH.partial remains.
inline ReplayStatus record_file(const std::string& path, const Sim& sim, const SimConfig& config, const RecordOptions& o,
                                bool close = true) {
  Runner runner(sim, config);
  if (!runner.status().ok()) return {ErrorCode::InvalidArgument, runner.status().message()};
  ReplayRecorder rec;
  ReplayStatus st =
      rec.open(path, make_header(sim, config, runner.world().storage(), o.flags, o.block_ticks, o.checkpoint_every));
  if (!st.ok()) return st;
  st = rec.initial(runner.hash());
  std::vector<std::unique_ptr<Bot>> bots;
  for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim.make_bot(config, o.bot_seed, p));
  const std::uint32_t in = sim.input_type().size;
  std::vector<std::byte> frame(runner.frame_bytes());
  for (std::uint64_t t = 0; t < o.ticks && st.ok(); ++t) {
    for (std::uint32_t p = 0; p < config.players; ++p)
      bots[p]->generate(runner.tick(), runner.world(), std::span<std::byte>(frame.data() + p * in, in));
    if (!runner.step(frame).ok()) return {ErrorCode::Internal, "step failed"};
    std::vector<std::byte> canon(frame.size());
    Runner::copy_to_canonical(sim.input_type(), frame, canon);
    st = rec.tick(canon, &runner.hash());
    if (st.ok() && o.checkpoint_every != 0 && runner.tick() % o.checkpoint_every == 0)
      st = rec.checkpoint(runner.world().storage());
  }
  if (st.ok() && close) st = rec.close();
  return st;
}

// Replays `r` with `sim` and returns its full trace text (tick 0 .. frames).
inline std::string replay_trace(const Sim& sim, const Replay& r, bool components = true) {
  Runner runner(sim, r.header.config);
  EXPECT_TRUE(runner.status().ok());
  const StorageView schema = runner.world().storage();
  std::string text = trace_comment(r.header);
  append_trace_line(text, runner.hash(), schema, components);
  std::vector<std::byte> frame(r.header.frame_bytes());
  for (std::uint64_t t = 0; t < r.frame_count(); ++t) {
    Runner::copy_to_host(sim.input_type(), r.frame(t), frame);
    EXPECT_TRUE(runner.step(frame).ok());
    append_trace_line(text, runner.hash(), schema, components);
  }
  return text;
}

inline std::string temp_path(const std::string& name) {
  static int counter = 0;
  std::string dir = ::testing::TempDir();
  if (!dir.empty() && dir.back() != '/') dir += '/';
#if __has_include(<unistd.h>)
  return dir + "lockstep_replay_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + name;
#else
  return dir + "lockstep_replay_" + std::to_string(counter++) + "_" + name;
#endif
}

inline std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) b[i] = static_cast<std::byte>(c[i]);
  return b;
}

inline SimConfig counter_config(std::uint32_t players = 2, std::uint32_t units = 5, std::uint64_t seed = 3) {
  SimConfig c;
  c.players = players;
  c.units = units;
  c.seed = seed;
  return c;
}

}  // namespace replay_test
