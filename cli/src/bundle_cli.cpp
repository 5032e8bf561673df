// Desync bundles of the CLI gates (bundle_cli.h).
#include "bundle_cli.h"

#include <cstdio>

namespace lockstep::cli {

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
