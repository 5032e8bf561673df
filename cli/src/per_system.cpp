// The per-system gate's report, shared by synctest and verify (per_system.h).
#include "per_system.h"

#include "bundle_cli.h"

#include <lockstep/inspect/forensics.h>
#include <lockstep/inspect/verify_report.h>

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
  std::fprintf(stderr, "%s: DESYNC %s: running tick %llu twice from the same state: %s\n", tool_name().c_str(), name.c_str(),
               static_cast<unsigned long long>(r.tick), where.c_str());
  std::fputs(inspect::system_divergence_report(name, r, bundle, json).c_str(), stdout);
  return kExitMismatch;
}

}  // namespace lockstep::cli
