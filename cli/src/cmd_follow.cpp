// lockstep spectate --follow SOURCE — watch a match from its live recording
// (replay/replay_follow.h; docs/rollback.md, "Spectators at scale"). The library follows;
// this file parses the options, paces the polls and prints.
#include "cmd_follow.h"

#include "common.h"

#include <lockstep/replay/replay_follow.h>
#include <lockstep/stream/http_source.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace lockstep::cli {

namespace {
using Clock = std::chrono::steady_clock;

// "checkpoint" (the newest), "0" or "begin", or a tick number.
bool parse_start(const std::string& text, replay::FollowOptions& o) {
  if (text == "checkpoint" || text == "newest") {
    o.start = replay::FollowOptions::Start::NewestCheckpoint;
    return true;
  }
  if (text == "begin" || text == "0") {
    o.start = replay::FollowOptions::Start::Beginning;
    return true;
  }
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  o.start = replay::FollowOptions::Start::Tick;
  o.tick = std::stoull(text);
  return true;
}
}  // namespace

int follow_cmd(const FollowArgs& a) {
  replay::FollowOptions o;
  if (!parse_start(a.from, o))
    return report_error(a.json, kExitBadInput, "--from '" + a.from + "': expected 'checkpoint', 'begin' or a tick number");
  o.delay_ticks = a.delay_ticks;
  o.max_ticks_per_poll = a.catchup_ticks;
  std::unique_ptr<replay::ByteSource> owned;
  if (stream::is_http_url(a.source)) {
    if (!stream::http_available())
      return report_error(a.json, kExitBadInput, "--follow " + a.source + ": this build has no libcurl (HTTP sources)");
    owned = std::make_unique<stream::HttpRangeSource>(a.source);
  } else if (a.source.find("://") != std::string::npos) {
    return report_error(a.json, kExitBadInput, "--follow " + a.source + ": only http:// and https:// URLs, or a file path");
  } else {
    owned = std::make_unique<replay::GrowingFileSource>(a.source);
  }
  replay::ByteSource& source = *owned;
  replay::ReplayFollower follower([](std::string_view n) { return replay::find_sim_including_hidden(n); }, o, a.source);
  const auto t0 = Clock::now();
  const auto poll_every = std::chrono::milliseconds(a.poll_ms);
  auto last_growth = t0;
  std::uint64_t last_recorded = 0, lag_max = 0;
  std::string failure;
  int code = kExitOk;
  for (;;) {
    const replay::ReplayStatus st = follower.poll(source);
    if (!st.ok()) {
      failure = st.message;
      code = st.code == ErrorCode::Mismatch ? kExitMismatch : kExitBadInput;
      break;
    }
    const auto now = Clock::now();
    if (follower.recorded_ticks() != last_recorded) {
      last_recorded = follower.recorded_ticks();
      last_growth = now;
    }
    // How far behind the newest recorded tick, once caught up with the delay (while live).
    if (follower.started() && !follower.recording().complete && follower.tick() >= follower.start_tick() + a.delay_ticks)
      lag_max = std::max(lag_max, follower.recorded_ticks() - std::min(follower.recorded_ticks(), follower.tick()));
    if (follower.finished()) break;
    if (std::chrono::duration<double>(now - t0).count() > a.max_seconds) {
      failure = "--max-seconds reached at tick " + std::to_string(follower.tick()) + " of " +
                std::to_string(follower.recorded_ticks()) + " recorded";
      code = kExitMismatch;
      break;
    }
    if (std::chrono::duration<double>(now - last_growth).count() > a.idle_timeout_s) {
      failure = source.describe() + ": nothing new for " + std::to_string(static_cast<long long>(a.idle_timeout_s)) +
                " s and no END block (the recorder stopped?) at tick " + std::to_string(follower.recorded_ticks());
      code = kExitMismatch;
      break;
    }
    if (follower.tick() + a.delay_ticks >= follower.recorded_ticks() || !follower.started())
      std::this_thread::sleep_for(poll_every);
  }
  const replay::Runner* runner = follower.runner();
  const std::string final_hash = runner != nullptr ? hex(runner->hash().total) : std::string();
  if (a.json) {
    Json j;
    j.begin().field("ok", code == kExitOk).field("exit", code).field("source", source.describe())
        .field("sim", follower.recording().header.sim_name).field("start_tick", follower.start_tick())
        .field("tick", follower.tick()).field("recorded_ticks", follower.recorded_ticks())
        .field("checked_ticks", follower.checked_ticks()).field("complete", follower.recording().complete)
        .field("checkpoints", static_cast<std::uint64_t>(follower.recording().checkpoints.size()))
        .field("delay_ticks", a.delay_ticks).field("lag_max_ticks", lag_max).field("final_hash", final_hash);
    if (!failure.empty()) j.field("error", failure);
    j.end();
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("followed %s from tick %llu to %llu: %llu ticks checked against the recording%s, final hash %s\n",
                source.describe().c_str(), static_cast<unsigned long long>(follower.start_tick()),
                static_cast<unsigned long long>(follower.tick()), static_cast<unsigned long long>(follower.checked_ticks()),
                code == kExitOk ? "" : " (FAILED)", final_hash.c_str());
  }
  if (!failure.empty()) std::fprintf(stderr, "lockstep spectate --follow: error: %s\n", failure.c_str());
  return code;
}

void add_follow_options(CLI::App* app, const std::shared_ptr<FollowArgs>& f) {
  app->add_option("--follow", f->source,
                  "Watch from a live recording instead of the network: a replay file that a peer records with "
                  "--record (its .partial while the match runs); no player sends anything to followers");
  app->add_option("--from", f->from, "With --follow: 'checkpoint' (the newest one), 'begin', or a tick")->capture_default_str();
  app->add_option("--delay-ticks", f->delay_ticks, "With --follow: stay this many ticks behind the newest recorded tick")
      ->capture_default_str();
  app->add_option("--catchup-ticks", f->catchup_ticks, "With --follow: ticks simulated per poll at most")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  app->add_option("--poll-ms", f->poll_ms, "With --follow: pause between polls when caught up")
      ->capture_default_str()->check(CLI::Range(1u, 10000u));
  app->add_option("--idle-timeout-s", f->idle_timeout_s,
                  "With --follow: give up when the recording does not grow for this long and has no END block")
      ->capture_default_str();
}

}  // namespace lockstep::cli
