#pragma once
// One peer process of a rollback match over UDP, from its options to its outcome: what `lockstep
// peer` and `lockstep spectate` run, and what a game's headless client or soak test runs the same
// way (docs/rollback.md, "CLI"). UdpPeer::open() builds the world, binds the sockets (with a
// rendezvous when asked), builds the session (match key; a restarted peer's rejoin from a
// survivor's relay), starts the recording and the relay; play() runs the frame loop at a fixed
// rate with bots playing the local players; finish() writes the desync bundles (both sides when
// the state exchange brought the remote's state) and closes the recording. The caller prints
// and decides its exit: messages are in the library's terms (the options' fields), and every
// failure says which input or step it is about (UdpPeerProblem), so that a tool can name its own
// options instead (`lockstep peer` names its flags).
// Setup and diagnostic path: allocates (the frame loop itself is MatchLoop's).
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/replay_follow.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/rollback/lossy_transport.h>
#include <lockstep/rollback/match_loop.h>
#include <lockstep/rollback/peer_setup.h>
#include <lockstep/rollback/relay.h>
#include <lockstep/rollback/session.h>
#include <lockstep/rollback/state_exchange.h>
#include <lockstep/rollback/udp_transport.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::rollback {

// The players of a world for `peers` peers when none are asked for: netsim_default_players (as
// many as `sim` accepts with `config`'s other fields, at most `peers`), but min(peers, 2) when it
// accepts none of those counts (the world's own error then names the problem).
std::uint32_t players_for_peers(const replay::Sim& sim, const replay::SimConfig& config, std::uint32_t peers);

// Which input or step a failure is about, for a caller that words it its own way (a tool names
// its options); UdpPeerFailure::message words it in the library's terms.
enum class UdpPeerProblem : std::uint8_t {
  Other,                   // none in particular: the message says it (a socket, a file, the session)
  AddressCount,            // not 2..16 addresses
  SessionPeers,            // session.peers is not the number of addresses
  LocalPeer,               // session.local_peer is not among the addresses
  NoAuthWithKeyFile,       // session.no_auth with a session.key_file
  NoAuthWithIdentity,      // session.no_auth with session.identity_file or session.peer_keys_file
  IdentityWithoutPeerKeys, // only one of session.identity_file and session.peer_keys_file
  RelayWithoutRecord,      // a relay with no record to serve
  CheckpointInterval,      // checkpoint_every not a multiple of session.hash_interval
  PlayersOverPeers,        // config.players > the number of addresses
  SessionPlayers,          // session.players is not config.players
  SpectatorOwnsPlayer,     // a spectator's local_peer < config.players
  PlayerOwnsNoPlayer,      // a player's local_peer >= config.players
  ExchangeWithRendezvous,  // exchange addresses given with a rendezvous (which publishes them)
  ExchangePort,            // no exchange port derivable from an address (detail: the address)
  ExchangeCount,           // exchange addresses not one per peer
  Relay,                   // the relay did not open (detail: why)
  Rejoin,                  // the rejoin failed (detail: why)
  RejoinOtherMatch,        // the rejoin found another match at the relay (detail: why)
  RejoinNoAnswer,          // the survivor's relay never answered: another key or session id, or
                           // no relay at that address (detail: why)
};

// Why a step failed: the message, and the file's status when a replay file is the cause.
struct UdpPeerFailure {
  std::string message;
  std::optional<replay::ReplayStatus> file;
  UdpPeerProblem problem = UdpPeerProblem::Other;
  std::string detail = {};  // the cause without the input it is about (see UdpPeerProblem), else ""
};

// The state exchange's address of every peer: `given` (one per peer, in peer-id order), else
// with `rendezvous` empty entries (published later), else each of `peers` with port + 1. Returns
// the reason they are unusable ("" when fine), e.g. "cannot derive a state-exchange port from
// 'h:x' (port + 1): give the exchange addresses"; the _failure form says which (ExchangeWithRendezvous,
// ExchangePort with the address as detail, ExchangeCount).
std::string exchange_peer_addresses(const std::vector<std::string>& given, const std::vector<std::string>& peers,
                                    bool rendezvous, std::vector<std::string>& out);
std::optional<UdpPeerFailure> exchange_peer_addresses_failure(const std::vector<std::string>& given,
                                                              const std::vector<std::string>& peers, bool rendezvous,
                                                              std::vector<std::string>& out);

// Everything a peer process is told (what `lockstep peer` takes, times in microseconds).
struct UdpPeerOptions {
  PeerSessionOptions session;          // peers, players, local peer, key, delays, time sync...
  replay::SimConfig config;            // the world (players as in `session`)
  std::vector<std::string> addresses;  // every peer in peer-id order (empty entries with `rendezvous`)
  std::string bind;                    // empty: this peer's entry of `addresses`
  std::string rendezvous;              // directory where the peers publish the addresses they bound
  bool loopback_only = true;
  std::uint64_t bot_seed = 1;
  std::uint64_t ticks = 1800;
  std::uint32_t tick_hz = 60;
  std::uint64_t max_us = 120000000;    // hard wall-clock limit of play()
  std::uint64_t linger_us = 300000;
  LossyConfig lossy;                   // emulated link on outgoing packets (all zero: off)
  std::string record;                  // the confirmed match as a replay file ("" none)
  std::uint32_t checkpoint_every = 0;
  std::string bundle_dir;              // desync bundles with both sides ("" none: no exchange socket)
  std::vector<std::string> exchange_peers;  // default: exchange_peer_addresses
  std::uint64_t exchange_wait_us = 3000000;
  std::string relay;                   // serve the recording to watchers from this address ("" none)
  std::uint32_t relay_slots = kRelayMaxSubscribers;
  std::uint64_t relay_linger_us = 10000000;
  std::string rejoin;                  // restart a crashed peer from the survivor's relay here
  std::uint32_t delay_frames = 0;      // spectator: ticks behind the players
  std::uint32_t catchup_speed = 4;
};

// The options' consistency, in the terms of UdpPeerOptions' fields; "" when they are usable:
// 2..16 addresses with session.peers equal to their count, the local peer among them,
// session.players == config.players <= peers, a spectator's id >= players and a player's id
// < players (peer p owns player p), a relay only with a record, checkpoint_every a multiple of
// session.hash_interval, not session.no_auth with session.key_file or an identity, the identity
// file and the peer keys file together, e.g. "the local peer
// (2) must be < the number of peers (2)". The _failure form also says which (UdpPeerProblem).
// UdpPeer::open() refuses options that fail it, before it binds anything.
std::string check_udp_peer_options(const UdpPeerOptions& options);
std::optional<UdpPeerFailure> udp_peer_options_failure(const UdpPeerOptions& options);

// What play() saw: empty `failure` when the loop ended normally (finished or not: see
// UdpPeer::finished). `bad_input` when the session stopped on its input (rejected handshake,
// a mismatch of configs, an I/O error) rather than a timeout or a lost peer; `timed_out` when
// max_us passed ("the match did not finish within its wall-clock limit (confirmed C of T ticks)").
struct UdpPeerPlay {
  std::string failure;
  bool bad_input = false;
  bool timed_out = false;
};

// How a peer's match ended (UdpPeer::result): a tool maps it to its exit code.
enum class UdpPeerResult : std::uint8_t {
  Ok,          // the end tick was confirmed and no desync was seen
  Desync,      // a desync was detected (MatchLoop::first_desync names it)
  Unfinished,  // the loop ended before the end tick was confirmed (wall-clock limit, lost peers)
  BadInput,    // the session stopped on its input (UdpPeerPlay::bad_input)
};

// UdpPeerWarning (peer_setup.h): the security warnings open() logs, for an observer that words
// them its own way.

// The caller's view of the running match (the tool logs and draws its status line here).
class UdpPeerObserver {
 public:
  virtual ~UdpPeerObserver() = default;
  virtual void on_log(std::string_view line) { (void)line; }  // a progress line ("relaying ...")
  // A security warning; by default logged as `line` (on_log).
  virtual void on_warning(UdpPeerWarning warning, std::string_view line) {
    (void)warning;
    on_log(line);
  }
  virtual void on_event(const SessionEvent& event) { (void)event; }
  virtual void on_frame() {}  // after every frame that did not end the loop
};

class UdpPeer {
 public:
  UdpPeer(const replay::Sim& sim, UdpPeerOptions options);
  ~UdpPeer();
  UdpPeer(const UdpPeer&) = delete;
  UdpPeer& operator=(const UdpPeer&) = delete;

  // Builds everything up to the first frame; logs the rejoin and relay lines and the key
  // warnings (on_warning). nullopt on success.
  std::optional<UdpPeerFailure> open(UdpPeerObserver& observer);
  // The frame loop until the match is over, the session fails or max_us passes.
  UdpPeerPlay play(UdpPeerObserver& observer);
  // After play(): every kept desync's bundle into bundle_dir (logging their paths), then the
  // recording closed and the relay served to the end. nullopt on success.
  std::optional<UdpPeerFailure> finish(UdpPeerObserver& observer);

  // The end tick is confirmed.
  bool finished() const;
  // After play() (and finish()): BadInput when `played` says so, else Desync when the loop saw
  // a desync, else Unfinished when `played` failed or the end tick is not confirmed, else Ok.
  UdpPeerResult result(const UdpPeerPlay& played) const;

  const UdpPeerOptions& options() const noexcept { return o_; }
  RollbackSession& session() noexcept { return *session_; }
  const RollbackSession& session() const noexcept { return *session_; }
  const MatchLoop& loop() const noexcept { return *loop_; }
  const UdpTransport& udp() const noexcept { return udp_; }
  bool lossy() const noexcept;
  std::uint64_t lossy_lost() const noexcept { return wrapped_.stats().lost; }
  MatchKeySource key_source() const noexcept { return key_source_; }
  const StateExchange* exchange() const noexcept { return exchange_.get(); }  // with bundle_dir
  const RelayServer* relay() const noexcept { return relay_.get(); }          // with relay
  const std::string& bundle_path() const noexcept { return bundle_path_; }    // the first bundle written
  bool bundle_remote_state() const noexcept { return bundle_remote_state_; }

 private:
  std::optional<UdpPeerFailure> open_sockets();
  std::optional<UdpPeerFailure> start_recording();

  const replay::Sim& sim_;
  UdpPeerOptions o_;
  replay::Runner runner_;
  UdpTransport udp_, xudp_;
  LossyTransport wrapped_;
  SessionConfig sc_;
  MatchKeySource key_source_ = MatchKeySource::None;
  replay::ReplayRecorder recorder_;
  std::unique_ptr<RollbackSession> session_;
  std::unique_ptr<RecorderSink> sink_;
  std::unique_ptr<RelayServer> relay_;
  std::unique_ptr<replay::GrowingFileSource> recording_;
  std::unique_ptr<StateExchange> exchange_;
  std::unique_ptr<MatchLoop> loop_;
  std::string bundle_path_;
  bool bundle_remote_state_ = false;
};

}  // namespace lockstep::rollback
