// GoogleTest checks for a game's suite (lockstep/testing.h). Every answer comes from the same
// library calls the `lockstep` tool makes (replay/verify.h, inspect/forensics.h,
// rollback/synctest.h, rollback/netsim.h), and the failure text is the tool's report.
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/forensics.h>
#include <lockstep/inspect/systems.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/trace.h>
#include <lockstep/replay/verify.h>
#include <lockstep/rollback/netsim_match.h>
#include <lockstep/rollback/synctest.h>
#include <lockstep/testing.h>

#include <memory>
#include <vector>

namespace lockstep::testing {

namespace {
::testing::AssertionResult failure(const std::string& message) { return ::testing::AssertionFailure() << message; }

// A test links the game's sims itself, and the usual way to lose one is the linker's: a sim
// that registers itself from a static initializer inside a static library is dropped when
// nothing else uses its object file. The message says so and how to fix it.
std::string not_registered(const std::string& name, const std::string& sim) {
  std::string known;
  for (const replay::Sim* s : replay::registered_sims()) known += (known.empty() ? "" : ", ") + std::string(s->name());
  return name + ": recorded with sim '" + sim + "', which is not registered in this process (registered sims: " +
         (known.empty() ? "none" : known) +
         "). If the game's sims are in a static library, the linker dropped the ones that register themselves from a "
         "static initializer: call the game's registration function (the one that calls "
         "lockstep::replay::register_sim) before this check, or link the library into the test with "
         "lockstep_link_sims(<test> SIMS <library>) (docs/embedding.md, \"Registration and static linking\")";
}
}  // namespace

::testing::AssertionResult ReplayVerifies(const replay::Replay& recording, const replay::Sim* sim,
                                          const replay::Trace* golden, const std::string& name) {
  if (sim == nullptr) sim = replay::find_sim_including_hidden(recording.header.sim_name);
  if (sim == nullptr) return failure(not_registered(name, recording.header.sim_name));
  const replay::ReplayStatus st = replay::check_replay_sim(recording, *sim, name);
  if (!st.ok()) return failure(st.message);
  replay::Runner runner(*sim, recording.header.config);
  replay::VerifyOptions opt;
  opt.replay_name = name;
  opt.golden = golden;
  opt.golden_name = "golden";
  const replay::VerifyResult v = replay::verify(runner, recording, opt);
  if (v.bad_input()) return failure(v.error);
  if (v.ok) {
    if (v.compared_nothing()) return failure(name + " has no recorded hashes and no golden trace: nothing was compared");
    return ::testing::AssertionSuccess() << name << ": " << v.ticks << " ticks verified";
  }
  std::string parts = v.differs;
  const auto fields = v.lengths_differ ? std::nullopt : inspect::verify_field_diff(recording, v.tick, name, runner);
  if (fields) parts += "; " + inspect::summary(*fields);
  std::string msg = "DESYNC " + name + " at tick " + std::to_string(v.tick) + " (vs " + v.against + "): differs: " + parts + "\n";
  if (fields) msg += inspect::format_text(*fields, "recording", "this build");
  return failure(msg);
}

::testing::AssertionResult ReplayFileVerifies(const std::string& replay_path, const std::string& golden_trace_path) {
  replay::Replay rec;
  replay::ReplayStatus st = replay::read_replay_file(replay_path, rec);
  if (!st.ok()) return failure(st.message);
  replay::Trace golden;
  if (!golden_trace_path.empty()) {
    st = replay::read_trace_file(golden_trace_path, golden);
    if (!st.ok()) return failure(st.message);
  }
  return ReplayVerifies(rec, nullptr, golden_trace_path.empty() ? nullptr : &golden, replay_path);
}

::testing::AssertionResult PassesSynctest(const replay::Sim& sim, const replay::SimConfig& config, std::uint64_t bot_seed,
                                          std::uint64_t ticks, std::uint32_t distance) {
  const std::string name = std::string(sim.name()) + " (bot " + std::to_string(bot_seed) + ")";
  const rollback::SyncTestResult r = rollback::synctest_bots(sim, config, bot_seed, ticks, distance);
  if (!r.status.ok()) return failure(name + ": cannot run the sync test: " + r.status.message());
  if (r.ok)
    return ::testing::AssertionSuccess() << name << ": " << r.ticks << " ticks at check distance " << distance;
  // Localise with the same bots: each tick twice from the same state, stage by stage.
  replay::Runner runner(sim, config);
  std::string msg = "DESYNC " + name + " at tick " + std::to_string(r.tick) + " (check distance " +
                    std::to_string(distance) + "): " + describe_hash_diff(r.first, r.again, runner.world().storage()) + "\n";
  const inspect::SystemSyncResult s = inspect::synctest_by_system(runner, ticks, inspect::bot_frames(sim, config, bot_seed));
  if (s.status.ok() && !s.ok)
    msg += "DESYNC " + inspect::describe(s) + "\n" + inspect::format_text(s.diff, "first", "again");
  else
    msg += "(running each tick twice stage by stage did not reproduce it: the difference needs a longer rollback)\n";
  return failure(msg);
}

::testing::AssertionResult RecordingsAgree(const replay::Replay& a, const replay::Replay& b, const std::string& name_a,
                                           const std::string& name_b) {
  const replay::RecordingComparison c = replay::compare_recordings(a, name_a, b, name_b);
  if (!c.error.empty()) return failure(c.error);
  if (c.ok) return ::testing::AssertionSuccess() << c.ticks_compared << " ticks agree";
  const inspect::AgainstForensics f = inspect::against_forensics(a, name_a, b, name_b, c);
  std::string msg = "DESYNC " + name_a + " against " + name_b + ": " + f.report + "\n";
  if (f.diff) msg += inspect::format_text(*f.diff, "A", "B");
  else msg += "(no checkpoint of that tick in both recordings: record with checkpoints for the field-level diff)\n";
  return failure(msg);
}

::testing::AssertionResult NetsimStaysInSync(const rollback::NetsimOptions& options) {
  if (options.sim == nullptr) return failure("NetsimStaysInSync: options.sim is null");
  // The tool's own match and evidence (rollback::run_netsim_match), so the message is the
  // tool's report: the first divergent confirmed tick, the system, both states field by field.
  const rollback::NetsimMatch m = rollback::run_netsim_match(options);
  if (!m.error.empty()) return failure("netsim: " + m.error);
  const rollback::NetsimReport& r = m.report;
  if (r.ok()) return ::testing::AssertionSuccess() << r.frames << " frames, " << r.rollbacks << " rollbacks, in sync";
  std::string msg = "netsim " + std::string(options.sim->name()) + ":";
  if (!r.finished) msg += " UNFINISHED: the match did not finish;";
  if (r.desync_count != 0) msg += " " + std::to_string(r.desync_count) + " desync event(s);";
  if (!r.peers_agree)
    msg += " peers disagree at confirmed tick " + std::to_string(r.disagreement_tick) + " (" + r.disagreement + ");";
  if (!r.offline_agrees)
    msg += " the offline replay differs at tick " + std::to_string(r.offline_tick) + " (" + r.offline_mismatch + ");";
  return failure(msg + "\n" + m.evidence.text);
}

}  // namespace lockstep::testing
