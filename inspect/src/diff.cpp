// Field-level state diff (diff.h).
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/dump.h>

#include <algorithm>
#include <cstring>

namespace lockstep::inspect {

const char* to_string(DiffKind k) noexcept {
  switch (k) {
    case DiffKind::Tick: return "tick";
    case DiffKind::Schema: return "schema";
    case DiffKind::Entity: return "entity";
    case DiffKind::FreeList: return "free-list";
    case DiffKind::Archetype: return "archetype";
    case DiffKind::Component: return "component";
    case DiffKind::Resource: return "resource";
  }
  return "?";
}

std::string DiffEntry::where() const {
  const std::string ent = std::to_string(slot) + ":" + std::to_string(generation);
  std::string idx = index >= 0 ? "[" + std::to_string(index) + "]" : std::string();
  switch (kind) {
    case DiffKind::Tick: return "tick";
    case DiffKind::Schema: return "schema " + part;
    case DiffKind::Entity: return "entity slot " + std::to_string(slot);
    case DiffKind::FreeList: return "free list";
    case DiffKind::Archetype: return part.empty() ? "entity " + ent + " archetype" : "archetype " + part;
    case DiffKind::Component: return part + "[" + ent + "]." + field + idx;
    case DiffKind::Resource: return part + "." + field + idx;
  }
  return "?";
}

namespace {

class Walker {
 public:
  Walker(const DiffOptions& o, StateDiff& d) : opt_(o), d_(d) {}

  void add(DiffEntry e) {
    ++d_.total;
    const std::string key = (e.kind == DiffKind::Component || e.kind == DiffKind::Resource || e.kind == DiffKind::Schema)
                                ? e.part
                                : std::string(to_string(e.kind));
    std::size_t pi = d_.parts.size();
    for (std::size_t i = 0; i < d_.parts.size(); ++i)
      if (d_.parts[i].kind == e.kind && d_.parts[i].part == key) pi = i;
    if (pi == d_.parts.size()) d_.parts.push_back(PartCount{e.kind, key, 0, 0});
    PartCount& pc = d_.parts[pi];
    ++pc.differences;
    if (e.kind == DiffKind::Component) {
      // Components are walked entity by entity inside one component, so a new entity is a
      // change of slot (or of part).
      const std::uint64_t id = (std::uint64_t{e.generation} << 32) | e.slot;
      if (pi != last_part_ || id != last_entity_) ++pc.entities;
      last_entity_ = id;
    }
    last_part_ = pi;
    if (d_.entries.size() < opt_.limit) d_.entries.push_back(std::move(e));
  }
  // Counting only (beyond the limit nothing is formatted).
  bool detail() const noexcept { return d_.entries.size() < opt_.limit; }

  // Field-by-field comparison of one value of type t.
  void values(DiffKind kind, const Type& t, const std::byte* a, const std::byte* b, std::uint32_t slot,
              std::uint32_t gen) {
    if (std::memcmp(a, b, t.size) == 0) return;
    for (const Field& f : t.fields) {
      if (std::memcmp(a + f.offset, b + f.offset, f.size()) == 0) continue;
      const std::uint32_t n = f.units();
      const std::uint32_t ubytes = f.element_size * f.unit();
      // Single values and fixed vectors (vec2, vec3) are reported whole; arrays per element.
      const bool whole = n == 1 || (f.kind == FieldKind::Fixed && n <= 3);
      if (whole) {
        DiffEntry e{kind, t.name, slot, gen, f.name, -1, {}, {}};
        if (detail()) {
          e.a = field_text(f, a);
          e.b = field_text(f, b);
        }
        add(std::move(e));
        continue;
      }
      for (std::uint32_t u = 0; u < n; ++u) {
        const std::size_t off = f.offset + std::size_t{u} * ubytes;
        if (std::memcmp(a + off, b + off, ubytes) == 0) continue;
        DiffEntry e{kind, t.name, slot, gen, f.name, static_cast<std::int64_t>(u), {}, {}};
        if (detail()) {
          append_unit(e.a, f, a, u);
          append_unit(e.b, f, b, u);
        }
        add(std::move(e));
      }
    }
  }

 private:
  const DiffOptions& opt_;
  StateDiff& d_;
  std::size_t last_part_ = ~std::size_t{0};
  std::uint64_t last_entity_ = ~std::uint64_t{0};
};

std::string ent_text(const State& s, std::uint32_t slot) {
  if (slot >= s.slot_count()) return "never used";
  return s.alive[slot] != 0 ? "live " + std::to_string(slot) + ":" + std::to_string(s.generations[slot])
                            : "free (generation " + std::to_string(s.generations[slot]) + ")";
}

std::string names(const State& s, const std::vector<std::uint32_t>& ids) {
  std::string o = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i != 0) o += ", ";
    o += ids[i] < s.components.size() ? s.components[ids[i]].name : "#" + std::to_string(ids[i]);
  }
  return o + "}";
}

std::vector<std::string> name_set(const State& s, const std::vector<std::uint32_t>& ids) {
  std::vector<std::string> v;
  for (std::uint32_t c : ids) v.push_back(c < s.components.size() ? s.components[c].name : "");
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

StateDiff diff(const State& a, const State& b, const DiffOptions& options) {
  StateDiff d;
  d.tick_a = a.tick;
  d.tick_b = b.tick;
  Walker w(options, d);
  if (a.tick != b.tick) w.add({DiffKind::Tick, "", 0, 0, "", -1, std::to_string(a.tick), std::to_string(b.tick)});

  // Schema: types matched by name; a type compared only when both sides lay it out alike.
  std::vector<std::int32_t> comp_map(a.components.size(), -1), res_map(a.resources.size(), -1);
  auto schema = [&](const std::vector<Type>& ta, const std::vector<Type>& tb, std::vector<std::int32_t>& map,
                    const char* what) {
    for (std::size_t i = 0; i < ta.size(); ++i) {
      std::int32_t j = -1;
      for (std::size_t k = 0; k < tb.size(); ++k)
        if (tb[k].name == ta[i].name) j = static_cast<std::int32_t>(k);
      if (j < 0) {
        w.add({DiffKind::Schema, ta[i].name, 0, 0, "", -1, std::string(what) + " present", "absent"});
      } else if (!ta[i].same_layout(tb[static_cast<std::size_t>(j)])) {
        w.add({DiffKind::Schema, ta[i].name, 0, 0, "", -1, std::to_string(ta[i].size) + " bytes, " +
                   std::to_string(ta[i].fields.size()) + " fields",
               std::to_string(tb[static_cast<std::size_t>(j)].size) + " bytes, " +
                   std::to_string(tb[static_cast<std::size_t>(j)].fields.size()) + " fields (other layout)"});
      } else {
        map[i] = j;
      }
    }
    for (const Type& t : tb) {
      bool found = false;
      for (const Type& u : ta) found = found || u.name == t.name;
      if (!found) w.add({DiffKind::Schema, t.name, 0, 0, "", -1, "absent", std::string(what) + " present"});
    }
  };
  schema(a.components, b.components, comp_map, "component");
  schema(a.resources, b.resources, res_map, "resource");

  // Entity table (one-sided entities) and free list.
  const std::uint32_t slots = std::max(a.slot_count(), b.slot_count());
  for (std::uint32_t s = 0; s < slots; ++s) {
    const bool la = s < a.slot_count() && a.alive[s] != 0;
    const bool lb = s < b.slot_count() && b.alive[s] != 0;
    const std::uint32_t ga = s < a.slot_count() ? a.generations[s] : 0;
    const std::uint32_t gb = s < b.slot_count() ? b.generations[s] : 0;
    if (la == lb && ga == gb && (s < a.slot_count()) == (s < b.slot_count())) continue;
    w.add({DiffKind::Entity, "", s, la ? ga : gb, "", -1, ent_text(a, s), ent_text(b, s)});
  }
  if (a.free_slots != b.free_slots) {
    auto list = [](const std::vector<std::uint32_t>& v) {
      std::string o;
      for (std::size_t i = 0; i < v.size() && i < 16; ++i) o += (i ? " " : "") + std::to_string(v[i]);
      if (v.size() > 16) o += " ... (" + std::to_string(v.size()) + ")";
      return o.empty() ? std::string("(empty)") : o;
    };
    w.add({DiffKind::FreeList, "", 0, 0, "", -1, list(a.free_slots), list(b.free_slots)});
  }
  // Archetype structure: the component set of each archetype id (by names).
  const std::size_t na = std::max(a.archetypes.size(), b.archetypes.size());
  for (std::size_t i = 0; i < na; ++i) {
    const bool ha = i < a.archetypes.size(), hb = i < b.archetypes.size();
    if (ha && hb && name_set(a, a.archetypes[i].components) == name_set(b, b.archetypes[i].components)) continue;
    w.add({DiffKind::Archetype, std::to_string(i), 0, 0, "", -1, ha ? names(a, a.archetypes[i].components) : "absent",
           hb ? names(b, b.archetypes[i].components) : "absent"});
  }

  // Components, component-major: for each component, every entity live on both sides with
  // the same generation that holds it on both sides.
  const auto loc_a = a.locate();
  const auto loc_b = b.locate();
  const std::uint32_t common = std::min(a.slot_count(), b.slot_count());
  // Component sets by name, once per archetype (entities are compared by these).
  std::vector<std::vector<std::string>> sets_a, sets_b;
  for (const Archetype& arch : a.archetypes) sets_a.push_back(name_set(a, arch.components));
  for (const Archetype& arch : b.archetypes) sets_b.push_back(name_set(b, arch.components));
  for (std::uint32_t s = 0; s < common; ++s) {
    if (loc_a[s].archetype == kNoArchetype || loc_b[s].archetype == kNoArchetype) continue;
    if (a.generations[s] != b.generations[s]) continue;
    if (sets_a[loc_a[s].archetype] != sets_b[loc_b[s].archetype])
      w.add({DiffKind::Archetype, "", s, a.generations[s], "", -1, names(a, a.archetypes[loc_a[s].archetype].components),
             names(b, b.archetypes[loc_b[s].archetype].components)});
  }
  for (std::uint32_t c = 0; c < a.components.size(); ++c) {
    if (comp_map[c] < 0) continue;
    const auto cb = static_cast<std::uint32_t>(comp_map[c]);
    const Type& t = a.components[c];
    for (std::uint32_t s = 0; s < common; ++s) {
      const auto& la = loc_a[s];
      const auto& lb = loc_b[s];
      if (la.archetype == kNoArchetype || lb.archetype == kNoArchetype || a.generations[s] != b.generations[s]) continue;
      const auto va = a.value(la.archetype, la.row, c);
      const auto vb = b.value(lb.archetype, lb.row, cb);
      if (va.empty() || vb.empty()) continue;
      w.values(DiffKind::Component, t, va.data(), vb.data(), s, a.generations[s]);
    }
  }
  for (std::uint32_t r = 0; r < a.resources.size(); ++r) {
    if (res_map[r] < 0) continue;
    w.values(DiffKind::Resource, a.resources[r], a.resource_values[r].data(),
             b.resource_values[static_cast<std::size_t>(res_map[r])].data(), 0, 0);
  }
  return d;
}

namespace {
std::string plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
}  // namespace

std::string format_text(const StateDiff& d, const std::string& la, const std::string& lb) {
  std::string o = (la.empty() ? std::string() : la + " ") + "tick " + std::to_string(d.tick_a) + " | " +
                  (lb.empty() ? std::string() : lb + " ") + "tick " + std::to_string(d.tick_b) + "\n";
  if (d.equal()) return o + "equal: no field differs\n";
  o += "differs:";
  for (std::size_t i = 0; i < d.parts.size(); ++i) {
    const PartCount& p = d.parts[i];
    o += i == 0 ? " " : ", ";
    o += p.part + " (" + plural(p.differences, "difference", "differences");
    if (p.kind == DiffKind::Component) o += ", " + plural(p.entities, "entity", "entities");
    o += ")";
  }
  o += "\n";
  for (const DiffEntry& e : d.entries) o += "  " + e.where() + ": " + e.a + " | " + e.b + "\n";
  if (d.truncated())
    o += "(" + std::to_string(d.total) + " differences; the first " + std::to_string(d.entries.size()) + " shown)\n";
  else
    o += "(" + plural(d.total, "difference", "differences") + "; all shown)\n";
  return o;
}

std::string format_json(const StateDiff& d) {
  std::string o = "{\"equal\":";
  o += d.equal() ? "true" : "false";
  o += ",\"tick_a\":" + std::to_string(d.tick_a) + ",\"tick_b\":" + std::to_string(d.tick_b) +
       ",\"total\":" + std::to_string(d.total) + ",\"truncated\":" + (d.truncated() ? "true" : "false") + ",\"parts\":[";
  for (std::size_t i = 0; i < d.parts.size(); ++i) {
    const PartCount& p = d.parts[i];
    if (i != 0) o += ",";
    o += "{\"kind\":\"" + std::string(to_string(p.kind)) + "\",\"part\":";
    append_json_string(o, p.part);
    o += ",\"differences\":" + std::to_string(p.differences) + ",\"entities\":" + std::to_string(p.entities) + "}";
  }
  o += "],\"entries\":[";
  for (std::size_t i = 0; i < d.entries.size(); ++i) {
    const DiffEntry& e = d.entries[i];
    if (i != 0) o += ",";
    o += "{\"kind\":\"" + std::string(to_string(e.kind)) + "\",\"where\":";
    append_json_string(o, e.where());
    o += ",\"part\":";
    append_json_string(o, e.part);
    o += ",\"slot\":" + std::to_string(e.slot) + ",\"generation\":" + std::to_string(e.generation) + ",\"field\":";
    append_json_string(o, e.field);
    o += ",\"index\":" + std::to_string(e.index) + ",\"a\":";
    append_json_string(o, e.a);
    o += ",\"b\":";
    append_json_string(o, e.b);
    o += "}";
  }
  return o + "]}";
}

std::string summary(const StateDiff& d) {
  std::string o = "tick " + std::to_string(d.tick_a);
  if (d.tick_a != d.tick_b) o += " | " + std::to_string(d.tick_b);
  if (d.equal()) return o + ": equal";
  const DiffEntry& e = *d.first();
  o += ": " + e.where() + " " + e.a + " | " + e.b;
  if (d.total > 1) o += " (+" + std::to_string(d.total - 1) + " more)";
  return o;
}

}  // namespace lockstep::inspect
