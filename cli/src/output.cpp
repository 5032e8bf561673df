// Output handling shared by every subcommand: destinations are inspected before any work
// (so `record -o DIR` fails before simulating the match), and standard output is flushed and
// checked before the exit code is returned (so `trace x >/dev/full` cannot exit 0 with a
// truncated trace).
#include "common.h"

#include <lockstep/hash/durable_file.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace lockstep::cli {

int check_output(const std::string& path, bool json) { return check_output(path, json, {}); }

int check_output(const std::string& path, bool json, const std::vector<std::string>& inputs) {
  hash::Destination dest;
  std::string error;
  if (hash::inspect_destination(path, dest, error) && hash::destination_is_not_an_input(path, inputs, error))
    return kExitOk;
  return report_error(json, kExitBadInput, (path.empty() ? std::string("-o ''") : path) + ": " + error);
}

int check_output_dir(const std::string& option, const std::string& dir, bool json) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec && !fs::is_directory(dir, ec)) ec = std::make_error_code(std::errc::not_a_directory);
  if (!ec) return kExitOk;
  return report_error(json, kExitBadInput, option + " " + dir + ": " + ec.message());
}

int finish_stdout(int rc) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && std::ferror(stdout) == 0) return rc;
  std::fprintf(stderr, "%s: error: cannot write standard output: %s\n", tool_name().c_str(),
               !flushed && err != 0 ? std::strerror(err) : "write error");
  // A mismatch found stays a mismatch; otherwise the lost output makes the run a failure.
  return rc == kExitOk ? int{kExitBadInput} : rc;
}

// ---- timing traces (the recorder: inspect/timing_trace.h) ----------------------------------

int write_timing_trace(const TimingTrace& trace, const std::string& path, bool json) {
  const std::string text = trace.chrome_json();
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(path, text.data(), text.size(), failure))
    return report_error(json, kExitBadInput, "cannot write the timing trace " + failure.failed_path + ": " + failure.what);
  if (!json) std::fprintf(stderr, "%s: timing trace (%zu slices) written to %s\n", tool_name().c_str(), trace.events().size(), path.c_str());
  return kExitOk;
}

}  // namespace lockstep::cli
