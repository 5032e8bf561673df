// lockstep verify REPLAY [--trace GOLDEN] — replay and compare every tick against the
// replay's recorded hashes, its checkpoints and (optionally) a golden trace.
// Exit 0: every tick matches. 1: names the first divergent tick and the differing parts.
// 2: unreadable or mismatched input.
#include "bundle_cli.h"
#include "common.h"
#include "farm.h"
#include "per_system.h"

#include <lockstep/inspect/forensics.h>
#include <lockstep/inspect/verify_report.h>
#include <lockstep/replay/trace.h>
#include <lockstep/replay/verify.h>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace lockstep::cli {

namespace {
struct VerifyArgs {
  std::string replay;
  std::string trace;
  std::string against;
  std::string bundle_dir;
  bool json = false;
  bool allow_partial = false;
  bool per_system = false;
  std::vector<std::string> replays;  // several, or directories: a farm (farm.h)
  FarmOptions farm;
};

// verify A --against B: two recordings of the same inputs compared tick by tick. Exit 0 same
// hashes everywhere; 1 first divergent tick (+ field-level diff when both recorded a checkpoint
// there); 2 bad input or not the same inputs.
int verify_against(const std::string& pa, const std::string& pb, const std::string& bundle_dir, bool json) {
  Loaded a, b;
  if (int rc = load_replay(pa, json, a); rc != kExitOk) return rc;
  if (int rc = load_replay(pb, json, b); rc != kExitOk) return rc;
  const replay::RecordingComparison c = replay::compare_recordings(a.replay, pa, b.replay, pb);
  if (!c.error.empty()) return report_error(json, kExitBadInput, c.error);
  if (c.ok) {
    std::fputs(inspect::against_ok_report(pa, pb, c, json).c_str(), stdout);
    return kExitOk;
  }
  const inspect::AgainstForensics f = inspect::against_forensics(a.replay, pa, b.replay, pb, c);
  std::string bundle;
  if (!bundle_dir.empty() &&
      !write_bundle_reporting(bundle_dir, inspect::against_bundle(*a.sim, a.replay, pa, b.replay, pb, c, f), bundle))
    return kExitBadInput;
  std::fprintf(stderr, "%s: DESYNC %s against %s: %s\n", tool_name().c_str(), pa.c_str(), pb.c_str(), f.report.c_str());
  std::fputs(inspect::against_desync_report(pa, pb, c, f, bundle, json).c_str(), stdout);
  return kExitMismatch;
}

// The first divergence of a plain or per-tick-checked verify: field-level diff from the
// recording's checkpoint, optional bundle, then the DESYNC lines (inspect/verify_report.h).
int report_verify_desync(const VerifyArgs& a, const Loaded& loaded, const replay::Runner& runner,
                         const replay::VerifyResult& v, const Snapshot* prev) {
  const inspect::VerifyDesync d = inspect::verify_desync(loaded.replay, loaded.name, runner, v);
  std::string bundle;
  if (prev != nullptr) {
    const inspect::Bundle b =
        inspect::verify_bundle(*loaded.sim, loaded.replay, loaded.name, runner, prev->tick() + 1 == v.tick ? prev : nullptr,
                               v.tick, "DESYNC at tick " + std::to_string(v.tick) + " (vs " + v.against + "): " + d.parts);
    if (!write_bundle_reporting(a.bundle_dir, b, bundle)) return kExitBadInput;
  }
  std::fprintf(stderr, "%s: DESYNC %s: first divergent tick %llu (vs %s): differs: %s\n", tool_name().c_str(), loaded.name.c_str(),
               static_cast<unsigned long long>(v.tick), v.against.c_str(), d.parts.c_str());
  std::fputs(inspect::verify_desync_report(loaded.name, v, d, bundle, a.json).c_str(), stdout);
  return kExitMismatch;
}

// The comparison itself is replay::verify (or inspect::verify_by_system with --per-system);
// this only loads, calls and prints (the reports: inspect/verify_report.h).
int verify_cmd(const VerifyArgs& a) {
  if (!a.bundle_dir.empty())
    if (int rc = check_output_dir("--bundle-dir", a.bundle_dir, a.json); rc != kExitOk) return rc;
  if (!a.against.empty()) {
    if (a.per_system)
      return report_error(a.json, kExitBadInput, "verify: --per-system runs one recording's inputs; it does not combine with --against");
    return verify_against(a.replay, a.against, a.bundle_dir, a.json);
  }
  Loaded loaded;
  if (int rc = load_replay(a.replay, a.json, loaded); rc != kExitOk) return rc;
  if (int rc = require_complete(loaded, a.allow_partial, a.json); rc != kExitOk) return rc;
  replay::Trace golden;
  replay::VerifyOptions opt;
  opt.replay_name = loaded.name;
  if (!a.trace.empty()) {
    replay::ReplayStatus st = replay::read_trace_file(a.trace, golden);
    if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
    opt.golden = &golden;
    opt.golden_name = a.trace;
  }
  Snapshot prev;  // with --bundle-dir: the last agreeing state
  if (!a.bundle_dir.empty()) opt.previous = &prev;
  replay::Runner runner(*loaded.sim, loaded.replay.header.config);
  replay::VerifyResult v;
  if (a.per_system) {
    replay::VerifyChecks checks(runner, loaded.replay, opt);
    inspect::SystemSyncResult by_system;
    inspect::verify_by_system(runner, loaded.replay, checks, by_system);
    v = std::move(checks.result());
    if (!by_system.ok && !v.bad_input())
      return report_system_divergence("verify", loaded.name, *loaded.sim, loaded.replay.header.config, by_system,
                                      a.bundle_dir, a.json);
  } else {
    v = replay::verify(runner, loaded.replay, opt);
  }
  if (v.bad_input()) return report_error(a.json, kExitBadInput, v.error);
  if (v.ok) {
    if (v.compared_nothing())
      std::fprintf(stderr, "%s: warning: %s has no recorded hashes and no --trace was given; nothing was compared\n", tool_name().c_str(),
                   loaded.name.c_str());
    std::fputs(inspect::verify_ok_report(loaded.name, v, loaded.replay.complete, a.json).c_str(), stdout);
    return kExitOk;
  }
  if (v.lengths_differ) {  // the golden trace is longer or shorter: no state to look at
    std::fprintf(stderr, "%s: MISMATCH %s at tick %llu (%s): %s\n", tool_name().c_str(), loaded.name.c_str(),
                 static_cast<unsigned long long>(v.tick), v.against.c_str(), v.differs.c_str());
    std::fputs(inspect::verify_length_report(loaded.name, v, a.json).c_str(), stdout);
    return kExitMismatch;
  }
  return report_verify_desync(a, loaded, runner, v, opt.previous);
}
}  // namespace

Command add_verify(CLI::App& root) {
  auto a = std::make_shared<VerifyArgs>();
  CLI::App* app = root.add_subcommand("verify", "Replay and check every tick against recorded hashes / a golden trace");
  app->add_option("replay", a->replays, "Replay file(s), or directories searched for *.replay (a farm)")->required();
  app->add_option("--trace", a->trace, "Golden trace to compare every tick against");
  app->add_flag("--allow-partial", a->allow_partial, "Check an incomplete replay (no END block) up to its last complete block");
  app->add_option("--against", a->against,
                  "Another recording of the same inputs (e.g. from another build or machine): compare the two "
                  "recordings' hashes and checkpoints tick by tick");
  app->add_option("--bundle-dir", a->bundle_dir, "Write a desync bundle here at the first divergent tick");
  app->add_flag("--per-system", a->per_system,
                "Also run every tick twice from the same state, hash after every system, and name the first "
                "system, entity and field whose output differs (as synctest --per-system)");
  app->add_flag("--json", a->json, "Machine-readable result on stdout");
  add_farm_options(*app, a->farm, true);
  app->footer("Examples:\n"
              "  " + tool_name() + " verify fixtures/skirmish/skirmish.replay --trace fixtures/skirmish/skirmish.trace\n"
              "  " + tool_name() + " verify replays/ --traces-beside --jobs 4 --shard 2/8 --junit verify.xml\n"
              "  " + tool_name() + " verify built-with-gcc.replay --against built-with-clang.replay --bundle-dir out/\n"
              "  " + tool_name() + " verify my.replay --json\n"
              "  " + tool_name() + " verify my.replay --per-system --bundle-dir out/\n"
              "Exit codes: 0 every tick matches; 1 first divergent tick and the differing components\n"
              "are named; 2 unreadable or mismatched input (bad file, unknown sim, schema change).");
  return {app, [a] {
            if (!is_farm(a->replays, a->farm)) {
              a->replay = a->replays.front();
              return verify_cmd(*a);
            }
            if (!a->trace.empty() || a->json || !a->against.empty())
              return report_error(a->json, kExitBadInput,
                                  "verify: with several replays use --traces-beside (not --trace) and --junit (not --json); "
                                  "--against compares exactly two recordings");
            return run_farm("verify", a->replays, a->farm, [a](const std::string& replay) {
              VerifyArgs one;
              one.replay = replay;
              // The incomplete-replay rule holds per replay, in-process and in --jobs children alike.
              one.allow_partial = a->allow_partial;
              one.per_system = a->per_system;
              if (a->farm.traces_beside) one.trace = (std::filesystem::path(replay).replace_extension(".trace")).generic_string();
              replay::FarmJob t{{"verify", one.replay}, [one] { return verify_cmd(one); }};
              if (!one.trace.empty()) t.args.insert(t.args.end(), {"--trace", one.trace});
              if (one.allow_partial) t.args.push_back("--allow-partial");
              if (one.per_system) t.args.push_back("--per-system");
              return t;
            });
          }};
}

}  // namespace lockstep::cli
