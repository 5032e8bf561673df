// Self-test of the determinism guard: scripts/check-determinism (any paths, every rule) and
// its repository wrapper scripts/check-no-float (ctest no_float_on_sim_paths). Each must
// demonstrably FAIL on violations with file:line and the rule, accept comments and
// literals, and exempt nothing but a reviewed `lockstep: allow(rule) reason` marker.
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

#ifdef LOCKSTEP_SOURCE_DIR
fs::path repo_root() { return fs::path(LOCKSTEP_SOURCE_DIR); }
#else
fs::path repo_root() { return fs::path(__FILE__).parent_path().parent_path().parent_path(); }
#endif

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
  int run(std::string* output) const { return run_script("check-no-float", "'" + dir.string() + "'", output); }
  // Runs scripts/check-determinism from inside the tree with `args` (relative paths).
  int run_determinism(const std::string& args, std::string* output) const {
    return run_script("check-determinism", args, output, true);
  }
  int run_script(const std::string& script, const std::string& args, std::string* output, bool in_tree = false) const {
    const fs::path out = dir / "guard.out";
    const std::string cmd = std::string(in_tree ? "cd '" + dir.string() + "' && " : "") + "bash '" +
                            (repo_root() / "scripts" / script).string() + "' " + args + " > '" + out.string() +
                            "' 2>&1";
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
          "double shown = 0;  // lockstep: allow(float) display only, never fed back\n"
          "// lockstep: allow(float) display only: the marker may sit on the line above\n"
          "double v = to_double(x);\n");
  std::string out;
  EXPECT_EQ(t.run(&out), 0) << out;
}

TEST(NoFloatGuard, NoTextualExemptions) {
  // The old exemptions (a `display-only` comment, any line naming to_double) are gone.
  Tree t;
  t.write("kernel/src/a.cpp", "double shown = 0;  // display-only\nint x;\ndouble v = to_double(x);\n");
  std::string out;
  EXPECT_EQ(t.run(&out), 1) << out;
  EXPECT_NE(out.find("kernel/src/a.cpp:1: [float]"), std::string::npos) << out;
  EXPECT_NE(out.find("kernel/src/a.cpp:3: [float]"), std::string::npos) << out;
}

TEST(NoFloatGuard, MarkerNamesTheRuleAndNeedsAReason) {
  Tree t;
  t.write("kernel/src/a.cpp",
          "double a = 0;  // lockstep: allow(getenv) wrong rule\n"
          "double b = 0;  // lockstep: allow(float)\n"
          "int c = 0;  // lockstep: allow(float) marker on a code line\n"
          "double d = 0;\n");
  std::string out;
  EXPECT_EQ(t.run(&out), 1) << out;
  EXPECT_NE(out.find("kernel/src/a.cpp:1: [float]"), std::string::npos) << out;
  EXPECT_NE(out.find("kernel/src/a.cpp:2: [marker]"), std::string::npos) << out;
  // A marker on a code line covers that line only, not the next one.
  EXPECT_NE(out.find("kernel/src/a.cpp:4: [float]"), std::string::npos) << out;
}

// Each rule of check-determinism, planted in a game's sim file outside any lockstep folder.
TEST(DeterminismGuard, ReportsEveryRuleWithFileLineAndReason) {
  Tree t;
  t.write("game/src/sim.cpp",
          "#include <unordered_map>\n"                                   // 1
          "std::unordered_map<int, int> by_id;\n"                        // 2
          "const char* home = std::getenv(\"HOME\");\n"                  // 3
          "int r = rand();\n"                                            // 4
          "auto now = std::chrono::steady_clock::now();\n"               // 5
          "long t0 = time(nullptr);\n"                                   // 6
          "int counter() { static int n = 0; return ++n; }\n"           // 7
          "auto key = reinterpret_cast<std::uintptr_t>(&by_id);\n"       // 8
          "float speed = 1;\n"                                           // 9
          "std::size_t h = std::hash<int>{}(3);\n"                       // 10
          "static const int kLimit = 3; static constexpr int kMax = 4;\n"  // 11: immutable, fine
          "static int helper(int x);\n"                                  // 12: a function, fine
          "int clock_hand = obj.time();\n");                             // 13: a member named time
  std::string out;
  EXPECT_EQ(t.run_determinism("game", &out), 1) << out;
  const char* expected[] = {"game/src/sim.cpp:1: [unordered]", "game/src/sim.cpp:2: [unordered]",
                            "game/src/sim.cpp:3: [getenv]",    "game/src/sim.cpp:4: [rand]",
                            "game/src/sim.cpp:5: [time]",      "game/src/sim.cpp:6: [time]",
                            "game/src/sim.cpp:7: [static]",    "game/src/sim.cpp:8: [pointer-cast]",
                            "game/src/sim.cpp:9: [float]",     "game/src/sim.cpp:10: [hash]"};
  for (const char* e : expected) EXPECT_NE(out.find(e), std::string::npos) << e << "\n" << out;
  for (const char* clean : {"sim.cpp:11:", "sim.cpp:12:", "sim.cpp:13:"})
    EXPECT_EQ(out.find(clean), std::string::npos) << clean << "\n" << out;
  EXPECT_NE(out.find("rule 4"), std::string::npos) << out;  // the one-line reason names the rule
}

TEST(DeterminismGuard, StaticInsideTemplateArgumentsIsStillMutable) {
  Tree t;
  t.write("sim.h", "void f() {\n  static std::vector<const int*> cache;\n  static std::atomic<int> n{0};\n}\n");
  std::string out;
  EXPECT_EQ(t.run_determinism("sim.h", &out), 1) << out;
  EXPECT_NE(out.find("sim.h:2: [static]"), std::string::npos) << out;
  EXPECT_NE(out.find("sim.h:3: [static]"), std::string::npos) << out;
}

TEST(DeterminismGuard, RulesCanBeSelectedAndUsageErrorsExitTwo) {
  Tree t;
  t.write("a.cpp", "float f;\nint r = rand();\n");
  std::string out;
  EXPECT_EQ(t.run_determinism("--rules rand a.cpp", &out), 1) << out;
  EXPECT_NE(out.find("a.cpp:2: [rand]"), std::string::npos) << out;
  EXPECT_EQ(out.find("[float]"), std::string::npos) << out;
  EXPECT_EQ(t.run_determinism("--rules nosuchrule a.cpp", &out), 2) << out;
  EXPECT_EQ(t.run_determinism("missing.cpp", &out), 2) << out;
  EXPECT_EQ(t.run_determinism("", &out), 2) << out;
  t.write("clean/b.cpp", "int x = 0;\n");
  EXPECT_EQ(t.run_determinism("clean", &out), 0) << out;
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
