// Desync bundles of the CLI gates (bundle_cli.h).
#include "bundle_cli.h"

#include <cstdio>

namespace lockstep::cli {

inspect::Bundle synctest_bundle(const replay::Sim& sim, const replay::SimConfig& config,
                                const inspect::SystemSyncResult& r, const std::string& report,
                                const std::string& source) {
  inspect::Bundle b;
  b.source = source;
  inspect::set_sim(b, sim, config);
  b.tick = r.tick;
  b.system = r.system;
  b.report = report;
  b.facts = inspect::build_facts(&sim, &r.first);
  inspect::BundleSide first{"first simulation", true, r.first, inspect::breakdown(r.first_hash)};
  inspect::BundleSide again{"resimulation", true, r.again, inspect::breakdown(r.again_hash)};
  b.sides.push_back(std::move(first));
  b.sides.push_back(std::move(again));
  b.has_agreeing = true;
  b.agreeing = r.before;
  b.inputs_from = r.before.tick;
  b.frame_bytes = static_cast<std::uint32_t>(r.frame.size());
  b.inputs = r.frame;
  return b;
}

bool write_bundle_reporting(const std::string& dir, const inspect::Bundle& b, std::string& path) {
  const FileStatus st = inspect::write_bundle(dir, b, path);
  if (!st.ok()) {
    std::fprintf(stderr, "lockstep: cannot write the desync bundle: %s\n", st.message.c_str());
    return false;
  }
  std::fprintf(stderr, "lockstep: desync bundle written: %s (read it with: lockstep diff %s)\n", path.c_str(), path.c_str());
  return true;
}

}  // namespace lockstep::cli
