#pragma once
// `lockstep view` as library calls (docs/viewer.md): load and check a file as the page will,
// write the frames page or the emscripten page, serve it, and the lines the tool prints. A
// game's own tool writes the same pages. The error texts are in the library's terms;
// WrittenPage::problem says which condition failed, so that a tool can name its own options.
#include <lockstep/viewer/page.h>
#include <lockstep/viewer/server.h>
#include <lockstep/viewer/session.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::viewer {

// A file loaded into a Session exactly as the page reads it, so a bad file fails in the tool
// with its offset instead of in the browser.
struct ViewFile {
  std::vector<std::byte> bytes;
  Session session;
  std::string answer;  // what Session::load returned
};
// Reads `path` (at most inspect::kMaxBundleBytes) and loads it into `out`. Returns "" or the
// error: the read's ("PATH: ...") or "view: " and the session's.
std::string load_view_file(const std::string& path, ViewFile& out);

// Whether `view -o` writes the emscripten page: --wasm, --viewer PATH or $LOCKSTEP_VIEWER_PAGE.
bool wants_wasm_page(bool wasm, const std::string& explicit_template);

// The error of a missing page template: "view: the viewer page template (lockstep-viewer.html)
// was not found; looked in:" with one "\n  PATH" per place looked, then how a build gets one.
std::string wasm_page_not_found(const std::vector<std::string>& looked);

// Why a page was not written (WrittenPage::problem).
enum class WrittenPageProblem : std::uint8_t {
  None,
  Other,             // the file, the template or the write: `error` says it
  TemplateNotFound,  // write_wasm_page found no template (`looked`: where it looked)
  OverEmbedLimit,    // write_frames_page: the first and last frames alone exceed the limit
};

// A page written by write_frames_page / write_wasm_page.
struct WrittenPage {
  std::string error;          // "" on success, else the message (the tool exits 2)
  WrittenPageProblem problem = WrittenPageProblem::None;  // with `error`
  std::vector<std::string> looked = {};  // TemplateNotFound: the places looked, in order
  std::string file, out;      // the file shown, the page written
  bool wasm = false;          // the emscripten page (else the frames page)
  std::string template_path;  // wasm: the template used
  std::uint64_t frames = 0;   // frames page: frames embedded (Embedded::ticks)
  std::uint64_t stride = 1;   // frames page: Embedded::stride
  std::uint64_t bytes = 0;    // the page's size
  std::string what;           // "600 frames, every tick" / "NAME embedded, wasm page"
};
// The native page of `file` with its frames precomputed (embed_frames; every tick up to
// `embed_limit_mib` MiB, then keyframes), written atomically to `out`. `every_tick`: the
// keyframe note's last sentence (EmbedLimits::every_tick; empty: its default).
WrittenPage write_frames_page(const std::string& file, const std::string& out, std::uint64_t embed_limit_mib,
                              const std::string& every_tick = {});
// The emscripten page template (find_wasm_page_template(explicit_template)) with `file` inside,
// written atomically to `out`. The template is looked up and read before the file is loaded.
WrittenPage write_wasm_page(const std::string& file, const std::string& out, const std::string& explicit_template);
// The stdout text of a written page, ending in '\n': "wrote OUT (N bytes; WHAT): open it in a
// browser, no server needed", or with `json` {"ok":true,"file":..,"out":..,"page":"frames",
// "frames":..,"stride":..,"bytes":..} ("page":"wasm","template":.. instead of frames and stride).
std::string written_page_report(const WrittenPage& page, bool json);

// `view --serve`: loads `file` (load_view_file) and serves it (serve) until stopped. Returns ""
// after a clean stop, else the message: "view: cannot serve: " and why (no server in this
// build, port in use), or load_view_file's error. The server's absence is reported before the
// file is read.
std::string serve_file(const std::string& file, const ServeOptions& options);
// The line printed once listening, ending in '\n': "serving FILE at URL (Ctrl-C stops)" or
// {"ok":true,"file":..,"url":..}.
std::string serving_report(const std::string& file, const std::string& url, bool json);

}  // namespace lockstep::viewer
