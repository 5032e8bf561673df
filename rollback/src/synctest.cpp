// Sync test driver (replay/synctest.h) over a RollbackSession in sync-test mode.
#include <lockstep/inspect/json_writer.h>
#include <lockstep/rollback/session.h>
#include <lockstep/rollback/synctest.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace lockstep::rollback {

SyncTestResult run_synctest(replay::Runner& runner, std::uint32_t distance, std::uint64_t ticks, const FrameSource& frames) {
  SyncTestResult r;
  if (distance == 0 || distance > kMaxPredictionWindow) {
    r.status = {ErrorCode::InvalidArgument, "synctest: the check distance must be 1..64"};
    return r;
  }
  SessionConfig cfg = SessionConfig::local_only(runner.config().players);
  cfg.sync_test_distance = distance;
  cfg.max_prediction = distance;
  cfg.hash_interval = 0;
  RollbackSession session(runner, cfg, nullptr);
  r.status = session.status();
  if (!r.status.ok()) return r;
  const std::uint32_t in = runner.sim().input_type().size;
  std::vector<std::byte> frame(runner.frame_bytes());
  for (std::uint64_t t = 0; t < ticks; ++t) {
    frames(t, runner.world(), frame);
    for (std::uint32_t p = 0; p < runner.config().players; ++p) {
      r.status = session.add_local_input(p, std::span<const std::byte>(frame.data() + std::size_t{p} * in, in));
      if (!r.status.ok()) return r;
    }
    bool advanced = false;
    r.status = session.advance(&advanced);
    if (!r.status.ok()) return r;
    if (!advanced) {
      r.status = {ErrorCode::Internal, "synctest: the session stalled"};
      return r;
    }
    if (session.has_desync()) break;
  }
  const SessionStats& st = session.stats();
  r.ticks = st.ticks;
  r.rollbacks = st.rollbacks;
  r.resimulated_ticks = st.resimulated_ticks;
  if (session.has_desync()) {
    r.ok = false;
    r.tick = session.desync_tick();
    r.first = session.desync_local_hash();
    r.again = session.desync_remote_hash();
    r.diff = diff_hashes(r.first, r.again);
  }
  return r;
}

SyncTestResult synctest_replay(const replay::Sim& sim, const replay::Replay& replay, std::uint32_t distance,
                               std::uint32_t threads) {
  replay::Runner runner(sim, replay.header.config);
  if (!runner.status().ok()) {
    SyncTestResult r;
    r.status = runner.status();
    return r;
  }
  runner.setThreads(threads);
  if (replay.header.frame_bytes() != runner.frame_bytes()) {
    SyncTestResult r;
    r.status = {ErrorCode::Mismatch, "synctest: the replay's frame size differs from the sim's"};
    return r;
  }
  const TypeDescriptor& type = sim.input_type();
  return run_synctest(runner, distance, replay.frame_count(),
                      [&](std::uint64_t t, const World&, std::span<std::byte> frame) {
                        replay::Runner::copy_to_host(type, replay.frame(t), frame);
                      });
}

SyncTestResult synctest_bots(const replay::Sim& sim, const replay::SimConfig& config, std::uint64_t bot_seed, std::uint64_t ticks,
                             std::uint32_t distance, std::uint32_t threads) {
  replay::Runner runner(sim, config);
  if (!runner.status().ok()) {
    SyncTestResult r;
    r.status = runner.status();
    return r;
  }
  runner.setThreads(threads);
  std::vector<std::unique_ptr<replay::Bot>> bots;
  for (std::uint32_t p = 0; p < config.players; ++p) bots.push_back(sim.make_bot(config, bot_seed, p));
  const std::uint32_t in = sim.input_type().size;
  return run_synctest(runner, distance, ticks, [&](std::uint64_t t, const World& w, std::span<std::byte> frame) {
    for (std::uint32_t p = 0; p < config.players; ++p)
      bots[p]->generate(t, w, frame.subspan(std::size_t{p} * in, in));
  });
}

std::string describe_synctest_difference(const replay::Sim& sim, const replay::SimConfig& config, const SyncTestResult& r) {
  const replay::Runner schema_runner(sim, config);
  if (!schema_runner.status().ok()) return "total " + to_hex(r.first.total) + " vs " + to_hex(r.again.total);
  return describe_hash_diff(r.first, r.again, schema_runner.world().storage());
}

SyncTestReport synctest_desync_report(const std::string& source, std::uint32_t distance, const SyncTestResult& result,
                                      const std::string& parts, bool json) {
  const std::string tick = std::to_string(result.tick), d = std::to_string(distance);
  SyncTestReport out;
  out.log = "DESYNC " + source + ": rolling back " + d + " ticks and resimulating changed tick " + tick + ": " +
            parts + "\n  first simulation " + to_hex(result.first.total) + ", resimulation " + to_hex(result.again.total) +
            " — the sim keeps state outside the world or is non-deterministic\n";
  if (!json) {
    out.report = "DESYNC at tick " + tick + " (check distance " + d + "): " + parts + "\n";
    return out;
  }
  inspect::JsonWriter j;
  j.begin().field("ok", false).field("exit", 1).field("source", source).field("check_distance", distance)
      .field("tick", result.tick).field("first_hash", to_hex(result.first.total))
      .field("resimulated_hash", to_hex(result.again.total)).field("differs", parts).end();
  out.report = j.str() + "\n";
  return out;
}

}  // namespace lockstep::rollback
