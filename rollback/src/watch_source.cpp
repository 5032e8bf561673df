// A watcher's source and onward relay (rollback/watch_source.h).
#include <lockstep/rollback/peer_setup.h>
#include <lockstep/rollback/watch_source.h>

#include <utility>

namespace lockstep::rollback {

std::string watch_relay_config(const WatchSourceOptions& o, RelayConfig& out, MatchKeySource* key_source) {
  out.loopback_only = !o.allow_remote;
  out.session_id = o.session_id;
  out.max_subscribers = o.relay_slots;
  MatchKeySource source;
  if (!o.watch_key_file.empty()) {
    if (o.no_auth || !o.key_file.empty()) return "a watch key file excludes a match key file and no_auth";
    std::string why;
    out.security = WireSecurity::Authenticated;
    if (!read_watch_key_file(o.watch_key_file, out.key, why)) return why;
    source = MatchKeySource::WatchKeyFile;
  } else {
    if (std::string why = load_match_key(o.no_auth, o.key_file, o.session_id, out.security, out.key, source); !why.empty())
      return why;
    if (!o.no_auth) out.key = derive_watch_key(out.key);
  }
  if (key_source != nullptr) *key_source = source;
  if (o.allow_remote) out.bind = "0.0.0.0:0";
  return "";
}

namespace {
void failed(WatchSource& w, WatchSourceProblem problem, std::string error, std::string detail = {}) {
  w.problem = problem;
  w.error = std::move(error);
  w.detail = std::move(detail);
}

void open_source(const WatchSourceOptions& o, WatchSource& w) {
  if (o.host.empty() && o.more_hosts.empty()) {
    std::string error;
    w.source = o.open_recording ? o.open_recording(o.source, error) : std::make_unique<replay::GrowingFileSource>(o.source);
    if (w.source == nullptr) failed(w, WatchSourceProblem::Source, "recording " + o.source + ": " + error, error);
    return;
  }
  if (o.host.empty() && !o.more_hosts.empty()) {
    failed(w, WatchSourceProblem::Host, "further relay hosts without a first one");
    return;
  }
  if (!o.source.empty()) {
    failed(w, WatchSourceProblem::HostAndSource, "a relay host and a recording source exclude each other");
    return;
  }
  RelayConfig c;
  MatchKeySource key = MatchKeySource::None;
  if (std::string why = watch_relay_config(o, c, &key); !why.empty()) return failed(w, WatchSourceProblem::Key, why);
  w.warning = match_key_warning(o.no_auth, key);
  c.failover_ms = o.failover_ms;
  auto relayed = std::make_unique<RelaySource>();
  std::string error;
  if (!relayed->open(o.host, c, error)) {
    failed(w, WatchSourceProblem::Host, "relay host " + o.host + ": " + error, error);
    w.host = o.host;
    return;
  }
  for (const std::string& more : o.more_hosts)
    if (!relayed->add_fallback(more, error)) {
      failed(w, WatchSourceProblem::Host, "relay host " + more + ": " + error, error);
      w.host = more;
      return;
    }
  w.relayed = relayed.get();
  w.source = std::move(relayed);
}

void open_onward(const WatchSourceOptions& o, WatchSource& w) {
  RelayConfig c;
  MatchKeySource key = MatchKeySource::None;
  if (std::string why = watch_relay_config(o, c, &key); !why.empty()) return failed(w, WatchSourceProblem::Key, why);
  w.warning = match_key_warning(o.no_auth, key);
  c.bind = o.relay;
  auto relay = std::make_unique<RelayServer>();
  std::string error;
  if (!relay->open(c, error)) {
    failed(w, WatchSourceProblem::Onward, "onward relay at " + o.relay + ": " + error, error);
    return;
  }
  w.onward = std::move(relay);
}
}  // namespace

WatchSource open_watch_source(const WatchSourceOptions& o) {
  WatchSource w;
  open_source(o, w);
  if (w.error.empty() && !o.relay.empty()) open_onward(o, w);
  if (!w.error.empty()) {
    w.source.reset();
    w.relayed = nullptr;
  }
  return w;
}

}  // namespace lockstep::rollback
