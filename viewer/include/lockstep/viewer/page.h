#pragma once
// The viewer page without WebAssembly (docs/viewer.md): the same page (viewer/web/), built
// into this library, answered either by precomputed frames embedded in the page (`lockstep
// view FILE -o page.html` in a build without the emscripten page) or by the tool itself over
// HTTP (`lockstep view FILE --serve`, server.h). The page's script talks to the wasm Session,
// the embedded data or the HTTP API through one interface (viewer/web/app.js: backends).
#include <lockstep/viewer/session.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::viewer {

enum class PageMode {
  Embedded,  // data: {"mode":"embedded",...} (embed_frames); no network at all
  Served,    // data: {"mode":"http"}; the page fetches /api/* from the origin that served it
};

// The page with `data_json` as its data: HTML with the style and script inline. Every '<' in
// the data is written as \u003c (so "</script" cannot end the element early). The
// Content-Security-Policy forbids every fetch (Embedded) or allows only the page's own
// origin (Served).
std::string native_page(std::string_view data_json, PageMode mode);

struct EmbedLimits {
  // Total bytes of frame data a page may hold. Up to it every tick is embedded; beyond it
  // every k-th tick (keyframes; the first and last always), k the smallest power of two that
  // fits, and the page says so.
  std::uint64_t max_bytes = std::uint64_t{24} << 20;
  // The last sentence of that note: how the reader gets every tick (a tool names its command).
  std::string every_tick = "A served page shows every tick.";
};

struct Embedded {
  std::string data_json;         // native_page's data
  std::uint64_t ticks = 0;       // frames embedded
  std::uint64_t stride = 1;      // 1: every tick; k: keyframes every k ticks
  std::uint64_t bytes = 0;       // frame data size
  std::string note;              // "" or what the page tells the user about keyframes
  bool over_limit = false;       // embed_frames failed: the first and last frames alone exceed the limit
};

// Precomputes the frames of the file loaded into `session` (`load_answer`: what load()
// returned): every tick of a replay (or keyframes, see EmbedLimits), the single frame of a
// bundle or snapshot, each with every entity's field values (Session::details). False with
// `error` set when a seek fails (the file is corrupt past its header) or even the keyframes
// of the first and last tick exceed the limit (`out.over_limit`; "the first and last frames alone
// take more than N bytes, the limit of an embedded page; a served page has none").
bool embed_frames(Session& session, std::string_view load_answer, const EmbedLimits& limits, Embedded& out,
                  std::string& error);

// ---- the emscripten page (the browser re-simulates the file) --------------------------------
// Built only with -DLOCKSTEP_VIEWER=ON; a template holding kWasmPagePlaceholder exactly once,
// replaced by {"name":...,"bytes":"<base64>"}.
inline constexpr const char* kWasmPageName = "lockstep-viewer.html";
inline constexpr const char* kWasmPagePlaceholder = "@LOCKSTEP_DATA@";

// The first regular file of: `explicit_path` alone when given; else $LOCKSTEP_VIEWER_PAGE,
// kWasmPageName beside the running executable, then in ../share/lockstep/ from it. Empty when
// none exists; `looked` lists where it looked, in order.
std::string find_wasm_page_template(const std::string& explicit_path, std::vector<std::string>& looked);
// Whether `page` holds the placeholder exactly once.
bool is_wasm_page_template(std::string_view page);
// Reads the template at `path` (at most 64 MiB) into `page` and checks it. Returns the error
// ("" on success): the read's, or "PATH: not a viewer page template (expected exactly one
// <placeholder>)".
std::string read_wasm_page_template(const std::string& path, std::string& page);
// The template with the file inside (is_wasm_page_template(page_template) must hold).
std::string fill_wasm_page(std::string page_template, std::string_view file_name, std::span<const std::byte> bytes);

// What a native page holds, for the person who asked for it: "1 frame", "600 frames, every tick",
// or "N frames, keyframes every K ticks (limit M MiB; a served page shows every tick)".
std::string describe_embedded(const Embedded& e, std::uint64_t embed_limit_mib);

}  // namespace lockstep::viewer
