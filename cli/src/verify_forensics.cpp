// verify forensics (verify_forensics.h).
#include "verify_forensics.h"

#include "bundle_cli.h"

#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/dump.h>

#include <algorithm>
#include <cstdio>

namespace lockstep::cli {

std::optional<inspect::State> checkpoint_state(const replay::Replay& r, std::uint64_t tick, const std::string& name) {
  for (const replay::Checkpoint& cp : r.checkpoints) {
    if (cp.tick != tick) continue;
    inspect::State s;
    if (inspect::decode_state(cp.snapshot, s, name + " checkpoint").ok()) return s;
  }
  return std::nullopt;
}

inspect::HashBreakdown recorded_breakdown(const replay::Replay& r, std::uint64_t tick) {
  inspect::HashBreakdown h;
  if (tick >= r.hashes.size()) return h;
  const replay::TickHash& t = r.hashes[tick];
  h.tick = t.tick;
  h.total = t.total;
  h.entities = t.entities;
  h.archetypes = t.archetypes;
  h.resources = t.resources;
  const auto c = r.components_at(tick);
  h.components.assign(c.begin(), c.end());
  return h;
}

inspect::Bundle verify_bundle(const Loaded& loaded, const replay::Runner& runner, const Snapshot* prev,
                              std::uint64_t tick, const std::string& report) {
  inspect::Bundle b;
  b.source = "verify";
  inspect::set_sim(b, *loaded.sim, loaded.replay.header.config);
  b.tick = tick;
  b.report = report;
  inspect::BundleSide mine{"this build", true, inspect::capture(runner.world().storage()),
                           inspect::breakdown(runner.hash())};
  b.facts = inspect::build_facts(loaded.sim, &mine.state);
  inspect::BundleSide rec{"recording " + loaded.name, false, {}, recorded_breakdown(loaded.replay, tick)};
  if (auto s = checkpoint_state(loaded.replay, tick, loaded.name)) {
    rec.has_state = true;
    rec.state = std::move(*s);
  }
  // Recording first: the diff reads "expected | got".
  b.sides.push_back(std::move(rec));
  b.sides.push_back(std::move(mine));
  if (prev != nullptr && !prev->empty()) {
    b.has_agreeing = true;
    b.agreeing = inspect::capture(prev->view());
    b.inputs_from = b.agreeing.tick;
    b.frame_bytes = loaded.replay.header.frame_bytes();
    for (std::uint64_t t = b.inputs_from; t < tick && t < loaded.replay.frame_count(); ++t) {
      const auto f = loaded.replay.frame(t);
      b.inputs.insert(b.inputs.end(), f.begin(), f.end());
    }
  }
  return b;
}

namespace {
std::string first_parts(const replay::Replay& a, const replay::Replay& b, std::uint64_t t) {
  std::vector<std::string> parts;
  const replay::TickHash& x = a.hashes[t];
  const replay::TickHash& y = b.hashes[t];
  if (x.total != y.total) parts.push_back("total");
  if (x.entities != y.entities) parts.push_back("entities");
  if (x.archetypes != y.archetypes) parts.push_back("archetypes");
  if (x.resources != y.resources) parts.push_back("resources");
  const auto ca = a.components_at(t);
  const auto cb = b.components_at(t);
  for (std::size_t c = 0; c < ca.size() && c < cb.size(); ++c)
    if (ca[c] != cb[c]) parts.push_back(a.header.components[c]);
  return join(parts);
}
}  // namespace

int verify_against(const std::string& pa, const std::string& pb, const std::string& bundle_dir, bool json) {
  Loaded a, b;
  if (int rc = load_replay(pa, json, a); rc != kExitOk) return rc;
  if (int rc = load_replay(pb, json, b); rc != kExitOk) return rc;
  const replay::ReplayHeader& ha = a.replay.header;
  const replay::ReplayHeader& hb = b.replay.header;
  if (ha.sim_name != hb.sim_name || ha.sim_version != hb.sim_version || ha.input_schema != hb.input_schema ||
      !(ha.config == hb.config))
    return report_error(json, kExitBadInput, pb + ": not a recording of the same sim, version and config as " + pa);
  if (ha.components != hb.components)
    return report_error(json, kExitBadInput, pb + ": the recorded component lists differ from " + pa + " (" +
                                                 join(ha.components) + " vs " + join(hb.components) + ")");
  const std::uint64_t frames = std::min(a.replay.frame_count(), b.replay.frame_count());
  for (std::uint64_t t = 0; t < frames; ++t) {
    const auto fa = a.replay.frame(t);
    const auto fb = b.replay.frame(t);
    if (!std::equal(fa.begin(), fa.end(), fb.begin(), fb.end()))
      return report_error(json, kExitBadInput, pb + ": tick " + std::to_string(t) + ": the input frame differs from " + pa +
                                                   " (--against compares two recordings of the same inputs)");
  }
  if (a.replay.hashes.empty() || b.replay.hashes.empty())
    return report_error(json, kExitBadInput, (a.replay.hashes.empty() ? pa : pb) + ": has no recorded hashes to compare");
  const std::uint64_t n = std::min(a.replay.hashes.size(), b.replay.hashes.size());
  std::uint64_t bad = n;
  for (std::uint64_t t = 0; t < n && bad == n; ++t)
    if (!first_parts(a.replay, b.replay, t).empty()) bad = t;
  if (bad == n) {
    if (json) {
      Json j;
      j.begin().field("ok", true).field("replay", pa).field("against", pb).field("ticks_compared", n).end();
      std::printf("%s\n", j.str().c_str());
    } else {
      std::printf("OK %s against %s: %llu ticks, every recorded hash equal\n", pa.c_str(), pb.c_str(),
                  static_cast<unsigned long long>(n));
    }
    return kExitOk;
  }
  const std::string parts = first_parts(a.replay, b.replay, bad);
  std::string report = "first divergent tick " + std::to_string(bad) + ": differs: " + parts;
  auto sa = checkpoint_state(a.replay, bad, pa);
  auto sb = checkpoint_state(b.replay, bad, pb);
  std::optional<inspect::StateDiff> d;
  if (sa && sb) {
    d = inspect::diff(*sa, *sb);
    report += "; " + inspect::summary(*d);
  }
  std::string bundle;
  if (!bundle_dir.empty()) {
    inspect::Bundle bu;
    bu.source = "verify-against";
    inspect::set_sim(bu, *a.sim, ha.config);
    bu.tick = bad;
    bu.report = "DESYNC " + report;
    bu.facts = inspect::build_facts(a.sim, sa ? &*sa : nullptr);
    bu.sides.push_back({"A " + pa, sa.has_value(), sa ? *sa : inspect::State{}, recorded_breakdown(a.replay, bad)});
    bu.sides.push_back({"B " + pb, sb.has_value(), sb ? *sb : inspect::State{}, recorded_breakdown(b.replay, bad)});
    // The last checkpoint both recordings agree on (any before `bad`) and the inputs after it.
    for (const replay::Checkpoint& cp : a.replay.checkpoints) {
      if (cp.tick >= bad) break;
      inspect::State s;
      if (inspect::decode_state(cp.snapshot, s, pa).ok()) {
        bu.has_agreeing = true;
        bu.agreeing = std::move(s);
      }
    }
    bu.inputs_from = bu.has_agreeing ? bu.agreeing.tick : 0;
    bu.frame_bytes = ha.frame_bytes();
    for (std::uint64_t t = bu.inputs_from; t < bad && t < frames; ++t) {
      const auto f = a.replay.frame(t);
      bu.inputs.insert(bu.inputs.end(), f.begin(), f.end());
    }
    if (!write_bundle_reporting(bundle_dir, bu, bundle)) return kExitBadInput;
  }
  std::fprintf(stderr, "lockstep: DESYNC %s against %s: %s\n", pa.c_str(), pb.c_str(), report.c_str());
  if (json) {
    std::string out = "{\"ok\":false,\"exit\":1,\"replay\":";
    inspect::append_json_string(out, pa);
    out += ",\"against\":";
    inspect::append_json_string(out, pb);
    out += ",\"tick\":" + std::to_string(bad) + ",\"differs\":";
    inspect::append_json_string(out, parts);
    if (!bundle.empty()) {
      out += ",\"bundle\":";
      inspect::append_json_string(out, bundle);
    }
    if (d) out += ",\"diff\":" + inspect::format_json(*d);
    std::printf("%s}\n", out.c_str());
  } else {
    std::printf("DESYNC at tick %llu (A %s vs B %s): %s\n", static_cast<unsigned long long>(bad), pa.c_str(), pb.c_str(),
                parts.c_str());
    if (d) std::printf("%s", inspect::format_text(*d, "A", "B").c_str());
    else std::printf("(no checkpoint of tick %llu in both recordings: record with --checkpoint-every 1 for the field-level diff)\n",
                     static_cast<unsigned long long>(bad));
  }
  return kExitMismatch;
}

}  // namespace lockstep::cli
