// SVG pictures of states and diffs (svg.h). Integer arithmetic only.
#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/svg.h>

#include <algorithm>
#include <cstdint>
#include <mutex>

namespace lockstep::inspect {

namespace {
std::mutex g_mutex;
std::vector<std::string>& marks() {
  static std::vector<std::string> m;
  return m;
}

void xml_escape(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
}

std::int64_t fixed_raw(const Field& f, const std::byte* v, std::uint32_t k) {
  return static_cast<std::int64_t>(element_bits(f, v, k));
}

// v in [lo, hi] → [40, 960] (integer; hi == lo maps to the middle). Both distances are
// shifted down to 20 bits first, so the product stays far inside 64 bits on every target.
std::int64_t scale(std::int64_t v, std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return 500;
  std::uint64_t d = static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(lo);
  std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  while (span > (std::uint64_t{1} << 20)) {
    span >>= 1;
    d >>= 1;
  }
  return 40 + static_cast<std::int64_t>(d * 920 / span);
}

const char* kColours[] = {"#4e79a7", "#59a14f", "#edc948", "#b07aa1", "#76b7b2", "#ff9da7", "#9c755f", "#bab0ac"};
}  // namespace

void mark_position(std::string_view type, std::string_view field) {
  const std::string m = std::string(type) + "." + std::string(field);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (std::find(marks().begin(), marks().end(), m) == marks().end()) marks().push_back(m);
}

std::vector<std::string> position_marks() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return marks();
}

void apply_position_marks(State& s, const std::vector<std::string>& extra) {
  std::vector<std::string> all = position_marks();
  all.insert(all.end(), extra.begin(), extra.end());
  for (const std::string& m : all) {
    const auto dot = m.find('.');
    if (dot == std::string::npos) continue;
    const std::int32_t c = s.component_id(std::string_view(m).substr(0, dot));
    if (c < 0) continue;
    Type& t = s.components[static_cast<std::size_t>(c)];
    for (std::size_t i = 0; i < t.fields.size(); ++i) {
      const Field& f = t.fields[i];
      if (f.name == m.substr(dot + 1) && f.kind == FieldKind::Fixed && f.count >= 1 && f.count <= 3)
        t.position_field = static_cast<std::int32_t>(i);
    }
  }
}

bool render_svg(const State& s, const StateDiff* diff, std::string_view title, std::string& out) {
  std::int32_t pc = -1;
  for (std::size_t c = 0; c < s.components.size() && pc < 0; ++c)
    if (s.components[c].position_field >= 0) pc = static_cast<std::int32_t>(c);
  if (pc < 0) return false;
  const Type& t = s.components[static_cast<std::size_t>(pc)];
  const Field& f = t.fields[static_cast<std::size_t>(t.position_field)];
  struct Dot {
    std::uint32_t slot, gen, archetype;
    std::int64_t x, y;
  };
  std::vector<Dot> dots;
  const auto loc = s.locate();
  for (std::uint32_t slot = 0; slot < loc.size(); ++slot) {
    if (loc[slot].archetype == kNoArchetype) continue;
    const auto v = s.value(loc[slot].archetype, loc[slot].row, static_cast<std::uint32_t>(pc));
    if (v.empty()) continue;
    const std::int64_t x = fixed_raw(f, v.data(), 0);
    const std::int64_t y = f.count >= 2 ? fixed_raw(f, v.data(), 1) : std::int64_t{slot} << 16;
    dots.push_back({slot, s.generations[slot], loc[slot].archetype, x, y});
  }
  std::int64_t x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  for (std::size_t i = 0; i < dots.size(); ++i) {
    x0 = i == 0 ? dots[i].x : std::min(x0, dots[i].x);
    x1 = i == 0 ? dots[i].x : std::max(x1, dots[i].x);
    y0 = i == 0 ? dots[i].y : std::min(y0, dots[i].y);
    y1 = i == 0 ? dots[i].y : std::max(y1, dots[i].y);
  }
  // Diverged entities: slot → first differing field (entries in detail only).
  std::vector<std::pair<std::uint32_t, std::string>> diverged;
  if (diff != nullptr)
    for (const DiffEntry& e : diff->entries)
      if ((e.kind == DiffKind::Component || e.kind == DiffKind::Entity || e.kind == DiffKind::Archetype) &&
          std::none_of(diverged.begin(), diverged.end(), [&](const auto& d) { return d.first == e.slot; }))
        diverged.emplace_back(e.slot, e.where() + ": " + e.a + " | " + e.b);
  std::string o;
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1000 1040\" width=\"1000\" height=\"1040\">\n";
  o += "<rect x=\"0\" y=\"0\" width=\"1000\" height=\"1040\" fill=\"white\"/>\n<text x=\"10\" y=\"24\" font-family=\"monospace\" font-size=\"16\">";
  std::string head = std::string(title);
  if (head.empty()) head = "tick " + std::to_string(s.tick);
  if (diff != nullptr && !diff->equal()) {
    head += " — differs:";
    for (std::size_t i = 0; i < diff->parts.size() && i < 6; ++i) head += (i ? ", " : " ") + diff->parts[i].part;
  }
  xml_escape(o, head);
  o += "</text>\n<g transform=\"translate(0 40)\">\n";
  for (const Dot& d : dots) {
    const bool bad = std::any_of(diverged.begin(), diverged.end(), [&](const auto& x) { return x.first == d.slot; });
    o += "<circle cx=\"" + std::to_string(scale(d.x, x0, x1)) + "\" cy=\"" + std::to_string(1000 - scale(d.y, y0, y1)) +
         "\" r=\"" + (bad ? "7" : "3") + "\" fill=\"" + (bad ? "#e15759" : kColours[d.archetype % 8]) + "\"><title>" +
         std::to_string(d.slot) + ":" + std::to_string(d.gen) + "</title></circle>\n";
  }
  std::size_t labels = 0;
  for (const Dot& d : dots) {
    for (const auto& [slot, text] : diverged) {
      if (slot != d.slot || labels >= 40) continue;
      ++labels;
      o += "<text x=\"" + std::to_string(scale(d.x, x0, x1) + 9) + "\" y=\"" + std::to_string(1000 - scale(d.y, y0, y1) + 4) +
           "\" font-family=\"monospace\" font-size=\"11\" fill=\"#c00\">";
      xml_escape(o, text);
      o += "</text>\n";
    }
  }
  o += "</g>\n</svg>\n";
  out = std::move(o);
  return true;
}

}  // namespace lockstep::inspect
