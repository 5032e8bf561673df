// Desync forensics of the gates (forensics.h): in the library, not the CLI, so a game's own
// tool and tests get the field-level answers and bundles `lockstep` prints.
#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/forensics.h>

#include <algorithm>
#include <utility>

namespace lockstep::inspect {

std::optional<State> checkpoint_state(const replay::Replay& r, std::uint64_t tick, const std::string& name) {
  for (const replay::Checkpoint& cp : r.checkpoints) {
    if (cp.tick != tick) continue;
    State s;
    if (decode_state(cp.snapshot, s, name + " checkpoint").ok()) return s;
  }
  return std::nullopt;
}

HashBreakdown recorded_breakdown(const replay::Replay& r, std::uint64_t tick) {
  HashBreakdown h;
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

std::optional<StateDiff> verify_field_diff(const replay::Replay& r, std::uint64_t tick, const std::string& name,
                                           const replay::Runner& runner) {
  if (auto expected = checkpoint_state(r, tick, name)) return diff(*expected, capture(runner.world().storage()));
  return std::nullopt;
}

namespace {
void add_inputs(Bundle& b, const replay::Replay& r, std::uint64_t to) {
  b.frame_bytes = r.header.frame_bytes();
  for (std::uint64_t t = b.inputs_from; t < to && t < r.frame_count(); ++t) {
    const auto f = r.frame(t);
    b.inputs.insert(b.inputs.end(), f.begin(), f.end());
  }
}
}  // namespace

Bundle verify_bundle(const replay::Sim& sim, const replay::Replay& r, const std::string& name,
                     const replay::Runner& runner, const Snapshot* prev, std::uint64_t tick, const std::string& report) {
  Bundle b;
  b.source = "verify";
  set_sim(b, sim, r.header.config);
  b.tick = tick;
  b.report = report;
  BundleSide mine{"this build", true, capture(runner.world().storage()), breakdown(runner.hash())};
  b.facts = build_facts(&sim, &mine.state);
  BundleSide rec{"recording " + name, false, {}, recorded_breakdown(r, tick)};
  if (auto s = checkpoint_state(r, tick, name)) {
    rec.has_state = true;
    rec.state = std::move(*s);
  }
  // Recording first: the diff reads "expected | got".
  b.sides.push_back(std::move(rec));
  b.sides.push_back(std::move(mine));
  if (prev != nullptr && !prev->empty()) {
    b.has_agreeing = true;
    b.agreeing = capture(prev->view());
    b.inputs_from = b.agreeing.tick;
    add_inputs(b, r, tick);
  }
  return b;
}

AgainstForensics against_forensics(const replay::Replay& a, const std::string& pa, const replay::Replay& b,
                                   const std::string& pb, const replay::RecordingComparison& c) {
  AgainstForensics f;
  f.report = "first divergent tick " + std::to_string(c.tick) + ": differs: " + c.differs;
  f.a = checkpoint_state(a, c.tick, pa);
  f.b = checkpoint_state(b, c.tick, pb);
  if (f.a && f.b) {
    f.diff = diff(*f.a, *f.b);
    f.report += "; " + summary(*f.diff);
  }
  return f;
}

Bundle against_bundle(const replay::Sim& sim, const replay::Replay& a, const std::string& pa, const replay::Replay& b,
                      const std::string& pb, const replay::RecordingComparison& c, const AgainstForensics& f) {
  Bundle bu;
  bu.source = "verify-against";
  set_sim(bu, sim, a.header.config);
  bu.tick = c.tick;
  bu.report = "DESYNC " + f.report;
  bu.facts = build_facts(&sim, f.a ? &*f.a : nullptr);
  bu.sides.push_back({"A " + pa, f.a.has_value(), f.a ? *f.a : State{}, recorded_breakdown(a, c.tick)});
  bu.sides.push_back({"B " + pb, f.b.has_value(), f.b ? *f.b : State{}, recorded_breakdown(b, c.tick)});
  // The last checkpoint both recordings agree on (any before the tick) and the inputs after it.
  for (const replay::Checkpoint& cp : a.checkpoints) {
    if (cp.tick >= c.tick) break;
    State s;
    if (decode_state(cp.snapshot, s, pa).ok()) {
      bu.has_agreeing = true;
      bu.agreeing = std::move(s);
    }
  }
  bu.inputs_from = bu.has_agreeing ? bu.agreeing.tick : 0;
  add_inputs(bu, a, std::min(c.tick, b.frame_count()));
  return bu;
}

Bundle synctest_bundle(const replay::Sim& sim, const replay::SimConfig& config, const SystemSyncResult& r,
                       const std::string& report, const std::string& source) {
  Bundle b;
  b.source = source;
  set_sim(b, sim, config);
  b.tick = r.tick;
  b.system = r.system;
  b.report = report;
  b.facts = build_facts(&sim, &r.first);
  b.sides.push_back({"first simulation", true, r.first, breakdown(r.first_hash)});
  b.sides.push_back({"resimulation", true, r.again, breakdown(r.again_hash)});
  b.has_agreeing = true;
  b.agreeing = r.before;
  b.inputs_from = r.before.tick;
  b.frame_bytes = static_cast<std::uint32_t>(r.frame.size());
  b.inputs = r.frame;
  return b;
}

void verify_by_system(replay::Runner& runner, const replay::Replay& r, replay::VerifyChecks& checks,
                      SystemSyncResult& by_system) {
  by_system = SystemSyncResult{};
  if (!checks.usable() || !checks.check(0, runner.hash())) return;
  const TypeDescriptor& input = runner.sim().input_type();
  by_system = synctest_by_system(
      runner, r.frame_count(),
      [&](std::uint64_t t, const World&, std::span<std::byte> frame) {
        replay::Runner::copy_to_host(input, r.frame(t), frame);
      },
      {}, [&](std::uint64_t tick, const World&) { return checks.check(tick, runner.hash()); });
  if (!by_system.status.ok()) {
    checks.result().error = checks.options().replay_name + ": tick " + std::to_string(runner.tick()) +
                            ": the sim rejected the step: " + by_system.status.message();
    return;
  }
  if (by_system.ok && checks.result().ok && !checks.result().bad_input()) checks.finish(r.frame_count());
}

}  // namespace lockstep::inspect
