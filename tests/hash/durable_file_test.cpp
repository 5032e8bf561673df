// Output files that cannot be redirected (hash/durable_file.h): temp names are unique and
// created exclusively without following symlinks, an output that is an input is refused, and
// a FIFO without a reader fails at once. Each case is a reported repro.
#include <lockstep/hash/durable_file.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#if !defined(_WIN32)
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace {

namespace fs = std::filesystem;
using lockstep::hash::WriteFailure;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("lockstep-durable-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
// Entries of `dir` other than the ones named.
std::vector<std::string> others(const fs::path& dir, std::initializer_list<std::string> known) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (std::find(known.begin(), known.end(), n) == known.end()) out.push_back(n);
  }
  return out;
}

TEST(DurableFile, PlantedTempSymlinkIsNeverWrittenThrough) {
  // echo precious > victim.txt; ln -s victim.txt p.out.tmp; lockstep trace ... -o p.out
  const fs::path d = fresh_dir("planted");
  put(d / "victim.txt", "precious\n");
  fs::create_symlink("victim.txt", d / "p.out.tmp");
  WriteFailure failure;
  ASSERT_TRUE(lockstep::hash::write_file_atomically((d / "p.out").string(), "trace\n", 6, failure)) << failure.what;
  EXPECT_EQ(slurp(d / "victim.txt"), "precious\n");
  EXPECT_EQ(slurp(d / "p.out"), "trace\n");
  EXPECT_TRUE(fs::is_symlink(d / "p.out.tmp"));
  EXPECT_FALSE(fs::is_symlink(d / "p.out"));
  EXPECT_EQ(others(d, {"victim.txt", "p.out.tmp", "p.out"}), std::vector<std::string>{}) << "temp file left behind";
  fs::remove_all(d);
}

TEST(DurableFile, TempNamesAreUniqueAndExclusive) {
  const fs::path d = fresh_dir("unique");
  const std::string target = (d / "x.replay").string();
  std::string a, b, error;
  std::FILE* fa = lockstep::hash::create_file_beside(target, ".tmp", false, a, error);
  std::FILE* fb = lockstep::hash::create_file_beside(target, ".tmp", false, b, error);
  ASSERT_NE(fa, nullptr) << error;
  ASSERT_NE(fb, nullptr) << error;
  EXPECT_NE(a, b);
  const std::regex shape(std::regex_replace(target, std::regex(R"([.])"), R"(\.)") + R"(\.[A-Za-z0-9]{6}\.tmp)");
  EXPECT_TRUE(std::regex_match(a, shape)) << a;
  std::fclose(fa);
  std::fclose(fb);
  fs::remove_all(d);
}

TEST(DurableFile, PlainNameFirstButAnExistingEntryIsLeftAlone) {
  // The recorder's documented FILE.partial: used when free; a stale one (a crashed recording,
  // or a planted symlink) is never opened, and FILE.XXXXXX.partial is used instead.
  const fs::path d = fresh_dir("partial");
  const std::string target = (d / "r.replay").string();
  std::string created, error;
  std::FILE* f = lockstep::hash::create_file_beside(target, ".partial", true, created, error);
  ASSERT_NE(f, nullptr) << error;
  EXPECT_EQ(created, target + ".partial");
  std::fclose(f);
  fs::remove(created);

  put(d / "victim", "precious");
  fs::create_symlink("victim", target + ".partial");
  f = lockstep::hash::create_file_beside(target, ".partial", true, created, error);
  ASSERT_NE(f, nullptr) << error;
  EXPECT_NE(created, target + ".partial");
  EXPECT_EQ(created.size(), target.size() + 7 + 8);  // ".XXXXXX" + ".partial"
  std::fputs("data", f);
  std::fclose(f);
  EXPECT_EQ(slurp(d / "victim"), "precious");
  EXPECT_EQ(slurp(created), "data");
  fs::remove_all(d);
}

TEST(DurableFile, DestinationThatIsAnInputIsRefused) {
  const fs::path d = fresh_dir("same");
  const std::string in = (d / "in.replay").string();
  put(in, "recording");
  fs::create_hard_link(in, d / "hard.replay");
  fs::create_symlink("in.replay", d / "soft.replay");
  std::string error;
  EXPECT_FALSE(lockstep::hash::destination_is_not_an_input(in, {in}, error));
  EXPECT_EQ(error, "is the input; refusing to overwrite what is being read (write to another path)");
  EXPECT_FALSE(lockstep::hash::destination_is_not_an_input((d / "hard.replay").string(), {in}, error));
  EXPECT_EQ(error, "is the same file as the input " + in +
                       "; refusing to overwrite what is being read (write to another path)");
  EXPECT_FALSE(lockstep::hash::destination_is_not_an_input((d / "soft.replay").string(), {"other", in}, error));
  // Not yet existing, another file, stdout: fine.
  EXPECT_TRUE(lockstep::hash::destination_is_not_an_input((d / "new.trace").string(), {in}, error));
  put(d / "copy.replay", "recording");
  EXPECT_TRUE(lockstep::hash::destination_is_not_an_input((d / "copy.replay").string(), {in}, error));
  EXPECT_TRUE(lockstep::hash::destination_is_not_an_input("-", {in}, error));
  EXPECT_EQ(slurp(in), "recording");
  fs::remove_all(d);
}

#if !defined(_WIN32)
TEST(DurableFile, FifoWithoutReaderFailsAtOnce) {
  const fs::path d = fresh_dir("fifo");
  const std::string pipe = (d / "pipe").string();
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  WriteFailure failure;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(lockstep::hash::write_file_atomically(pipe, "x", 1, failure));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_EQ(failure.failed_path, pipe);
  EXPECT_EQ(failure.what, "FIFO has no reader (start the reading process first); not waiting for one");
  struct stat st {};
  ASSERT_EQ(::stat(pipe.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  fs::remove_all(d);
}
#endif

}  // namespace

// write_text_output: a tool's text output, "-" for stdout, else written atomically.
namespace {
TEST(DurableFile, TextOutputToAFileOrStandardOutput) {
  const fs::path d = fresh_dir("text-output");
  const fs::path p = d / "out.trace";
  EXPECT_EQ(lockstep::hash::write_text_output(p.string(), "0 00ff\n1 00fe\n"), "");
  std::ifstream in(p);
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_EQ(got.str(), "0 00ff\n1 00fe\n");
  testing::internal::CaptureStdout();
  EXPECT_EQ(lockstep::hash::write_text_output("-", "to stdout\n"), "");
  std::fflush(stdout);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "to stdout\n");
  const std::string missing = (d / "no-such-dir" / "out.trace").string();
  WriteFailure failure;
  ASSERT_FALSE(lockstep::hash::write_file_atomically(missing, "x", 1, failure));
  EXPECT_EQ(lockstep::hash::write_text_output(missing, "x"), failure.failed_path + ": " + failure.what);
  fs::remove_all(d);
}
}  // namespace
