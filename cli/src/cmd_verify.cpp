// lockstep verify REPLAY [--trace GOLDEN] — replay and compare every tick against the
// replay's recorded hashes, its checkpoints and (optionally) a golden trace.
// Exit 0: every tick matches. 1: names the first divergent tick and the differing parts.
// 2: unreadable or mismatched input.
#include "bundle_cli.h"
#include "common.h"
#include "farm.h"
#include "per_system.h"
#include "verify_forensics.h"

#include <lockstep/inspect/diff.h>

#include <lockstep/replay/trace.h>

#include <cstdio>
#include <filesystem>

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
  const replay::Replay& r = loaded.replay;
  replay::Trace golden;
  const bool have_golden = !a.trace.empty();
  if (have_golden) {
    replay::ReplayStatus st = replay::read_trace_file(a.trace, golden);
    if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
  }
  replay::Runner runner(*loaded.sim, r.header.config);
  if (!runner.status().ok())
    return report_error(a.json, kExitBadInput, loaded.name + ": cannot build the sim: " + runner.status().message());
  const StorageView schema = runner.world().storage();
  if (r.header.has_component_hashes()) {
    bool same = r.header.components.size() == schema.component_count();
    for (std::size_t c = 0; same && c < r.header.components.size(); ++c)
      same = r.header.components[c] == schema.component(static_cast<std::uint32_t>(c)).name;
    if (!same)
      return report_error(a.json, kExitBadInput,
                          loaded.name + ": the recorded component list differs from this build's sim (" +
                              join(r.header.components) + ")");
  }

  // Checkpoints are loaded into a second world of the same sim and hashed.
  std::unique_ptr<replay::Runner> scratch;
  Snapshot scratch_snapshot;
  if (!r.checkpoints.empty()) {
    scratch = std::make_unique<replay::Runner>(*loaded.sim, r.header.config);
    scratch_snapshot.reserve(scratch->world());
  }
  std::size_t next_cp = 0;
  // With --bundle-dir the state of the previous tick is kept (the last agreeing state).
  Snapshot prev, cur;
  const bool keep = !a.bundle_dir.empty();
  if (keep) {
    prev.reserve(runner.world());
    cur.reserve(runner.world());
  }

  std::uint64_t recorded_checked = 0, golden_checked = 0, checkpoints_checked = 0;
  std::uint64_t bad_tick = 0;
  std::string source, parts;
  int bad_input = kExitOk;
  std::string bad_message;
  const auto on_tick = [&](std::uint64_t tick, const StateHash& h) {
    if (tick < r.hashes.size()) {
      ++recorded_checked;
      const auto d = diff_recorded(r, tick, h);
      if (!d.empty()) {
        bad_tick = tick;
        source = "recorded hashes";
        parts = join(d);
        return int{kExitMismatch};
      }
    }
    if (have_golden && tick < golden.lines.size()) {
      ++golden_checked;
      const auto d = replay::diff_trace_line(golden.lines[tick], h, schema);
      if (!d.empty()) {
        bad_tick = tick;
        source = "golden trace " + a.trace + " line " + std::to_string(golden.lines[tick].line_number);
        parts = join(d);
        return int{kExitMismatch};
      }
    }
    while (next_cp < r.checkpoints.size() && r.checkpoints[next_cp].tick == tick) {
      const replay::Checkpoint& cp = r.checkpoints[next_cp++];
      const FileStatus fs = load_snapshot_bytes(cp.snapshot, scratch->world(), scratch_snapshot, loaded.name + " checkpoint");
      if (!fs.ok()) {
        bad_message = loaded.name + ": checkpoint at tick " + std::to_string(cp.tick) + " unreadable: " + fs.message;
        bad_input = kExitBadInput;
        return int{kExitBadInput};
      }
      ++checkpoints_checked;
      const StateHash ch = hash_world(scratch->world());
      const HashDiff d = diff_hashes(ch, h);
      if (!d.empty()) {
        bad_tick = tick;
        source = "checkpoint";
        parts = describe_hash_diff(ch, h, schema);
        return int{kExitMismatch};
      }
    }
    if (keep) {
      runner.world().save(cur);
      std::swap(prev, cur);
    }
    return int{kExitOk};
  };
  // --per-system: the same checks on every tick, with each tick run twice from the same state
  // and hashed after every stage (the synctest gate, per_system.h) in the same pass.
  inspect::SystemSyncResult by_system;
  const int rc = a.per_system ? replay_frames_by_system(loaded, runner, on_tick, by_system)
                              : replay_frames(loaded, runner, false, nullptr, on_tick);
  if (a.per_system && !by_system.ok && bad_input == kExitOk)
    return report_system_divergence("verify", loaded.name, *loaded.sim, r.header.config, by_system, a.bundle_dir, a.json);
  if (bad_input != kExitOk) return report_error(a.json, kExitBadInput, bad_message);
  if (rc == kExitBadInput) return rc;
  const std::uint64_t last_tick = r.frame_count();
  if (rc == kExitOk && have_golden && golden.lines.size() != last_tick + 1) {
    // Lengths differ: the first tick present on one side only is the divergence.
    bad_tick = std::min<std::uint64_t>(golden.lines.size(), last_tick + 1);
    source = "golden trace " + a.trace;
    parts = golden.lines.size() > last_tick + 1
                ? "the replay ends at tick " + std::to_string(last_tick) + " but the golden trace continues to tick " +
                      std::to_string(golden.lines.size() - 1)
                : "the golden trace ends at tick " + std::to_string(golden.lines.size() - 1) +
                      " but the replay continues to tick " + std::to_string(last_tick);
    const int mismatch = kExitMismatch;
    std::fprintf(stderr, "lockstep: MISMATCH %s at tick %llu (%s): %s\n", loaded.name.c_str(),
                 static_cast<unsigned long long>(bad_tick), source.c_str(), parts.c_str());
    if (a.json) {
      Json j;
      j.begin().field("ok", false).field("exit", mismatch).field("replay", loaded.name).field("tick", bad_tick)
          .field("against", source).field("differs", parts).end();
      std::printf("%s\n", j.str().c_str());
    }
    return mismatch;
  }
  if (rc == kExitMismatch) {
    // Field level: the recording's checkpoint of that tick against this build's state.
    std::optional<inspect::StateDiff> fields;
    if (auto expected = checkpoint_state(r, bad_tick, loaded.name))
      fields = inspect::diff(*expected, inspect::capture(runner.world().storage()));
    if (fields) parts += "; " + inspect::summary(*fields);
    std::string bundle;
    if (keep) {
      const inspect::Bundle b = verify_bundle(loaded, runner, prev.tick() + 1 == bad_tick ? &prev : nullptr, bad_tick,
                                              "DESYNC at tick " + std::to_string(bad_tick) + " (vs " + source + "): " + parts);
      if (!write_bundle_reporting(a.bundle_dir, b, bundle)) return kExitBadInput;
    }
    std::fprintf(stderr, "lockstep: DESYNC %s: first divergent tick %llu (vs %s): differs: %s\n", loaded.name.c_str(),
                 static_cast<unsigned long long>(bad_tick), source.c_str(), parts.c_str());
    if (a.json) {
      Json j;
      j.begin().field("ok", false).field("exit", kExitMismatch).field("replay", loaded.name).field("tick", bad_tick)
          .field("against", source).field("differs", parts);
      if (!bundle.empty()) j.field("bundle", bundle);
      j.end();
      std::string out = j.str();
      if (fields) {
        out.pop_back();
        out += ",\"diff\":" + inspect::format_json(*fields) + "}";
      }
      std::printf("%s\n", out.c_str());
    } else {
      std::printf("DESYNC at tick %llu (vs %s): %s\n", static_cast<unsigned long long>(bad_tick), source.c_str(), parts.c_str());
      if (fields) std::printf("%s", inspect::format_text(*fields, "recording", "this build").c_str());
    }
    return kExitMismatch;
  }
  const bool nothing = recorded_checked == 0 && golden_checked == 0 && checkpoints_checked == 0;
  if (nothing) std::fprintf(stderr, "lockstep: warning: %s has no recorded hashes and no --trace was given; nothing was compared\n", loaded.name.c_str());
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("replay", loaded.name).field("ticks", last_tick)
        .field("final_hash", hex(runner.hash().total)).field("recorded_hashes_checked", recorded_checked)
        .field("golden_ticks_checked", golden_checked).field("checkpoints_checked", checkpoints_checked)
        .field("complete", r.complete).end();
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("OK %s: %llu ticks, final hash %s; checked %llu recorded hashes, %llu golden trace ticks, %llu checkpoints\n",
                loaded.name.c_str(), static_cast<unsigned long long>(last_tick), hex(runner.hash().total).c_str(),
                static_cast<unsigned long long>(recorded_checked), static_cast<unsigned long long>(golden_checked),
                static_cast<unsigned long long>(checkpoints_checked));
  }
  return kExitOk;
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
              "  lockstep verify fixtures/skirmish/skirmish.replay --trace fixtures/skirmish/skirmish.trace\n"
              "  lockstep verify replays/ --traces-beside --jobs 4 --shard 2/8 --junit verify.xml\n"
              "  lockstep verify built-with-gcc.replay --against built-with-clang.replay --bundle-dir out/\n"
              "  lockstep verify my.replay --json\n"
              "  lockstep verify my.replay --per-system --bundle-dir out/\n"
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
              FarmTask t{{"verify", one.replay}, [one] { return verify_cmd(one); }};
              if (!one.trace.empty()) t.args.insert(t.args.end(), {"--trace", one.trace});
              if (one.allow_partial) t.args.push_back("--allow-partial");
              if (one.per_system) t.args.push_back("--per-system");
              return t;
            });
          }};
}

}  // namespace lockstep::cli
