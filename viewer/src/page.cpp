// The native viewer page (page.h): the page's files built into the library, filled with
// precomputed frames or pointed at the HTTP API.
#include <lockstep/viewer/page.h>

#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/state.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace lockstep::viewer {

namespace assets {
extern const std::string_view html;  // generated from viewer/web (cmake/embed_assets.cmake)
extern const std::string_view css;
extern const std::string_view app;
}  // namespace assets

namespace {

void replace_once(std::string& page, std::string_view key, std::string_view value) {
  const std::size_t at = page.find(key);
  if (at != std::string::npos) page.replace(at, key.size(), value);
}

// Inside <script>, the only sequence that ends the element early is "</script": JSON text has
// '<' only inside strings, where \u003c means the same character.
std::string script_safe(std::string_view json) {
  std::string o;
  o.reserve(json.size());
  for (char c : json) {
    if (c == '<')
      o += "\\u003c";
    else
      o += c;
  }
  return o;
}

std::string script_text(std::string_view js) {
  std::string o(js);
  for (std::size_t at = 0; (at = o.find("</script", at)) != std::string::npos; at += 2) o.replace(at, 2, "<\\/");
  return o;
}

}  // namespace

std::string native_page(std::string_view data_json, PageMode mode) {
  std::string page(assets::html);
  // The wasm page's policy forbids every fetch; served, the page asks its own origin only.
  if (mode == PageMode::Served) replace_once(page, "connect-src data:", "connect-src 'self'");
  replace_once(page, "/*@STYLE@*/", assets::css);
  replace_once(page, "/*@MODULE@*/", "/* no WebAssembly module: frames come from the tool (docs/viewer.md) */");
  replace_once(page, "/*@APP@*/", script_text(assets::app));
  replace_once(page, "@LOCKSTEP_DATA@", script_safe(data_json));
  return page;
}

namespace {
// The "tick" of a frame answer is at a known place; the frame is what seek() returned.
bool ok_answer(const std::string& answer) { return answer.rfind("{\"ok\":true", 0) == 0; }

std::string json_string(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      o += buf;
    } else {
      o += c;
    }
  }
  return o + "\"";
}

// The tick range of a load answer ("first_tick":N ... "last_tick":M).
std::uint64_t number_after(std::string_view json, std::string_view key) {
  const std::size_t at = json.find(key);
  if (at == std::string_view::npos) return 0;
  std::uint64_t v = 0;
  for (std::size_t i = at + key.size(); i < json.size() && json[i] >= '0' && json[i] <= '9'; ++i)
    v = v * 10 + static_cast<std::uint64_t>(json[i] - '0');
  return v;
}
}  // namespace

bool embed_frames(Session& session, std::string_view load_answer, const EmbedLimits& limits, Embedded& out,
                  std::string& error) {
  out = Embedded{};
  const std::uint64_t first = number_after(load_answer, "\"first_tick\":");
  const std::uint64_t last = number_after(load_answer, "\"last_tick\":");
  // Frames of a replay are computed by stepping forward once; the stride doubles (and the
  // walk restarts) when the frames so far would not fit at this stride.
  for (std::uint64_t stride = 1, next = 2;; stride = next, next = stride * 2) {
    std::vector<std::uint64_t> ticks;
    for (std::uint64_t t = first; t <= last; t += stride) {
      ticks.push_back(t);
      if (last - t < stride) break;
    }
    if (ticks.back() != last) ticks.push_back(last);
    std::string frames = "[", details = "[";
    bool fits = true;
    for (std::size_t i = 0; i < ticks.size(); ++i) {
      const std::string f = session.seek(ticks[i]);
      if (!ok_answer(f)) {
        error = session.error().empty() ? f : session.error();
        return false;
      }
      const std::string d = session.details();
      frames += (i ? "," : "") + f;
      details += (i ? "," : "") + d;
      if (frames.size() + details.size() > limits.max_bytes) {
        fits = false;
        // The frames so far predict the size of all: the next stride is the power of two that
        // should fit (at least double), so a long replay is not walked once per doubling.
        const std::uint64_t per = (frames.size() + details.size()) / (i + 1) + 1;
        while (next < (last - first + 1) && (ticks.size() * stride / next + 2) * per > limits.max_bytes) next *= 2;
        break;
      }
    }
    if (!fits) {
      // Two frames (the first and the last) are the least a page shows.
      if (ticks.size() <= 2) {
        error = "the first and last frames alone take more than " + std::to_string(limits.max_bytes) +
                " bytes, the limit of an embedded page; a served page has none";
        out.over_limit = true;
        return false;
      }
      continue;
    }
    frames += "]";
    details += "]";
    out.ticks = ticks.size();
    out.stride = stride;
    out.bytes = frames.size() + details.size();
    if (stride > 1)
      out.note = "this page holds keyframes only: every " + std::to_string(stride) + "th tick (" +
                 std::to_string(ticks.size()) + " of " + std::to_string(last - first + 1) +
                 " ticks) to stay under " + std::to_string(limits.max_bytes >> 20) +
                 " MiB; other ticks show the keyframe before them." +
                 (limits.every_tick.empty() ? std::string() : " " + limits.every_tick);
    std::string t = "[";
    for (std::size_t i = 0; i < ticks.size(); ++i) t += (i ? "," : "") + std::to_string(ticks[i]);
    t += "]";
    out.data_json = "{\"mode\":\"embedded\",\"info\":" + std::string(load_answer) + ",\"ticks\":" + t +
                    ",\"stride\":" + std::to_string(stride) + ",\"note\":" + json_string(out.note) +
                    ",\"frames\":" + frames + ",\"details\":" + details + "}";
    return true;
  }
}

namespace {

std::string base64(std::span<const std::byte> in) {
  static const char k[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v = std::to_integer<std::uint32_t>(in[i]) << 16 | std::to_integer<std::uint32_t>(in[i + 1]) << 8 |
                            std::to_integer<std::uint32_t>(in[i + 2]);
    out += k[v >> 18];
    out += k[(v >> 12) & 63];
    out += k[(v >> 6) & 63];
    out += k[v & 63];
  }
  if (i < in.size()) {
    std::uint32_t v = std::to_integer<std::uint32_t>(in[i]) << 16;
    if (i + 1 < in.size()) v |= std::to_integer<std::uint32_t>(in[i + 1]) << 8;
    out += k[v >> 18];
    out += k[(v >> 12) & 63];
    out += i + 1 < in.size() ? k[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace

std::string find_wasm_page_template(const std::string& explicit_path, std::vector<std::string>& looked) {
  looked.clear();
  if (!explicit_path.empty()) {
    looked.push_back(explicit_path);
  } else {
    if (const char* env = std::getenv("LOCKSTEP_VIEWER_PAGE"); env != nullptr && *env != '\0') looked.emplace_back(env);
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      looked.push_back((self.parent_path() / kWasmPageName).string());
      looked.push_back((self.parent_path().parent_path() / "share" / "lockstep" / kWasmPageName).string());
    }
  }
  for (const std::string& p : looked) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return p;
  }
  return {};
}

bool is_wasm_page_template(std::string_view page) {
  const std::size_t at = page.find(kWasmPagePlaceholder);
  return at != std::string_view::npos && page.find(kWasmPagePlaceholder, at + 1) == std::string_view::npos;
}

std::string fill_wasm_page(std::string page_template, std::string_view file_name, std::span<const std::byte> bytes) {
  std::string name;
  inspect::append_json_string(name, file_name);
  const std::string data = "{\"name\":" + script_safe(name) + ",\"bytes\":\"" + base64(bytes) + "\"}";
  replace_once(page_template, kWasmPagePlaceholder, data);
  return page_template;
}

std::string read_wasm_page_template(const std::string& path, std::string& page) {
  constexpr std::uint64_t kMaxTemplateBytes = 64u << 20;
  std::vector<std::byte> bytes;
  if (const FileStatus st = inspect::read_file_bytes(path, bytes, kMaxTemplateBytes); !st.ok()) return st.message;
  page.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (!is_wasm_page_template(page))
    return path + ": not a viewer page template (expected exactly one " + std::string(kWasmPagePlaceholder) + ")";
  return {};
}

std::string describe_embedded(const Embedded& e, std::uint64_t embed_limit_mib) {
  return std::to_string(e.ticks) + (e.ticks == 1 ? " frame" : " frames") +
         (e.stride == 1 ? std::string(e.ticks > 1 ? ", every tick" : "")
                        : ", keyframes every " + std::to_string(e.stride) + " ticks (limit " +
                              std::to_string(embed_limit_mib) + " MiB; a served page shows every tick)");
}

}  // namespace lockstep::viewer
