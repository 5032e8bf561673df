// Verifying a recording (verify.h), a library call so that a game's own tool and tests verify
// the same way `lockstep verify` does: the messages are the ones that command has always
// printed, so its tests read the same text.
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/replay/verify.h>

#include <algorithm>
#include <utility>

namespace lockstep::replay {

std::string join_parts(const std::vector<std::string>& parts, const char* sep) {
  std::string s;
  for (const std::string& p : parts) {
    if (!s.empty()) s += sep;
    s += p;
  }
  return s;
}

std::vector<std::string> diff_recorded(const Replay& r, std::uint64_t tick, const StateHash& h) {
  std::vector<std::string> d;
  const TickHash& th = r.hashes[tick];
  if (th.total != h.total) d.emplace_back("total");
  if (th.entities != h.entities) d.emplace_back("entities");
  if (th.archetypes != h.archetypes) d.emplace_back("archetypes");
  if (th.resources != h.resources) d.emplace_back("resources");
  const auto comps = r.components_at(tick);
  for (std::size_t c = 0; c < comps.size(); ++c) {
    const std::uint64_t mine = c < h.component_count ? h.components[c] : 0;
    if (comps[c] != mine) d.push_back(r.header.components[c]);
  }
  return d;
}

VerifyChecks::VerifyChecks(Runner& runner, const Replay& recording, const VerifyOptions& options)
    : runner_(runner), rec_(recording), opt_(options), schema_(runner.world().storage()) {
  result_.ticks = rec_.frame_count();
  if (!runner_.status().ok()) {
    result_.error = opt_.replay_name + ": cannot build the sim: " + runner_.status().message();
    return;
  }
  if (rec_.header.has_component_hashes()) {
    bool same = rec_.header.components.size() == schema_.component_count();
    for (std::size_t c = 0; same && c < rec_.header.components.size(); ++c)
      same = rec_.header.components[c] == schema_.component(static_cast<std::uint32_t>(c)).name;
    if (!same) {
      result_.error = opt_.replay_name + ": the recorded component list differs from this build's sim (" +
                      join_parts(rec_.header.components) + ")";
      return;
    }
  }
  // Checkpoints are loaded into a second world of the same sim and hashed.
  if (!rec_.checkpoints.empty()) {
    scratch_ = std::make_unique<Runner>(runner_.sim(), rec_.header.config);
    scratch_snapshot_.reserve(scratch_->world());
  }
  if (opt_.previous != nullptr) {
    opt_.previous->reserve(runner_.world());
    cur_.reserve(runner_.world());
  }
}

VerifyChecks::~VerifyChecks() = default;

bool VerifyChecks::check(std::uint64_t tick, const StateHash& h) {
  VerifyResult& r = result_;
  r.final_hash = h;
  if (tick < rec_.hashes.size()) {
    ++r.recorded_checked;
    const auto d = diff_recorded(rec_, tick, h);
    if (!d.empty()) {
      r.ok = false;
      r.tick = tick;
      r.against = "recorded hashes";
      r.differs = join_parts(d);
      return false;
    }
  }
  if (opt_.golden != nullptr && tick < opt_.golden->lines.size()) {
    ++r.golden_checked;
    const auto d = diff_trace_line(opt_.golden->lines[tick], h, schema_);
    if (!d.empty()) {
      r.ok = false;
      r.tick = tick;
      r.against = "golden trace " + opt_.golden_name + " line " + std::to_string(opt_.golden->lines[tick].line_number);
      r.differs = join_parts(d);
      return false;
    }
  }
  while (next_cp_ < rec_.checkpoints.size() && rec_.checkpoints[next_cp_].tick == tick) {
    const Checkpoint& cp = rec_.checkpoints[next_cp_++];
    const FileStatus fs = load_snapshot_bytes(cp.snapshot, scratch_->world(), scratch_snapshot_, opt_.replay_name + " checkpoint");
    if (!fs.ok()) {
      r.error = opt_.replay_name + ": checkpoint at tick " + std::to_string(cp.tick) + " unreadable: " + fs.message;
      return false;
    }
    ++r.checkpoints_checked;
    const StateHash ch = hash_world(scratch_->world());
    if (!diff_hashes(ch, h).empty()) {
      r.ok = false;
      r.tick = tick;
      r.against = "checkpoint";
      r.differs = describe_hash_diff(ch, h, schema_);
      return false;
    }
  }
  if (opt_.previous != nullptr) {
    runner_.world().save(cur_);
    std::swap(*opt_.previous, cur_);
  }
  return true;
}

void VerifyChecks::finish(std::uint64_t last_tick) {
  VerifyResult& r = result_;
  if (!r.ok || r.bad_input() || opt_.golden == nullptr) return;
  const std::uint64_t lines = opt_.golden->lines.size();
  if (lines == last_tick + 1) return;
  // Lengths differ: the first tick present on one side only is the divergence.
  r.ok = false;
  r.lengths_differ = true;
  r.tick = std::min<std::uint64_t>(lines, last_tick + 1);
  r.against = "golden trace " + opt_.golden_name;
  r.differs = lines > last_tick + 1
                  ? "the replay ends at tick " + std::to_string(last_tick) + " but the golden trace continues to tick " +
                        std::to_string(lines - 1)
                  : "the golden trace ends at tick " + std::to_string(lines - 1) + " but the replay continues to tick " +
                        std::to_string(last_tick);
}

VerifyResult verify(Runner& runner, const Replay& recording, const VerifyOptions& options) {
  VerifyChecks checks(runner, recording, options);
  if (!checks.usable()) return std::move(checks.result());
  if (!checks.check(0, runner.hash())) return std::move(checks.result());
  const std::uint64_t frames = recording.frame_count();
  std::vector<std::byte> frame(recording.header.frame_bytes());
  for (std::uint64_t t = 0; t < frames; ++t) {
    Runner::copy_to_host(runner.sim().input_type(), recording.frame(t), frame);
    const Status s = runner.step(frame);
    if (!s.ok()) {
      checks.result().error =
          options.replay_name + ": tick " + std::to_string(t) + ": the sim rejected the step: " + s.message();
      return std::move(checks.result());
    }
    if (!checks.check(t + 1, runner.hash())) return std::move(checks.result());
  }
  checks.finish(frames);
  return std::move(checks.result());
}

namespace {
std::string first_parts(const Replay& a, const Replay& b, std::uint64_t t) {
  std::vector<std::string> parts;
  const TickHash& x = a.hashes[t];
  const TickHash& y = b.hashes[t];
  if (x.total != y.total) parts.push_back("total");
  if (x.entities != y.entities) parts.push_back("entities");
  if (x.archetypes != y.archetypes) parts.push_back("archetypes");
  if (x.resources != y.resources) parts.push_back("resources");
  const auto ca = a.components_at(t);
  const auto cb = b.components_at(t);
  for (std::size_t c = 0; c < ca.size() && c < cb.size(); ++c)
    if (ca[c] != cb[c]) parts.push_back(a.header.components[c]);
  return join_parts(parts);
}
}  // namespace

RecordingComparison compare_recordings(const Replay& a, const std::string& pa, const Replay& b, const std::string& pb) {
  RecordingComparison out;
  const ReplayHeader& ha = a.header;
  const ReplayHeader& hb = b.header;
  if (ha.sim_name != hb.sim_name || ha.sim_version != hb.sim_version || ha.input_schema != hb.input_schema ||
      !(ha.config == hb.config)) {
    out.error = pb + ": not a recording of the same sim, version and config as " + pa;
    return out;
  }
  if (ha.components != hb.components) {
    out.error = pb + ": the recorded component lists differ from " + pa + " (" + join_parts(ha.components) + " vs " +
                join_parts(hb.components) + ")";
    return out;
  }
  const std::uint64_t frames = std::min(a.frame_count(), b.frame_count());
  for (std::uint64_t t = 0; t < frames; ++t) {
    const auto fa = a.frame(t);
    const auto fb = b.frame(t);
    if (!std::equal(fa.begin(), fa.end(), fb.begin(), fb.end())) {
      out.error = pb + ": tick " + std::to_string(t) + ": the input frame differs from " + pa +
                  " (the comparison needs two recordings of the same inputs)";
      return out;
    }
  }
  if (a.hashes.empty() || b.hashes.empty()) {
    out.error = (a.hashes.empty() ? pa : pb) + ": has no recorded hashes to compare";
    return out;
  }
  const std::uint64_t n = std::min(a.hashes.size(), b.hashes.size());
  out.ticks_compared = n;
  for (std::uint64_t t = 0; t < n; ++t) {
    std::string parts = first_parts(a, b, t);
    if (parts.empty()) continue;
    out.ok = false;
    out.tick = t;
    out.differs = std::move(parts);
    break;
  }
  return out;
}

}  // namespace lockstep::replay
