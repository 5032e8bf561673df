// lockstep view FILE (-o page.html | --serve) — the browser viewer (docs/viewer.md) of a
// replay, a desync bundle or a snapshot file, for the sims of this tool (a game's own tool
// included), in every build:
//   -o page.html          a self-contained page with the frames precomputed here (every tick
//                         up to --embed-limit, then keyframes; viewer::embed_frames);
//   -o page.html --wasm   the emscripten page template with FILE's bytes inside (the page
//                         re-simulates in the browser; only where the template was built);
//   --serve [--port N]    a local HTTP server answering the page from this process
//                         (viewer::serve: cpp-httplib, 127.0.0.1; another --host only with
//                         --allow-remote, as peer and relay); Ctrl-C stops it, exit 0.
// This file parses and prints; the page, the frames and the server live in lockstep::viewer
// (viewer/view.h).
#include "common.h"

#include <lockstep/viewer/view.h>

#include <cstdio>

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
  bool allow_remote = false;
  std::uint32_t port = 0;
  std::uint64_t embed_limit_mib = 24;
  bool json = false;
};

// The error of a missing page template, naming this command's flags.
std::string page_template_not_found(const std::vector<std::string>& looked) {
  std::string where;
  for (const std::string& p : looked) where += "\n  " + p;
  return std::string("view: the viewer page template (") + kPageName + ") was not found; looked in:" + where +
         "\nIt is built with emscripten, which this build did not have: run scripts/bootstrap --browser, "
         "configure with -DLOCKSTEP_VIEWER=ON and build (it lands beside the lockstep tool), or pass "
         "--viewer PATH to a built " + kPageName + ". Without --wasm/--viewer, `view -o` writes a page "
         "that needs no emscripten. See docs/viewer.md.";
}

int view_serve(const ViewArgs& a) {
  // The rule of `peer` and `relay`: beyond loopback only when asked for (viewer::serve refuses
  // it too; this says so in this command's flags).
  if (!a.allow_remote && viewer::serves_beyond_loopback(a.host))
    return report_error(a.json, kExitBadInput,
                        "view: --host " + a.host + ": not a loopback address (pass --allow-remote to serve beyond this machine)");
  viewer::ServeOptions o;
  o.host = a.host;
  o.loopback_only = !a.allow_remote;
  o.port = static_cast<std::uint16_t>(a.port);
  o.on_listening = [&](const std::string& url) {
    std::fputs(viewer::serving_report(a.file, url, a.json).c_str(), stdout);
    std::fflush(stdout);  // a script (or a test) waits for the URL on a pipe
  };
  if (const std::string error = viewer::serve_file(a.file, o); !error.empty())
    return report_error(a.json, kExitBadInput, error);
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
  viewer::WrittenPage page = viewer::wants_wasm_page(a.wasm, a.page)
                                 ? viewer::write_wasm_page(a.file, a.out, a.page)
                                 : viewer::write_frames_page(a.file, a.out, a.embed_limit_mib,
                                                             "Every tick: " + tool_name() + " view FILE --serve");
  // The library's conditions in the terms of this command's flags.
  if (page.problem == viewer::WrittenPageProblem::TemplateNotFound) page.error = page_template_not_found(page.looked);
  if (page.problem == viewer::WrittenPageProblem::OverEmbedLimit)
    page.error = "view: the first and last frames alone take more than " + std::to_string(a.embed_limit_mib << 20) +
                 " bytes (--embed-limit); use --serve";
  if (!page.error.empty()) return report_error(a.json, kExitBadInput, page.error);
  if (!page.wasm && page.stride > 1)
    page.what = std::to_string(page.frames) + " frames, keyframes every " + std::to_string(page.stride) +
                " ticks (--embed-limit " + std::to_string(a.embed_limit_mib) + " MiB; --serve shows every tick)";
  std::fputs(viewer::written_page_report(page, a.json).c_str(), stdout);
  return kExitOk;
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
  app->add_option("--host", a->host,
                  "Address for --serve to listen on (default 127.0.0.1: this machine only; others need --allow-remote)");
  app->add_flag("--allow-remote", a->allow_remote, "Allow a --host outside loopback");
  app->add_option("--embed-limit", a->embed_limit_mib,
                  "MiB of frames a page (-o) may hold: every tick up to it, then keyframes")
      ->capture_default_str()->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1024}));
  app->add_flag("--wasm", a->wasm, std::string("Write the emscripten page instead (the browser re-simulates; needs ") +
                                       kPageName + ", built with -DLOCKSTEP_VIEWER=ON)");
  app->add_option("--viewer", a->page, std::string("The wasm page template (") + kPageName +
                                           "); implies --wasm; default: LOCKSTEP_VIEWER_PAGE, beside the tool, ../share/lockstep/");
  app->add_flag("--json", a->json, "Machine-readable result on stdout");
  app->footer("Examples:\n"
              "  " + tool_name() + " view fixtures/skirmish/skirmish.replay -o skirmish.html\n"
              "  " + tool_name() + " view desync-verify-tick140.lsbundle -o desync.html\n"
              "  " + tool_name() + " view fixtures/skirmish/skirmish.replay --serve --port 8023\n"
              "The page plays the replay at its tick rate (pause/step/seek), shows each tick's hash and its\n"
              "per-component breakdown, and for a bundle both sides with the diverged entities highlighted.\n"
              "Entities are drawn by the sim's drawing hint (replay::DrawHint), else listed.\n"
              "Exit codes: 0 ok (--serve: stopped by Ctrl-C), 2 bad input (docs/viewer.md).");
  return {app, [a] { return view_cmd(*a); }};
}

}  // namespace lockstep::cli
