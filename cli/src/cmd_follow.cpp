// lockstep spectate --follow SOURCE — watch a match from its live recording
// (replay/replay_follow.h; docs/rollback.md, "Spectators at scale"). The library follows;
// this file parses the options, paces the polls and prints.
#include "cmd_follow.h"

#include "common.h"

#include <lockstep/replay/replay_follow.h>
#include <lockstep/rollback/peer_setup.h>
#include <lockstep/rollback/relay.h>
#include <lockstep/stream/http_source.h>

#include <cstdio>

namespace lockstep::cli {

namespace {
// The relay's messages use the match key (a key file, or derived from --session-id: INSECURE),
// unless --no-auth.
int relay_config(const FollowArgs& a, rollback::RelayConfig& c) {
  c.loopback_only = !a.allow_remote;
  c.session_id = a.session_id;
  c.max_subscribers = a.relay_slots;
  rollback::MatchKeySource source;
  if (std::string why = rollback::load_match_key(a.no_auth, a.key_file, a.session_id, c.security, c.key, source); !why.empty())
    return report_error(a.json, kExitBadInput, why);
  if (a.allow_remote) c.bind = "0.0.0.0:0";
  return kExitOk;
}

int open_source(const FollowArgs& a, std::unique_ptr<replay::ByteSource>& owned, rollback::RelaySource*& relayed) {
  if (!a.host.empty()) {
    if (!a.source.empty()) return report_error(a.json, kExitBadInput, "--host and --follow exclude each other");
    rollback::RelayConfig c;
    if (int rc = relay_config(a, c); rc != kExitOk) return rc;
    auto source = std::make_unique<rollback::RelaySource>();
    std::string error;
    if (!source->open(a.host, c, error)) return report_error(a.json, kExitBadInput, "--host " + a.host + ": " + error);
    relayed = source.get();
    owned = std::move(source);
  } else if (stream::is_http_url(a.source)) {
    if (!stream::http_available())
      return report_error(a.json, kExitBadInput, "--follow " + a.source + ": this build has no libcurl (HTTP sources)");
    owned = std::make_unique<stream::HttpRangeSource>(a.source);
  } else if (a.source.find("://") != std::string::npos) {
    return report_error(a.json, kExitBadInput, "--follow " + a.source + ": only http:// and https:// URLs, or a file path");
  } else {
    owned = std::make_unique<replay::GrowingFileSource>(a.source);
  }
  return kExitOk;
}

// --relay: what this watcher fetched is served onward (a second level of the tree).
int open_onward_relay(const FollowArgs& a, std::unique_ptr<rollback::RelayServer>& relay) {
  if (a.relay.empty()) return kExitOk;
  rollback::RelayConfig c;
  if (int rc = relay_config(a, c); rc != kExitOk) return rc;
  c.bind = a.relay;
  relay = std::make_unique<rollback::RelayServer>();
  std::string error;
  if (!relay->open(c, error)) return report_error(a.json, kExitBadInput, "--relay " + a.relay + ": " + error);
  std::fprintf(stderr, "lockstep spectate: relaying to watchers at %s\n", relay->local_address().c_str());
  return kExitOk;
}
}  // namespace

int follow_cmd(const FollowArgs& a) {
  replay::FollowOptions o;
  if (!replay::parse_follow_start(a.from, o))
    return report_error(a.json, kExitBadInput, "--from '" + a.from + "': expected 'checkpoint', 'begin' or a tick number");
  o.delay_ticks = a.delay_ticks;
  o.max_ticks_per_poll = a.catchup_ticks;
  if (!a.record.empty())
    if (int rc = check_output(a.record, a.json); rc != kExitOk) return rc;
  std::unique_ptr<replay::ByteSource> owned;
  rollback::RelaySource* relayed = nullptr;
  if (int rc = open_source(a, owned, relayed); rc != kExitOk) return rc;
  std::unique_ptr<rollback::RelayServer> onward;
  if (int rc = open_onward_relay(a, onward); rc != kExitOk) return rc;
  replay::ByteSource& source = *owned;
  replay::ReplayFollower follower([](std::string_view n) { return replay::find_sim_including_hidden(n); }, o, a.source);
  rollback::WatchOptions w;
  w.delay_ticks = a.delay_ticks;
  w.poll_us = std::uint64_t{a.poll_ms} * 1000;
  w.max_us = static_cast<std::uint64_t>(a.max_seconds * 1e6);
  w.idle_timeout_us = static_cast<std::uint64_t>(a.idle_timeout_s * 1e6);
  const rollback::WatchResult watched = rollback::watch_recording(follower, source, onward.get(), w);
  const std::uint64_t lag_max = watched.lag_max;
  std::string failure = watched.status.message;
  int code = watched.status.ok() ? kExitOk : watched.status.code == ErrorCode::Mismatch ? kExitMismatch : kExitBadInput;
  if (watched.timed_out) {
    failure = "--max-seconds reached at tick " + std::to_string(follower.tick()) + " of " +
              std::to_string(follower.recorded_ticks()) + " recorded";
    code = kExitMismatch;
  }
  if (!a.record.empty() && code == kExitOk) {
    const replay::ReplayStatus ws = replay::write_replay_file(a.record, follower.recording());
    if (!ws.ok()) return report_error(a.json, kExitBadInput, ws.message, &ws);
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
    if (!a.record.empty() && code == kExitOk) j.field("record", a.record);
    if (relayed != nullptr) j.field("relay_requests", relayed->stats().requests_sent).field("relay_dropped", relayed->stats().dropped);
    if (onward != nullptr) j.field("relay", onward->local_address()).field("relay_watchers_max", onward->stats().max_subscribers_seen);
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
  app->add_option("--host", f->host,
                  "Watch through a relay (a peer's or a watcher's --relay HOST:PORT): host-fed, from its newest "
                  "checkpoint; the --follow options apply");
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
