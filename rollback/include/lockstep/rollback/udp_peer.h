#pragma once
// One peer process of a rollback match over UDP, from its options to its outcome: what `lockstep
// peer` and `lockstep spectate` run, and what a game's headless client or soak test runs the same
// way (docs/rollback.md, "CLI"). UdpPeer::open() builds the world, binds the sockets (with a
// rendezvous when asked), builds the session (match key; a restarted peer's rejoin from a
// survivor's relay), starts the recording and the relay; play() runs the frame loop at a fixed
// rate with bots playing the local players; finish() writes the desync bundles (both sides when
// the state exchange brought the remote's state) and closes the recording. The caller prints.
// Error messages name the `lockstep peer` options they come from (the tool reports them as is).
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

// The state exchange's address of every peer: `given` (one per peer, in peer-id order), else
// with `rendezvous` empty entries (published later), else each of `peers` with port + 1. Returns
// the reason they are unusable ("" when fine), e.g. "--bundle-dir: cannot derive an exchange port
// from 'h:x' (give --exchange-peers)".
std::string exchange_peer_addresses(const std::vector<std::string>& given, const std::vector<std::string>& peers,
                                    bool rendezvous, std::vector<std::string>& out);

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

// The options' consistency, in the terms of `lockstep peer`'s flags; "" when they are usable:
// 2..16 addresses with session.peers equal to their count, the local peer among them,
// session.players == config.players <= peers, a spectator's id >= players and a player's id
// < players (peer p owns player p), --relay with --record, --checkpoint-every a multiple of
// --hash-interval, not both --no-auth and --key-file. UdpPeer::open() refuses options that fail
// it with this message, before it binds anything.
std::string check_udp_peer_options(const UdpPeerOptions& options);

// Why a step failed: the message, and the file's status when a replay file is the cause.
struct UdpPeerFailure {
  std::string message;
  std::optional<replay::ReplayStatus> file;
};

// What play() saw: empty `failure` when the loop ended normally (finished or not: see
// UdpPeer::finished). `bad_input` when the session stopped on its input (rejected handshake,
// a mismatch of configs, an I/O error) rather than a timeout or a lost peer.
struct UdpPeerPlay {
  std::string failure;
  bool bad_input = false;
};

// The caller's view of the running match (the tool logs and draws its status line here).
class UdpPeerObserver {
 public:
  virtual ~UdpPeerObserver() = default;
  virtual void on_log(std::string_view line) { (void)line; }  // a progress line ("relaying ...")
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
  // warnings ("WARNING: --no-auth: ..."). nullopt on success.
  std::optional<UdpPeerFailure> open(UdpPeerObserver& observer);
  // The frame loop until the match is over, the session fails or max_us passes.
  UdpPeerPlay play(UdpPeerObserver& observer);
  // After play(): every kept desync's bundle into bundle_dir (logging their paths), then the
  // recording closed and the relay served to the end. nullopt on success.
  std::optional<UdpPeerFailure> finish(UdpPeerObserver& observer);

  // The end tick is confirmed.
  bool finished() const;

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

// What the caller decided about a finished peer, for udp_peer_report.
struct UdpPeerOutcome {
  int exit_code = 0;            // the tool's: 0 ok, 1 desync/timeout/unfinished, 2 bad input
  std::string failure;          // "" or why ("DESYNC: ...")
  std::string sim;              // the sim's name as given
  std::uint64_t rejoin_tick = ~std::uint64_t{0};  // this process rejoined: its player's return tick
  std::uint64_t rejoined_after_ms = 0;
};

// The stdout text of `lockstep peer` after finish(), ending in '\n': "peer P: OK|FAILED,
// confirmed C/T ticks, R rollbacks (max depth D), S stalls, H hash checks, W frames waited
// (time sync), final hash X" (+ "recorded the confirmed match to FILE"), or with `json` one
// object: ok, exit, peer, peers, sim, ticks, confirmed_tick, finished, final_hash, the match's
// figures (append_match_fields), rejoin_tick + rejoined_after_ms, record, bundle +
// bundle_remote_state, states_served, the relay's figures (append_relay_fields), error.
std::string udp_peer_report(UdpPeer& peer, const UdpPeerOutcome& outcome, bool json);

}  // namespace lockstep::rollback
