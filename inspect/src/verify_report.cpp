// The verify gates' reports (verify_report.h).
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/json_writer.h>
#include <lockstep/inspect/verify_report.h>

namespace lockstep::inspect {

namespace {
constexpr int kExitMismatch = 1;  // the tool's exit code for a mismatch, echoed in the JSON

// `object` (a closed JSON object) with ,"diff":DIFF spliced in before its end.
std::string with_diff(std::string object, const StateDiff& diff) {
  object.pop_back();
  return object + ",\"diff\":" + format_json(diff) + "}";
}

std::string ull(std::uint64_t v) { return std::to_string(v); }
}  // namespace

VerifyDesync verify_desync(const replay::Replay& r, const std::string& name, const replay::Runner& runner,
                           const replay::VerifyResult& v) {
  VerifyDesync d{v.differs, verify_field_diff(r, v.tick, name, runner)};
  if (d.fields) d.parts += "; " + summary(*d.fields);
  return d;
}

std::string verify_ok_report(const std::string& name, const replay::VerifyResult& v, bool complete, bool json) {
  if (json) {
    JsonWriter j;
    j.begin().field("ok", true).field("replay", name).field("ticks", v.ticks).field("final_hash", to_hex(v.final_hash.total))
        .field("recorded_hashes_checked", v.recorded_checked).field("golden_ticks_checked", v.golden_checked)
        .field("checkpoints_checked", v.checkpoints_checked).field("complete", complete).end();
    return j.str() + "\n";
  }
  return "OK " + name + ": " + ull(v.ticks) + " ticks, final hash " + to_hex(v.final_hash.total) + "; checked " +
         ull(v.recorded_checked) + " recorded hashes, " + ull(v.golden_checked) + " golden trace ticks, " +
         ull(v.checkpoints_checked) + " checkpoints\n";
}

std::string verify_desync_report(const std::string& name, const replay::VerifyResult& v, const VerifyDesync& d,
                                 const std::string& bundle, bool json) {
  if (json) {
    JsonWriter j;
    j.begin().field("ok", false).field("exit", kExitMismatch).field("replay", name).field("tick", v.tick)
        .field("against", v.against).field("differs", d.parts);
    if (!bundle.empty()) j.field("bundle", bundle);
    j.end();
    return (d.fields ? with_diff(j.str(), *d.fields) : j.str()) + "\n";
  }
  std::string out = "DESYNC at tick " + ull(v.tick) + " (vs " + v.against + "): " + d.parts + "\n";
  if (d.fields) out += format_text(*d.fields, "recording", "this build");
  return out;
}

std::string verify_length_report(const std::string& name, const replay::VerifyResult& v, bool json) {
  if (!json) return {};
  JsonWriter j;
  j.begin().field("ok", false).field("exit", kExitMismatch).field("replay", name).field("tick", v.tick)
      .field("against", v.against).field("differs", v.differs).end();
  return j.str() + "\n";
}

std::string against_ok_report(const std::string& a, const std::string& b, const replay::RecordingComparison& c, bool json) {
  if (json) {
    JsonWriter j;
    j.begin().field("ok", true).field("replay", a).field("against", b).field("ticks_compared", c.ticks_compared).end();
    return j.str() + "\n";
  }
  return "OK " + a + " against " + b + ": " + ull(c.ticks_compared) + " ticks, every recorded hash equal\n";
}

std::string against_desync_report(const std::string& a, const std::string& b, const replay::RecordingComparison& c,
                                  const AgainstForensics& f, const std::string& bundle, bool json) {
  if (json) {
    JsonWriter j;
    j.begin().field("ok", false).field("exit", kExitMismatch).field("replay", a).field("against", b).field("tick", c.tick)
        .field("differs", c.differs);
    if (!bundle.empty()) j.field("bundle", bundle);
    j.end();
    return (f.diff ? with_diff(j.str(), *f.diff) : j.str()) + "\n";
  }
  std::string out = "DESYNC at tick " + ull(c.tick) + " (A " + a + " vs B " + b + "): " + c.differs + "\n";
  if (f.diff) return out + format_text(*f.diff, "A", "B");
  return out + "(no checkpoint of tick " + ull(c.tick) +
         " in both recordings: recordings with a checkpoint every tick give the field-level diff)\n";
}

std::string system_divergence_report(const std::string& name, const SystemSyncResult& r, const std::string& bundle,
                                     bool json) {
  if (!json) return "DESYNC " + describe(r) + "\n" + format_text(r.diff, "first", "again");
  JsonWriter j;
  j.begin().field("ok", false).field("exit", kExitMismatch).field("source", name).field("per_system", true)
      .field("tick", r.tick).field("system", r.system).field("report", describe(r));
  if (!bundle.empty()) j.field("bundle", bundle);
  j.end();
  return with_diff(j.str(), r.diff) + "\n";
}

std::string system_sync_ok_report(const std::string& name, const SystemSyncResult& r, bool json) {
  if (!json) return "OK per-system sync test " + name + ": " + ull(r.ticks) + " ticks, every stage of every tick reproduced\n";
  JsonWriter j;
  j.begin().field("ok", true).field("source", name).field("per_system", true).field("ticks", r.ticks).end();
  return j.str() + "\n";
}

}  // namespace lockstep::inspect
