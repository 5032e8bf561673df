#pragma once
// Writing the CLI gates' desync bundles into --bundle-dir (built by inspect/forensics.h and
// rollback/desync_bundle.h).
#include <lockstep/inspect/bundle.h>

#include <string>

namespace lockstep::cli {

// Writes `b` into `dir`; prints "bundle: PATH" to stderr. Returns false (message printed)
// when the write failed.
bool write_bundle_reporting(const std::string& dir, const inspect::Bundle& b, std::string& path);

}  // namespace lockstep::cli
