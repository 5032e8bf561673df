// viewer/page.h, the emscripten page: template lookup and filling, exact bytes.
#include <lockstep/viewer/page.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

TEST(WasmPage, FillsThePlaceholderOnceWithNameAndBase64) {
  EXPECT_TRUE(lockstep::viewer::is_wasm_page_template("<p>@LOCKSTEP_DATA@</p>"));
  EXPECT_FALSE(lockstep::viewer::is_wasm_page_template("<p></p>"));
  EXPECT_FALSE(lockstep::viewer::is_wasm_page_template("@LOCKSTEP_DATA@@LOCKSTEP_DATA@"));
  const std::byte bytes[] = {std::byte{'M'}, std::byte{'a'}, std::byte{'n'}, std::byte{'y'}};
  EXPECT_EQ(lockstep::viewer::fill_wasm_page("<script>x=@LOCKSTEP_DATA@;</script>", "a</script>\".replay", bytes),
            "<script>x={\"name\":\"a\\u003c/script>\\\".replay\",\"bytes\":\"TWFueQ==\"};</script>");
  EXPECT_EQ(lockstep::viewer::fill_wasm_page("@LOCKSTEP_DATA@", "f", std::span<const std::byte>(bytes, 3)),
            "{\"name\":\"f\",\"bytes\":\"TWFu\"}");
}

TEST(WasmPage, AnExplicitTemplateIsTheOnlyPlaceLooked) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "lockstep-wasm-page-test.html";
  std::ofstream(p) << "@LOCKSTEP_DATA@";
  std::vector<std::string> looked;
  EXPECT_EQ(lockstep::viewer::find_wasm_page_template(p.string(), looked), p.string());
  EXPECT_EQ(looked, std::vector<std::string>{p.string()});
  std::filesystem::remove(p);
  EXPECT_EQ(lockstep::viewer::find_wasm_page_template(p.string(), looked), "");
  EXPECT_EQ(looked, std::vector<std::string>{p.string()});
}

TEST(WasmPage, ReadsAndChecksATemplate) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "lockstep-wasm-page-read-test.html";
  std::ofstream(p) << "<p>@LOCKSTEP_DATA@</p>";
  std::string page;
  EXPECT_EQ(lockstep::viewer::read_wasm_page_template(p.string(), page), "");
  EXPECT_EQ(page, "<p>@LOCKSTEP_DATA@</p>");
  std::ofstream(p) << "<p></p>";
  EXPECT_EQ(lockstep::viewer::read_wasm_page_template(p.string(), page),
            p.string() + ": not a viewer page template (expected exactly one @LOCKSTEP_DATA@)");
  std::filesystem::remove(p);
  EXPECT_FALSE(lockstep::viewer::read_wasm_page_template(p.string(), page).empty());
}

TEST(NativePage, SaysWhatItHolds) {
  lockstep::viewer::Embedded e;
  e.ticks = 1;
  EXPECT_EQ(lockstep::viewer::describe_embedded(e, 24), "1 frame");
  e.ticks = 600;
  EXPECT_EQ(lockstep::viewer::describe_embedded(e, 24), "600 frames, every tick");
  e.ticks = 300;
  e.stride = 4;
  EXPECT_EQ(lockstep::viewer::describe_embedded(e, 2),
            "300 frames, keyframes every 4 ticks (limit 2 MiB; a served page shows every tick)");
}

}  // namespace
