// verify A --against B (verify_against.h): loads, calls the libraries, prints.
#include "verify_against.h"

#include "bundle_cli.h"

#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/forensics.h>
#include <lockstep/replay/verify.h>

#include <cstdio>

namespace lockstep::cli {

namespace {
void print_against_desync(const std::string& pa, const std::string& pb, const replay::RecordingComparison& c,
                          const inspect::AgainstForensics& f, const std::string& bundle, bool json) {
  std::fprintf(stderr, "lockstep: DESYNC %s against %s: %s\n", pa.c_str(), pb.c_str(), f.report.c_str());
  if (json) {
    std::string out = "{\"ok\":false,\"exit\":1,\"replay\":";
    inspect::append_json_string(out, pa);
    out += ",\"against\":";
    inspect::append_json_string(out, pb);
    out += ",\"tick\":" + std::to_string(c.tick) + ",\"differs\":";
    inspect::append_json_string(out, c.differs);
    if (!bundle.empty()) {
      out += ",\"bundle\":";
      inspect::append_json_string(out, bundle);
    }
    if (f.diff) out += ",\"diff\":" + inspect::format_json(*f.diff);
    std::printf("%s}\n", out.c_str());
    return;
  }
  std::printf("DESYNC at tick %llu (A %s vs B %s): %s\n", static_cast<unsigned long long>(c.tick), pa.c_str(), pb.c_str(),
              c.differs.c_str());
  if (f.diff) std::printf("%s", inspect::format_text(*f.diff, "A", "B").c_str());
  else std::printf("(no checkpoint of tick %llu in both recordings: record with --checkpoint-every 1 for the field-level diff)\n",
                   static_cast<unsigned long long>(c.tick));
}
}  // namespace

int verify_against(const std::string& pa, const std::string& pb, const std::string& bundle_dir, bool json) {
  Loaded a, b;
  if (int rc = load_replay(pa, json, a); rc != kExitOk) return rc;
  if (int rc = load_replay(pb, json, b); rc != kExitOk) return rc;
  const replay::RecordingComparison c = replay::compare_recordings(a.replay, pa, b.replay, pb);
  if (!c.error.empty()) return report_error(json, kExitBadInput, c.error);
  if (c.ok) {
    if (json) {
      Json j;
      j.begin().field("ok", true).field("replay", pa).field("against", pb).field("ticks_compared", c.ticks_compared).end();
      std::printf("%s\n", j.str().c_str());
    } else {
      std::printf("OK %s against %s: %llu ticks, every recorded hash equal\n", pa.c_str(), pb.c_str(),
                  static_cast<unsigned long long>(c.ticks_compared));
    }
    return kExitOk;
  }
  const inspect::AgainstForensics f = inspect::against_forensics(a.replay, pa, b.replay, pb, c);
  std::string bundle;
  if (!bundle_dir.empty() &&
      !write_bundle_reporting(bundle_dir, inspect::against_bundle(*a.sim, a.replay, pa, b.replay, pb, c, f), bundle))
    return kExitBadInput;
  print_against_desync(pa, pb, c, f, bundle, json);
  return kExitMismatch;
}

}  // namespace lockstep::cli
