// lockstep view FILE (-o page.html | --serve) — the browser viewer (docs/viewer.md) of a
// replay, a desync bundle or a snapshot file, for the sims of this tool (a game's own tool
// included), in every build:
//   -o page.html          a self-contained page with the frames precomputed here (every tick
//                         up to --embed-limit, then keyframes; viewer::embed_frames);
//   -o page.html --wasm   the emscripten page template with FILE's bytes inside (the page
//                         re-simulates in the browser; only where the template was built);
//   --serve [--port N]    a local HTTP server answering the page from this process
//                         (viewer::serve: cpp-httplib, 127.0.0.1); Ctrl-C stops it, exit 0.
// This file parses and prints; the page, the frames and the server live in lockstep::viewer.
#include "common.h"

#include <lockstep/hash/durable_file.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/viewer/page.h>
#include <lockstep/viewer/server.h>
#include <lockstep/viewer/session.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace lockstep::cli {

namespace {
constexpr const char* kPageName = viewer::kWasmPageName;

struct ViewArgs {
  std::string file;
  std::string out;
  std::string page;  // --viewer
  bool wasm = false;
  bool serve = false;
  std::string host = "127.0.0.1";
  std::uint32_t port = 0;
  std::uint64_t embed_limit_mib = 24;
  bool json = false;
};

// The file, read and checked here exactly as the page will read it, so a bad file fails now
// with its offset instead of in the browser.
int load_file(const ViewArgs& a, std::vector<std::byte>& bytes, viewer::Session& session, std::string& answer) {
  if (const FileStatus st = inspect::read_file_bytes(a.file, bytes, inspect::kMaxBundleBytes); !st.ok())
    return report_error(a.json, kExitBadInput, st.message);
  answer = session.load(bytes, a.file);
  if (!session.error().empty()) return report_error(a.json, kExitBadInput, "view: " + session.error());
  return kExitOk;
}

int write_page(const ViewArgs& a, const std::string& page, const std::string& what) {
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(a.out, page.data(), page.size(), failure))
    return report_error(a.json, kExitBadInput, failure.failed_path + ": " + failure.what);
  if (!a.json) std::printf("wrote %s (%zu bytes; %s): open it in a browser, no server needed\n", a.out.c_str(), page.size(), what.c_str());
  return kExitOk;
}

// The page template of the wasm viewer (--wasm, --viewer, LOCKSTEP_VIEWER_PAGE).
int view_wasm(const ViewArgs& a) {
  std::vector<std::string> candidates;
  const std::string template_path = viewer::find_wasm_page_template(a.page, candidates);
  if (template_path.empty()) {
    std::string looked;
    for (const std::string& p : candidates) looked += "\n  " + p;
    return report_error(a.json, kExitBadInput,
                        std::string("view: the viewer page template (") + kPageName + ") was not found; looked in:" + looked +
                            "\nIt is built with emscripten, which this build did not have: run scripts/bootstrap --browser, "
                            "configure with -DLOCKSTEP_VIEWER=ON and build (it lands beside the lockstep tool), or pass "
                            "--viewer PATH to a built " + kPageName + ". Without --wasm/--viewer, `view -o` writes a page "
                            "that needs no emscripten. See docs/viewer.md.");
  }
  std::string page;
  if (std::string error = viewer::read_wasm_page_template(template_path, page); !error.empty())
    return report_error(a.json, kExitBadInput, "view: " + error);
  std::vector<std::byte> bytes;
  viewer::Session session;
  std::string answer;
  if (int rc = load_file(a, bytes, session, answer); rc != kExitOk) return rc;
  const std::string name = std::filesystem::path(a.file).filename().string();
  page = viewer::fill_wasm_page(std::move(page), name, bytes);
  if (int rc = write_page(a, page, name + " embedded, wasm page"); rc != kExitOk) return rc;
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("file", a.file).field("out", a.out).field("page", "wasm").field("template", template_path)
        .field("bytes", std::uint64_t{page.size()}).end();
    std::printf("%s\n", j.str().c_str());
  }
  return kExitOk;
}

// The native page: frames computed here (every tick up to the limit, then keyframes).
int view_frames(const ViewArgs& a) {
  std::vector<std::byte> bytes;
  viewer::Session session;
  std::string answer;
  if (int rc = load_file(a, bytes, session, answer); rc != kExitOk) return rc;
  viewer::EmbedLimits limits;
  limits.max_bytes = a.embed_limit_mib << 20;
  viewer::Embedded e;
  std::string error;
  if (!viewer::embed_frames(session, answer, limits, e, error)) return report_error(a.json, kExitBadInput, "view: " + error);
  const std::string page = viewer::native_page(e.data_json, viewer::PageMode::Embedded);
  if (int rc = write_page(a, page, viewer::describe_embedded(e, a.embed_limit_mib)); rc != kExitOk) return rc;
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("file", a.file).field("out", a.out).field("page", "frames")
        .field("frames", e.ticks).field("stride", e.stride).field("bytes", std::uint64_t{page.size()}).end();
    std::printf("%s\n", j.str().c_str());
  }
  return kExitOk;
}

int view_serve(const ViewArgs& a) {
  if (!viewer::server_available()) {
    viewer::Session none;  // serve() without the server only says why
    return report_error(a.json, kExitBadInput, "view: --serve: " + viewer::serve(none, "", {}));
  }
  std::vector<std::byte> bytes;
  viewer::Session session;
  std::string answer;
  if (int rc = load_file(a, bytes, session, answer); rc != kExitOk) return rc;
  viewer::ServeOptions o;
  o.host = a.host;
  o.port = static_cast<std::uint16_t>(a.port);
  o.on_listening = [&](const std::string& url) {
    if (a.json) {
      Json j;
      j.begin().field("ok", true).field("file", a.file).field("url", url).end();
      std::printf("%s\n", j.str().c_str());
    } else {
      std::printf("serving %s at %s (Ctrl-C stops)\n", a.file.c_str(), url.c_str());
    }
    std::fflush(stdout);  // a script (or a test) waits for the URL on a pipe
  };
  const std::string error = viewer::serve(session, answer, o);
  if (!error.empty()) return report_error(a.json, kExitBadInput, "view: --serve: " + error);
  if (!a.json) std::printf("stopped\n");
  return kExitOk;
}

int view_cmd(const ViewArgs& a) {
  if (a.serve == !a.out.empty())
    return report_error(a.json, kExitBadInput, "view: give exactly one of -o FILE (write a page) and --serve");
  if (a.serve) {
    if (a.wasm || !a.page.empty())
      return report_error(a.json, kExitBadInput, "view: --serve serves the native page; --wasm/--viewer are for -o");
    return view_serve(a);
  }
  if (int rc = check_output(a.out, a.json, {a.file}); rc != kExitOk) return rc;
  const char* env = std::getenv("LOCKSTEP_VIEWER_PAGE");
  if (a.wasm || !a.page.empty() || (env != nullptr && *env != '\0')) return view_wasm(a);
  return view_frames(a);
}
}  // namespace

Command add_view(CLI::App& root) {
  auto a = std::make_shared<ViewArgs>();
  CLI::App* app = root.add_subcommand("view", "Show a replay, desync bundle or snapshot in a browser: a page (-o) or a local server (--serve)");
  app->add_option("file", a->file, "Replay (.replay/.json), desync bundle (.lsbundle) or snapshot file")->required();
  app->add_option("-o,--out", a->out, "The HTML file to write (self-contained; opens from disk)");
  app->add_flag("--serve", a->serve, "Serve the page from this process over HTTP (127.0.0.1) until Ctrl-C");
  app->add_option("--port", a->port, "Port for --serve (default 0: any free port; the URL is printed)")
      ->check(CLI::Range(0u, 65535u));
  app->add_option("--host", a->host, "Address for --serve to listen on (default 127.0.0.1: this machine only)");
  app->add_option("--embed-limit", a->embed_limit_mib,
                  "MiB of frames a page (-o) may hold: every tick up to it, then keyframes")
      ->capture_default_str()->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1024}));
  app->add_flag("--wasm", a->wasm, std::string("Write the emscripten page instead (the browser re-simulates; needs ") +
                                       kPageName + ", built with -DLOCKSTEP_VIEWER=ON)");
  app->add_option("--viewer", a->page, std::string("The wasm page template (") + kPageName +
                                           "); implies --wasm; default: LOCKSTEP_VIEWER_PAGE, beside the tool, ../share/lockstep/");
  app->add_flag("--json", a->json, "Machine-readable result on stdout");
  app->footer("Examples:\n"
              "  lockstep view fixtures/skirmish/skirmish.replay -o skirmish.html\n"
              "  lockstep view desync-verify-tick140.lsbundle -o desync.html\n"
              "  lockstep view fixtures/skirmish/skirmish.replay --serve --port 8023\n"
              "The page plays the replay at its tick rate (pause/step/seek), shows each tick's hash and its\n"
              "per-component breakdown, and for a bundle both sides with the diverged entities highlighted.\n"
              "Entities are drawn by the sim's drawing hint (replay::DrawHint), else listed.\n"
              "Exit codes: 0 ok (--serve: stopped by Ctrl-C), 2 bad input (docs/viewer.md).");
  return {app, [a] { return view_cmd(*a); }};
}

}  // namespace lockstep::cli
