#pragma once
// Setting up one peer process of a match over UDP: what `lockstep peer` does before and after
// its frame loop, and what a game's own launcher does the same way (docs/rollback.md, "CLI").
// The pieces: the peer's sockets (the session's and, for desync bundles with both sides, the
// state exchange's); a rendezvous through a shared directory (peers bind port 0 and publish the
// address they got); the SessionConfig from a peer's options and the match key's source; a
// restarted peer's rejoin (its confirmed history fetched from a survivor's relay, checked and
// replayed); the session events as log lines; the match's figures as JSON fields.
// Setup and diagnostic path: allocates (never on a game's tick path).
#include <lockstep/inspect/json_writer.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/rollback/match_loop.h>
#include <lockstep/rollback/relay.h>
#include <lockstep/rollback/session.h>
#include <lockstep/rollback/udp_transport.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::rollback {

// "HOST:PORT" or "[HOST]:PORT" with the port moved by `by`; empty when not of that form or
// when the port would leave 1..65535.
std::string shift_port(const std::string& address, std::uint32_t by);
// Every address's port + 1 (the default state-exchange addresses); an entry is empty where
// shift_port cannot move that address.
std::vector<std::string> exchange_addresses(const std::vector<std::string>& peers);

struct PeerSocketsConfig {
  std::uint32_t local_peer = 0;
  std::uint32_t session_id = 0;
  // Every peer's address in peer-id order (empty entries: given later by a rendezvous).
  std::vector<std::string> peers;
  std::string bind;          // empty: this peer's entry of `peers`, else "127.0.0.1:0"
  bool loopback_only = true;
  bool rendezvous = false;   // the exchange socket binds any port on the session socket's host
  // The state exchange's address of every peer (empty: no exchange socket is opened). Its own
  // bind: with `rendezvous` any port; else `bind` + 1 when `bind` is given; else its entry here.
  std::vector<std::string> exchange_peers;
};

// Opens the session socket `udp` and, with exchange_peers, the exchange socket `xudp`.
// Returns the error ("" on success): the socket's, or "state exchange socket: " + the
// exchange socket's.
std::string open_peer_sockets(const PeerSocketsConfig& config, UdpTransport& udp, UdpTransport& xudp);

// Publishes this peer's bound addresses as DIR/peerID.addr (write + rename: a reader never
// sees half a file; line 1 the session socket, line 2 "exchange ADDR" when `exchange`), then
// waits up to `timeout_us` for every other peer's file and enters the addresses into `udp`
// (and `xudp`; a peer that published no exchange address is left out). Returns the error ("" on
// success), e.g. "rendezvous: DIR/peer1.addr did not appear within the sync timeout".
std::string rendezvous_in_directory(const std::string& dir, std::uint32_t local_peer, std::uint32_t peers,
                                    std::uint64_t timeout_us, UdpTransport& udp, UdpTransport* exchange);

// A peer's options as `lockstep peer` takes them (times in microseconds).
struct PeerSessionOptions {
  std::uint32_t peers = 2;
  std::uint32_t players = 2;  // peer p owns player p
  std::uint32_t local_peer = 0;
  bool spectator = false;     // never predicts (max_prediction 0)
  std::string key_file;       // the match key (match_key.h); empty: derived from session_id
  bool no_auth = false;       // unauthenticated messages (excludes key_file and the identity)
  // Per-peer authentication (rollback/peer_identity.h): this peer's secret key and every peer's
  // public key, one per line in peer-id order. Both or neither. With them the session's
  // messages are authenticated per pair of peers; key_file (or the key derived from
  // session_id) then serves the relay only (watchers, a rejoin's history).
  std::string identity_file;
  std::string peer_keys_file;
  std::uint32_t session_id = 1;
  std::uint32_t input_delay = 2;
  std::uint32_t max_prediction = 8;
  std::uint32_t hash_interval = 16;
  std::uint32_t sync_roundtrips = 5;
  std::uint64_t sync_timeout_us = 10000000;
  std::uint64_t notify_us = 250000;
  std::uint64_t disconnect_us = 1500000;
  std::uint32_t max_frame_advantage = 3;
  std::uint32_t kept_desyncs = 1;
  std::uint32_t incarnation = 1;  // this process's handshake incarnation (random, odd)
};

enum class MatchKeySource { None, File, DerivedFromSessionId, Identity, WatchKeyFile };
// "none", "file", "derived-from-session-id", "identity", "watch-key-file" (the JSON report's "key").
const char* match_key_source_name(MatchKeySource source) noexcept;

// The match key as a peer takes it: with `no_auth` none (`security` becomes Unauthenticated),
// else read from `key_file`, else derived from `session_id` (INSECURE). `security` is left as
// it is otherwise. Returns the key file's error ("" on success).
std::string load_match_key(bool no_auth, const std::string& key_file, std::uint32_t session_id, WireSecurity& security,
                           MatchKey& key, MatchKeySource& source);

// The security warnings of a key taken by load_match_key (UdpPeer::open logs them, and so
// does a watcher whose relays use the key), for a caller that words them its own way.
enum class UdpPeerWarning : std::uint8_t {
  Unauthenticated,  // no_auth: "WARNING: messages are not authenticated (no_auth); ..."
  DerivedKey,       // no key file: "WARNING: no key file: the match key is derived from the session id, ..."
  // identities but no key file, with a relay or a rejoin: "WARNING: no key file: the relay's key
  // is derived from the session id, ..." (the session's messages are authenticated per pair)
  DerivedRelayKey,
};
// The warning for a key from `source` (none for a key file), and its line in the library's terms.
std::optional<UdpPeerWarning> match_key_warning(bool no_auth, MatchKeySource source) noexcept;
std::string_view match_key_warning_line(UdpPeerWarning warning) noexcept;

// The session's config for `options`. Returns the error ("" on success): the key file's, or the
// identity's (load_match_identity). `source` says how the session's messages are authenticated
// (None with no_auth; Identity: per pair of peers; DerivedFromSessionId is INSECURE: the id is
// no secret, a caller should warn).
std::string peer_session_config(const PeerSessionOptions& options, SessionConfig& out, MatchKeySource& source);

// A relay's (or a relay watcher's) config carrying the match's id, security and watch key
// (derive_watch_key of the session's match key).
RelayConfig relay_config_for(const SessionConfig& session, std::string bind, bool loopback_only);

// Why a rejoin failed: the relay could not be reached, it never answered (another match key or
// session id, or no relay at that address), the survivor records another match (another sim or
// world config), or the history itself (fetch, recording, a divergent hash: `file` holds
// offset and tick).
struct RejoinFailure {
  enum class Kind { None, Relay, NoAnswer, OtherMatch, Recording } kind = Kind::None;
  std::string message;
  replay::ReplayStatus file = replay::ReplayStatus::Ok();
};

// A restarted peer's history: fetches the survivor's confirmed recording from its relay at
// `relay` (within `timeout_ms`), checks it is the match of `sim` + `config`, opens `recorder`
// at `record_path` with its header (empty path: nothing recorded) and steps `runner` (at tick
// 0) through it, every hash checked (replay/resume.h). Then set SessionConfig::rejoin.
// `history_header` (when not null) receives the survivor's header, which the recording
// continues: record checkpoints at its checkpoint_interval, so that both files come out the same.
bool rejoin_from_relay(const std::string& relay, const RelayConfig& watcher, std::uint32_t timeout_ms,
                       const replay::Sim& sim, const replay::SimConfig& config, replay::Runner& runner,
                       const std::string& record_path, replay::ReplayRecorder& recorder, RejoinFailure& why,
                       replay::ReplayHeader* history_header = nullptr);

// A MatchHost whose local players are played by the sim's bots (seed `bot_seed`): `lockstep
// peer`, a game's headless clients and soak tests. Derive and override on_event for the
// session's events (describe_session_event gives the log lines).
class BotMatchHost : public MatchHost {
 public:
  BotMatchHost(const replay::Sim& sim, const replay::SimConfig& config, std::uint64_t bot_seed, RollbackSession& session);
  void local_input(std::uint32_t player, std::uint64_t tick, std::span<std::byte> out) override;

 private:
  RollbackSession& session_;
  std::vector<std::unique_ptr<replay::Bot>> bots_;
};

// A life-cycle event as a log line: "Disconnected: peer 1 (tick 300)", "NetworkInterrupted: peer 1
// (disconnect in 1250 ms)", "NetworkResumed: peer 1", "player 1 (peer 1) uses the default input
// from tick 300 on", "player 1 (peer 1) plays again from tick 420 (rejoined)". Empty for the other
// kinds (per-tick events, handshake progress, Running).
std::string describe_session_event(const SessionEvent& event);

// The match's figures as fields of an open JSON object, in this order: frames, waited_frames,
// wait_recommendations, max_frame_advantage_seen, rollbacks, max_rollback_depth, stalls,
// hash_checks, desyncs, disconnects, relayed_inputs, malformed, stale, security, key
// (`key_source`), dropped_auth, dropped_replay, dropped_budget, unsolicited_sync,
// sync_rejections_sent, rejoin_challenges, udp_sent, udp_received, udp_dropped, lossy_lost, then
// disconnect_tick_peerQ (and rejoin_tick_peerQ) of every other peer that disconnected.
void append_match_fields(inspect::JsonWriter& j, const RollbackSession& session, const MatchLoop& loop,
                         const UdpTransportStats& udp, std::uint64_t lossy_lost, std::string_view key_source);
// A relay's figures: relay (its address), relay_watchers_max, relay_bytes_sent,
// relay_refused_full, relay_dropped.
void append_relay_fields(inspect::JsonWriter& j, const RelayServer& relay);

}  // namespace lockstep::rollback
