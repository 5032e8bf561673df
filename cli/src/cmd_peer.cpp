// lockstep peer — one peer of a rollback match over real UDP (docs/rollback.md, "CLI").
//   lockstep peer --sim duel --id 0 --peers 127.0.0.1:7000,127.0.0.1:7001 --ticks 1800 --record p0.replay
// Every process is given the addresses of all peers in peer-id order (its own entry is its
// bind address); peer p owns player p, peers beyond the player count spectate. A bot plays
// every local player. The frame loop runs at --tick-hz on the steady clock, follows the
// session's wait recommendations (time sync) and records the confirmed history as a replay.
// The match itself is rollback::UdpPeer (rollback/udp_peer.h); this checks, words the library's
// conditions in the flags' terms, prints the report and maps the result to the exit code.
// Floats here are display only.
#include "cmd_follow.h"
#include "common.h"

#include <lockstep/rollback/udp_peer.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

namespace lockstep::cli {

namespace {
// The options as typed: those in the library's units straight into `o`, the rest (times in
// seconds or milliseconds, the peer list, the requested players) converted by peer_options.
struct PeerArgs {
  rollback::UdpPeerOptions o = defaults();
  std::string sim;
  std::vector<std::string> peers;
  std::uint32_t count = 0;    // with --rendezvous
  std::uint32_t players = 0;  // 0: rollback::players_for_peers
  std::uint64_t bot = 0;
  bool bot_given = false;
  double sync_timeout_s = 10, notify_ms = 250, disconnect_ms = 1500;
  double latency_ms = 0, jitter_ms = 0, loss = 0;
  std::uint64_t net_seed = 0;
  double max_seconds = 120, linger_ms = 300, exchange_wait_ms = 3000, relay_linger_s = 10;
  bool status = false;
  bool json = false;
  bool allow_remote = false;

  static rollback::UdpPeerOptions defaults() {
    rollback::UdpPeerOptions o;
    o.config.seed = 1;
    o.tick_hz = 0;  // the sim's rate (Sim::tick_hz)
    return o;
  }
};

using Clock = std::chrono::steady_clock;

int fail(const PeerArgs& a, const std::string& why) { return report_error(a.json, kExitBadInput, why); }

// The checks that speak of how the options were typed (files, --rendezvous, units); the
// options' consistency is rollback::udp_peer_options_failure, after peer_options.
int check_args(const PeerArgs& a, std::vector<std::string>& addresses) {
  if (!a.o.record.empty())
    if (int rc = check_output(a.o.record, a.json); rc != kExitOk) return rc;
  if (!a.o.bundle_dir.empty())
    if (int rc = check_output_dir("--bundle-dir", a.o.bundle_dir, a.json); rc != kExitOk) return rc;
  addresses = a.peers;
  if (!a.o.rendezvous.empty()) {
    if (!addresses.empty()) return fail(a, "--rendezvous replaces --peers (use --count)");
    addresses.assign(a.count, std::string());
  }
  auto bad_ms = [](double v) { return !(v >= 0.0 && v <= 10000.0); };
  if (bad_ms(a.latency_ms) || bad_ms(a.jitter_ms) || bad_ms(a.notify_ms) || !(a.disconnect_ms >= 0 && a.disconnect_ms <= 600000))
    return fail(a, "times out of range");
  if (!(a.loss >= 0.0 && a.loss < 1.0)) return fail(a, "--loss must be in 0..1 (exclusive)");
  return kExitOk;
}

// The typed arguments as the library's options: the converted times and the computed parts
// (the world's players as given, else rollback::players_for_peers).
rollback::UdpPeerOptions peer_options(const PeerArgs& a, const replay::Sim& sim, std::vector<std::string> addresses) {
  rollback::UdpPeerOptions o = a.o;
  const auto peers = static_cast<std::uint32_t>(addresses.size());
  o.config.players = a.players != 0 ? a.players : rollback::players_for_peers(sim, o.config, peers);
  o.session.peers = peers;
  o.session.players = o.config.players;
  o.session.sync_timeout_us = static_cast<std::uint64_t>(a.sync_timeout_s * 1e6);
  o.session.notify_us = static_cast<std::uint64_t>(a.notify_ms * 1000);
  o.session.disconnect_us = static_cast<std::uint64_t>(a.disconnect_ms * 1000);
  o.session.incarnation = static_cast<std::uint32_t>(std::random_device{}()) | 1u;
  o.addresses = std::move(addresses);
  o.loopback_only = !a.allow_remote;
  o.bot_seed = a.bot_given ? a.bot : a.o.config.seed;
  o.max_us = static_cast<std::uint64_t>(a.max_seconds * 1e6);
  o.linger_us = static_cast<std::uint64_t>(a.linger_ms * 1000);
  o.lossy.latency_us = static_cast<std::uint32_t>(std::llround(a.latency_ms * 1000));
  o.lossy.jitter_us = static_cast<std::uint32_t>(std::llround(a.jitter_ms * 1000));
  o.lossy.loss_ppm = static_cast<std::uint32_t>(std::llround(a.loss * 1e6));
  o.lossy.seed = a.net_seed != 0 ? a.net_seed : a.o.config.seed * 1000003 + a.o.session.local_peer;
  o.exchange_wait_us = static_cast<std::uint64_t>(a.exchange_wait_ms * 1000);
  o.relay_linger_us = static_cast<std::uint64_t>(a.relay_linger_s * 1e6);
  return o;
}

// A failure of rollback::UdpPeer in the terms of the flags it comes from (the library words it
// in its options' terms).
std::string peer_failure_text(const rollback::UdpPeerFailure& f, const rollback::UdpPeerOptions& o) {
  using P = rollback::UdpPeerProblem;
  switch (f.problem) {
    case P::AddressCount: return "--peers needs 2..16 addresses (every peer, in peer-id order), or --rendezvous DIR --count N";
    case P::LocalPeer: return "--id must be < the number of --peers";
    case P::NoAuthWithKeyFile: return "--no-auth and --key-file exclude each other";
    case P::NoAuthWithIdentity: return "--no-auth and --identity-file/--peer-keys exclude each other";
    case P::IdentityWithoutPeerKeys:
      return "--identity-file and --peer-keys go together (this peer's secret key and every peer's public key)";
    case P::RelayWithoutRecord: return "--relay serves the recording: give --record FILE too";
    case P::CheckpointInterval:
      return "--checkpoint-every must be a multiple of --hash-interval (" + std::to_string(o.session.hash_interval) + ")";
    case P::PlayersOverPeers: return "--players must be <= the number of peers";
    case P::SpectatorOwnsPlayer: return "a spectator's --id must be >= --players (peer p owns player p)";
    case P::PlayerOwnsNoPlayer: return "--id owns no player: use '" + tool_name() + " spectate' for a spectator";
    case P::ExchangeWithRendezvous: return "--rendezvous publishes the exchange addresses: drop --exchange-peers";
    case P::ExchangePort: return "--bundle-dir: cannot derive an exchange port from '" + f.detail + "' (give --exchange-peers)";
    case P::ExchangeCount: return "--exchange-peers needs one address per peer, in peer-id order";
    case P::Relay: return "--relay " + o.relay + ": " + f.detail;
    case P::Rejoin: return "--rejoin " + o.rejoin + ": " + f.detail;
    case P::RejoinNoAnswer:
      return "--rejoin " + o.rejoin + ": " + f.detail + " (give the survivor's --key-file and --session-id, or check the --rejoin address)";
    case P::RejoinOtherMatch:
      return "--rejoin " + o.rejoin + ": " + f.detail + "; give the same --sim, --players, --units and --seed as before the restart";
    case P::SessionPeers:    // set by peer_options: not the user's to fix
    case P::SessionPlayers:
    case P::Other: break;
  }
  return f.message;
}

// stderr: the peer's log lines and session events, the rejoin's timing and the --status line
// (ping, frame advantage and rollbacks per second of every other peer).
class PeerPrinter final : public rollback::UdpPeerObserver {
 public:
  PeerPrinter(const PeerArgs& a, rollback::UdpPeer& peer) : a_(a), peer_(peer) {}
  std::uint64_t rejoined_at = ~std::uint64_t{0};
  double rejoined_after_s = -1;  // seconds from the process's start to the Rejoined event
  Clock::time_point t0;          // the frame loop's start

  void on_log(std::string_view line) override {
    std::fprintf(stderr, "%s peer %u: %.*s\n", tool_name().c_str(), a_.o.session.local_peer, static_cast<int>(line.size()), line.data());
  }
  void on_warning(rollback::UdpPeerWarning w, std::string_view) override { on_log(security_warning_text(w)); }
  void on_event(const rollback::SessionEvent& e) override {
    if (e.kind == rollback::SessionEventKind::Rejoined && e.peer == a_.o.session.local_peer) {
      rejoined_at = e.tick;
      rejoined_after_s = std::chrono::duration<double>(Clock::now() - started_).count();
    }
    if (e.kind == rollback::SessionEventKind::Running)
      std::fprintf(stderr, "%s peer %u: Synchronized with every peer, running (%.3f s)\n", tool_name().c_str(), a_.o.session.local_peer,
                   std::chrono::duration<double>(Clock::now() - t0).count());
    const std::string line = rollback::describe_session_event(e);
    if (!line.empty()) on_log(line);
  }
  void on_frame() override {
    const auto wall = Clock::now();
    const double dt = std::chrono::duration<double>(wall - last_).count();
    if (!a_.status || dt < 0.25) return;
    rollback::RollbackSession& session = peer_.session();
    const rollback::SessionStats& ss = session.stats();
    const std::uint64_t window = ss.rollbacks - last_rollbacks_;
    last_rollbacks_ = ss.rollbacks;
    last_ = wall;
    std::string line;
    for (std::uint32_t q = 0; q < peer_.options().session.peers; ++q) {
      if (q == a_.o.session.local_peer) continue;
      const rollback::PeerStatus ps = session.peer_status(q);
      char b[96];
      std::snprintf(b, sizeof b, " | p%u %s ping %.0f ms adv %+d", q, rollback::peer_state_name(ps.state), ps.rtt_us / 1000.0,
                    ps.frame_advantage);
      line += b;
    }
    std::fprintf(stderr, "\r[peer %u] %s tick %llu confirmed %llu rollbacks/s %.0f dropped auth %llu replay %llu%s   ", a_.o.session.local_peer,
                 rollback::wire_security_name(session.config().security), static_cast<unsigned long long>(session.current_tick()),
                 static_cast<unsigned long long>(session.confirmed_tick()), static_cast<double>(window) / dt,
                 static_cast<unsigned long long>(ss.dropped_auth), static_cast<unsigned long long>(ss.dropped_replay), line.c_str());
    if (!stderr_is_tty()) std::fprintf(stderr, "\n");
  }

 private:
  const PeerArgs& a_;
  rollback::UdpPeer& peer_;
  Clock::time_point started_ = Clock::now();  // the process's start (near enough: before the sockets)
  Clock::time_point last_ = Clock::now();
  std::uint64_t last_rollbacks_ = 0;
};

// The exit code of a peer's result: 0 ok, 1 desync, timeout or unfinished, 2 bad input.
int peer_exit(rollback::UdpPeerResult r) {
  switch (r) {
    case rollback::UdpPeerResult::Ok: return kExitOk;
    case rollback::UdpPeerResult::Desync:
    case rollback::UdpPeerResult::Unfinished: return kExitMismatch;
    case rollback::UdpPeerResult::BadInput: return kExitBadInput;
  }
  return kExitBadInput;
}

// What the peer's run came to, for its report.
struct PeerOutcome {
  int exit = kExitOk;
  std::string failure;  // "" or why ("DESYNC: ...")
  std::string sim;      // the sim's name as given
  std::uint64_t rejoin_tick = ~std::uint64_t{0};  // this process rejoined: its player's return tick
  std::uint64_t rejoined_after_ms = 0;
};

// The stdout text after finish(), ending in '\n': "peer P: OK|FAILED, confirmed C/T ticks, R
// rollbacks (max depth D), S stalls, H hash checks, W frames waited (time sync), final hash X"
// (+ "recorded the confirmed match to FILE"), or with --json one object: ok, exit, peer,
// peers, sim, ticks, confirmed_tick, finished, final_hash, the match's figures
// (rollback::append_match_fields), rejoin_tick + rejoined_after_ms, record, bundle +
// bundle_remote_state, states_served, the relay's figures (rollback::append_relay_fields), error.
std::string peer_report(rollback::UdpPeer& peer, const PeerOutcome& outcome, bool json) {
  const rollback::UdpPeerOptions& o = peer.options();
  rollback::RollbackSession& session = peer.session();
  const rollback::SessionStats& s = session.stats();
  const std::string final_hash = hex(session.runner().hash().total);
  auto n = [](std::uint64_t v) { return std::to_string(v); };
  if (!json) {
    std::string out = "peer " + n(o.session.local_peer) + ": " + (outcome.exit == kExitOk ? "OK" : "FAILED") + ", confirmed " +
                      n(session.confirmed_tick()) + "/" + n(o.ticks) + " ticks, " + n(s.rollbacks) + " rollbacks (max depth " +
                      n(s.max_rollback_depth) + "), " + n(s.stalls) + " stalls, " + n(s.hash_checks) + " hash checks, " +
                      n(peer.loop().stats().waited_frames) + " frames waited (time sync), final hash " + final_hash + "\n";
    if (!o.record.empty()) out += "recorded the confirmed match to " + o.record + "\n";
    return out;
  }
  Json j;
  j.begin().field("ok", outcome.exit == kExitOk).field("exit", outcome.exit).field("peer", o.session.local_peer)
      .field("peers", o.session.peers).field("sim", outcome.sim).field("ticks", o.ticks)
      .field("confirmed_tick", session.confirmed_tick()).field("finished", peer.finished()).field("final_hash", final_hash);
  rollback::append_match_fields(j, session, peer.loop(), peer.udp().stats(), peer.lossy_lost(),
                                rollback::match_key_source_name(peer.key_source()));
  if (outcome.rejoin_tick != ~std::uint64_t{0})
    j.field("rejoin_tick", outcome.rejoin_tick).field("rejoined_after_ms", outcome.rejoined_after_ms);
  if (!o.record.empty()) j.field("record", o.record);
  if (!peer.bundle_path().empty()) j.field("bundle", peer.bundle_path()).field("bundle_remote_state", peer.bundle_remote_state());
  if (peer.exchange() != nullptr) j.field("states_served", peer.exchange()->requests_served());
  if (peer.relay() != nullptr) rollback::append_relay_fields(j, *peer.relay());
  if (!outcome.failure.empty()) j.field("error", outcome.failure);
  j.end();
  return j.str() + "\n";
}

// Setup, frame loop and bundles are rollback::UdpPeer; this checks, prints and sets the exit code.
int peer_cmd(const PeerArgs& given) {
  const replay::Sim* sim = replay::find_sim_including_hidden(given.sim);  // planted sims too (desync bundles over UDP)
  if (sim == nullptr) return fail(given, "unknown sim '" + given.sim + "' (known: " + describe_sims() + ")");
  PeerArgs a = given;
  if (a.o.tick_hz == 0) a.o.tick_hz = std::clamp<std::uint32_t>(sim->tick_hz(), 1, 2000);
  std::vector<std::string> addresses;
  if (int rc = check_args(a, addresses); rc != kExitOk) return rc;
  rollback::UdpPeerOptions options = peer_options(a, *sim, std::move(addresses));
  if (auto f = rollback::udp_peer_options_failure(options)) return fail(a, peer_failure_text(*f, options));
  const std::uint32_t players = options.config.players;
  rollback::UdpPeer peer(*sim, std::move(options));
  PeerPrinter printer(a, peer);
  if (auto f = peer.open(printer))
    return report_error(a.json, kExitBadInput, peer_failure_text(*f, peer.options()), f->file ? &*f->file : nullptr);
  std::fprintf(stderr, "%s peer %u/%u: %s bound to %s, %u players, %llu ticks at %u Hz, %s messages%s\n", tool_name().c_str(), a.o.session.local_peer,
               peer.options().session.peers, a.sim.c_str(), peer.udp().local_address().c_str(), players,
               static_cast<unsigned long long>(a.o.ticks), a.o.tick_hz, rollback::wire_security_name(peer.session().config().security),
               peer.lossy() ? " (lossy link emulation on outgoing packets)" : "");
  printer.t0 = Clock::now();
  const rollback::UdpPeerPlay played = peer.play(printer);
  if (a.status) std::fprintf(stderr, "\n");
  if (auto f = peer.finish(printer))
    return report_error(a.json, kExitBadInput, peer_failure_text(*f, peer.options()), f->file ? &*f->file : nullptr);
  PeerOutcome o{peer_exit(peer.result(played)), played.failure, a.sim, printer.rejoined_at, 0};
  if (played.timed_out)
    o.failure = "the match did not finish within --max-seconds (confirmed " + std::to_string(peer.session().confirmed_tick()) +
                " of " + std::to_string(a.o.ticks) + " ticks)";
  if (printer.rejoined_after_s >= 0) o.rejoined_after_ms = static_cast<std::uint64_t>(printer.rejoined_after_s * 1000);
  if (peer.loop().stats().desyncs != 0) o.failure = "DESYNC: " + peer.loop().first_desync();
  std::fputs(peer_report(peer, o, a.json).c_str(), stdout);
  if (!o.failure.empty()) std::fprintf(stderr, "%s peer %u: error: %s\n", tool_name().c_str(), a.o.session.local_peer, o.failure.c_str());
  return o.exit;
}
}  // namespace

namespace {
// `required`: --sim and --id (a spectator following a recording needs neither).
void add_common(CLI::App* app, const std::shared_ptr<PeerArgs>& a, bool required = true) {
  CLI::Option* sim = app->add_option("--sim", a->sim, "Sim name");
  CLI::Option* id = app->add_option("--id", a->o.session.local_peer, "This peer's id (index into --peers); peer p owns player p");
  if (required) {
    sim->required();
    id->required();
  }
  app->add_option("--peers", a->peers, "Every peer's HOST:PORT or [HOST]:PORT, in peer-id order")->delimiter(',');
  app->add_option("--rendezvous", a->o.rendezvous,
                  "Instead of --peers: bind --bind (default 127.0.0.1:0), publish the bound address as DIR/peerID.addr "
                  "and read the others' from there");
  app->add_option("--count", a->count, "Number of peers (with --rendezvous)");
  app->add_option("--bind", a->o.bind, "Local address to bind (default: this peer's entry of --peers)");
  app->add_option("--players", a->players, "Players (default: as many as the sim accepts, up to the peers)");
  app->add_option("--units", a->o.config.units, "Units, for sims that take it");
  app->add_option("--seed", a->o.config.seed, "World seed (every peer must use the same)")->capture_default_str();
  app->add_option("--bot", a->bot, "Bot seed (default: --seed)")->each([a](const std::string&) { a->bot_given = true; });
  app->add_option("--ticks", a->o.ticks, "Ticks to play")->capture_default_str()->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10000000}));
  app->add_option("--tick-hz", a->o.tick_hz, "Frame rate of the loop (default: the sim's tick rate)")->check(CLI::Range(1u, 2000u));
  app->add_option("--input-delay", a->o.session.input_delay, "Input delay (ticks; same on every peer)")->capture_default_str()->check(CLI::Range(0u, 64u));
  app->add_option("--max-prediction", a->o.session.max_prediction, "Prediction window (ticks)")->capture_default_str()->check(CLI::Range(0u, 64u));
  app->add_option("--hash-interval", a->o.session.hash_interval, "Hash exchange every K confirmed ticks")->capture_default_str();
  app->add_option("--session-id", a->o.session.session_id, "Match id: packets of other ids are dropped (no secret: it is sent in the clear)")->capture_default_str();
  app->add_option("--key-file", a->o.session.key_file,
                  "The match's secret: 32 raw bytes or 64 hex digits ('" + tool_name() + " keygen --match-key FILE'), the same "
                  "file on every peer; every message is authenticated with it, so every player can impersonate every "
                  "other (without it the key is derived from --session-id: INSECURE, tests only)");
  app->add_option("--identity-file", a->o.session.identity_file,
                  "This peer's secret key ('" + tool_name() + " keygen --identity FILE'): with --peer-keys, each pair of peers "
                  "authenticates with its own key, so no player can forge another's messages (--key-file then keys the "
                  "relay only)");
  app->add_option("--peer-keys", a->o.session.peer_keys_file,
                  "Every peer's public key, one line of 64 hex digits per peer in peer-id order (lines starting with # "
                  "are skipped); the same file on every peer");
  app->add_flag("--no-auth", a->o.session.no_auth, "Send and accept unauthenticated messages (LAN, tests): anyone can forge them");
  app->add_option("--sync-roundtrips", a->o.session.sync_roundtrips, "Handshake round trips before tick 0")->capture_default_str()->check(CLI::Range(1u, 100u));
  app->add_option("--sync-timeout-s", a->sync_timeout_s, "Give up when the handshake takes longer")->capture_default_str();
  app->add_option("--notify-ms", a->notify_ms, "Silence before NetworkInterrupted")->capture_default_str();
  app->add_option("--disconnect-ms", a->disconnect_ms, "Silence before a peer is Disconnected")->capture_default_str();
  app->add_option("--max-frame-advantage", a->o.session.max_frame_advantage, "Time sync: wait when this many frames ahead (0 = off)")->capture_default_str();
  app->add_option("--latency-ms", a->latency_ms, "Emulated one-way latency added to outgoing packets")->capture_default_str();
  app->add_option("--jitter-ms", a->jitter_ms, "Emulated jitter (uniform ±)")->capture_default_str();
  app->add_option("--loss", a->loss, "Emulated loss of outgoing packets (0..1)")->capture_default_str();
  app->add_option("--net-seed", a->net_seed, "Seed of the emulated link (default: from --seed and --id)");
  app->add_option("--max-seconds", a->max_seconds, "Hard wall-clock limit (exit 1 when reached)")->capture_default_str();
  app->add_option("--linger-ms", a->linger_ms, "Keep answering after the match is confirmed and acknowledged")->capture_default_str();
  app->add_option("--record", a->o.record, "Record the confirmed match as a replay file");
  app->add_option("--checkpoint-every", a->o.checkpoint_every,
                  "With --record: a checkpoint every N ticks (a multiple of --hash-interval), so that watchers "
                  "following the file (spectate --follow) start there")->capture_default_str();
  app->add_option("--bundle-dir", a->o.bundle_dir,
                  "On a desync, write a bundle (docs/desync-hunting.md) with this peer's state and the remote's, fetched "
                  "over a second UDP socket; every peer should get it (it also serves its states)");
  app->add_option("--exchange-peers", a->o.exchange_peers,
                  "State-exchange address of every peer, in peer-id order (default: each --peers address, port + 1; "
                  "with --rendezvous they are published)")->delimiter(',');
  app->add_option("--keep-desyncs", a->o.session.kept_desyncs,
                  "With --bundle-dir: a bundle for the earliest divergent tick and for the next N-1 desynced hash checks")
      ->capture_default_str()->check(CLI::Range(1u, 64u));
  app->add_option("--exchange-wait-ms", a->exchange_wait_ms, "How long to wait for the remote's state after a desync")
      ->capture_default_str()->check(CLI::Range(0.0, 600000.0));
  app->add_option("--relay", a->o.relay,
                  "Host-fed spectators: serve the recording (--record) to watchers ('spectate --host ADDR') from "
                  "this HOST:PORT (port 0: any); players send them nothing");
  app->add_option("--rejoin", a->o.rejoin,
                  "Restart a crashed peer: fetch the confirmed history from the survivor's --relay HOST:PORT, replay it "
                  "(every hash checked) and ask to play again (any survivor's relay; docs/rollback.md, \"Rejoin\")");
  app->add_option("--relay-slots", a->o.relay_slots, "With --relay: watchers served at once")
      ->capture_default_str()->check(CLI::Range(1u, rollback::kRelayMaxSubscribers));
  app->add_option("--relay-linger-s", a->relay_linger_s,
                  "With --relay: after the match, keep serving until every watcher has the end, at most this long")
      ->capture_default_str()->check(CLI::Range(0.0, 600.0));
  app->add_flag("--status", a->status, "Live status line on stderr (ping, frame advantage, rollbacks/s)");
  app->add_flag("--allow-remote", a->allow_remote, "Allow addresses outside loopback");
  app->add_flag("--json", a->json, "Machine-readable result on stdout");
}
}  // namespace

Command add_spectate(CLI::App& root) {
  auto a = std::make_shared<PeerArgs>();
  a->o.session.spectator = true;
  auto f = std::make_shared<FollowArgs>();
  CLI::App* app = root.add_subcommand(
      "spectate", "Watch a rollback match: over UDP as a peer without players, or from its live recording (--follow)");
  add_common(app, a, false);
  add_follow_options(app, f);
  app->add_option("--delay-frames", a->o.delay_frames, "Stay this many ticks behind the players")->capture_default_str();
  app->add_option("--catchup-speed", a->o.catchup_speed, "Ticks per frame when further behind")->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  app->footer("The spectator is peer --id (>= --players) of the match: the players send it their inputs and hashes\n"
              "like to any peer, and nobody waits for its simulation. Example:\n"
              "  " + tool_name() + " spectate --sim duel --players 2 --id 2 --peers A0,A1,A2 --delay-frames 30 --record watch.replay\n"
              "Or, with no traffic to the players at all, from the recording a peer writes (--record FILE\n"
              "--checkpoint-every N), starting at its newest checkpoint:\n"
              "  " + tool_name() + " spectate --follow p0.replay --delay-ticks 120\n"
              "Exit codes as for '" + tool_name() + " peer' (--follow: 1 when the state differs from the recording).");
  return {app, [a, f, app] {
            if (!f->hosts.empty()) {
              f->watch.host = f->hosts.front();
              f->watch.more_hosts.assign(f->hosts.begin() + 1, f->hosts.end());
            }
            if (!f->watch.source.empty() || !f->watch.host.empty()) {
              f->json = a->json;
              f->max_seconds = a->max_seconds;
              f->record = a->o.record;
              f->watch.relay = a->o.relay;
              f->watch.key_file = a->o.session.key_file;
              f->watch.no_auth = a->o.session.no_auth;
              f->watch.allow_remote = a->allow_remote;
              f->watch.session_id = a->o.session.session_id;
              f->watch.relay_slots = a->o.relay_slots;
              return follow_cmd(*f);
            }
            if (!f->watch.watch_key_file.empty())
              return report_error(a->json, kExitBadInput, "--watch-key-file is for --host (a relay's watcher)");
            if (a->sim.empty() || app->count("--id") == 0)
              return report_error(a->json, kExitBadInput, "spectate: --sim and --id are required (or --follow FILE, or --host ADDR)");
            return peer_cmd(*a);
          }};
}

Command add_peer(CLI::App& root) {
  auto a = std::make_shared<PeerArgs>();
  CLI::App* app = root.add_subcommand("peer", "Play one peer of a rollback match over UDP (bots play the local players)");
  add_common(app, a);
  app->footer("Example (two terminals):\n"
              "  " + tool_name() + " peer --sim duel --id 0 --peers 127.0.0.1:7000,127.0.0.1:7001 --record p0.replay --status\n"
              "  " + tool_name() + " peer --sim duel --id 1 --peers 127.0.0.1:7000,127.0.0.1:7001 --record p1.replay --status\n"
              "Exit codes: 0 the match was confirmed to the end (a disconnected peer's player uses the default\n"
              "input); 1 desync, timeout or unfinished; 2 bad arguments, socket errors, rejected handshake.");
  return {app, [a] { return peer_cmd(*a); }};
}

}  // namespace lockstep::cli
