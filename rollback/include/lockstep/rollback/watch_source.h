#pragma once
// Where a watcher reads a match's recording from (`lockstep spectate --host/--follow`,
// docs/rollback.md, "Spectators at scale"): a relay (RelaySource), or a recording named by a
// path or URL (opened by the caller's function: lockstep::stream's open_recording_source reads
// HTTP too), and optionally a relay serving what was fetched onward. The relays' messages use
// the watch key (derive_watch_key) of the match key (a key file, or derived from the session id:
// INSECURE), or a watch key file's, unless no_auth. The
// error texts are in the terms of WatchSourceOptions' fields; WatchSource::problem says which
// one failed, so that a tool can name its own options instead.
#include <lockstep/replay/replay_follow.h>
#include <lockstep/rollback/peer_setup.h>
#include <lockstep/rollback/relay.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::rollback {

struct WatchSourceOptions {
  std::string host;    // a relay's HOST:PORT to watch through ("" none)
  // Further relays serving the same recording, switched to in this order when the one watched
  // goes silent for failover_ms or refuses (RelaySource::add_fallback); only with `host`.
  std::vector<std::string> more_hosts;
  std::uint32_t failover_ms = 2000;
  std::string source;  // else: the recording's path or URL, opened by open_recording
  std::string relay;   // serve what was fetched onward from this HOST:PORT ("" none)
  std::string key_file;        // the match key: the relays use its watch key (derive_watch_key)
  std::string watch_key_file;  // or the watch key itself (excludes key_file and no_auth)
  bool no_auth = false;
  bool allow_remote = false;  // the relays may bind and serve beyond loopback
  std::uint32_t session_id = 1;
  std::uint32_t relay_slots = kRelayMaxSubscribers;  // the onward relay's watchers at once
  // Opens `source` (null with `error` set when refused); unset: a file path
  // (replay::GrowingFileSource).
  std::function<std::unique_ptr<replay::ByteSource>(const std::string& source, std::string& error)> open_recording;
};

// Which part of a watcher's source failed (WatchSource::problem).
enum class WatchSourceProblem : std::uint8_t {
  None,
  Source,         // the recording `source` could not be opened (detail: why)
  HostAndSource,  // both a relay `host` and a recording `source` were given
  Key,            // the key file (error: its message)
  Host,           // the relay at `host` (or one of more_hosts: WatchSource::host) could not be watched (detail: why)
  Onward,         // the onward `relay` could not open (detail: why)
};

struct WatchSource {
  std::unique_ptr<replay::ByteSource> source;  // null when error is set
  RelaySource* relayed = nullptr;              // `source` when watching through a relay
  std::unique_ptr<RelayServer> onward;         // the onward relay, when asked for and opened
  std::string error;  // "" or: "a relay host and a recording source exclude each other", the key
                      // file's error, "relay host H: ...", "recording S: ..." or "onward relay at R: ..."
  WatchSourceProblem problem = WatchSourceProblem::None;
  std::string detail = {};  // the cause without the part it is about (Source, Host, Onward), else ""
  std::string host = {};    // with Host: the relay address refused
  // When a relay (the one watched, or the onward one) uses a key that is no secret: the warning
  // a peer gives for the same key (match_key_warning_line), for the caller to print.
  std::optional<UdpPeerWarning> warning = std::nullopt;
};

// The relays' config for `o` (bind "0.0.0.0:0" with allow_remote, else the default), and where
// its key came from (`key_source`, when not null). Returns the key file's error ("" on success),
// or "a watch key file excludes a match key file and no_auth" when watch_key_file is given with
// either.
std::string watch_relay_config(const WatchSourceOptions& o, RelayConfig& out, MatchKeySource* key_source = nullptr);

// Opens the source, then the onward relay.
WatchSource open_watch_source(const WatchSourceOptions& o);

}  // namespace lockstep::rollback
