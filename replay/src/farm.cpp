// Replay farms (farm.h): listing, sharding, parallel child processes, JUnit reports.
#include <lockstep/replay/farm.h>

#include <algorithm>
#include <chrono>
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

namespace lockstep::replay {

namespace fs = std::filesystem;

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

namespace {
constexpr const char* kShardExpected = "expected I/N with 1 <= I <= N <= 100000";

bool shard_parts(const std::string& text, std::uint32_t& index, std::uint32_t& count) {
  const auto slash = text.find('/');
  auto number = [](const std::string& s, std::uint32_t& v) {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    v = static_cast<std::uint32_t>(std::stoul(s));
    return true;
  };
  std::uint32_t i = 0, n = 0;
  if (slash == std::string::npos || !number(text.substr(0, slash), i) || !number(text.substr(slash + 1), n)) return false;
  if (n < 1 || n > 100000 || i < 1 || i > n) return false;
  index = i;
  count = n;
  return true;
}
}  // namespace

void parse_shard(const std::string& text, std::uint32_t& index, std::uint32_t& count) {
  if (!shard_parts(text, index, count)) throw std::runtime_error("shard '" + text + "': " + kShardExpected);
}

std::vector<std::string> shard_of(const std::vector<std::string>& sorted, std::uint32_t index, std::uint32_t count) {
  std::vector<std::string> mine;
  for (std::size_t k = 0; k < sorted.size(); ++k)
    if (k % count == index - 1) mine.push_back(sorted[k]);
  return mine;
}

std::string trace_output_for(const std::string& replay, const std::string& out_dir) {
  return (fs::path(out_dir) / fs::path(replay).filename().replace_extension(".trace")).generic_string();
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

std::string farm_summary_line(const FarmResult& r) {
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

std::string select_farm_replays(const std::vector<std::string>& inputs, const std::string& shard,
                                const std::string& out_dir, FarmSelection& out) {
  auto failed = [&](FarmSelectionProblem problem, std::string message, std::string detail = {}) {
    out.problem = problem;
    out.detail = std::move(detail);
    return message;
  };
  out.problem = FarmSelectionProblem::None;
  out.detail.clear();
  try {
    out.all = list_replays(inputs);
  } catch (const std::exception& e) {
    return failed(FarmSelectionProblem::Inputs, e.what());
  }
  if (!shard.empty() && !shard_parts(shard, out.shard, out.shards))
    return failed(FarmSelectionProblem::Shard, "shard '" + shard + "': " + kShardExpected, kShardExpected);
  if (out.all.empty()) {
    std::string names;
    for (const std::string& i : inputs) names += (names.empty() ? "" : ", ") + i;
    return failed(FarmSelectionProblem::NoReplays, "no *.replay files in " + names);
  }
  if (!out_dir.empty()) {
    // One output file per replay name: two replays called the same would overwrite each other.
    std::map<std::string, std::string> outputs;
    for (const std::string& r : out.all) {
      const auto [it, fresh] = outputs.emplace(trace_output_for(r, out_dir), r);
      if (!fresh) return failed(FarmSelectionProblem::SameOutput, it->second + " and " + r + " would both write " + it->first);
    }
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) return failed(FarmSelectionProblem::OutDir, "output directory " + out_dir + ": " + ec.message(), ec.message());
  }
  out.mine = shard_of(out.all, out.shard, out.shards);
  return {};
}

FarmCounts count_farm_results(const FarmRun& run) {
  FarmCounts c;
  for (const FarmResult& r : run.results) {
    if (r.code == 0) ++c.ok;
    else if (r.code == 1) ++c.mismatched;
    else ++c.bad;
  }
  return c;
}

namespace {

std::uint64_t wall_ns() {
  // lockstep: allow(time) farm durations are reported to people and CI, never simulated
  const auto since = std::chrono::steady_clock::now().time_since_epoch();
  // lockstep: allow(time) the same reading, converted to nanoseconds
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(since).count());
}

#if LOCKSTEP_FARM_SPAWN
std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

// One child: stdout and stderr both into `out_path`. Returns 0 or the errno of posix_spawn.
int spawn_child(const std::string& exe, const FarmJob& job, const std::string& out_path, pid_t& pid) {
  std::vector<std::string> args{exe};
  args.insert(args.end(), job.args.begin(), job.args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  const int err = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return err;
}

class ChildPool {
 public:
  ChildPool(const std::vector<FarmJob>& jobs, std::string exe, std::vector<FarmResult>& results,
            const std::function<void(std::size_t)>& on_done)
      : jobs_(jobs), exe_(std::move(exe)), results_(results), on_done_(on_done), out_paths_(jobs.size()),
        started_(jobs.size()) {}

  void run(std::uint32_t parallel) {
    while (next_ < jobs_.size() || !live_.empty()) {
      while (live_.size() < parallel && next_ < jobs_.size()) start(next_++);
      if (!live_.empty()) reap_one();
    }
  }

 private:
  void start(std::size_t i) {
    const fs::path tmp = fs::temp_directory_path();
    out_paths_[i] = (tmp / ("lockstep-farm-" + std::to_string(::getpid()) + "-" + std::to_string(i) + ".out")).string();
    started_[i] = wall_ns();
    pid_t pid = 0;
    if (const int err = spawn_child(exe_, jobs_[i], out_paths_[i], pid); err != 0) {
      results_[i].code = 2;
      results_[i].output = "error: cannot start " + exe_ + ": " + std::generic_category().message(err) + "\n";
      finish(i);
      return;
    }
    live_[pid] = i;
  }

  void reap_one() {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) return;
      // No children left to wait for (should not happen): report the rest as errors.
      for (const auto& [p, i] : live_) {
        results_[i].code = 2;
        results_[i].output += "error: lost track of the child process\n";
        finish(i);
      }
      live_.clear();
      return;
    }
    const auto it = live_.find(pid);
    if (it == live_.end()) return;
    const std::size_t i = it->second;
    live_.erase(it);
    if (WIFEXITED(status)) {
      results_[i].code = WEXITSTATUS(status);
    } else {
      results_[i].code = 2;
      results_[i].output += "error: crashed (signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0) + ")\n";
    }
    finish(i);
  }

  void finish(std::size_t i) {
    std::ifstream f(out_paths_[i], std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    results_[i].output += ss.str();
    std::error_code ec;
    fs::remove(out_paths_[i], ec);
    results_[i].elapsed_ns = wall_ns() - started_[i];
    results_[i].done = true;
    on_done_(i);
  }

  const std::vector<FarmJob>& jobs_;
  const std::string exe_;
  std::vector<FarmResult>& results_;
  const std::function<void(std::size_t)>& on_done_;
  std::vector<std::string> out_paths_;
  std::vector<std::uint64_t> started_;
  std::map<pid_t, std::size_t> live_;
  std::size_t next_ = 0;
};
#endif

// Seconds with three decimals from nanoseconds, rounded to the nearest millisecond.
std::string seconds_text(std::uint64_t ns) {
  const std::uint64_t ms = (ns + 500000) / 1000000;
  std::string frac = std::to_string(ms % 1000);
  return std::to_string(ms / 1000) + "." + std::string(3 - frac.size(), '0') + frac;
}

}  // namespace

bool farm_spawns_processes(const std::string& executable) {
#if LOCKSTEP_FARM_SPAWN
  return !executable.empty() || !self_exe().empty();
#else
  (void)executable;
  return false;
#endif
}

FarmRun run_farm_jobs(const std::vector<FarmJob>& jobs, std::uint32_t parallel, const std::string& executable,
                      const std::function<void(std::size_t, const FarmResult&)>& on_ready) {
  FarmRun run;
  run.results.resize(jobs.size());
  const std::uint64_t t0 = wall_ns();
  std::size_t reported = 0;
  const std::function<void(std::size_t)> report_ready = [&](std::size_t) {
    while (reported < run.results.size() && run.results[reported].done) {
      on_ready(reported, run.results[reported]);
      ++reported;
    }
  };
#if LOCKSTEP_FARM_SPAWN
  const std::string exe = executable.empty() ? self_exe() : executable;
  if (!exe.empty()) {
    ChildPool(jobs, exe, run.results, report_ready).run(std::max<std::uint32_t>(parallel, 1));
    run.spawned = true;
  }
#else
  (void)parallel;
  (void)executable;
#endif
  if (!run.spawned) {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const std::uint64_t start = wall_ns();
      run.results[i].code = jobs[i].in_process();
      run.results[i].elapsed_ns = wall_ns() - start;
      run.results[i].done = true;
      report_ready(i);
    }
  }
  run.elapsed_ns = wall_ns() - t0;
  return run;
}

std::string farm_junit(const std::string& suite, const std::vector<std::string>& names, const FarmRun& run) {
  std::size_t failures = 0, errors = 0;
  for (const FarmResult& r : run.results) {
    if (r.code == 1) ++failures;
    else if (r.code != 0) ++errors;
  }
  const std::string total = seconds_text(run.elapsed_ns);
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts = " tests=\"" + std::to_string(run.results.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"" + std::to_string(errors) + "\"";
  x += "<testsuites name=\"" + xml_escape(suite) + "\"" + counts + " time=\"" + total + "\">\n";
  x += "  <testsuite name=\"" + xml_escape(suite) + "\"" + counts + " skipped=\"0\" time=\"" + total + "\">\n";
  std::string classname = suite;
  std::replace(classname.begin(), classname.end(), ' ', '.');
  for (std::size_t i = 0; i < run.results.size(); ++i) {
    const FarmResult& r = run.results[i];
    x += "    <testcase classname=\"" + xml_escape(classname) + "\" name=\"" + xml_escape(names[i]) + "\" time=\"" +
         seconds_text(r.elapsed_ns) + "\">\n";
    if (r.code == 1) {
      x += "      <failure type=\"desync\" message=\"" + xml_escape(farm_summary_line(r)) + "\">" + xml_escape(r.output) +
           "</failure>\n";
    } else if (r.code != 0) {
      x += "      <error type=\"exit-" + std::to_string(r.code) + "\" message=\"" + xml_escape(farm_summary_line(r)) +
           "\">" + xml_escape(r.output) + "</error>\n";
    }
    if (!r.output.empty()) x += "      <system-out>" + xml_escape(r.output) + "</system-out>\n";
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace lockstep::replay
