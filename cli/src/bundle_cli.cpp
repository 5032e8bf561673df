// Desync bundles of the CLI gates (bundle_cli.h).
#include "bundle_cli.h"

#include "common.h"

#include <cstdio>

namespace lockstep::cli {

bool write_bundle_reporting(const std::string& dir, const inspect::Bundle& b, std::string& path) {
  const FileStatus st = inspect::write_bundle(dir, b, path);
  if (!st.ok()) {
    std::fprintf(stderr, "%s: cannot write the desync bundle: %s\n", tool_name().c_str(), st.message.c_str());
    return false;
  }
  std::fprintf(stderr, "%s: desync bundle written: %s (read it with: %s diff %s)\n", tool_name().c_str(), path.c_str(),
               tool_name().c_str(), path.c_str());
  return true;
}

}  // namespace lockstep::cli
