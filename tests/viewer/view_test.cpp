// viewer/view.h, `lockstep view` as library calls: the pages written, their reports and the
// errors, exact.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/viewer/view.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace lockstep::viewer;

const std::string kDuel = std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/duel/duel.replay";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> b;
  for (char c : text) b.push_back(static_cast<std::byte>(c));
  return b;
}

TEST(View, LoadsAFileAsThePageWill) {
  lockstep::fixtures::register_builtin_sims();
  ViewFile f;
  EXPECT_EQ(load_view_file(kDuel, f), "");
  EXPECT_EQ(f.bytes, bytes_of(slurp(kDuel)));
  Session direct;
  EXPECT_EQ(f.answer, direct.load(f.bytes, kDuel));
  EXPECT_EQ(f.answer.rfind("{\"ok\":true,\"name\":\"" + kDuel + "\",\"kind\":\"replay\",\"sim\":\"duel\"", 0), 0u) << f.answer;
  const fs::path junk = fs::temp_directory_path() / "lockstep-view-test-junk.bin";
  std::ofstream(junk, std::ios::binary) << "XLSREPLAY";
  ViewFile bad;
  EXPECT_EQ(load_view_file(junk.string(), bad),
            "view: " + junk.string() +
                ": byte 0: expected a replay (LSREPLAY or JSON), a desync bundle (LSBUNDLE) or a snapshot file (LSSNAP)");
  fs::remove(junk);
}

TEST(View, ExplainsAMissingTemplate) {
  EXPECT_EQ(wasm_page_not_found({"/a/lockstep-viewer.html", "/b/lockstep-viewer.html"}),
            "view: the viewer page template (lockstep-viewer.html) was not found; looked in:\n"
            "  /a/lockstep-viewer.html\n  /b/lockstep-viewer.html\n"
            "It is built with emscripten, which this build did not have: install emscripten (scripts/bootstrap "
            "can), configure with -DLOCKSTEP_VIEWER=ON and build (it lands beside the tool), or give the path of a "
            "built lockstep-viewer.html. The frames page (write_frames_page) needs no emscripten. See docs/viewer.md.");
  const WrittenPage w = write_wasm_page(kDuel, "/nonexistent/x.html", "/nonexistent/t.html");
  EXPECT_EQ(w.error, wasm_page_not_found({"/nonexistent/t.html"}));
  EXPECT_EQ(w.problem, WrittenPageProblem::TemplateNotFound);
  EXPECT_EQ(w.looked, std::vector<std::string>{"/nonexistent/t.html"});
}

TEST(View, WantsTheWasmPageWhenAskedOrConfigured) {
  ::unsetenv("LOCKSTEP_VIEWER_PAGE");
  EXPECT_FALSE(wants_wasm_page(false, ""));
  EXPECT_TRUE(wants_wasm_page(true, ""));
  EXPECT_TRUE(wants_wasm_page(false, "t.html"));
  ::setenv("LOCKSTEP_VIEWER_PAGE", "", 1);
  EXPECT_FALSE(wants_wasm_page(false, ""));
  ::setenv("LOCKSTEP_VIEWER_PAGE", "t.html", 1);
  EXPECT_TRUE(wants_wasm_page(false, ""));
  ::unsetenv("LOCKSTEP_VIEWER_PAGE");
}

TEST(View, WritesTheWasmPageWithTheFileInside) {
  lockstep::fixtures::register_builtin_sims();
  const fs::path dir = fs::temp_directory_path() / "lockstep-view-test-wasm";
  fs::create_directories(dir);
  const fs::path tmpl = dir / "t.html", out = dir / "page.html";
  std::ofstream(tmpl) << "<p>@LOCKSTEP_DATA@</p>";
  const WrittenPage w = write_wasm_page(kDuel, out.string(), tmpl.string());
  ASSERT_EQ(w.error, "");
  const std::string page = slurp(out);
  EXPECT_EQ(page, fill_wasm_page("<p>@LOCKSTEP_DATA@</p>", "duel.replay", bytes_of(slurp(kDuel))));
  EXPECT_EQ(w.bytes, page.size());
  EXPECT_EQ(written_page_report(w, false), "wrote " + out.string() + " (" + std::to_string(page.size()) +
                                               " bytes; duel.replay embedded, wasm page): open it in a browser, no server needed\n");
  EXPECT_EQ(written_page_report(w, true), "{\"ok\":true,\"file\":\"" + kDuel + "\",\"out\":\"" + out.string() +
                                              "\",\"page\":\"wasm\",\"template\":\"" + tmpl.string() + "\",\"bytes\":" +
                                              std::to_string(page.size()) + "}\n");
  EXPECT_EQ(w.problem, WrittenPageProblem::None);
  std::ofstream(tmpl) << "<p></p>";
  const WrittenPage no_placeholder = write_wasm_page(kDuel, out.string(), tmpl.string());
  EXPECT_EQ(no_placeholder.error,
            "view: " + tmpl.string() + ": not a viewer page template (expected exactly one @LOCKSTEP_DATA@)");
  EXPECT_EQ(no_placeholder.problem, WrittenPageProblem::Other);
  fs::remove_all(dir);
}

TEST(View, WritesTheFramesPage) {
  lockstep::fixtures::register_builtin_sims();
  const fs::path out = fs::temp_directory_path() / "lockstep-view-test-frames.html";
  const WrittenPage w = write_frames_page(kDuel, out.string(), 24);
  ASSERT_EQ(w.error, "");
  EXPECT_FALSE(w.wasm);
  EXPECT_EQ(w.stride, 1u);
  EXPECT_EQ(w.what, std::to_string(w.frames) + " frames, every tick");
  EXPECT_EQ(w.bytes, fs::file_size(out));
  EXPECT_EQ(written_page_report(w, true), "{\"ok\":true,\"file\":\"" + kDuel + "\",\"out\":\"" + out.string() +
                                              "\",\"page\":\"frames\",\"frames\":" + std::to_string(w.frames) +
                                              ",\"stride\":1,\"bytes\":" + std::to_string(w.bytes) + "}\n");
  fs::remove(out);
  EXPECT_EQ(w.problem, WrittenPageProblem::None);
  const WrittenPage unwritable = write_frames_page(kDuel, "/nonexistent/dir/x.html", 24);
  EXPECT_EQ(unwritable.error.rfind("/nonexistent/dir/x.html", 0), 0u) << unwritable.error;
  EXPECT_EQ(unwritable.problem, WrittenPageProblem::Other);
  EXPECT_EQ(unwritable.bytes, 0u);
}

TEST(View, ReportsServing) {
  EXPECT_EQ(serving_report("a.replay", "http://127.0.0.1:8023/", false),
            "serving a.replay at http://127.0.0.1:8023/ (Ctrl-C stops)\n");
  EXPECT_EQ(serving_report("a.replay", "http://127.0.0.1:8023/", true),
            "{\"ok\":true,\"file\":\"a.replay\",\"url\":\"http://127.0.0.1:8023/\"}\n");
  if (server_available()) {
    ViewFile none;
    EXPECT_EQ(serve_file("/nonexistent/a.replay", {}), load_view_file("/nonexistent/a.replay", none));
  } else {
    Session none;
    EXPECT_EQ(serve_file(kDuel, {}), "view: cannot serve: " + serve(none, "", {}));
  }
}

}  // namespace
