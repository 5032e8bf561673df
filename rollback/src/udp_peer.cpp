// One peer process of a match over UDP (udp_peer.h).
#include <lockstep/inspect/bundle.h>
#include <lockstep/replay/record.h>
#include <lockstep/rollback/netsim_match.h>
#include <lockstep/rollback/udp_peer.h>

#include <algorithm>

namespace lockstep::rollback {

std::uint32_t players_for_peers(const replay::Sim& sim, const replay::SimConfig& config, std::uint32_t peers) {
  replay::SimConfig c = config;
  c.players = netsim_default_players(sim, config, peers);
  return sim.check_config(c).ok() ? c.players : std::min<std::uint32_t>(peers, 2);
}

namespace {
std::optional<UdpPeerFailure> problem(UdpPeerProblem kind, std::string message, std::string detail = {}) {
  return UdpPeerFailure{std::move(message), std::nullopt, kind, std::move(detail)};
}
std::string n(std::uint64_t v) { return std::to_string(v); }
}  // namespace

std::optional<UdpPeerFailure> exchange_peer_addresses_failure(const std::vector<std::string>& given,
                                                              const std::vector<std::string>& peers, bool rendezvous,
                                                              std::vector<std::string>& out) {
  out = given;
  if (rendezvous) {
    if (!out.empty())
      return problem(UdpPeerProblem::ExchangeWithRendezvous,
                     "the rendezvous publishes the state-exchange addresses: give none");
    out.assign(peers.size(), std::string());
  } else if (out.empty()) {
    out = exchange_addresses(peers);
    for (std::size_t q = 0; q < out.size(); ++q)
      if (out[q].empty())
        return problem(UdpPeerProblem::ExchangePort,
                       "cannot derive a state-exchange port from '" + peers[q] + "' (port + 1): give the exchange addresses",
                       peers[q]);
  }
  if (out.size() != peers.size())
    return problem(UdpPeerProblem::ExchangeCount, "the state-exchange addresses must be one per peer, in peer-id order (got " +
                                                      n(out.size()) + " for " + n(peers.size()) + " peers)");
  return std::nullopt;
}

std::string exchange_peer_addresses(const std::vector<std::string>& given, const std::vector<std::string>& peers,
                                    bool rendezvous, std::vector<std::string>& out) {
  const std::optional<UdpPeerFailure> f = exchange_peer_addresses_failure(given, peers, rendezvous, out);
  return f ? f->message : std::string();
}

std::optional<UdpPeerFailure> udp_peer_options_failure(const UdpPeerOptions& o) {
  const auto peers = static_cast<std::uint32_t>(o.addresses.size());
  if (peers < 2 || peers > kMaxSessionPeers)
    return problem(UdpPeerProblem::AddressCount,
                   "a match needs 2.." + n(kMaxSessionPeers) + " peer addresses (every peer, in peer-id order), got " + n(peers));
  if (o.session.peers != peers)
    return problem(UdpPeerProblem::SessionPeers, "session.peers (" + n(o.session.peers) +
                                                     ") must equal the number of addresses (" + n(peers) + ")");
  if (o.session.local_peer >= peers)
    return problem(UdpPeerProblem::LocalPeer, "the local peer (" + n(o.session.local_peer) +
                                                  ") must be < the number of peers (" + n(peers) + ")");
  if (o.session.no_auth && !o.session.key_file.empty())
    return problem(UdpPeerProblem::NoAuthWithKeyFile, "unauthenticated messages (no_auth) and a key file exclude each other");
  const bool has_identity = !o.session.identity_file.empty(), has_peer_keys = !o.session.peer_keys_file.empty();
  if (o.session.no_auth && (has_identity || has_peer_keys))
    return problem(UdpPeerProblem::NoAuthWithIdentity,
                   "unauthenticated messages (no_auth) and per-peer identities exclude each other");
  if (has_identity != has_peer_keys)
    return problem(UdpPeerProblem::IdentityWithoutPeerKeys,
                   "an identity file and a peer keys file go together (this peer's secret key and every peer's public key)");
  if (!o.relay.empty() && o.record.empty())
    return problem(UdpPeerProblem::RelayWithoutRecord, "a relay serves the recording: it needs a record file");
  if (!o.record.empty() && o.checkpoint_every != 0 &&
      (o.session.hash_interval == 0 || o.checkpoint_every % o.session.hash_interval != 0))
    return problem(UdpPeerProblem::CheckpointInterval, "the checkpoint interval (" + n(o.checkpoint_every) +
                                                           ") must be a multiple of the hash interval (" +
                                                           n(o.session.hash_interval) + ")");
  if (o.config.players > peers)
    return problem(UdpPeerProblem::PlayersOverPeers,
                   "the players (" + n(o.config.players) + ") must be <= the number of peers (" + n(peers) + ")");
  if (o.session.players != o.config.players)
    return problem(UdpPeerProblem::SessionPlayers, "session.players (" + n(o.session.players) +
                                                       ") must equal config.players (" + n(o.config.players) + ")");
  if (o.session.spectator && o.session.local_peer < o.config.players)
    return problem(UdpPeerProblem::SpectatorOwnsPlayer, "a spectator's peer id (" + n(o.session.local_peer) +
                                                            ") must be >= the players (" + n(o.config.players) +
                                                            "; peer p owns player p)");
  if (!o.session.spectator && o.session.local_peer >= o.config.players)
    return problem(UdpPeerProblem::PlayerOwnsNoPlayer, "peer " + n(o.session.local_peer) + " owns no player (" +
                                                           n(o.config.players) +
                                                           " players; peer p owns player p): make it a spectator");
  return std::nullopt;
}

std::string check_udp_peer_options(const UdpPeerOptions& o) {
  const std::optional<UdpPeerFailure> f = udp_peer_options_failure(o);
  return f ? f->message : std::string();
}

namespace {
UdpPeerFailure failure(std::string message) { return {std::move(message), std::nullopt}; }
UdpPeerFailure failure(const replay::ReplayStatus& st) { return {st.message, st}; }

// Bots play the local players; every event goes on to the observer.
class ObservedBots final : public BotMatchHost {
 public:
  ObservedBots(const replay::Sim& sim, const replay::SimConfig& config, std::uint64_t seed, RollbackSession& session,
               UdpPeerObserver& observer)
      : BotMatchHost(sim, config, seed, session), observer_(observer) {}
  void on_event(const SessionEvent& e) override { observer_.on_event(e); }

 private:
  UdpPeerObserver& observer_;
};
}  // namespace

UdpPeer::UdpPeer(const replay::Sim& sim, UdpPeerOptions options)
    : sim_(sim), o_(std::move(options)), runner_(sim, o_.config), wrapped_(udp_, o_.lossy) {}

UdpPeer::~UdpPeer() = default;

bool UdpPeer::lossy() const noexcept { return o_.lossy.latency_us != 0 || o_.lossy.jitter_us != 0 || o_.lossy.loss_ppm != 0; }

bool UdpPeer::finished() const { return session_ != nullptr && session_->confirmed_tick() >= o_.ticks; }

std::optional<UdpPeerFailure> UdpPeer::open_sockets() {
  PeerSocketsConfig pc;
  pc.local_peer = o_.session.local_peer;
  pc.session_id = o_.session.session_id;
  pc.peers = o_.addresses;
  pc.bind = o_.bind;
  pc.loopback_only = o_.loopback_only;
  pc.rendezvous = !o_.rendezvous.empty();
  const bool exchange = !o_.bundle_dir.empty();
  std::vector<std::string> xaddresses;
  const std::optional<UdpPeerFailure> bad_exchange =
      exchange ? exchange_peer_addresses_failure(o_.exchange_peers, o_.addresses, pc.rendezvous, xaddresses) : std::nullopt;
  if (!bad_exchange) pc.exchange_peers = xaddresses;
  if (std::string e = open_peer_sockets(pc, udp_, xudp_); !e.empty()) return failure(e);
  if (bad_exchange) return bad_exchange;
  if (o_.rendezvous.empty()) return std::nullopt;
  const std::string e = rendezvous_in_directory(o_.rendezvous, o_.session.local_peer, o_.session.peers,
                                                o_.session.sync_timeout_us, udp_, exchange ? &xudp_ : nullptr);
  if (!e.empty()) return failure(e);
  return std::nullopt;
}

// The confirmed history goes to the recorder (a rejoiner's already holds the history).
std::optional<UdpPeerFailure> UdpPeer::start_recording() {
  if (o_.record.empty()) return std::nullopt;
  if (o_.rejoin.empty()) {
    const replay::ReplayHeader header = replay::make_header(
        sim_, o_.config, runner_.world().storage(),
        replay::kReplayHasHashes | replay::kReplayHasComponentHashes |
            (o_.checkpoint_every != 0 ? replay::kReplayHasCheckpoints : 0u),
        replay::kDefaultBlockTicks, o_.checkpoint_every);
    replay::ReplayStatus st = recorder_.open(o_.record, header);
    if (st.ok()) st = recorder_.initial(runner_.hash());
    if (!st.ok()) return failure(st);
  }
  sink_ = std::make_unique<RecorderSink>(recorder_, o_.checkpoint_every);
  session_->set_confirmed_sink(sink_.get());
  return std::nullopt;
}

std::optional<UdpPeerFailure> UdpPeer::open(UdpPeerObserver& observer) {
  if (auto f = udp_peer_options_failure(o_)) return f;
  if (!runner_.status().ok()) return failure(std::string("cannot build the world: ") + runner_.status().message());
  // The keys before the sockets: a bad key file is reported without binding anything.
  if (std::string why = peer_session_config(o_.session, sc_, key_source_); !why.empty()) return failure(why);
  if (auto f = open_sockets()) return f;
  if (const std::optional<UdpPeerWarning> w = match_key_warning(o_.session.no_auth, key_source_))
    observer.on_warning(*w, match_key_warning_line(*w));
  else if (key_source_ == MatchKeySource::Identity && o_.session.key_file.empty() && (!o_.relay.empty() || !o_.rejoin.empty()))
    observer.on_warning(UdpPeerWarning::DerivedRelayKey, match_key_warning_line(UdpPeerWarning::DerivedRelayKey));
  if (!o_.rejoin.empty()) {
    // The survivor's confirmed history, fetched from its relay, replayed (every hash checked)
    // into the runner and, with a recording, into ours.
    const RelayConfig rc = o_.loopback_only ? relay_config_for(sc_, RelayConfig{}.bind, true)
                                            : relay_config_for(sc_, "0.0.0.0:0", false);
    RejoinFailure why;
    replay::ReplayHeader history;
    if (!rejoin_from_relay(o_.rejoin, rc, static_cast<std::uint32_t>(o_.session.sync_timeout_us / 1000), sim_, o_.config,
                           runner_, o_.record, recorder_, why, &history)) {
      const std::string message = "rejoin through the relay at " + o_.rejoin + ": " + why.message;
      if (why.kind == RejoinFailure::Kind::OtherMatch)
        return UdpPeerFailure{message + "; configure the world (sim, players, units, seed) as before the restart",
                              std::nullopt, UdpPeerProblem::RejoinOtherMatch, why.message};
      if (why.kind == RejoinFailure::Kind::NoAnswer)
        return UdpPeerFailure{message, std::nullopt, UdpPeerProblem::RejoinNoAnswer, why.message};
      std::optional<replay::ReplayStatus> file;
      if (why.kind == RejoinFailure::Kind::Recording) file = why.file;
      return UdpPeerFailure{message, std::move(file), UdpPeerProblem::Rejoin, why.message};
    }
    observer.on_log("replayed the survivor's confirmed history to tick " + std::to_string(runner_.world().tick()) +
                    "; asking to rejoin");
    // The recording continues the survivor's (its header, its checkpoints so far): with the
    // survivor's checkpoint interval it comes out byte for byte as the survivor's file.
    if (!o_.record.empty()) {
      const std::uint32_t survivor = history.checkpoint_interval;
      if (survivor != o_.checkpoint_every)
        observer.on_log("this recording keeps " +
                        (survivor == 0 ? std::string("no checkpoints") : "a checkpoint every " + n(survivor) + " ticks") +
                        " as the survivor's does (asked: " +
                        (o_.checkpoint_every == 0 ? std::string("none") : "every " + n(o_.checkpoint_every)) +
                        "), so that both recordings come out the same");
      o_.checkpoint_every = survivor;
    }
    sc_.rejoin = true;
  }
  session_ = std::make_unique<RollbackSession>(runner_, sc_, lossy() ? static_cast<Transport*>(&wrapped_) : &udp_);
  if (!session_->status().ok()) return failure(std::string("cannot start the session: ") + session_->status().message());
  if (auto f = start_recording()) return f;
  if (!o_.relay.empty()) {
    // The relay serves the recording file as the recorder writes it, with the match's key.
    RelayConfig rc = relay_config_for(sc_, o_.relay, o_.loopback_only);
    rc.max_subscribers = o_.relay_slots;
    relay_ = std::make_unique<RelayServer>();
    std::string error;
    if (!relay_->open(rc, error))
      return UdpPeerFailure{"relay at " + o_.relay + ": " + error, std::nullopt, UdpPeerProblem::Relay, error};
    recording_ = std::make_unique<replay::GrowingFileSource>(o_.record);
    observer.on_log("relaying the recording to watchers at " + relay_->local_address());
  }
  MatchLoopConfig mc;
  mc.end_tick = o_.ticks;
  mc.linger_us = o_.linger_us;
  mc.spectator = o_.session.spectator;
  mc.spectator_delay_ticks = o_.delay_frames;
  mc.catchup_speed = o_.catchup_speed;
  mc.exchange_wait_us = o_.exchange_wait_us;
  loop_ = std::make_unique<MatchLoop>(*session_, mc);
  if (!o_.bundle_dir.empty()) {
    exchange_ = std::make_unique<StateExchange>(xudp_);
    loop_->attach_state_exchange(*exchange_);
  }
  return std::nullopt;
}

UdpPeerPlay UdpPeer::play(UdpPeerObserver& observer) {
  FramePacer pacer(o_.tick_hz);
  ObservedBots host(sim_, o_.config, o_.bot_seed, *session_, observer);
  for (;;) {
    const std::uint64_t now_us = pacer.now_us();
    if (now_us > o_.max_us)
      return {"the match did not finish within its wall-clock limit (confirmed " + n(session_->confirmed_tick()) + " of " +
                  n(o_.ticks) + " ticks)",
              false, true};
    if (lossy()) wrapped_.pump(now_us);
    const Status st = loop_->frame(now_us, host);
    if (!st.ok()) return {st.message(), st.code() == ErrorCode::Mismatch || st.code() == ErrorCode::IoError};
    if (loop_->finished()) return {};  // confirmed, acknowledged, answered late acks
    if (relay_ != nullptr) (void)relay_->poll(*recording_);  // the file is read again next frame
    observer.on_frame();
    pacer.wait_next_frame();
  }
}

std::optional<UdpPeerFailure> UdpPeer::finish(UdpPeerObserver& observer) {
  // Desync bundles: this peer's state and hashes of the desync tick, and the remote's state
  // when the exchange brought it (else its hashes only, and the reason in the bundle's note).
  if (exchange_ != nullptr && session_->has_desync()) {
    DesyncBundles d = loop_->desync_bundles("peer" + std::to_string(o_.session.local_peer));
    bundle_remote_state_ = d.remote_state;
    for (std::size_t i = 0; i < d.bundles.size(); ++i) {
      std::string written;
      const FileStatus fs = inspect::write_bundle(o_.bundle_dir, d.bundles[i], written);
      if (!fs.ok()) return failure(fs.message);
      if (i == 0) {
        bundle_path_ = written;
        observer.on_log("desync bundle " + written + " (" + d.note + ")");
      } else {
        observer.on_log("desync bundle " + written + " (desync " + std::to_string(i + 1) + " of " +
                        std::to_string(d.bundles.size()) + " kept: its hashes only)");
      }
    }
  }
  if (sink_ != nullptr) {
    replay::ReplayStatus rs = sink_->status();
    if (rs.ok()) rs = recorder_.close();
    if (!rs.ok()) return failure(rs);
    if (relay_ != nullptr) (void)relay_->finish(*recording_, o_.relay_linger_us);
  }
  return std::nullopt;
}

UdpPeerResult UdpPeer::result(const UdpPeerPlay& played) const {
  if (!played.failure.empty() && played.bad_input) return UdpPeerResult::BadInput;
  if (loop_ != nullptr && loop_->stats().desyncs != 0) return UdpPeerResult::Desync;
  if (!played.failure.empty() || !finished()) return UdpPeerResult::Unfinished;
  return UdpPeerResult::Ok;
}

}  // namespace lockstep::rollback
