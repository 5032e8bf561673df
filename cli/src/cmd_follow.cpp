// lockstep spectate --follow SOURCE — watch a match from its live recording
// (replay/replay_follow.h; docs/rollback.md, "Spectators at scale"). The library opens the
// source (rollback/watch_source.h) and follows; this file parses the options and prints.
#include "cmd_follow.h"

#include "common.h"

#include <lockstep/inspect/tool_report.h>
#include <lockstep/replay/replay_follow.h>
#include <lockstep/rollback/watch_source.h>
#include <lockstep/stream/http_source.h>

#include <cstdio>

namespace lockstep::cli {

namespace {
// rollback::open_watch_source's failure in the terms of the flags it comes from.
std::string watch_source_error(const rollback::WatchSource& w, const rollback::WatchSourceOptions& o) {
  switch (w.problem) {
    case rollback::WatchSourceProblem::Source: return "--follow " + o.source + ": " + w.detail;
    case rollback::WatchSourceProblem::HostAndSource: return "--host and --follow exclude each other";
    case rollback::WatchSourceProblem::Host: return "--host " + (w.host.empty() ? o.host : w.host) + ": " + w.detail;
    case rollback::WatchSourceProblem::Onward: return "--relay " + o.relay + ": " + w.detail;
    case rollback::WatchSourceProblem::Key:
    case rollback::WatchSourceProblem::None: break;
  }
  return w.error;
}
}  // namespace

std::string security_warning_text(rollback::UdpPeerWarning w) {
  switch (w) {
    case rollback::UdpPeerWarning::Unauthenticated:
      return "WARNING: --no-auth: messages are not authenticated; anyone who can send to this port can inject "
             "inputs or expel a peer (docs/rollback.md, \"Threat model\")";
    case rollback::UdpPeerWarning::DerivedKey:
      return "WARNING: no --key-file: the match key is derived from --session-id, which is no secret (INSECURE: "
             "for tests and demos; docs/rollback.md, \"Threat model\")";
    case rollback::UdpPeerWarning::DerivedRelayKey:
      return "WARNING: no --key-file: the relay's key (watchers, --rejoin) is derived from --session-id, which is "
             "no secret (INSECURE; the players' messages are authenticated per pair of peers by the identities)";
  }
  return std::string(rollback::match_key_warning_line(w));
}

int follow_cmd(const FollowArgs& a) {
  replay::FollowOptions o;
  if (!replay::parse_follow_start(a.from, o))
    return report_error(a.json, kExitBadInput, "--from '" + a.from + "': expected 'checkpoint', 'begin' or a tick number");
  o.delay_ticks = a.delay_ticks;
  o.max_ticks_per_poll = a.catchup_ticks;
  if (!a.record.empty())
    if (int rc = check_output(a.record, a.json); rc != kExitOk) return rc;
  if (!a.watch.watch_key_file.empty() && !a.watch.key_file.empty())
    return report_error(a.json, kExitBadInput, "--watch-key-file and --key-file exclude each other");
  if (!a.watch.watch_key_file.empty() && a.watch.no_auth)
    return report_error(a.json, kExitBadInput, "--watch-key-file and --no-auth exclude each other");
  rollback::WatchSourceOptions options = a.watch;
  options.open_recording = stream::open_recording_source;
  rollback::WatchSource opened = rollback::open_watch_source(options);
  if (!opened.error.empty()) return report_error(a.json, kExitBadInput, watch_source_error(opened, a.watch));
  // The same warning a peer gives for the same key: a relay's messages are keyed like a match's.
  if (opened.warning) std::fprintf(stderr, "%s spectate: %s\n", tool_name().c_str(), security_warning_text(*opened.warning).c_str());
  if (opened.onward) std::fprintf(stderr, "%s spectate: relaying to watchers at %s\n", tool_name().c_str(), opened.onward->local_address().c_str());
  replay::ByteSource& source = *opened.source;
  // Named as the source describes itself ("relay HOST:PORT" when watching through a relay).
  replay::ReplayFollower follower([](std::string_view n) { return replay::find_sim_including_hidden(n); }, o,
                                  source.describe());
  rollback::WatchOptions w;
  w.delay_ticks = a.delay_ticks;
  w.poll_us = std::uint64_t{a.poll_ms} * 1000;
  w.max_us = static_cast<std::uint64_t>(a.max_seconds * 1e6);
  w.idle_timeout_us = static_cast<std::uint64_t>(a.idle_timeout_s * 1e6);
  w.on_relay_switch = [](const rollback::RelaySwitch& s, std::uint64_t tick) {
    const std::string why = s.full ? "refused (all of its slots are taken)"
                                   : "stopped answering (silent for " + std::to_string(s.silent_us / 1000) + " ms)";
    std::fprintf(stderr, "%s spectate: relay %s %s at tick %llu (byte %llu): switching to relay %s\n", tool_name().c_str(),
                 s.from.c_str(), why.c_str(), static_cast<unsigned long long>(tick), static_cast<unsigned long long>(s.byte),
                 s.to.c_str());
  };
  const rollback::WatchResult watched = rollback::watch_recording(follower, source, opened.onward.get(), w);
  std::string failure = watched.status.message;
  int code = watched.status.ok() ? kExitOk : watched.status.code == ErrorCode::Mismatch ? kExitMismatch : kExitBadInput;
  if (watched.timed_out) {
    failure = "--max-seconds reached at tick " + std::to_string(follower.tick()) + " of " +
              std::to_string(follower.recorded_ticks()) + " recorded";
    code = kExitMismatch;
  }
  if (watched.relay_silent)
    failure += a.watch.watch_key_file.empty()
                   ? " (give the relay's --key-file and --session-id, or check the --host address)"
                   : " (give the relay's --watch-key-file and --session-id, or check the --host address)";
  if (!a.record.empty() && code == kExitOk) {
    const replay::ReplayStatus ws = replay::write_replay_file(a.record, follower.recording());
    if (!ws.ok()) return report_error(a.json, kExitBadInput, ws.message, &ws);
  }
  const rollback::WatchOutcome outcome{code, failure, code == kExitOk ? a.record : std::string(), a.delay_ticks, watched.lag_max};
  std::fputs(rollback::watch_report(follower, source, opened.relayed, opened.onward.get(), outcome, a.json).c_str(), stdout);
  if (!failure.empty())
    std::fprintf(stderr, "%s spectate %s: error: %s\n", tool_name().c_str(), a.watch.host.empty() ? "--follow" : "--host",
                 inspect::terminal_safe(failure).c_str());
  return code;
}

void add_follow_options(CLI::App* app, const std::shared_ptr<FollowArgs>& f) {
  app->add_option("--host", f->hosts,
                  "Watch through a relay (a peer's or a watcher's --relay HOST:PORT): host-fed, from its newest "
                  "checkpoint; the --follow options apply. Give it again for further relays of the same recording, "
                  "switched to in order when the one watched goes silent (--failover-ms) or is full");
  app->add_option("--watch-key-file", f->watch.watch_key_file,
                  "With --host: the match's watch key ('" + tool_name() + " keygen --watch-key-of MATCH.key --out FILE') "
                  "instead of its --key-file: it reads the relays but cannot forge a player's message");
  app->add_option("--failover-ms", f->watch.failover_ms,
                  "With several --host: switch to the next relay when the one watched sent nothing for this long")
      ->capture_default_str()->check(CLI::Range(50u, 600000u));
  app->add_option("--follow", f->watch.source,
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
