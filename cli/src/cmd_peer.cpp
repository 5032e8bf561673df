// lockstep peer — one peer of a rollback match over real UDP (docs/rollback.md, "CLI").
//   lockstep peer --sim duel --id 0 --peers 127.0.0.1:7000,127.0.0.1:7001 --ticks 1800 --record p0.replay
// Every process is given the addresses of all peers in peer-id order (its own entry is its
// bind address); peer p owns player p, peers beyond the player count spectate. A bot plays
// every local player. The frame loop runs at --tick-hz on the steady clock, follows the
// session's wait recommendations (time sync) and records the confirmed history as a replay.
// Floats here are display only.
#include "cmd_follow.h"
#include "common.h"

#include <lockstep/hash/durable_file.h>
#include <lockstep/rollback/desync_bundle.h>
#include <lockstep/rollback/lossy_transport.h>
#include <lockstep/rollback/match_loop.h>
#include <lockstep/rollback/peer_setup.h>
#include <lockstep/rollback/relay.h>
#include <lockstep/replay/resume.h>
#include <lockstep/rollback/session.h>
#include <lockstep/rollback/state_exchange.h>
#include <lockstep/rollback/udp_transport.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

namespace lockstep::cli {

namespace {
struct PeerArgs {
  std::string sim;
  std::uint32_t id = 0;
  std::vector<std::string> peers;
  std::string bind;  // default: peers[id]
  std::string rendezvous;  // directory where the peers publish the addresses they bound
  std::uint32_t count = 0;
  std::uint32_t players = 0;
  std::uint32_t units = 0;
  std::uint64_t seed = 1;
  std::uint64_t bot = 0;
  bool bot_given = false;
  std::uint64_t ticks = 1800;
  std::uint32_t tick_hz = 0;  // 0: the sim's rate (Sim::tick_hz)
  std::uint32_t input_delay = 2;
  std::uint32_t max_prediction = 8;
  std::uint32_t hash_interval = 16;
  std::uint32_t session_id = 1;
  // Wire security (docs/rollback.md, "Threat model"): a key file, else a key derived from
  // --session-id (insecure, loudly), or --no-auth.
  std::string key_file;
  bool no_auth = false;
  std::uint32_t sync_roundtrips = 5;
  double sync_timeout_s = 10;
  double notify_ms = 250;
  double disconnect_ms = 1500;
  std::uint32_t max_frame_advantage = 3;
  double latency_ms = 0, jitter_ms = 0, loss = 0;
  std::uint64_t net_seed = 0;
  double max_seconds = 120;
  double linger_ms = 300;
  std::string record;
  std::uint32_t checkpoint_every = 0;  // CKPT blocks in the recording (late watchers start there)
  // Desync bundles with both sides: a second UDP socket per peer serves this peer's kept
  // states and fetches the remote's state of the desync tick (rollback/state_exchange.h).
  std::string bundle_dir;
  std::vector<std::string> exchange_peers;  // default: every --peers address with port + 1
  double exchange_wait_ms = 3000;
  std::uint32_t keep_desyncs = 1;  // bundles for the first desync and the next N − 1
  // Host-fed spectators (rollback/relay.h): serve the recording being written to up to 32
  // watchers (`spectate --host`) from a socket of its own.
  std::string relay;
  std::uint32_t relay_slots = rollback::kRelayMaxSubscribers;
  // Rejoin (docs/rollback.md, "Rejoin"): this process restarts a peer that crashed; it fetches
  // the confirmed history from the survivor's relay at this address and asks to play again.
  std::string rejoin;
  double relay_linger_s = 10;
  bool status = false;
  bool json = false;
  bool allow_remote = false;
  // lockstep spectate: a peer without players that simulates confirmed ticks only.
  bool spectator = false;
  std::uint32_t delay_frames = 0;     // stay this many ticks behind the players
  std::uint32_t catchup_speed = 4;    // ticks per frame when further behind than delay + 2·catchup
};

using Clock = std::chrono::steady_clock;

// Everything a peer process owns for one match, built step by step by peer_cmd.
struct PeerRun {
  const replay::Sim* sim = nullptr;
  std::vector<std::string> addresses;
  std::uint32_t peers = 0;
  replay::SimConfig config;
  rollback::UdpTransport udp, xudp;  // the session's socket; the state exchange's (--bundle-dir)
  bool exchange = false;
  bool lossy = false;
  rollback::MatchKeySource key_source = rollback::MatchKeySource::None;
  std::unique_ptr<rollback::RelayServer> relay;           // --relay
  std::unique_ptr<replay::GrowingFileSource> recording;  // what the relay serves
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();  // the process's start
};

int fail(const PeerArgs& a, const std::string& why) { return report_error(a.json, kExitBadInput, why); }

// The world's players: as given, else as many as the sim accepts up to the number of peers.
int choose_players(const PeerArgs& a, PeerRun& r) {
  r.config.units = a.units;
  r.config.seed = a.seed;
  r.config.players = a.players != 0 ? a.players : std::min<std::uint32_t>(r.peers, 2);
  for (std::uint32_t p = r.peers; a.players == 0 && p >= 1; --p) {
    replay::SimConfig c = r.config;
    c.players = p;
    if (r.sim->check_config(c).ok()) {
      r.config.players = p;
      break;
    }
  }
  if (r.config.players > r.peers) return fail(a, "--players must be <= the number of peers");
  if (a.spectator && a.id < r.config.players) return fail(a, "a spectator's --id must be >= --players (peer p owns player p)");
  if (!a.spectator && a.id >= r.config.players) return fail(a, "--id owns no player: use 'lockstep spectate' for a spectator");
  return kExitOk;
}

int check_args(const PeerArgs& a, PeerRun& r) {
  if (!a.record.empty())
    if (int rc = check_output(a.record, a.json); rc != kExitOk) return rc;
  if (!a.bundle_dir.empty())
    if (int rc = check_output_dir("--bundle-dir", a.bundle_dir, a.json); rc != kExitOk) return rc;
  r.addresses = a.peers;
  if (!a.rendezvous.empty()) {
    if (!r.addresses.empty()) return fail(a, "--rendezvous replaces --peers (use --count)");
    r.addresses.assign(a.count, std::string());
  }
  r.peers = static_cast<std::uint32_t>(r.addresses.size());
  if (r.peers < 2 || r.peers > rollback::kMaxSessionPeers)
    return fail(a, "--peers needs 2..16 addresses (every peer, in peer-id order), or --rendezvous DIR --count N");
  if (a.id >= r.peers) return fail(a, "--id must be < the number of --peers");
  auto bad_ms = [](double v) { return !(v >= 0.0 && v <= 10000.0); };
  if (bad_ms(a.latency_ms) || bad_ms(a.jitter_ms) || bad_ms(a.notify_ms) || !(a.disconnect_ms >= 0 && a.disconnect_ms <= 600000))
    return fail(a, "times out of range");
  if (!(a.loss >= 0.0 && a.loss < 1.0)) return fail(a, "--loss must be in 0..1 (exclusive)");
  if (a.no_auth && !a.key_file.empty()) return fail(a, "--no-auth and --key-file exclude each other");
  if (!a.relay.empty() && a.record.empty()) return fail(a, "--relay serves the recording: give --record FILE too");
  if (!a.record.empty() && a.checkpoint_every != 0 && (a.hash_interval == 0 || a.checkpoint_every % a.hash_interval != 0))
    return fail(a, "--checkpoint-every must be a multiple of --hash-interval (" + std::to_string(a.hash_interval) + ")");
  return choose_players(a, r);
}

// The state exchange's address of every peer (--bundle-dir); "" or the reason they are unusable.
std::string exchange_peers(const PeerArgs& a, const PeerRun& r, std::vector<std::string>& out) {
  out = a.exchange_peers;
  if (!a.rendezvous.empty()) {
    if (!out.empty()) return "--rendezvous publishes the exchange addresses: drop --exchange-peers";
    out.assign(r.peers, std::string());
  } else if (out.empty()) {
    out = rollback::exchange_addresses(r.addresses);
    for (std::size_t q = 0; q < out.size(); ++q)
      if (out[q].empty()) return "--bundle-dir: cannot derive an exchange port from '" + r.addresses[q] + "' (give --exchange-peers)";
  }
  if (out.size() != r.peers) return "--exchange-peers needs one address per peer, in peer-id order";
  return {};
}

// Binds the session socket (and the exchange's), then with --rendezvous learns the others' addresses.
int open_sockets(const PeerArgs& a, PeerRun& r) {
  rollback::PeerSocketsConfig pc;
  pc.local_peer = a.id;
  pc.session_id = a.session_id;
  pc.peers = r.addresses;
  pc.bind = a.bind;
  pc.loopback_only = !a.allow_remote;
  pc.rendezvous = !a.rendezvous.empty();
  r.exchange = !a.bundle_dir.empty();
  std::vector<std::string> xaddresses;
  const std::string bad_exchange = r.exchange ? exchange_peers(a, r, xaddresses) : std::string();
  if (bad_exchange.empty()) pc.exchange_peers = xaddresses;
  if (std::string e = rollback::open_peer_sockets(pc, r.udp, r.xudp); !e.empty()) return fail(a, e);
  if (!bad_exchange.empty()) return fail(a, bad_exchange);
  if (a.rendezvous.empty()) return kExitOk;
  const std::string e = rollback::rendezvous_in_directory(a.rendezvous, a.id, r.peers,
                                                          static_cast<std::uint64_t>(a.sync_timeout_s * 1e6), r.udp,
                                                          r.exchange ? &r.xudp : nullptr);
  return e.empty() ? kExitOk : fail(a, e);
}

int session_config(const PeerArgs& a, PeerRun& r, rollback::SessionConfig& sc) {
  rollback::PeerSessionOptions o;
  o.peers = r.peers;
  o.players = r.config.players;
  o.local_peer = a.id;
  o.spectator = a.spectator;
  o.key_file = a.key_file;
  o.no_auth = a.no_auth;
  o.session_id = a.session_id;
  o.input_delay = a.input_delay;
  o.max_prediction = a.max_prediction;
  o.hash_interval = a.hash_interval;
  o.sync_roundtrips = a.sync_roundtrips;
  o.sync_timeout_us = static_cast<std::uint64_t>(a.sync_timeout_s * 1e6);
  o.notify_us = static_cast<std::uint64_t>(a.notify_ms * 1000);
  o.disconnect_us = static_cast<std::uint64_t>(a.disconnect_ms * 1000);
  o.max_frame_advantage = a.max_frame_advantage;
  o.kept_desyncs = a.keep_desyncs;
  o.incarnation = static_cast<std::uint32_t>(std::random_device{}()) | 1u;
  if (std::string why = rollback::peer_session_config(o, sc, r.key_source); !why.empty()) return fail(a, why);
  if (a.no_auth)
    std::fprintf(stderr, "lockstep peer %u: WARNING: --no-auth: messages are not authenticated; anyone who can send "
                 "to this port can inject inputs or expel a peer (docs/rollback.md, \"Threat model\")\n", a.id);
  else if (r.key_source == rollback::MatchKeySource::DerivedFromSessionId)
    std::fprintf(stderr, "lockstep peer %u: WARNING: no --key-file: the match key is derived from --session-id, which "
                 "is no secret (INSECURE: for tests and demos; docs/rollback.md, \"Threat model\")\n", a.id);
  return kExitOk;
}

// The relay serves the recording file as the recorder writes it, with the match's key.
int open_relay(const PeerArgs& a, PeerRun& r, const rollback::SessionConfig& sc) {
  rollback::RelayConfig rc = rollback::relay_config_for(sc, a.relay, !a.allow_remote);
  rc.max_subscribers = a.relay_slots;
  r.relay = std::make_unique<rollback::RelayServer>();
  std::string error;
  if (!r.relay->open(rc, error)) return fail(a, "--relay " + a.relay + ": " + error);
  r.recording = std::make_unique<replay::GrowingFileSource>(a.record);
  std::fprintf(stderr, "lockstep peer %u: relaying the recording to watchers at %s\n", a.id, r.relay->local_address().c_str());
  return kExitOk;
}

// --rejoin: the survivor's confirmed history, fetched from its relay, replayed (every hash
// checked) into `runner` and, with --record, into our own recording.
int replay_history(const PeerArgs& a, PeerRun& r, const rollback::SessionConfig& sc, replay::Runner& runner,
                   replay::ReplayRecorder& recorder) {
  const rollback::RelayConfig rc = a.allow_remote ? rollback::relay_config_for(sc, "0.0.0.0:0", false)
                                                  : rollback::relay_config_for(sc, rollback::RelayConfig{}.bind, true);
  rollback::RejoinFailure why;
  if (!rollback::rejoin_from_relay(a.rejoin, rc, static_cast<std::uint32_t>(a.sync_timeout_s * 1000), *r.sim, r.config,
                                   runner, a.record, recorder, why)) {
    const std::string message = "--rejoin " + a.rejoin + ": " + why.message;
    if (why.kind == rollback::RejoinFailure::Kind::Recording) return report_error(a.json, kExitBadInput, message, &why.file);
    if (why.kind == rollback::RejoinFailure::Kind::OtherMatch)
      return fail(a, message + "; give the same --sim, --players, --units and --seed as before the restart");
    return fail(a, message);
  }
  std::fprintf(stderr, "lockstep peer %u: replayed the survivor's confirmed history to tick %llu; asking to rejoin\n", a.id,
               static_cast<unsigned long long>(runner.world().tick()));
  return kExitOk;
}

// Bots play the local players; the session's events are reported on stderr.
class BotHost final : public rollback::BotMatchHost {
 public:
  BotHost(const PeerArgs& a, const PeerRun& r, rollback::RollbackSession& session, const Clock::time_point& t0)
      : BotMatchHost(*r.sim, r.config, a.bot_given ? a.bot : a.seed, session), a_(a), t0_(t0), started_(r.started) {}
  std::uint64_t rejoined_at = ~std::uint64_t{0};
  double rejoined_after_s = -1;  // seconds from the process's start to the Rejoined event
  void on_event(const rollback::SessionEvent& e) override {
    if (e.kind == rollback::SessionEventKind::Rejoined && e.peer == a_.id) {
      rejoined_at = e.tick;
      rejoined_after_s = std::chrono::duration<double>(Clock::now() - started_).count();
    }
    if (e.kind == rollback::SessionEventKind::Running)
      std::fprintf(stderr, "lockstep peer %u: Synchronized with every peer, running (%.3f s)\n", a_.id,
                   std::chrono::duration<double>(Clock::now() - t0_).count());
    const std::string line = rollback::describe_session_event(e);
    if (!line.empty()) std::fprintf(stderr, "lockstep peer %u: %s\n", a_.id, line.c_str());
  }

 private:
  const PeerArgs& a_;
  const Clock::time_point& t0_;
  Clock::time_point started_;
};

// The --status line: ping, frame advantage and rollbacks per second of every other peer.
class StatusLine {
 public:
  void maybe_print(const PeerArgs& a, const PeerRun& r, rollback::RollbackSession& session) {
    const auto wall = Clock::now();
    const double dt = std::chrono::duration<double>(wall - last_).count();
    if (!a.status || dt < 0.25) return;
    const std::uint64_t window = session.stats().rollbacks - last_rollbacks_;
    last_rollbacks_ = session.stats().rollbacks;
    last_ = wall;
    std::string line;
    for (std::uint32_t q = 0; q < r.peers; ++q) {
      if (q == a.id) continue;
      const rollback::PeerStatus ps = session.peer_status(q);
      char b[96];
      std::snprintf(b, sizeof b, " | p%u %s ping %.0f ms adv %+d", q, rollback::peer_state_name(ps.state), ps.rtt_us / 1000.0,
                    ps.frame_advantage);
      line += b;
    }
    const rollback::SessionStats& ss = session.stats();
    std::fprintf(stderr, "\r[peer %u] %s tick %llu confirmed %llu rollbacks/s %.0f dropped auth %llu replay %llu%s   ", a.id,
                 rollback::wire_security_name(session.config().security), static_cast<unsigned long long>(session.current_tick()),
                 static_cast<unsigned long long>(session.confirmed_tick()), static_cast<double>(window) / dt,
                 static_cast<unsigned long long>(ss.dropped_auth), static_cast<unsigned long long>(ss.dropped_replay), line.c_str());
    if (!stderr_is_tty()) std::fprintf(stderr, "\n");
  }

 private:
  Clock::time_point last_ = Clock::now();
  std::uint64_t last_rollbacks_ = 0;
};

// Writes every kept desync's bundle; `path`/`remote_state` describe the first.
int write_bundles(const PeerArgs& a, rollback::MatchLoop& loop, std::string& path, bool& remote_state) {
  rollback::DesyncBundles d = loop.desync_bundles("peer" + std::to_string(a.id));
  remote_state = d.remote_state;
  for (std::size_t i = 0; i < d.bundles.size(); ++i) {
    std::string written;
    const FileStatus fs = inspect::write_bundle(a.bundle_dir, d.bundles[i], written);
    if (!fs.ok()) return fail(a, fs.message);
    if (i == 0) {
      path = written;
      std::fprintf(stderr, "lockstep peer %u: desync bundle %s (%s)\n", a.id, written.c_str(), d.note.c_str());
    } else {
      std::fprintf(stderr, "lockstep peer %u: desync bundle %s (desync %zu of %zu kept: its hashes only)\n", a.id,
                   written.c_str(), i + 1, d.bundles.size());
    }
  }
  return kExitOk;
}

struct PeerOutcome {
  int exit_code = kExitOk;
  std::uint64_t rejoin_tick = ~std::uint64_t{0};  // this process rejoined: its player's return tick
  double rejoined_after_s = -1;
  std::string failure, recorded, bundle_path;
  bool bundle_remote_state = false;
  bool finished = false;
};

void print_result(const PeerArgs& a, const PeerRun& r, rollback::RollbackSession& session, const rollback::MatchLoop& loop,
                  const rollback::LossyTransport& wrapped, const rollback::StateExchange* ex, const PeerOutcome& o) {
  const rollback::SessionStats& s = session.stats();
  const std::string final_hash = hex(session.runner().hash().total);
  if (!a.json) {
    std::printf("peer %u: %s, confirmed %llu/%llu ticks, %llu rollbacks (max depth %u), %llu stalls, %llu hash checks, "
                "%llu frames waited (time sync), final hash %s\n",
                a.id, o.exit_code == kExitOk ? "OK" : "FAILED", static_cast<unsigned long long>(session.confirmed_tick()),
                static_cast<unsigned long long>(a.ticks), static_cast<unsigned long long>(s.rollbacks), s.max_rollback_depth,
                static_cast<unsigned long long>(s.stalls), static_cast<unsigned long long>(s.hash_checks),
                static_cast<unsigned long long>(loop.stats().waited_frames), final_hash.c_str());
    if (!o.recorded.empty()) std::printf("recorded the confirmed match to %s\n", o.recorded.c_str());
    return;
  }
  Json j;
  j.begin().field("ok", o.exit_code == kExitOk).field("exit", o.exit_code).field("peer", a.id).field("peers", r.peers)
      .field("sim", a.sim).field("ticks", a.ticks).field("confirmed_tick", session.confirmed_tick())
      .field("finished", o.finished).field("final_hash", final_hash);
  rollback::append_match_fields(j, session, loop, r.udp.stats(), wrapped.stats().lost, rollback::match_key_source_name(r.key_source));
  if (o.rejoin_tick != ~std::uint64_t{0})
    j.field("rejoin_tick", o.rejoin_tick).field("rejoined_after_ms", static_cast<std::uint64_t>(o.rejoined_after_s * 1000));
  if (!o.recorded.empty()) j.field("record", o.recorded);
  if (!o.bundle_path.empty()) j.field("bundle", o.bundle_path).field("bundle_remote_state", o.bundle_remote_state);
  if (ex != nullptr) j.field("states_served", ex->requests_served());
  if (r.relay != nullptr) rollback::append_relay_fields(j, *r.relay);
  if (!o.failure.empty()) j.field("error", o.failure);
  j.end();
  std::printf("%s\n", j.str().c_str());
}

// Runs the frame loop until the match is over, the session fails or --max-seconds passes.
void play(const PeerArgs& a, PeerRun& r, rollback::RollbackSession& session, rollback::MatchLoop& loop,
          rollback::LossyTransport& wrapped, PeerOutcome& o) {
  rollback::FramePacer pacer(a.tick_hz);
  const Clock::time_point t0 = Clock::now();
  BotHost host(a, r, session, t0);
  StatusLine status;
  struct KeepRejoinTick {  // whichever way the loop ends
    PeerOutcome& o;
    const BotHost& host;
    ~KeepRejoinTick() {
      o.rejoin_tick = host.rejoined_at;
      o.rejoined_after_s = host.rejoined_after_s;
    }
  } keep{o, host};
  for (;;) {
    const std::uint64_t now_us = pacer.now_us();
    if (static_cast<double>(now_us) > a.max_seconds * 1e6) {
      o.failure = "the match did not finish within --max-seconds (confirmed " + std::to_string(session.confirmed_tick()) +
                  " of " + std::to_string(a.ticks) + " ticks)";
      o.exit_code = kExitMismatch;
      return;
    }
    if (r.lossy) wrapped.pump(now_us);
    const Status st = loop.frame(now_us, host);
    if (!st.ok()) {
      o.failure = st.message();
      o.exit_code = st.code() == ErrorCode::Mismatch || st.code() == ErrorCode::IoError ? kExitBadInput : kExitMismatch;
      return;
    }
    if (loop.finished()) return;  // confirmed, acknowledged, answered late acks
    if (r.relay != nullptr) (void)r.relay->poll(*r.recording);  // the file is read again next frame
    status.maybe_print(a, r, session);
    pacer.wait_next_frame();
  }
}

// --record: the confirmed history goes to the recorder (a rejoiner's already holds the history).
int start_recording(const PeerArgs& a, const PeerRun& r, replay::Runner& runner, rollback::RollbackSession& session,
                    replay::ReplayRecorder& recorder, std::unique_ptr<rollback::RecorderSink>& sink) {
  if (a.record.empty()) return kExitOk;
  if (a.rejoin.empty()) {
    const replay::ReplayHeader header = replay::make_header(
        *r.sim, r.config, runner.world().storage(),
        replay::kReplayHasHashes | replay::kReplayHasComponentHashes |
            (a.checkpoint_every != 0 ? replay::kReplayHasCheckpoints : 0u),
        replay::kDefaultBlockTicks, a.checkpoint_every);
    replay::ReplayStatus st = recorder.open(a.record, header);
    if (st.ok()) st = recorder.initial(runner.hash());
    if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
  }
  sink = std::make_unique<rollback::RecorderSink>(recorder, a.checkpoint_every);
  session.set_confirmed_sink(sink.get());
  return kExitOk;
}

int peer_cmd(const PeerArgs& given) {
  PeerRun r;
  r.sim = replay::find_sim_including_hidden(given.sim);  // planted sims too (desync bundles over UDP)
  if (r.sim == nullptr) return fail(given, "unknown sim '" + given.sim + "' (known: " + describe_sims() + ")");
  PeerArgs a = given;
  if (a.tick_hz == 0) a.tick_hz = std::clamp<std::uint32_t>(r.sim->tick_hz(), 1, 2000);
  if (int rc = check_args(a, r); rc != kExitOk) return rc;
  replay::Runner runner(*r.sim, r.config);
  if (!runner.status().ok()) return fail(a, std::string("cannot build the world: ") + runner.status().message());
  if (int rc = open_sockets(a, r); rc != kExitOk) return rc;

  rollback::LossyConfig lc;
  lc.latency_us = static_cast<std::uint32_t>(std::llround(a.latency_ms * 1000));
  lc.jitter_us = static_cast<std::uint32_t>(std::llround(a.jitter_ms * 1000));
  lc.loss_ppm = static_cast<std::uint32_t>(std::llround(a.loss * 1e6));
  lc.seed = a.net_seed != 0 ? a.net_seed : a.seed * 1000003 + a.id;
  r.lossy = lc.latency_us != 0 || lc.jitter_us != 0 || lc.loss_ppm != 0;
  rollback::LossyTransport wrapped(r.udp, lc);
  rollback::Transport& transport = r.lossy ? static_cast<rollback::Transport&>(wrapped) : r.udp;

  rollback::SessionConfig sc;
  if (int rc = session_config(a, r, sc); rc != kExitOk) return rc;
  replay::ReplayRecorder recorder;
  if (!a.rejoin.empty()) {
    if (int rc = replay_history(a, r, sc, runner, recorder); rc != kExitOk) return rc;
    sc.rejoin = true;
  }
  rollback::RollbackSession session(runner, sc, &transport);
  if (!session.status().ok()) return fail(a, std::string("cannot start the session: ") + session.status().message());

  std::unique_ptr<rollback::RecorderSink> sink;
  if (int rc = start_recording(a, r, runner, session, recorder, sink); rc != kExitOk) return rc;
  if (!a.relay.empty())
    if (int rc = open_relay(a, r, sc); rc != kExitOk) return rc;

  rollback::MatchLoopConfig mc;
  mc.end_tick = a.ticks;
  mc.linger_us = static_cast<std::uint64_t>(a.linger_ms * 1000);
  mc.spectator = a.spectator;
  mc.spectator_delay_ticks = a.delay_frames;
  mc.catchup_speed = a.catchup_speed;
  mc.exchange_wait_us = static_cast<std::uint64_t>(a.exchange_wait_ms * 1000);
  rollback::MatchLoop loop(session, mc);
  std::unique_ptr<rollback::StateExchange> ex;
  if (r.exchange) {
    ex = std::make_unique<rollback::StateExchange>(r.xudp);
    loop.attach_state_exchange(*ex);
  }

  std::fprintf(stderr, "lockstep peer %u/%u: %s bound to %s, %u players, %llu ticks at %u Hz, %s messages%s\n", a.id, r.peers,
               a.sim.c_str(), r.udp.local_address().c_str(), r.config.players, static_cast<unsigned long long>(a.ticks),
               a.tick_hz, rollback::wire_security_name(sc.security), r.lossy ? " (lossy link emulation on outgoing packets)" : "");
  PeerOutcome o;
  play(a, r, session, loop, wrapped, o);
  if (a.status) std::fprintf(stderr, "\n");

  // Desync bundles: this peer's state and hashes of the desync tick, and the remote's state
  // when the exchange brought it (else its hashes only, and the reason in the report).
  if (ex != nullptr && session.has_desync())
    if (int rc = write_bundles(a, loop, o.bundle_path, o.bundle_remote_state); rc != kExitOk) return rc;
  if (sink != nullptr) {
    replay::ReplayStatus rs = sink->status();
    if (rs.ok()) rs = recorder.close();
    if (!rs.ok()) return report_error(a.json, kExitBadInput, rs.message, &rs);
    o.recorded = a.record;
    if (r.relay != nullptr) (void)r.relay->finish(*r.recording, static_cast<std::uint64_t>(a.relay_linger_s * 1e6));
  }
  o.finished = session.confirmed_tick() >= a.ticks;
  if (o.exit_code == kExitOk && (!o.finished || loop.stats().desyncs != 0)) o.exit_code = kExitMismatch;
  if (loop.stats().desyncs != 0) o.failure = "DESYNC: " + loop.first_desync();
  print_result(a, r, session, loop, wrapped, ex.get(), o);
  if (!o.failure.empty()) std::fprintf(stderr, "lockstep peer %u: error: %s\n", a.id, o.failure.c_str());
  return o.exit_code;
}
}  // namespace

namespace {
// `required`: --sim and --id (a spectator following a recording needs neither).
void add_common(CLI::App* app, const std::shared_ptr<PeerArgs>& a, bool required = true) {
  CLI::Option* sim = app->add_option("--sim", a->sim, "Sim name");
  CLI::Option* id = app->add_option("--id", a->id, "This peer's id (index into --peers); peer p owns player p");
  if (required) {
    sim->required();
    id->required();
  }
  app->add_option("--peers", a->peers, "Every peer's HOST:PORT or [HOST]:PORT, in peer-id order")->delimiter(',');
  app->add_option("--rendezvous", a->rendezvous,
                  "Instead of --peers: bind --bind (default 127.0.0.1:0), publish the bound address as DIR/peerID.addr "
                  "and read the others' from there");
  app->add_option("--count", a->count, "Number of peers (with --rendezvous)");
  app->add_option("--bind", a->bind, "Local address to bind (default: this peer's entry of --peers)");
  app->add_option("--players", a->players, "Players (default: as many as the sim accepts, up to the peers)");
  app->add_option("--units", a->units, "Units, for sims that take it");
  app->add_option("--seed", a->seed, "World seed (every peer must use the same)")->capture_default_str();
  app->add_option("--bot", a->bot, "Bot seed (default: --seed)")->each([a](const std::string&) { a->bot_given = true; });
  app->add_option("--ticks", a->ticks, "Ticks to play")->capture_default_str()->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10000000}));
  app->add_option("--tick-hz", a->tick_hz, "Frame rate of the loop (default: the sim's tick rate)")->check(CLI::Range(1u, 2000u));
  app->add_option("--input-delay", a->input_delay, "Input delay (ticks; same on every peer)")->capture_default_str()->check(CLI::Range(0u, 64u));
  app->add_option("--max-prediction", a->max_prediction, "Prediction window (ticks)")->capture_default_str()->check(CLI::Range(0u, 64u));
  app->add_option("--hash-interval", a->hash_interval, "Hash exchange every K confirmed ticks")->capture_default_str();
  app->add_option("--session-id", a->session_id, "Match id: packets of other ids are dropped (no secret: it is sent in the clear)")->capture_default_str();
  app->add_option("--key-file", a->key_file,
                  "The match's secret: 32 raw bytes or 64 hex digits, the same file on every peer; every message is "
                  "authenticated with it (without it the key is derived from --session-id: INSECURE, tests only)");
  app->add_flag("--no-auth", a->no_auth, "Send and accept unauthenticated messages (LAN, tests): anyone can forge them");
  app->add_option("--sync-roundtrips", a->sync_roundtrips, "Handshake round trips before tick 0")->capture_default_str()->check(CLI::Range(1u, 100u));
  app->add_option("--sync-timeout-s", a->sync_timeout_s, "Give up when the handshake takes longer")->capture_default_str();
  app->add_option("--notify-ms", a->notify_ms, "Silence before NetworkInterrupted")->capture_default_str();
  app->add_option("--disconnect-ms", a->disconnect_ms, "Silence before a peer is Disconnected")->capture_default_str();
  app->add_option("--max-frame-advantage", a->max_frame_advantage, "Time sync: wait when this many frames ahead (0 = off)")->capture_default_str();
  app->add_option("--latency-ms", a->latency_ms, "Emulated one-way latency added to outgoing packets")->capture_default_str();
  app->add_option("--jitter-ms", a->jitter_ms, "Emulated jitter (uniform ±)")->capture_default_str();
  app->add_option("--loss", a->loss, "Emulated loss of outgoing packets (0..1)")->capture_default_str();
  app->add_option("--net-seed", a->net_seed, "Seed of the emulated link (default: from --seed and --id)");
  app->add_option("--max-seconds", a->max_seconds, "Hard wall-clock limit (exit 1 when reached)")->capture_default_str();
  app->add_option("--linger-ms", a->linger_ms, "Keep answering after the match is confirmed and acknowledged")->capture_default_str();
  app->add_option("--record", a->record, "Record the confirmed match as a replay file");
  app->add_option("--checkpoint-every", a->checkpoint_every,
                  "With --record: a checkpoint every N ticks (a multiple of --hash-interval), so that watchers "
                  "following the file (spectate --follow) start there")->capture_default_str();
  app->add_option("--bundle-dir", a->bundle_dir,
                  "On a desync, write a bundle (docs/desync-hunting.md) with this peer's state and the remote's, fetched "
                  "over a second UDP socket; every peer should get it (it also serves its states)");
  app->add_option("--exchange-peers", a->exchange_peers,
                  "State-exchange address of every peer, in peer-id order (default: each --peers address, port + 1; "
                  "with --rendezvous they are published)")->delimiter(',');
  app->add_option("--keep-desyncs", a->keep_desyncs,
                  "With --bundle-dir: a bundle for the earliest divergent tick and for the next N-1 desynced hash checks")
      ->capture_default_str()->check(CLI::Range(1u, 64u));
  app->add_option("--exchange-wait-ms", a->exchange_wait_ms, "How long to wait for the remote's state after a desync")
      ->capture_default_str()->check(CLI::Range(0.0, 600000.0));
  app->add_option("--relay", a->relay,
                  "Host-fed spectators: serve the recording (--record) to watchers ('spectate --host ADDR') from "
                  "this HOST:PORT (port 0: any); players send them nothing");
  app->add_option("--rejoin", a->rejoin,
                  "Restart a crashed peer: fetch the confirmed history from the survivor's --relay HOST:PORT, replay it "
                  "(every hash checked) and ask to play again (two-peer matches; docs/rollback.md, \"Rejoin\")");
  app->add_option("--relay-slots", a->relay_slots, "With --relay: watchers served at once")
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
  a->spectator = true;
  auto f = std::make_shared<FollowArgs>();
  CLI::App* app = root.add_subcommand(
      "spectate", "Watch a rollback match: over UDP as a peer without players, or from its live recording (--follow)");
  add_common(app, a, false);
  add_follow_options(app, f);
  app->add_option("--delay-frames", a->delay_frames, "Stay this many ticks behind the players")->capture_default_str();
  app->add_option("--catchup-speed", a->catchup_speed, "Ticks per frame when further behind")->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  app->footer("The spectator is peer --id (>= --players) of the match: the players send it their inputs and hashes\n"
              "like to any peer, and nobody waits for its simulation. Example:\n"
              "  lockstep spectate --sim duel --players 2 --id 2 --peers A0,A1,A2 --delay-frames 30 --record watch.replay\n"
              "Or, with no traffic to the players at all, from the recording a peer writes (--record FILE\n"
              "--checkpoint-every N), starting at its newest checkpoint:\n"
              "  lockstep spectate --follow p0.replay --delay-ticks 120\n"
              "Exit codes as for 'lockstep peer' (--follow: 1 when the state differs from the recording).");
  return {app, [a, f, app] {
            if (!f->source.empty() || !f->host.empty()) {
              f->json = a->json;
              f->max_seconds = a->max_seconds;
              f->relay = a->relay;
              f->record = a->record;
              f->key_file = a->key_file;
              f->no_auth = a->no_auth;
              f->allow_remote = a->allow_remote;
              f->session_id = a->session_id;
              f->relay_slots = a->relay_slots;
              return follow_cmd(*f);
            }
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
              "  lockstep peer --sim duel --id 0 --peers 127.0.0.1:7000,127.0.0.1:7001 --record p0.replay --status\n"
              "  lockstep peer --sim duel --id 1 --peers 127.0.0.1:7000,127.0.0.1:7001 --record p1.replay --status\n"
              "Exit codes: 0 the match was confirmed to the end (a disconnected peer's player uses the default\n"
              "input); 1 desync, timeout or unfinished; 2 bad arguments, socket errors, rejected handshake.");
  return {app, [a] { return peer_cmd(*a); }};
}

}  // namespace lockstep::cli
