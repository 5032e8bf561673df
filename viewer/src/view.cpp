// `lockstep view` as library calls (view.h).
#include <lockstep/viewer/view.h>

#include <lockstep/hash/durable_file.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/json_writer.h>
#include <lockstep/inspect/state.h>

#include <cstdlib>
#include <filesystem>
#include <utility>

namespace lockstep::viewer {

std::string load_view_file(const std::string& path, ViewFile& out) {
  if (const FileStatus st = inspect::read_file_bytes(path, out.bytes, inspect::kMaxBundleBytes); !st.ok()) return st.message;
  out.answer = out.session.load(out.bytes, path);
  if (!out.session.error().empty()) return "view: " + out.session.error();
  return "";
}

bool wants_wasm_page(bool wasm, const std::string& explicit_template) {
  const char* env = std::getenv("LOCKSTEP_VIEWER_PAGE");
  return wasm || !explicit_template.empty() || (env != nullptr && *env != '\0');
}

std::string wasm_page_not_found(const std::vector<std::string>& looked) {
  std::string where;
  for (const std::string& p : looked) where += "\n  " + p;
  return std::string("view: the viewer page template (") + kWasmPageName + ") was not found; looked in:" + where +
         "\nIt is built with emscripten, which this build did not have: install emscripten (scripts/bootstrap "
         "can), configure with -DLOCKSTEP_VIEWER=ON and build (it lands beside the tool), or give the path of a "
         "built " + kWasmPageName + ". The frames page (write_frames_page) needs no emscripten. See docs/viewer.md.";
}

namespace {
void write_page(WrittenPage& w, const std::string& page) {
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(w.out, page.data(), page.size(), failure)) {
    w.error = failure.failed_path + ": " + failure.what;
    w.problem = WrittenPageProblem::Other;
    return;
  }
  w.bytes = page.size();
}
}  // namespace

WrittenPage write_frames_page(const std::string& file, const std::string& out, std::uint64_t embed_limit_mib,
                              const std::string& every_tick) {
  WrittenPage w;
  w.file = file;
  w.out = out;
  ViewFile f;
  if (w.error = load_view_file(file, f); !w.error.empty()) {
    w.problem = WrittenPageProblem::Other;
    return w;
  }
  EmbedLimits limits;
  limits.max_bytes = embed_limit_mib << 20;
  if (!every_tick.empty()) limits.every_tick = every_tick;
  Embedded e;
  if (!embed_frames(f.session, f.answer, limits, e, w.error)) {
    w.error = "view: " + w.error;
    w.problem = e.over_limit ? WrittenPageProblem::OverEmbedLimit : WrittenPageProblem::Other;
    return w;
  }
  w.frames = e.ticks;
  w.stride = e.stride;
  w.what = describe_embedded(e, embed_limit_mib);
  write_page(w, native_page(e.data_json, PageMode::Embedded));
  return w;
}

WrittenPage write_wasm_page(const std::string& file, const std::string& out, const std::string& explicit_template) {
  WrittenPage w;
  w.file = file;
  w.out = out;
  w.wasm = true;
  std::vector<std::string> looked;
  w.template_path = find_wasm_page_template(explicit_template, looked);
  if (w.template_path.empty()) {
    w.error = wasm_page_not_found(looked);
    w.problem = WrittenPageProblem::TemplateNotFound;
    w.looked = std::move(looked);
    return w;
  }
  std::string page;
  if (std::string error = read_wasm_page_template(w.template_path, page); !error.empty()) {
    w.error = "view: " + error;
    w.problem = WrittenPageProblem::Other;
    return w;
  }
  ViewFile f;
  if (w.error = load_view_file(file, f); !w.error.empty()) {
    w.problem = WrittenPageProblem::Other;
    return w;
  }
  const std::string name = std::filesystem::path(file).filename().string();
  w.what = name + " embedded, wasm page";
  write_page(w, fill_wasm_page(std::move(page), name, f.bytes));
  return w;
}

std::string written_page_report(const WrittenPage& page, bool json) {
  if (!json)
    return "wrote " + page.out + " (" + std::to_string(page.bytes) + " bytes; " + page.what +
           "): open it in a browser, no server needed\n";
  inspect::JsonWriter j;
  j.begin().field("ok", true).field("file", page.file).field("out", page.out).field("page", page.wasm ? "wasm" : "frames");
  if (page.wasm)
    j.field("template", page.template_path);
  else
    j.field("frames", page.frames).field("stride", page.stride);
  j.field("bytes", page.bytes).end();
  return j.str() + "\n";
}

std::string serve_file(const std::string& file, const ServeOptions& options) {
  if (!server_available()) {
    Session none;  // serve() without the server only says why
    return "view: cannot serve: " + serve(none, "", {});
  }
  ViewFile f;
  if (std::string error = load_view_file(file, f); !error.empty()) return error;
  if (std::string error = serve(f.session, f.answer, options); !error.empty()) return "view: cannot serve: " + error;
  return "";
}

std::string serving_report(const std::string& file, const std::string& url, bool json) {
  if (!json) return "serving " + file + " at " + url + " (Ctrl-C stops)\n";
  inspect::JsonWriter j;
  j.begin().field("ok", true).field("file", file).field("url", url).end();
  return j.str() + "\n";
}

}  // namespace lockstep::viewer
