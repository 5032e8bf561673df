// Replay farms (farm.h): listing, sharding, parallel child processes, JUnit reports.
// Floating point here is display-only (durations in the summary and the JUnit report).
#include "farm.h"

#include "common.h"

#include <lockstep/hash/durable_file.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>

#if defined(__linux__) && !defined(__EMSCRIPTEN__) && __has_include(<spawn.h>)
#define LOCKSTEP_FARM_SPAWN 1
#include <cerrno>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;
#endif

namespace lockstep::cli {

namespace fs = std::filesystem;

void add_farm_options(CLI::App& app, FarmOptions& o, bool verify) {
  app.add_option("--jobs,-j", o.jobs, "Replays checked in parallel (child processes; farm mode)")
      ->check(CLI::Range(1u, 256u));
  app.add_option("--shard", o.shard,
                 "Only shard I of N (1-based): replay k of the byte-wise sorted list belongs to shard (k mod N)+1");
  app.add_option("--junit", o.junit, "Write a JUnit XML report, one test case per replay");
  if (verify) {
    app.add_flag("--traces-beside", o.traces_beside,
                 "Compare each NAME.replay with the golden trace NAME.trace beside it (a missing one is an error)");
  } else {
    app.add_option("--out-dir", o.out_dir, "Write one NAME.trace per replay into this directory (farm mode)");
  }
}

bool is_farm(const std::vector<std::string>& inputs, const FarmOptions& o) {
  if (inputs.size() != 1 || o.jobs != 1 || !o.shard.empty() || !o.junit.empty() || o.traces_beside || !o.out_dir.empty())
    return true;
  std::error_code ec;
  return fs::is_directory(inputs.front(), ec);
}

std::vector<std::string> list_replays(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      fs::recursive_directory_iterator it(in, fs::directory_options::skip_permission_denied, ec), end;
      if (ec) throw std::runtime_error(in + ": cannot list: " + ec.message());
      for (; it != end; it.increment(ec)) {
        if (ec) throw std::runtime_error(in + ": cannot list: " + ec.message());
        if (it->is_regular_file(ec) && it->path().extension() == ".replay") out.push_back(it->path().generic_string());
      }
    } else if (fs::exists(in, ec)) {
      out.push_back(fs::path(in).generic_string());
    } else {
      throw std::runtime_error(in + ": no such file or directory");
    }
  }
  // Byte-wise order (std::string's <): the same list on every machine and file system.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void parse_shard(const std::string& text, std::uint32_t& index, std::uint32_t& count) {
  const auto slash = text.find('/');
  auto number = [&](const std::string& s) -> std::uint32_t {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error("--shard '" + text + "': expected I/N with 1 <= I <= N <= 100000");
    return static_cast<std::uint32_t>(std::stoul(s));
  };
  if (slash == std::string::npos) number("");
  index = number(text.substr(0, slash));
  count = number(text.substr(slash + 1));
  if (count < 1 || count > 100000 || index < 1 || index > count)
    throw std::runtime_error("--shard '" + text + "': expected I/N with 1 <= I <= N <= 100000");
}

std::vector<std::string> shard_of(const std::vector<std::string>& sorted, std::uint32_t index, std::uint32_t count) {
  std::vector<std::string> mine;
  for (std::size_t k = 0; k < sorted.size(); ++k)
    if (k % count == index - 1) mine.push_back(sorted[k]);
  return mine;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out += static_cast<char>(c);
    }
  }
  return out;
}

std::string trace_output_for(const std::string& replay, const std::string& out_dir) {
  return (fs::path(out_dir) / fs::path(replay).filename().replace_extension(".trace")).generic_string();
}

namespace {

struct Result {
  int code = kExitBadInput;
  std::string output;  // the replay's stdout + stderr (child processes only)
  double seconds = 0;  // display only
  bool done = false;
};

std::string summary_line(const Result& r) {
  // The line that says what went wrong: a DESYNC/MISMATCH/error line, else the last line.
  std::istringstream in(r.output);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("DESYNC") != std::string::npos || line.find("MISMATCH") != std::string::npos ||
        line.find("error") != std::string::npos)
      return line;
    if (!line.empty()) last = line;
  }
  if (!last.empty()) return last;
  return "exit " + std::to_string(r.code);
}

#if LOCKSTEP_FARM_SPAWN
std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

// Runs the tasks as child processes of this executable, at most `jobs` at a time; calls
// `on_done(i)` as each finishes. False when this executable cannot be found.
bool run_children(const std::vector<FarmTask>& tasks, std::uint32_t jobs, std::vector<Result>& results,
                  const std::function<void(std::size_t)>& on_done) {
  const std::string exe = self_exe();
  if (exe.empty()) return false;
  const fs::path tmp = fs::temp_directory_path();
  std::map<pid_t, std::size_t> live;
  std::vector<std::string> out_paths(tasks.size());
  std::vector<std::chrono::steady_clock::time_point> started(tasks.size());
  std::size_t next = 0;
  auto finish = [&](std::size_t i) {
    std::ifstream f(out_paths[i], std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    results[i].output += ss.str();
    std::error_code ec;
    fs::remove(out_paths[i], ec);
    results[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started[i]).count();
    results[i].done = true;
    on_done(i);
  };
  while (next < tasks.size() || !live.empty()) {
    while (live.size() < jobs && next < tasks.size()) {
      const std::size_t i = next++;
      out_paths[i] = (tmp / ("lockstep-farm-" + std::to_string(::getpid()) + "-" + std::to_string(i) + ".out")).string();
      std::vector<std::string> args;
      args.push_back(exe);
      args.insert(args.end(), tasks[i].args.begin(), tasks[i].args.end());
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      posix_spawn_file_actions_t fa;
      posix_spawn_file_actions_init(&fa);
      posix_spawn_file_actions_addopen(&fa, 1, out_paths[i].c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      posix_spawn_file_actions_adddup2(&fa, 1, 2);
      started[i] = std::chrono::steady_clock::now();
      pid_t pid = 0;
      const int err = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
      posix_spawn_file_actions_destroy(&fa);
      if (err != 0) {
        results[i].code = kExitBadInput;
        results[i].output = "error: cannot start " + exe + ": " + std::generic_category().message(err) + "\n";
        finish(i);
        continue;
      }
      live[pid] = i;
    }
    if (live.empty()) continue;
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      // No children left to wait for (should not happen): report the rest as errors.
      for (const auto& [p, i] : live) {
        results[i].code = kExitBadInput;
        results[i].output += "error: lost track of the child process\n";
        finish(i);
      }
      live.clear();
      continue;
    }
    const auto it = live.find(pid);
    if (it == live.end()) continue;
    const std::size_t i = it->second;
    live.erase(it);
    if (WIFEXITED(status)) {
      results[i].code = WEXITSTATUS(status);
    } else {
      results[i].code = kExitBadInput;
      results[i].output += "error: crashed (signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0) + ")\n";
    }
    finish(i);
  }
  return true;
}
#endif

bool write_junit(const std::string& path, const std::string& suite, const std::vector<std::string>& names,
                 const std::vector<Result>& results, double total_seconds, std::string& error) {
  std::size_t failures = 0, errors = 0;
  for (const Result& r : results) {
    if (r.code == kExitMismatch) ++failures;
    else if (r.code != kExitOk) ++errors;
  }
  auto secs = [](double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", s);  // display only
    return std::string(buf);
  };
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts = " tests=\"" + std::to_string(results.size()) + "\" failures=\"" + std::to_string(failures) +
                             "\" errors=\"" + std::to_string(errors) + "\"";
  x += "<testsuites name=\"" + xml_escape(suite) + "\"" + counts + " time=\"" + secs(total_seconds) + "\">\n";
  x += "  <testsuite name=\"" + xml_escape(suite) + "\"" + counts + " skipped=\"0\" time=\"" + secs(total_seconds) + "\">\n";
  std::string classname = suite;
  std::replace(classname.begin(), classname.end(), ' ', '.');
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    x += "    <testcase classname=\"" + xml_escape(classname) + "\" name=\"" + xml_escape(names[i]) + "\" time=\"" +
         secs(r.seconds) + "\">\n";
    if (r.code == kExitMismatch) {
      x += "      <failure type=\"desync\" message=\"" + xml_escape(summary_line(r)) + "\">" + xml_escape(r.output) +
           "</failure>\n";
    } else if (r.code != kExitOk) {
      x += "      <error type=\"exit-" + std::to_string(r.code) + "\" message=\"" + xml_escape(summary_line(r)) + "\">" +
           xml_escape(r.output) + "</error>\n";
    }
    if (!r.output.empty()) x += "      <system-out>" + xml_escape(r.output) + "</system-out>\n";
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(path, x.data(), x.size(), failure)) {
    error = failure.failed_path + ": " + failure.what;
    return false;
  }
  return true;
}

}  // namespace

int run_farm(const std::string& command, const std::vector<std::string>& inputs, const FarmOptions& options,
             const std::function<FarmTask(const std::string& replay)>& make_task) {
  const std::string tool_name(tool().name);
  const std::string suite = tool_name + " " + command;
  std::vector<std::string> all;
  std::uint32_t shard = 1, shards = 1;
  try {
    all = list_replays(inputs);
    if (!options.shard.empty()) parse_shard(options.shard, shard, shards);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool_name.c_str(), e.what());
    return kExitBadInput;
  }
  if (all.empty()) {
    std::fprintf(stderr, "%s: error: no *.replay files in %s\n", tool_name.c_str(), join(inputs).c_str());
    return kExitBadInput;
  }
  if (!options.out_dir.empty()) {
    // One output file per replay name: two replays called the same would overwrite each other.
    std::map<std::string, std::string> outputs;
    for (const std::string& r : all) {
      const auto [it, fresh] = outputs.emplace(trace_output_for(r, options.out_dir), r);
      if (!fresh) {
        std::fprintf(stderr, "%s: error: %s and %s would both write %s\n", tool_name.c_str(), it->second.c_str(),
                     r.c_str(), it->first.c_str());
        return kExitBadInput;
      }
    }
  }
  if (!options.out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(options.out_dir, ec);
    if (ec) {
      std::fprintf(stderr, "%s: error: --out-dir %s: %s\n", tool_name.c_str(), options.out_dir.c_str(), ec.message().c_str());
      return kExitBadInput;
    }
  }
  if (!options.junit.empty())
    if (int rc = check_output(options.junit, false, all); rc != kExitOk) return rc;
  const std::vector<std::string> mine = shard_of(all, shard, shards);
  std::vector<FarmTask> tasks;
  tasks.reserve(mine.size());
  for (const std::string& r : mine) tasks.push_back(make_task(r));

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Result> results(mine.size());
  std::size_t printed = 0;
  auto print_ready = [&](std::size_t) {
    // Outputs appear in sorted order whatever order the processes finish in.
    while (printed < results.size() && results[printed].done) {
      const Result& r = results[printed];
      std::fputs(r.output.c_str(), stdout);
      if (!r.output.empty() && r.output.back() != '\n') std::fputc('\n', stdout);
      std::fflush(stdout);
      ++printed;
    }
  };
  bool ran = false;
#if LOCKSTEP_FARM_SPAWN
  ran = run_children(tasks, options.jobs, results, print_ready);
#else
  // Without child processes (Windows, wasm) in-process tasks print as they run; nothing to reorder.
  (void)print_ready;
#endif
  if (!ran) {
    if (options.jobs > 1)
      std::fprintf(stderr, "%s: warning: --jobs needs child processes, unavailable on this platform; running serially\n",
                   tool_name.c_str());
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      results[i].code = tasks[i].in_process();
      results[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      results[i].done = true;
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::size_t ok = 0, mismatched = 0, bad = 0;
  for (const Result& r : results) {
    if (r.code == kExitOk) ++ok;
    else if (r.code == kExitMismatch) ++mismatched;
    else ++bad;
  }
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].code != kExitOk)
      std::printf("FAILED %s (exit %d): %s\n", mine[i].c_str(), results[i].code, summary_line(results[i]).c_str());
  std::printf("%s: %zu replays", suite.c_str(), mine.size());
  if (shards > 1) std::printf(" (shard %u/%u of %zu)", shard, shards, all.size());
  std::printf(": %zu ok, %zu mismatched, %zu bad input; %.2f s, %u jobs\n", ok, mismatched, bad, total, options.jobs);
  if (!options.junit.empty()) {
    std::string error;
    if (!write_junit(options.junit, suite, mine, results, total, error)) {
      std::fprintf(stderr, "%s: error: --junit %s\n", tool_name.c_str(), error.c_str());
      return kExitBadInput;
    }
  }
  if (bad > 0) return kExitBadInput;
  return mismatched > 0 ? kExitMismatch : kExitOk;
}

}  // namespace lockstep::cli
