// The per-system gate shared by synctest and verify (per_system.h).
#include "per_system.h"

#include "bundle_cli.h"

#include <lockstep/inspect/diff.h>

#include <algorithm>
#include <cstdio>

namespace lockstep::cli {

int report_system_divergence(const std::string& gate, const std::string& name, const replay::Sim& sim,
                             const replay::SimConfig& config, const inspect::SystemSyncResult& r,
                             const std::string& bundle_dir, bool json) {
  const std::string where = inspect::describe(r);
  std::string bundle;
  if (!bundle_dir.empty()) {
    const inspect::Bundle b = synctest_bundle(sim, config, r, "DESYNC " + where, gate);
    if (!write_bundle_reporting(bundle_dir, b, bundle)) return kExitBadInput;
  }
  std::fprintf(stderr, "lockstep: DESYNC %s: running tick %llu twice from the same state: %s\n", name.c_str(),
               static_cast<unsigned long long>(r.tick), where.c_str());
  if (json) {
    Json j;
    j.begin().field("ok", false).field("exit", int{kExitMismatch}).field("source", name).field("per_system", true)
        .field("tick", r.tick).field("system", r.system).field("report", where);
    if (!bundle.empty()) j.field("bundle", bundle);
    j.end();
    std::string out = j.str();
    out.pop_back();  // splice the diff object in
    out += ",\"diff\":" + inspect::format_json(r.diff) + "}";
    std::printf("%s\n", out.c_str());
  } else {
    std::printf("DESYNC %s\n%s", where.c_str(), inspect::format_text(r.diff, "first", "again").c_str());
  }
  return kExitMismatch;
}

int replay_frames_by_system(const Loaded& loaded, replay::Runner& runner,
                            const std::function<int(std::uint64_t, const StateHash&)>& on_tick,
                            inspect::SystemSyncResult& out) {
  const replay::Replay& r = loaded.replay;
  if (int rc = on_tick(0, runner.hash()); rc != kExitOk) return rc;
  int rc = kExitOk;
  out = inspect::synctest_by_system(
      runner, r.frame_count(),
      [&](std::uint64_t t, const World&, std::span<std::byte> frame) {
        const auto f = r.frame(t);
        std::copy(f.begin(), f.end(), frame.begin());
        replay::Runner::canonical_to_host(loaded.sim->input_type(), frame);
      },
      {},
      [&](std::uint64_t tick, const World&) {
        rc = on_tick(tick, runner.hash());
        return rc == kExitOk;
      });
  if (!out.status.ok())
    return report_error(false, kExitBadInput, loaded.name + ": tick " + std::to_string(runner.tick()) +
                                                  ": the sim rejected the step: " + out.status.message());
  if (!out.ok) return kExitMismatch;
  return rc;
}

}  // namespace lockstep::cli
