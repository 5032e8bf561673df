// State dumps (dump.h).
#include <lockstep/inspect/dump.h>

#include <algorithm>

#include <charconv>

namespace lockstep::inspect {

bool parse_entity(std::string_view t, std::uint32_t& slot, std::uint32_t& gen, bool& has_gen) {
  const auto colon = t.find(':');
  const std::string_view a = t.substr(0, colon);
  if (a.empty()) return false;
  auto r = std::from_chars(a.data(), a.data() + a.size(), slot);
  if (r.ec != std::errc{} || r.ptr != a.data() + a.size()) return false;
  has_gen = colon != std::string_view::npos;
  gen = 0;
  if (!has_gen) return true;
  const std::string_view b = t.substr(colon + 1);
  if (b.empty()) return false;
  r = std::from_chars(b.data(), b.data() + b.size(), gen);
  return r.ec == std::errc{} && r.ptr == b.data() + b.size();
}

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static const char* hex = "0123456789abcdef";
          out += "\\u00";
          out.push_back(hex[(c >> 4) & 0xF]);
          out.push_back(hex[c & 0xF]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

namespace {

struct Matcher {
  const State& s;
  const DumpFilter& f;
  struct Ent {
    std::uint32_t slot, gen;
    bool has_gen;
  };
  std::vector<Ent> ents;
  bool bad_entity = false;

  Matcher(const State& st, const DumpFilter& fl) : s(st), f(fl) {
    for (const std::string& e : f.entities) {
      Ent x{};
      if (parse_entity(e, x.slot, x.gen, x.has_gen)) ents.push_back(x);
    }
  }
  bool type(const std::string& name) const {
    if (f.types.empty()) return true;
    for (const auto& t : f.types)
      if (t == name) return true;
    return false;
  }
  bool entity(std::uint32_t slot, std::uint32_t gen) const {
    if (f.where && !std::binary_search(f.where_slots.begin(), f.where_slots.end(), slot)) return false;
    if (f.entities.empty()) return true;
    for (const Ent& e : ents)
      if (e.slot == slot && (!e.has_gen || e.gen == gen)) return true;
    return false;
  }
  bool field(const std::string& type_name, const std::string& field_name) const {
    if (f.fields.empty()) return true;
    for (const auto& x : f.fields) {
      if (x == field_name) return true;
      if (x.size() == type_name.size() + 1 + field_name.size() && x.compare(0, type_name.size(), type_name) == 0 &&
          x[type_name.size()] == '.' && x.compare(type_name.size() + 1, std::string::npos, field_name) == 0)
        return true;
    }
    return false;
  }
  bool any_field(const Type& t) const {
    for (const Field& fd : t.fields)
      if (field(t.name, fd.name)) return true;
    return false;
  }
  bool resource(const Type& t) const {
    if (!f.resources) return false;
    if ((!f.entities.empty() || f.where) && f.types.empty()) return false;
    return type(t.name) && any_field(t);
  }
};

void append_num(std::string& out, std::uint64_t v) { out += std::to_string(v); }

// JSON value of one unit: fixed as a string (exact), Entity as "slot:gen", bool, number.
void append_json_unit(std::string& out, const Field& f, const std::byte* v, std::uint32_t u) {
  if (f.kind == FieldKind::Fixed || f.kind == FieldKind::Entity) {
    out.push_back('"');
    append_unit(out, f, v, u);
    out.push_back('"');
  } else {
    append_unit(out, f, v, u);
  }
}
void append_json_field(std::string& out, const Field& f, const std::byte* v) {
  const std::uint32_t n = f.units();
  if (n == 1) return append_json_unit(out, f, v, 0);
  out.push_back('[');
  for (std::uint32_t u = 0; u < n; ++u) {
    if (u != 0) out.push_back(',');
    append_json_unit(out, f, v, u);
  }
  out.push_back(']');
}
void append_json_value(std::string& out, const Matcher& m, const Type& t, const std::byte* v) {
  out.push_back('{');
  bool first = true;
  for (const Field& f : t.fields) {
    if (!m.field(t.name, f.name)) continue;
    if (!first) out.push_back(',');
    first = false;
    append_json_string(out, f.name);
    out.push_back(':');
    append_json_field(out, f, v);
  }
  out.push_back('}');
}

}  // namespace

std::string dump_text(const State& s, const DumpFilter& filter) {
  const Matcher m(s, filter);
  std::string out;
  out.reserve(1 << 16);
  out += "tick ";
  append_num(out, s.tick);
  out += "\nentities ";
  append_num(out, s.live_entities());
  out += " live, ";
  append_num(out, s.slot_count());
  out += " slots; free (reuse order):";
  for (std::uint32_t f : s.free_slots) {
    out.push_back(' ');
    append_num(out, f);
  }
  out.push_back('\n');
  for (std::uint32_t a = 0; a < s.archetypes.size(); ++a) {
    out += "archetype ";
    append_num(out, a);
    out += ":";
    for (std::uint32_t c : s.archetypes[a].components) {
      out.push_back(' ');
      out += s.components[c].name;
    }
    out += " (";
    append_num(out, s.archetypes[a].slots.size());
    out += " rows)\n";
  }
  // Entities in slot order (an entity's identity), each with its archetype's components.
  const auto loc = s.locate();
  for (std::uint32_t slot = 0; slot < loc.size(); ++slot) {
    if (loc[slot].archetype == kNoArchetype) continue;
    const std::uint32_t gen = s.generations[slot];
    if (!m.entity(slot, gen)) continue;
    const Archetype& arch = s.archetypes[loc[slot].archetype];
    bool header = false;
    auto head = [&] {
      if (header) return;
      header = true;
      out += "entity ";
      append_num(out, slot);
      out.push_back(':');
      append_num(out, gen);
      out += " archetype ";
      append_num(out, loc[slot].archetype);
      out.push_back('\n');
    };
    if (filter.types.empty() && filter.fields.empty()) head();
    for (std::uint32_t c : arch.components) {
      const Type& t = s.components[c];
      if (!m.type(t.name)) continue;
      const auto v = s.value(loc[slot].archetype, loc[slot].row, c);
      for (const Field& f : t.fields) {
        if (!m.field(t.name, f.name)) continue;
        head();
        out += "  ";
        out += t.name;
        out.push_back('.');
        out += f.name;
        out += " = ";
        append_field(out, f, v.data());
        out.push_back('\n');
      }
    }
  }
  for (std::uint32_t r = 0; r < s.resources.size(); ++r) {
    const Type& t = s.resources[r];
    if (!m.resource(t)) continue;
    out += "resource ";
    out += t.name;
    out.push_back('\n');
    for (const Field& f : t.fields) {
      if (!m.field(t.name, f.name)) continue;
      out += "  ";
      out += t.name;
      out.push_back('.');
      out += f.name;
      out += " = ";
      append_field(out, f, s.resource_values[r].data());
      out.push_back('\n');
    }
  }
  return out;
}

std::string dump_json(const State& s, const DumpFilter& filter) {
  const Matcher m(s, filter);
  std::string out;
  out.reserve(1 << 16);
  out += "{\"tick\":";
  append_num(out, s.tick);
  out += ",\"slots\":";
  append_num(out, s.slot_count());
  out += ",\"live\":";
  append_num(out, s.live_entities());
  out += ",\"free_slots\":[";
  for (std::size_t i = 0; i < s.free_slots.size(); ++i) {
    if (i != 0) out.push_back(',');
    append_num(out, s.free_slots[i]);
  }
  out += "],\"archetypes\":[";
  for (std::uint32_t a = 0; a < s.archetypes.size(); ++a) {
    if (a != 0) out.push_back(',');
    out += "{\"id\":";
    append_num(out, a);
    out += ",\"components\":[";
    for (std::size_t i = 0; i < s.archetypes[a].components.size(); ++i) {
      if (i != 0) out.push_back(',');
      append_json_string(out, s.components[s.archetypes[a].components[i]].name);
    }
    out += "],\"rows\":";
    append_num(out, s.archetypes[a].slots.size());
    out.push_back('}');
  }
  out += "],\"entities\":[";
  const auto loc = s.locate();
  bool first_entity = true;
  for (std::uint32_t slot = 0; slot < loc.size(); ++slot) {
    if (loc[slot].archetype == kNoArchetype) continue;
    const std::uint32_t gen = s.generations[slot];
    if (!m.entity(slot, gen)) continue;
    if (!first_entity) out.push_back(',');
    first_entity = false;
    out += "{\"entity\":\"";
    append_num(out, slot);
    out.push_back(':');
    append_num(out, gen);
    out += "\",\"slot\":";
    append_num(out, slot);
    out += ",\"generation\":";
    append_num(out, gen);
    out += ",\"archetype\":";
    append_num(out, loc[slot].archetype);
    out += ",\"components\":{";
    bool first = true;
    for (std::uint32_t c : s.archetypes[loc[slot].archetype].components) {
      const Type& t = s.components[c];
      if (!m.type(t.name) || !m.any_field(t)) continue;
      if (!first) out.push_back(',');
      first = false;
      append_json_string(out, t.name);
      out.push_back(':');
      append_json_value(out, m, t, s.value(loc[slot].archetype, loc[slot].row, c).data());
    }
    out += "}}";
  }
  out += "],\"resources\":{";
  bool first = true;
  for (std::uint32_t r = 0; r < s.resources.size(); ++r) {
    const Type& t = s.resources[r];
    if (!m.resource(t)) continue;
    if (!first) out.push_back(',');
    first = false;
    append_json_string(out, t.name);
    out.push_back(':');
    append_json_value(out, m, t, s.resource_values[r].data());
  }
  out += "}}";
  return out;
}

}  // namespace lockstep::inspect
