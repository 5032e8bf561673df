// viewer::Session (session.h): replays, bundles and snapshots as the page's JSON answers.
// Display code: nothing here feeds a simulation; the runner it drives is the same Runner
// every other tool uses, so its hashes are the CLI's hashes.
#include <lockstep/viewer/session.h>

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/replay_state.h>
#include <lockstep/inspect/state.h>
#include <lockstep/inspect/svg.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/query/view.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

namespace lockstep::viewer {

namespace {

std::string quoted(std::string_view s) {
  std::string o;
  inspect::append_json_string(o, s);
  return o;
}
std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "\"%016llx\"", static_cast<unsigned long long>(v));
  return buf;
}

// A hash breakdown with the component names of `state`.
std::string hash_json(const inspect::HashBreakdown& h, const inspect::State& names) {
  std::string o = "{\"tick\":" + std::to_string(h.tick) + ",\"total\":" + hex(h.total) + ",\"entities\":" + hex(h.entities) +
                  ",\"archetypes\":" + hex(h.archetypes) + ",\"resources\":" + hex(h.resources) + ",\"components\":[";
  for (std::size_t c = 0; c < h.components.size(); ++c) {
    if (c) o += ",";
    o += "{\"name\":" + quoted(c < names.components.size() ? names.components[c].name : "#" + std::to_string(c)) +
         ",\"hash\":" + hex(h.components[c]) + "}";
  }
  o += "]}";
  return o;
}

// One field of one component, resolved against a state's schema.
struct FieldRef {
  std::int32_t component = -1;
  std::int32_t field = -1;
  std::uint32_t element = 0;
  bool ok() const noexcept { return component >= 0; }
};

// A drawing hint (replay::DrawHint) resolved against one state: x and y are required to
// draw; `slot_y` is the legacy one-element position mark (the slot is the second axis).
struct Draw {
  FieldRef x, y, radius, team, label;
  bool slot_y = false;
  std::string position;  // what the page prints: "Position.p" or "Body.x, Body.y"
  std::string problem;   // why a declared hint could not be used (shown by the page)
  bool ok() const noexcept { return x.ok() && (y.ok() || slot_y); }
};

bool is_int(const inspect::Field& f) {
  return f.kind == FieldKind::UnsignedInt || f.kind == FieldKind::SignedInt;
}

// "Type.field" → the field, when the state has that component and field; else why not.
FieldRef find_field(const inspect::State& s, std::string_view spec, std::string& why) {
  const auto dot = spec.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == spec.size()) {
    why = "'" + std::string(spec) + "' is not Component.field";
    return {};
  }
  const std::int32_t c = s.component_id(spec.substr(0, dot));
  if (c < 0) {
    why = "no component " + std::string(spec.substr(0, dot));
    return {};
  }
  const inspect::Type& t = s.components[static_cast<std::size_t>(c)];
  for (std::size_t f = 0; f < t.fields.size(); ++f)
    if (t.fields[f].name == spec.substr(dot + 1)) return {c, static_cast<std::int32_t>(f), 0};
  why = "component " + t.name + " has no field " + std::string(spec.substr(dot + 1));
  return {};
}

// A hint as "key" → "Type.field" pairs (keys: position, x, y, radius, team, label).
using HintSpec = std::vector<std::pair<std::string, std::string>>;

HintSpec hint_spec(const replay::DrawHint& h) {
  HintSpec out;
  const std::pair<const char*, const char*> all[] = {{"position", h.position}, {"x", h.x},         {"y", h.y},
                                                     {"radius", h.radius},     {"team", h.team}, {"label", h.label}};
  for (const auto& [k, v] : all)
    if (v != nullptr && *v != '\0') out.emplace_back(k, v);
  return out;
}

// Resolves a declared hint; a field of the wrong kind or a missing one leaves the hint
// undrawable with the reason in `problem` (a display annotation never fails a load).
Draw resolve(const inspect::State& s, const HintSpec& spec) {
  Draw d;
  std::string why;
  const auto field_of = [&](const FieldRef& r) -> const inspect::Field& {
    return s.components[static_cast<std::size_t>(r.component)].fields[static_cast<std::size_t>(r.field)];
  };
  const auto fail = [&](const std::string& key, const std::string& value, const std::string& reason) {
    if (d.problem.empty()) d.problem = "draw hint " + key + " = " + value + ": " + reason;
  };
  for (const auto& [key, value] : spec) {
    FieldRef r = find_field(s, value, why);
    if (!r.ok()) {
      // Optional parts may name components a state (e.g. an early tick) does not have yet.
      if (key == "position" || key == "x" || key == "y") fail(key, value, why);
      continue;
    }
    const inspect::Field& f = field_of(r);
    if (key == "position") {
      if (f.kind != FieldKind::Fixed || f.count < 2 || f.count > 3) {
        fail(key, value, "expected a fixed-point field with 2 or 3 elements (vec2/vec3)");
        continue;
      }
      d.x = r;
      d.y = r;
      d.y.element = 1;
      d.position = value;
    } else if (key == "x" || key == "y" || key == "radius") {
      if (f.kind != FieldKind::Fixed || f.count != 1) {
        fail(key, value, "expected a scalar fixed-point field");
        continue;
      }
      (key == "x" ? d.x : key == "y" ? d.y : d.radius) = r;
    } else if (key == "team") {
      if (!is_int(f) || f.count != 1) {
        fail(key, value, "expected a scalar integer field");
        continue;
      }
      d.team = r;
    } else if (key == "label") {
      d.label = r;
    }
  }
  if (d.position.empty() && d.x.ok() && d.y.ok()) {
    const auto name = [&](const FieldRef& r) {
      return s.components[static_cast<std::size_t>(r.component)].name + "." + field_of(r).name;
    };
    d.position = name(d.x) + ", " + name(d.y);
  }
  if (!d.ok()) d = Draw{{}, {}, {}, {}, {}, false, {}, d.problem};
  return d;
}

// The legacy annotation (inspect::mark_position, bundles' "position" facts) with the colour
// taken from a field named owner, team or player — what the viewer did before DrawHint.
Draw legacy_draw(const inspect::State& s) {
  Draw d;
  for (std::size_t c = 0; c < s.components.size() && !d.ok(); ++c) {
    const inspect::Type& t = s.components[c];
    if (t.position_field < 0) continue;
    const inspect::Field& f = t.fields[static_cast<std::size_t>(t.position_field)];
    d.x = {static_cast<std::int32_t>(c), t.position_field, 0};
    if (f.count >= 2) d.y = {static_cast<std::int32_t>(c), t.position_field, 1};
    else d.slot_y = true;
    d.position = t.name + "." + f.name;
  }
  if (!d.ok()) return {};
  for (const char* want : {"owner", "team", "player"})
    for (std::size_t c = 0; c < s.components.size() && !d.team.ok(); ++c)
      for (std::size_t f = 0; f < s.components[c].fields.size(); ++f) {
        const inspect::Field& fd = s.components[c].fields[f];
        if (fd.name == want && fd.count == 1 && is_int(fd)) {
          d.team = {static_cast<std::int32_t>(c), static_cast<std::int32_t>(f), 0};
          break;
        }
      }
  return d;
}

// An integer field's value, sign-extended from its width.
std::int64_t int_value(const inspect::Field& f, const std::byte* v, std::uint32_t k) {
  const std::uint64_t bits = inspect::element_bits(f, v, k);
  if (f.kind != FieldKind::SignedInt || f.element_size >= 8) return static_cast<std::int64_t>(bits);
  const unsigned shift = 64u - 8u * f.element_size;
  return static_cast<std::int64_t>(bits << shift) >> shift;  // arithmetic shift: C++20 defines it
}

std::string side_json(const std::string& label, const inspect::State& s, const std::string& hash, const Draw& d) {
  std::string o = "{\"label\":" + quoted(label) + ",\"tick\":" + std::to_string(s.tick) + ",\"hash\":" + hash;
  o += ",\"position\":" + (d.ok() ? quoted(d.position) : std::string("null"));
  if (!d.problem.empty()) o += ",\"draw_problem\":" + quoted(d.problem);
  // Every live entity: [slot, generation, archetype, x_raw, y_raw, team] — x/y null where the
  // entity lacks the field (or nothing is drawn: the page lists); "radii" and "labels" run
  // alongside (null when the hint declares none).
  o += ",\"live\":" + std::to_string(s.live_entities()) + ",\"entities\":[";
  const auto loc = s.locate();
  const auto value = [&](const FieldRef& r, std::uint32_t slot) -> std::span<const std::byte> {
    if (!r.ok()) return {};
    return s.value(loc[slot].archetype, loc[slot].row, static_cast<std::uint32_t>(r.component));
  };
  const auto field = [&](const FieldRef& r) -> const inspect::Field& {
    return s.components[static_cast<std::size_t>(r.component)].fields[static_cast<std::size_t>(r.field)];
  };
  std::string radii = d.radius.ok() ? "[" : "null", labels = d.label.ok() ? "[" : "null";
  bool first = true;
  for (std::uint32_t slot = 0; slot < loc.size(); ++slot) {
    if (loc[slot].archetype == inspect::kNoArchetype) continue;
    std::string x = "null", y = "null", team = "-1", radius = "null", text = "null";
    if (d.ok()) {
      const auto xv = value(d.x, slot);
      const auto yv = d.slot_y ? xv : value(d.y, slot);
      if (!xv.empty() && !yv.empty()) {
        x = std::to_string(static_cast<std::int64_t>(inspect::element_bits(field(d.x), xv.data(), d.x.element)));
        y = d.slot_y ? std::to_string(static_cast<std::int64_t>(std::uint64_t{slot} << 16))
                     : std::to_string(static_cast<std::int64_t>(inspect::element_bits(field(d.y), yv.data(), d.y.element)));
      }
      if (const auto rv = value(d.radius, slot); !rv.empty())
        radius = std::to_string(static_cast<std::int64_t>(inspect::element_bits(field(d.radius), rv.data(), 0)));
      if (const auto lv = value(d.label, slot); !lv.empty()) text = quoted(inspect::field_text(field(d.label), lv.data()));
    }
    if (const auto tv = value(d.team, slot); !tv.empty()) team = std::to_string(int_value(field(d.team), tv.data(), 0));
    if (!first) {
      o += ",";
      if (d.radius.ok()) radii += ",";
      if (d.label.ok()) labels += ",";
    }
    first = false;
    o += "[" + std::to_string(slot) + "," + std::to_string(s.generations[slot]) + "," + std::to_string(loc[slot].archetype) +
         "," + x + "," + y + "," + team + "]";
    if (d.radius.ok()) radii += radius;
    if (d.label.ok()) labels += text;
  }
  if (d.radius.ok()) radii += "]";
  if (d.label.ok()) labels += "]";
  o += "],\"radii\":" + radii + ",\"labels\":" + labels + "}";
  return o;
}

// Slots of the entities a diff names (entity table, archetype moves, component fields) —
// the same rule `lockstep diff --svg` highlights by.
std::vector<std::uint32_t> diverged_slots(const inspect::StateDiff& d) {
  std::vector<std::uint32_t> out;
  for (const inspect::DiffEntry& e : d.entries)
    if (e.kind == inspect::DiffKind::Component || e.kind == inspect::DiffKind::Entity ||
        e.kind == inspect::DiffKind::Archetype)
      out.push_back(e.slot);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

struct Session::Impl {
  std::string error;
  std::string error_json(std::string_view message) {
    error = std::string(message);
    return "{\"ok\":false,\"error\":" + quoted(message) + "}";
  }
  enum class Kind { None, Replay, Bundle, Snapshot } kind = Kind::None;
  std::string name;
  // Replays.
  replay::Replay rec;
  const replay::Sim* sim = nullptr;
  std::unique_ptr<replay::Runner> runner;
  // What the current frame shows (one state, or a bundle's two sides).
  std::vector<inspect::State> states;
  std::vector<std::string> labels;
  std::vector<std::string> hashes;
  inspect::StateDiff diff;
  bool has_diff = false;
  inspect::Bundle bundle;
  // The drawing hint in use (key → "Type.field"); empty: the legacy position marks.
  HintSpec spec;
  std::string spec_source;
  std::uint64_t indexed = 0;  // checkpoints index() added in memory  // where it came from: "sim", "bundle", "sim <name>"

  Draw draw_for(const inspect::State& s) const {
    Draw d;
    if (!spec.empty()) d = resolve(s, spec);
    if (d.ok()) return d;
    Draw legacy = legacy_draw(s);
    if (legacy.problem.empty()) legacy.problem = d.problem;
    return legacy;
  }

  std::string spec_json() const {
    if (spec.empty()) return "null";
    std::string o = "{";
    for (std::size_t i = 0; i < spec.size(); ++i) o += (i ? "," : "") + quoted(spec[i].first) + ":" + quoted(spec[i].second);
    return o + ",\"from\":" + quoted(spec_source) + "}";
  }

  static std::uint32_t sim_tick_hz(const std::string& name) {
    const replay::Sim* s = replay::find_sim(name);
    return s != nullptr ? s->tick_hz() : 60;  // a sim this build does not know: the common rate
  }

  std::string info() const {
    std::string o = "{\"ok\":true,\"name\":" + quoted(name);
    if (kind == Kind::Replay) {
      const replay::ReplayHeader& h = rec.header;
      o += ",\"kind\":\"replay\",\"sim\":" + quoted(h.sim_name) + ",\"sim_version\":" + std::to_string(h.sim_version) +
           ",\"players\":" + std::to_string(h.config.players) + ",\"units\":" + std::to_string(h.config.units) +
           ",\"seed\":" + std::to_string(h.config.seed) + ",\"first_tick\":0,\"last_tick\":" +
           std::to_string(rec.frame_count()) + ",\"recorded_hashes\":" + std::to_string(rec.hashes.size()) +
           ",\"tick_hz\":" + std::to_string(sim != nullptr ? sim->tick_hz() : 60) + ",\"checkpoints\":[";
      for (std::size_t i = 0; i < rec.checkpoints.size(); ++i)
        o += (i ? "," : "") + std::to_string(rec.checkpoints[i].tick);
      o += "]";
    } else if (kind == Kind::Bundle) {
      // The states may be kept at a later tick than the first divergent one (netsim keeps
      // the peers' states where it noticed); the slider shows the states' tick.
      o += ",\"kind\":\"bundle\",\"sim\":" + quoted(bundle.sim_name) + ",\"source\":" + quoted(bundle.source) +
           ",\"divergent_tick\":" + std::to_string(bundle.tick) + ",\"first_tick\":" + std::to_string(states[0].tick) +
           ",\"last_tick\":" + std::to_string(states[0].tick) +
           ",\"tick_hz\":" + std::to_string(sim_tick_hz(bundle.sim_name)) + ",\"system\":" + quoted(bundle.system) + ",\"report\":" + quoted(bundle.report) +
           ",\"checkpoints\":[]";
    } else {
      o += ",\"kind\":\"snapshot\",\"first_tick\":" + std::to_string(states[0].tick) +
           ",\"last_tick\":" + std::to_string(states[0].tick) + ",\"tick_hz\":60,\"checkpoints\":[]";
    }
    o += ",\"draw\":" + spec_json() + "}";
    return o;
  }

  std::string frame() const {
    std::string o = "{\"ok\":true,\"kind\":";
    o += kind == Kind::Replay ? "\"replay\"" : kind == Kind::Bundle ? "\"bundle\"" : "\"snapshot\"";
    o += ",\"tick\":" + std::to_string(states.empty() ? 0 : states[0].tick) + ",\"sides\":[";
    for (std::size_t i = 0; i < states.size(); ++i) o += (i ? "," : "") + side_json(labels[i], states[i], hashes[i], draw_for(states[i]));
    o += "],\"diverged\":[";
    if (has_diff) {
      const auto slots = diverged_slots(diff);
      for (std::size_t i = 0; i < slots.size(); ++i) o += (i ? "," : "") + std::to_string(slots[i]);
      o += "],\"diff\":" + inspect::format_json(diff) + ",\"diff_text\":" + quoted(inspect::format_text(diff, labels[0], labels[1]));
    } else {
      o += "],\"diff\":null";
    }
    o += "}";
    return o;
  }

  std::string replay_frame() {
    const StateHash& h = runner->hash();
    inspect::State s = inspect::capture(runner->world().storage());
    inspect::apply_position_marks(s);
    std::string hash = hash_json(inspect::breakdown(h), s);
    // The recorded hash of this tick, when the replay has one: the page shows both.
    if (h.tick < rec.hashes.size() && rec.hashes[h.tick].tick == h.tick) {
      hash.pop_back();
      hash += ",\"recorded\":" + hex(rec.hashes[h.tick].total) + "}";
    }
    states.assign(1, std::move(s));
    labels.assign(1, name);
    hashes.assign(1, hash);
    has_diff = false;
    return frame();
  }
};

Session::Session() : impl_(std::make_unique<Impl>()) {}
Session::~Session() = default;

std::string Session::load(std::span<const std::byte> bytes, std::string_view name) {
  Impl& m = *impl_;
  m = Impl{};
  m.name = std::string(name);
  const auto starts_with = [&](const char (&magic)[8]) {
    return bytes.size() >= 8 && std::memcmp(bytes.data(), magic, 8) == 0;
  };
  if (inspect::looks_like_bundle(bytes)) {
    const FileStatus st = inspect::decode_bundle(bytes, m.bundle, name);
    if (!st.ok()) return m.error_json(st.message);
    std::vector<std::string> marks;
    for (const auto& [k, v] : m.bundle.facts)
      if (k == "position") marks.push_back(v);
    for (inspect::BundleSide& side : m.bundle.sides) {
      if (!side.has_state) continue;
      inspect::apply_position_marks(side.state, marks);
      m.hashes.push_back(hash_json(side.hash, side.state));
      m.labels.push_back(side.label);
      m.states.push_back(side.state);
    }
    if (m.states.empty()) return m.error_json(std::string(name) + ": the bundle holds no state (only hashes)");
    // The drawing hint: the bundle's own ("draw ..." facts, written from the sim's DrawHint),
    // else the hint of the sim of that name in this tool (bundles written before DrawHint).
    for (const auto& [k, v] : m.bundle.facts)
      if (k.rfind("draw ", 0) == 0) m.spec.emplace_back(k.substr(5), v);
    m.spec_source = "bundle";
    if (m.spec.empty())
      if (const replay::Sim* sim = replay::find_sim(m.bundle.sim_name)) {
        m.spec = hint_spec(sim->draw_hint());
        m.spec_source = "sim " + m.bundle.sim_name;
      }
    if (m.states.size() == 2) {
      inspect::DiffOptions o;
      o.limit = 1u << 20;  // every difference in detail: the page highlights all diverged entities
      m.has_diff = inspect::bundle_diff(m.bundle, m.diff, o);  // exactly `lockstep diff BUNDLE`'s walk
    }
    m.kind = Impl::Kind::Bundle;
    return m.info();
  }
  // A snapshot file: one format byte, then the magic (as `lockstep dump` sniffs it).
  if (bytes.size() >= 9 && std::memcmp(bytes.data() + 1, kSnapshotFileMagic, 8) == 0) {
    inspect::State s;
    const FileStatus st = inspect::decode_state(bytes, s, name);
    if (!st.ok()) return m.error_json(st.message);
    inspect::apply_position_marks(s);
    // A snapshot names no sim: the first sim of this tool whose hint fits the file's schema.
    for (const replay::Sim* sim : replay::registered_sims()) {
      const HintSpec spec = hint_spec(sim->draw_hint());
      if (!spec.empty() && resolve(s, spec).ok()) {
        m.spec = spec;
        m.spec_source = "sim " + std::string(sim->name());
        break;
      }
    }
    m.hashes.push_back("null");
    m.labels.push_back(m.name);
    m.states.push_back(std::move(s));
    m.kind = Impl::Kind::Snapshot;
    return m.info();
  }
  replay::ReplayStatus rs;
  if (replay::looks_like_json(bytes))
    rs = replay::decode_replay_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), m.rec, name);
  else if (starts_with(replay::kReplayMagic))
    rs = replay::decode_replay(bytes, m.rec, name);
  else
    return m.error_json(std::string(name) +
                      ": byte 0: expected a replay (LSREPLAY or JSON), a desync bundle (LSBUNDLE) or a snapshot file "
                      "(LSSNAP)");
  if (!rs.ok()) return m.error_json(rs.message);
  m.sim = replay::find_sim(m.rec.header.sim_name);
  if (m.sim == nullptr)
    return m.error_json(std::string(name) + ": sim '" + m.rec.header.sim_name +
                      "' is not built into this viewer (it has the fixtures' sims)");
  const replay::ReplayStatus cs = replay::check_replay_sim(m.rec, *m.sim, name);
  if (!cs.ok()) return m.error_json(cs.message);
  m.runner = std::make_unique<replay::Runner>(*m.sim, m.rec.header.config);
  if (!m.runner->status().ok())
    return m.error_json(std::string(name) + ": cannot build the sim: " + m.runner->status().message());
  m.spec = hint_spec(m.sim->draw_hint());
  m.spec_source = "sim";
  m.kind = Impl::Kind::Replay;
  return m.info();
}

std::string Session::seek(std::uint64_t tick) {
  Impl& m = *impl_;
  switch (m.kind) {
    case Impl::Kind::None: return m.error_json("nothing loaded");
    case Impl::Kind::Bundle:
    case Impl::Kind::Snapshot: return m.frame();
    case Impl::Kind::Replay: break;
  }
  if (tick > m.rec.frame_count())
    return m.error_json(m.name + ": tick " + std::to_string(tick) + ": expected 0.." + std::to_string(m.rec.frame_count()));
  // Backwards without a checkpoint on the way: start again from tick 0 (advance_to only
  // moves forward; it loads the nearest checkpoint at or before `tick` itself).
  if (m.runner->tick() > tick) {
    m.runner = std::make_unique<replay::Runner>(*m.sim, m.rec.header.config);
    if (!m.runner->status().ok()) return m.error_json(m.name + ": cannot build the sim: " + m.runner->status().message());
  }
  const FileStatus st = inspect::advance_to(*m.runner, m.rec, tick, m.name);
  if (!st.ok()) return m.error_json(st.message);
  m.error.clear();
  return m.replay_frame();
}

const std::string& Session::error() const noexcept { return impl_->error; }

std::string Session::index(std::uint64_t max_bytes) {
  Impl& m = *impl_;
  if (m.kind != Impl::Kind::Replay) return "";
  // A sim with views is indexed too: encode_world_snapshot carries its view state (format 2), so
  // advance_to resumes it from these checkpoints exactly.
  const std::uint64_t last = m.rec.frame_count();
  m.runner = std::make_unique<replay::Runner>(*m.sim, m.rec.header.config);
  if (!m.runner->status().ok()) return m.name + ": cannot build the sim: " + m.runner->status().message();
  // The interval from the size of the first snapshot: at most max_bytes of them in all, at
  // least every 16 ticks apart (closer saves less than it costs).
  std::vector<std::byte> bytes;
  if (const FileStatus fs = encode_world_snapshot(m.runner->world(), bytes); !fs.ok()) return fs.message;
  const std::uint64_t count = std::max<std::uint64_t>(1, max_bytes / std::max<std::size_t>(bytes.size() * 2, 1));
  const std::uint64_t interval = std::max<std::uint64_t>(16, (last + count - 1) / count);
  std::vector<replay::Checkpoint> added;
  std::uint64_t used = 0;
  for (std::uint64_t t = interval; t <= last; t += interval) {
    if (const FileStatus st = inspect::advance_to(*m.runner, m.rec, t, m.name); !st.ok()) return st.message;
    replay::Checkpoint cp;
    cp.tick = t;
    if (const FileStatus fs = encode_world_snapshot(m.runner->world(), cp.snapshot); !fs.ok()) return fs.message;
    used += cp.snapshot.size();
    if (used > max_bytes) break;  // the world grew: keep what fits
    added.push_back(std::move(cp));
  }
  // Merged with the file's own checkpoints, in tick order (advance_to takes the last one at
  // or before the tick it is asked for).
  for (replay::Checkpoint& cp : added) m.rec.checkpoints.push_back(std::move(cp));
  std::stable_sort(m.rec.checkpoints.begin(), m.rec.checkpoints.end(),
                   [](const replay::Checkpoint& a, const replay::Checkpoint& b) { return a.tick < b.tick; });
  m.indexed = added.size();
  return "";
}

std::string Session::details() const {
  const Impl& m = *impl_;
  if (m.states.empty()) return "{\"ok\":false,\"error\":\"nothing loaded\"}";
  // Field names once per archetype and side (a replay's archetype ids are stable: created in a
  // deterministic order, never reused; the two sides of a bundle may disagree on them), then
  // every live entity's printed values.
  std::string o = "{\"ok\":true,\"tick\":" + std::to_string(m.states[0].tick) + ",\"schema\":[";
  for (std::size_t side = 0; side < m.states.size(); ++side) {
    const inspect::State& s = m.states[side];
    o += side ? ",{" : "{";
    for (std::uint32_t a = 0; a < s.archetypes.size(); ++a) {
      o += (a ? ",\"" : "\"") + std::to_string(a) + "\":[";
      const inspect::Archetype& arch = s.archetypes[a];
      for (std::size_t i = 0; i < arch.components.size(); ++i) {
        const inspect::Type& t = s.components[arch.components[i]];
        o += (i ? "," : "") + std::string("[") + quoted(t.name) + ",[";
        for (std::size_t f = 0; f < t.fields.size(); ++f) o += (f ? "," : "") + quoted(t.fields[f].name);
        o += "]]";
      }
      o += "]";
    }
    o += "}";
  }
  o += "],\"sides\":[";
  for (std::size_t side = 0; side < m.states.size(); ++side) {
    const inspect::State& s = m.states[side];
    const auto loc = s.locate();
    o += side ? ",[" : "[";
    bool firste = true;
    for (std::uint32_t slot = 0; slot < loc.size(); ++slot) {
      if (loc[slot].archetype == inspect::kNoArchetype) continue;
      o += firste ? "[" : ",[";
      firste = false;
      const inspect::Archetype& arch = s.archetypes[loc[slot].archetype];
      bool firstv = true;
      for (const std::uint32_t c : arch.components) {
        const auto v = s.value(loc[slot].archetype, loc[slot].row, c);
        for (const inspect::Field& fd : s.components[c].fields) {
          o += firstv ? "" : ",";
          firstv = false;
          o += quoted(v.empty() ? std::string() : inspect::field_text(fd, v.data()));
        }
      }
      o += "]";
    }
    o += "]";
  }
  o += "]}";
  return o;
}

std::string Session::entity(std::uint32_t side, std::uint32_t slot) const {
  const Impl& m = *impl_;
  const auto error_json = [](const std::string& message) { return "{\"ok\":false,\"error\":" + quoted(message) + "}"; };
  if (side >= m.states.size()) return error_json("no side " + std::to_string(side));
  const inspect::State& s = m.states[side];
  const auto loc = s.locate();
  if (slot >= loc.size() || loc[slot].archetype == inspect::kNoArchetype)
    return error_json("slot " + std::to_string(slot) + " is not a live entity at tick " + std::to_string(s.tick));
  const inspect::Archetype& a = s.archetypes[loc[slot].archetype];
  std::string o = "{\"ok\":true,\"side\":" + std::to_string(side) + ",\"slot\":" + std::to_string(slot) +
                  ",\"generation\":" + std::to_string(s.generations[slot]) + ",\"archetype\":" +
                  std::to_string(loc[slot].archetype) + ",\"components\":[";
  for (std::size_t i = 0; i < a.components.size(); ++i) {
    const std::uint32_t c = a.components[i];
    const inspect::Type& t = s.components[c];
    const auto v = s.value(loc[slot].archetype, loc[slot].row, c);
    o += (i ? "," : "") + std::string("{\"name\":") + quoted(t.name) + ",\"fields\":[";
    for (std::size_t f = 0; f < t.fields.size(); ++f) {
      const inspect::Field& fd = t.fields[f];
      bool differs = false;
      if (m.has_diff)
        for (const inspect::DiffEntry& e : m.diff.entries)
          if (e.kind == inspect::DiffKind::Component && e.slot == slot && e.part == t.name && e.field == fd.name)
            differs = true;
      std::string value = v.empty() ? std::string() : inspect::field_text(fd, v.data());
      o += (f ? "," : "") + std::string("{\"name\":") + quoted(fd.name) + ",\"value\":" + quoted(value) +
           ",\"differs\":" + (differs ? "true" : "false") + "}";
    }
    o += "]}";
  }
  o += "]}";
  return o;
}

}  // namespace lockstep::viewer
