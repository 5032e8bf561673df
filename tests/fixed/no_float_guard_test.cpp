// Self-test of scripts/check-no-float (the determinism rule 1 guard that ctest runs as
// no_float_on_sim_paths): it must demonstrably FAIL on violations, and accept comments,
// literals and display-only lines.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

fs::path repo_root() { return fs::path(__FILE__).parent_path().parent_path().parent_path(); }

struct Tree {
  fs::path dir;
  Tree() {
    dir = fs::temp_directory_path() /
          ("lockstep_nofloat_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Tree() { fs::remove_all(dir); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel) << text;
  }
  // Runs the guard; returns the exit status and captures its output.
  int run(std::string* output) const {
    const fs::path out = dir / "guard.out";
    const std::string cmd = "bash '" + (repo_root() / "scripts" / "check-no-float").string() + "' '" + dir.string() +
                            "' > '" + out.string() + "' 2>&1";
    const int st = std::system(cmd.c_str());
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    *output = ss.str();
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
};

}  // namespace

TEST(NoFloatGuard, ScriptExists) {
  const fs::path script = repo_root() / "scripts" / "check-no-float";
  ASSERT_TRUE(fs::exists(script)) << script;
  EXPECT_NE(fs::status(script).permissions() & fs::perms::owner_exec, fs::perms::none) << "not executable";
}

TEST(NoFloatGuard, FailsOnViolationsAndListsFileLine) {
  Tree t;
  t.write("kernel/src/ok.cpp", "int x = 0;\n");
  t.write("kernel/src/bad.cpp", "int a;\nfloat speed = 0;\n");
  t.write("hash/include/lockstep/hash/bad.h", "struct S { long double d; };\n");
  t.write("replay/src/r.cpp", "auto v = static_cast<double>(1);\n");
  t.write("fixtures/game/sim.cpp", "int y;\n\n\ndouble z;\n");
  std::string out;
  EXPECT_EQ(t.run(&out), 1) << out;
  EXPECT_NE(out.find("kernel/src/bad.cpp:2:"), std::string::npos) << out;
  EXPECT_NE(out.find("hash/include/lockstep/hash/bad.h:1:"), std::string::npos) << out;
  EXPECT_NE(out.find("replay/src/r.cpp:1:"), std::string::npos) << out;
  EXPECT_NE(out.find("fixtures/game/sim.cpp:4:"), std::string::npos) << out;
  EXPECT_EQ(out.find("ok.cpp"), std::string::npos) << out;
}

TEST(NoFloatGuard, IgnoresCommentsLiteralsAndDisplayOnly) {
  Tree t;
  t.write("kernel/src/clean.cpp",
          "// a double in a comment\n"
          "/* float in a block\n"
          "   comment over double lines */\n"
          "const char* s = \"no float here\";\n"
          "char c = 'f'; int n = 1'000;\n"
          "auto r = R\"(float in a raw\n"
          "double string)\";\n"
          "int doubled = 0, float_count = 0; bool b = std::is_floating_point_v<int>;\n"
          "double shown = 0;  // display-only\n"
          "double v = to_double(x);\n");
  std::string out;
  EXPECT_EQ(t.run(&out), 0) << out;
}

TEST(NoFloatGuard, OtherDirectoriesAreNotScanned) {
  Tree t;
  t.write("cli/stats.cpp", "double mean = 0;\n");
  t.write("tests/fixed/t.cpp", "double ref = 0;\n");
  t.write("kernel/src/x.cpp", "int x;\n");
  std::string out;
  EXPECT_EQ(t.run(&out), 0) << out;
}
// The real tree is checked by the ctest no_float_on_sim_paths (tests/CMakeLists.txt).
