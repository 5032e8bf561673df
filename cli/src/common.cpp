// Shared plumbing of the subcommands (common.h). Floats: display/statistics only.
#include "common.h"

#include <lockstep/inspect/tool_report.h>
#include <lockstep/replay/step_recording.h>

#include <cstdio>
#include <iterator>

#if __has_include(<unistd.h>)
#include <unistd.h>
#define LOCKSTEP_CLI_HAVE_ISATTY 1
#endif

namespace lockstep::cli {

// ---- reporting -------------------------------------------------------------------------

int report_error(bool json, int code, const std::string& message, const replay::ReplayStatus* st) {
  std::fprintf(stderr, "%s: error: %s\n", tool_name().c_str(), inspect::terminal_safe(message).c_str());
  if (json) {
    Json j;
    j.begin().field("ok", false).field("exit", code).field("error", message);
    if (st != nullptr) {
      j.field("error_code", to_string(st->code)).field("offset", st->offset);
      if (st->has_tick) j.field("tick", st->tick);
    }
    j.end();
    std::printf("%s\n", j.str().c_str());
  }
  return code;
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) std::fprintf(stderr, "%s: warning: %s\n", tool_name().c_str(), w.c_str());
}

std::string hex(std::uint64_t v) { return to_hex(v); }

std::string bot_match_error(const replay::BotMatch& match, const replay::Sim* sim, const std::string& why) {
  if (sim != nullptr && match.params.size() > std::size(replay::SimConfig{}.params))
    return "--param takes at most " + std::to_string(std::size(replay::SimConfig{}.params)) + " values";
  return why;
}

bool stderr_is_tty() noexcept {
#ifdef LOCKSTEP_CLI_HAVE_ISATTY
  return ::isatty(2) != 0;
#else
  return false;
#endif
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string s;
  for (const std::string& p : parts) {
    if (!s.empty()) s += sep;
    s += p;
  }
  return s;
}

// ---- replays ---------------------------------------------------------------------------

int load_replay(const std::string& path, bool json, Loaded& out) {
  replay::OpenFailure why;
  bool opened = false;
  if (path.empty() || path == kEmbedded) {
    out.name = std::string(tool().default_replay_name);
    if (tool().default_replay.empty())
      return report_error(json, kExitBadInput, std::string(tool().name) + " has no default replay: give a replay file");
    opened = replay::open_replay(tool().default_replay, out.name, out, why);
  } else {
    opened = replay::open_replay(path, out, why);
  }
  if (out.decoded) print_warnings(out.replay.warnings);
  if (opened) return kExitOk;
  return report_error(json, kExitBadInput, why.message, why.file ? &*why.file : nullptr);
}

namespace {
class Progress {
 public:
  Progress(bool on, std::uint64_t total) : on_(on && total > 0), total_(total) {}
  void update(std::uint64_t done) {
    if (!on_) return;
    const std::uint64_t pct = done * 100 / total_;
    if (pct == last_ && done != total_) return;
    last_ = pct;
    char bar[41];
    const std::uint64_t fill = done * 40 / total_;
    for (std::uint64_t i = 0; i < 40; ++i) bar[i] = i < fill ? '#' : '.';
    bar[40] = '\0';
    std::fprintf(stderr, "\r[%s] %3llu%% tick %llu/%llu", bar, static_cast<unsigned long long>(pct),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_));
    std::fflush(stderr);
  }
  ~Progress() {
    if (on_) std::fprintf(stderr, "\r%70s\r", "");
  }

 private:
  bool on_;
  std::uint64_t total_;
  std::uint64_t last_ = ~std::uint64_t{0};
};
}  // namespace

int replay_frames(const Loaded& loaded, replay::Runner& runner, bool progress, TickStats* stats,
                  const std::function<int(std::uint64_t, const StateHash&)>& on_tick) {
  Progress bar(progress, loaded.replay.frame_count());
  int rc = kExitOk;
  const replay::SteppedRecording run = replay::step_recording(
      runner, *loaded.sim, loaded.replay, loaded.name,
      [&](std::uint64_t tick, const StateHash& hash) {
        rc = on_tick(tick, hash);
        if (rc == kExitOk && tick != 0) bar.update(tick);
        return rc == kExitOk;
      },
      stats != nullptr ? &stats->step_ns : nullptr);
  if (!run.error.empty()) return report_error(false, kExitBadInput, run.error);
  if (run.stopped) return rc;
  if (stats != nullptr) stats->seconds = static_cast<double>(run.run_ns) / 1e9;
  return kExitOk;
}

}  // namespace lockstep::cli
