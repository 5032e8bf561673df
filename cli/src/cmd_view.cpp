// lockstep view FILE -o page.html — a self-contained browser page (docs/viewer.md) showing a
// replay, a desync bundle or a snapshot file: the viewer page template (HTML + JS + the wasm
// module, built by emscripten) with FILE's bytes put inside. The page opens from disk with
// no server and no network. This tool needs no emscripten: it only fills in the template,
// which the viewer build places beside it.
#include "common.h"

#include <lockstep/hash/bounded_read.h>
#include <lockstep/hash/durable_file.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/viewer/session.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace lockstep::cli {

namespace {
constexpr const char* kPageName = "lockstep-viewer.html";
constexpr const char* kPlaceholder = "@LOCKSTEP_DATA@";
constexpr std::uint64_t kMaxTemplateBytes = 64u << 20;

struct ViewArgs {
  std::string file;
  std::string out;
  std::string page;  // --viewer
  bool json = false;
};

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

// JSON string for inline <script> content: '<' escaped so "</script" cannot appear.
std::string script_json_string(std::string_view s) {
  std::string o = "\"";
  for (char c : json_escape(s)) {
    if (c == '<')
      o += "\\u003c";
    else
      o += c;
  }
  return o + "\"";
}

// Where the page template may be, in search order (docs/viewer.md).
std::vector<std::string> page_candidates(const std::string& explicit_path) {
  if (!explicit_path.empty()) return {explicit_path};
  std::vector<std::string> c;
  if (const char* env = std::getenv("LOCKSTEP_VIEWER_PAGE"); env != nullptr && *env != '\0') c.emplace_back(env);
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    c.push_back((self.parent_path() / kPageName).string());
    c.push_back((self.parent_path().parent_path() / "share" / "lockstep" / kPageName).string());
  }
  return c;
}

int view_cmd(const ViewArgs& a) {
  if (int rc = check_output(a.out, a.json, {a.file}); rc != kExitOk) return rc;
  // The page template first: without it there is nothing to fill in.
  std::string template_path;
  const std::vector<std::string> candidates = page_candidates(a.page);
  for (const std::string& p : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) {
      template_path = p;
      break;
    }
  }
  if (template_path.empty()) {
    std::string looked;
    for (const std::string& p : candidates) looked += "\n  " + p;
    return report_error(a.json, kExitBadInput,
                        std::string("view: the viewer page template (") + kPageName + ") was not found; looked in:" + looked +
                            "\nIt is built with emscripten, which this build did not have: run scripts/bootstrap --browser, "
                            "configure with -DLOCKSTEP_VIEWER=ON and build (it lands beside the lockstep tool), or pass "
                            "--viewer PATH to a built " + kPageName + ". See docs/viewer.md.");
  }
  std::vector<std::byte> page_bytes;
  if (const FileStatus st = inspect::read_file_bytes(template_path, page_bytes, kMaxTemplateBytes); !st.ok())
    return report_error(a.json, kExitBadInput, "view: " + st.message);
  std::string page(reinterpret_cast<const char*>(page_bytes.data()), page_bytes.size());
  const std::size_t at = page.find(kPlaceholder);
  if (at == std::string::npos || page.find(kPlaceholder, at + 1) != std::string::npos)
    return report_error(a.json, kExitBadInput,
                        "view: " + template_path + ": not a viewer page template (expected exactly one " + kPlaceholder + ")");

  // The file, checked here exactly as the page will read it, so a bad file fails now with
  // its offset instead of in the browser.
  std::vector<std::byte> bytes;
  if (const FileStatus st = inspect::read_file_bytes(a.file, bytes, inspect::kMaxBundleBytes); !st.ok())
    return report_error(a.json, kExitBadInput, st.message);
  viewer::Session session;
  const std::string name = std::filesystem::path(a.file).filename().string();
  (void)session.load(bytes, a.file);
  if (!session.error().empty()) return report_error(a.json, kExitBadInput, "view: " + session.error());

  const std::string data = "{\"name\":" + script_json_string(name) + ",\"bytes\":\"" + base64(bytes) + "\"}";
  page.replace(at, std::string_view(kPlaceholder).size(), data);
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(a.out, page.data(), page.size(), failure))
    return report_error(a.json, kExitBadInput, failure.failed_path + ": " + failure.what);
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("file", a.file).field("out", a.out).field("template", template_path)
        .field("bytes", std::uint64_t{page.size()}).end();
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("wrote %s (%zu bytes; %s embedded): open it in a browser, no server needed\n", a.out.c_str(), page.size(),
                name.c_str());
  }
  return kExitOk;
}
}  // namespace

Command add_view(CLI::App& root) {
  auto a = std::make_shared<ViewArgs>();
  CLI::App* app = root.add_subcommand("view", "Write a self-contained browser page showing a replay, desync bundle or snapshot");
  app->add_option("file", a->file, "Replay (.replay/.json), desync bundle (.lsbundle) or snapshot file")->required();
  app->add_option("-o,--out", a->out, "The HTML file to write")->required();
  app->add_option("--viewer", a->page, std::string("The page template (") + kPageName +
                                           "); default: LOCKSTEP_VIEWER_PAGE, beside the tool, ../share/lockstep/");
  app->add_flag("--json", a->json, "Machine-readable result on stdout");
  app->footer("Examples:\n"
              "  lockstep view fixtures/skirmish/skirmish.replay -o skirmish.html\n"
              "  lockstep view desync-verify-tick140.lsbundle -o desync.html\n"
              "The page plays the replay at its tick rate (pause/step/seek), shows each tick's hash and its\n"
              "per-component breakdown, and for a bundle both sides with the diverged entities highlighted.\n"
              "Exit codes: 0 ok, 2 bad input or no page template (docs/viewer.md).");
  return {app, [a] { return view_cmd(*a); }};
}

}  // namespace lockstep::cli
