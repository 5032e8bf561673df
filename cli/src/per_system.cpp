// The per-system gate's report, shared by synctest and verify (per_system.h).
#include "per_system.h"

#include "bundle_cli.h"

#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/forensics.h>

#include <algorithm>
#include <cstdio>

namespace lockstep::cli {

int report_system_divergence(const std::string& gate, const std::string& name, const replay::Sim& sim,
                             const replay::SimConfig& config, const inspect::SystemSyncResult& r,
                             const std::string& bundle_dir, bool json) {
  const std::string where = inspect::describe(r);
  std::string bundle;
  if (!bundle_dir.empty()) {
    const inspect::Bundle b = inspect::synctest_bundle(sim, config, r, "DESYNC " + where, gate);
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

}  // namespace lockstep::cli
