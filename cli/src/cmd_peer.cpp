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
  bool status = false;
  bool json = false;
  bool allow_remote = false;
  // lockstep spectate: a peer without players that simulates confirmed ticks only.
  bool spectator = false;
  std::uint32_t delay_frames = 0;     // stay this many ticks behind the players
  std::uint32_t catchup_speed = 4;    // ticks per frame when further behind than delay + 2·catchup
};

using Clock = std::chrono::steady_clock;

// "HOST:PORT" or "[HOST]:PORT" with the port moved by `by`; empty when not of that form.
std::string shift_port(const std::string& address, std::uint32_t by) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 >= address.size()) return {};
  std::uint32_t port = 0;
  for (std::size_t i = colon + 1; i < address.size(); ++i) {
    const char c = address[i];
    if (c < '0' || c > '9' || port > 65535) return {};
    port = port * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (port == 0 || port + by > 65535) return {};
  return address.substr(0, colon + 1) + std::to_string(port + by);
}

const char* state_name(rollback::PeerState s) {
  switch (s) {
    case rollback::PeerState::Local: return "local";
    case rollback::PeerState::Synchronizing: return "syncing";
    case rollback::PeerState::Running: return "running";
    case rollback::PeerState::Interrupted: return "interrupted";
    case rollback::PeerState::Disconnected: return "disconnected";
  }
  return "?";
}

// "tick 304 vs peer 0: ours 92ff… theirs 92ff…: total equal; components: Pos": the differing
// part is named even when the totals agree (a report can differ in a component hash only).
std::string describe_session_desync(rollback::RollbackSession& session, const rollback::SessionEvent& e) {
  std::string parts =
      describe_hash_diff(session.desync_local_hash(), session.desync_remote_hash(), session.runner().world().storage());
  const std::size_t colon = parts.find(": ");
  if (colon != std::string::npos) parts = parts.substr(colon + 2);
  return "tick " + std::to_string(e.tick) + " vs peer " + std::to_string(e.peer) + ": ours " + hex(e.local_total) +
         " theirs " + hex(e.remote_total) + ": " + parts;
}

int peer_cmd(const PeerArgs& given) {
  const replay::Sim* sim = replay::find_sim_including_hidden(given.sim);  // planted sims too (desync bundles over UDP)
  if (sim == nullptr)
    return report_error(given.json, kExitBadInput, "unknown sim '" + given.sim + "' (known: " + describe_sims() + ")");
  PeerArgs a = given;
  if (!a.record.empty())
    if (int rc = check_output(a.record, a.json); rc != kExitOk) return rc;
  if (!a.bundle_dir.empty())
    if (int rc = check_output_dir("--bundle-dir", a.bundle_dir, a.json); rc != kExitOk) return rc;
  if (a.tick_hz == 0) a.tick_hz = std::clamp<std::uint32_t>(sim->tick_hz(), 1, 2000);
  std::vector<std::string> addresses = a.peers;
  if (!a.rendezvous.empty()) {
    if (!addresses.empty()) return report_error(a.json, kExitBadInput, "--rendezvous replaces --peers (use --count)");
    addresses.assign(a.count, std::string());
  }
  const auto peers = static_cast<std::uint32_t>(addresses.size());
  if (peers < 2 || peers > rollback::kMaxSessionPeers)
    return report_error(a.json, kExitBadInput, "--peers needs 2..16 addresses (every peer, in peer-id order), or --rendezvous DIR --count N");
  if (a.id >= peers) return report_error(a.json, kExitBadInput, "--id must be < the number of --peers");
  auto bad_ms = [](double v) { return !(v >= 0.0 && v <= 10000.0); };
  if (bad_ms(a.latency_ms) || bad_ms(a.jitter_ms) || bad_ms(a.notify_ms) || !(a.disconnect_ms >= 0 && a.disconnect_ms <= 600000))
    return report_error(a.json, kExitBadInput, "times out of range");
  if (!(a.loss >= 0.0 && a.loss < 1.0)) return report_error(a.json, kExitBadInput, "--loss must be in 0..1 (exclusive)");

  replay::SimConfig config;
  config.units = a.units;
  config.seed = a.seed;
  config.players = a.players != 0 ? a.players : std::min<std::uint32_t>(peers, 2);
  if (a.players == 0) {
    for (std::uint32_t p = peers; p >= 1; --p) {
      replay::SimConfig c = config;
      c.players = p;
      if (sim->check_config(c).ok()) {
        config.players = p;
        break;
      }
    }
  }
  if (config.players > peers) return report_error(a.json, kExitBadInput, "--players must be <= the number of peers");
  if (a.spectator && a.id < config.players)
    return report_error(a.json, kExitBadInput, "a spectator's --id must be >= --players (peer p owns player p)");
  if (!a.spectator && a.id >= config.players)
    return report_error(a.json, kExitBadInput, "--id owns no player: use 'lockstep spectate' for a spectator");
  replay::Runner runner(*sim, config);
  if (!runner.status().ok())
    return report_error(a.json, kExitBadInput, std::string("cannot build the world: ") + runner.status().message());

  rollback::UdpTransportConfig uc;
  uc.bind = !a.bind.empty() ? a.bind : !addresses[a.id].empty() ? addresses[a.id] : "127.0.0.1:0";
  uc.local_peer = a.id;
  uc.session_id = a.session_id;
  uc.peers = addresses;
  uc.loopback_only = !a.allow_remote;
  rollback::UdpTransport udp;
  if (!udp.open(uc)) return report_error(a.json, kExitBadInput, udp.error());

  const bool exchange = !a.bundle_dir.empty();
  rollback::UdpTransport xudp;
  if (exchange) {
    std::vector<std::string> xaddresses = a.exchange_peers;
    if (!a.rendezvous.empty()) {
      if (!xaddresses.empty()) return report_error(a.json, kExitBadInput, "--rendezvous publishes the exchange addresses: drop --exchange-peers");
      xaddresses.assign(peers, std::string());
    } else if (xaddresses.empty()) {
      for (const std::string& p : addresses) {
        xaddresses.push_back(shift_port(p, 1));
        if (xaddresses.back().empty())
          return report_error(a.json, kExitBadInput, "--bundle-dir: cannot derive an exchange port from '" + p + "' (give --exchange-peers)");
      }
    }
    if (xaddresses.size() != peers)
      return report_error(a.json, kExitBadInput, "--exchange-peers needs one address per peer, in peer-id order");
    rollback::UdpTransportConfig xc = uc;
    // Rendezvous: any free port on the session socket's host (published below); otherwise
    // this peer's exchange address (its --bind moved by one port when --bind is given).
    if (!a.rendezvous.empty()) xc.bind = uc.bind.substr(0, uc.bind.rfind(':')) + ":0";
    else if (!a.bind.empty() && !shift_port(a.bind, 1).empty()) xc.bind = shift_port(a.bind, 1);
    else xc.bind = xaddresses[a.id];
    xc.peers = xaddresses;
    if (!xudp.open(xc)) return report_error(a.json, kExitBadInput, "state exchange socket: " + xudp.error());
  }
  if (!a.rendezvous.empty()) {
    // Publish the bound address (write + rename: readers never see half a file), then wait
    // for everyone else's. Lets tests bind port 0 instead of guessing free ports.
    const std::string mine = a.rendezvous + "/peer" + std::to_string(a.id) + ".addr";
    {
      std::string text = udp.local_address() + "\n";
      if (exchange) text += "exchange " + xudp.local_address() + "\n";
      hash::WriteFailure failure;
      if (!hash::write_file_atomically(mine, text.data(), text.size(), failure))
        return report_error(a.json, kExitBadInput, "rendezvous: " + failure.failed_path + ": " + failure.what);
    }
    const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>(a.sync_timeout_s * 1000));
    for (std::uint32_t q = 0; q < peers; ++q) {
      if (q == a.id) continue;
      const std::string path = a.rendezvous + "/peer" + std::to_string(q) + ".addr";
      char line[128] = {}, xline[160] = {};
      for (;;) {
        if (std::FILE* f = std::fopen(path.c_str(), "r")) {
          const bool got = std::fgets(line, sizeof line, f) != nullptr;
          if (got && std::fgets(xline, sizeof xline, f) == nullptr) xline[0] = '\0';
          std::fclose(f);
          if (got) break;
        }
        if (Clock::now() > deadline)
          return report_error(a.json, kExitBadInput, "rendezvous: " + path + " did not appear within the sync timeout");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      std::string addr(line);
      while (!addr.empty() && (addr.back() == '\n' || addr.back() == '\r')) addr.pop_back();
      if (!udp.set_peer_address(q, addr)) return report_error(a.json, kExitBadInput, udp.error());
      // A peer without --bundle-dir publishes no exchange address: our requests then go
      // unanswered and the bundle keeps its hashes only.
      std::string xaddr(xline);
      while (!xaddr.empty() && (xaddr.back() == '\n' || xaddr.back() == '\r')) xaddr.pop_back();
      if (exchange && xaddr.rfind("exchange ", 0) == 0 && !xudp.set_peer_address(q, xaddr.substr(9)))
        return report_error(a.json, kExitBadInput, "state exchange: " + xudp.error());
    }
  }

  rollback::LossyConfig lc;
  lc.latency_us = static_cast<std::uint32_t>(std::llround(a.latency_ms * 1000));
  lc.jitter_us = static_cast<std::uint32_t>(std::llround(a.jitter_ms * 1000));
  lc.loss_ppm = static_cast<std::uint32_t>(std::llround(a.loss * 1e6));
  lc.seed = a.net_seed != 0 ? a.net_seed : a.seed * 1000003 + a.id;
  const bool lossy = lc.latency_us != 0 || lc.jitter_us != 0 || lc.loss_ppm != 0;
  rollback::LossyTransport wrapped(udp, lc);
  rollback::Transport& transport = lossy ? static_cast<rollback::Transport&>(wrapped) : udp;

  rollback::SessionConfig sc = rollback::SessionConfig::one_player_per_peer(peers, config.players, a.id);
  std::string key_source = "none";
  if (a.no_auth) {
    if (!a.key_file.empty()) return report_error(a.json, kExitBadInput, "--no-auth and --key-file exclude each other");
    sc.security = rollback::WireSecurity::Unauthenticated;
    std::fprintf(stderr, "lockstep peer %u: WARNING: --no-auth: messages are not authenticated; anyone who can send "
                 "to this port can inject inputs or expel a peer (docs/rollback.md, \"Threat model\")\n", a.id);
  } else if (!a.key_file.empty()) {
    std::string why;
    if (!rollback::read_match_key_file(a.key_file, sc.match_key, why)) return report_error(a.json, kExitBadInput, why);
    key_source = "file";
  } else {
    sc.match_key = rollback::insecure_test_key(a.session_id);
    key_source = "derived-from-session-id";
    std::fprintf(stderr, "lockstep peer %u: WARNING: no --key-file: the match key is derived from --session-id, which "
                 "is no secret (INSECURE: for tests and demos; docs/rollback.md, \"Threat model\")\n", a.id);
  }
  sc.input_delay = a.input_delay;
  sc.max_prediction = a.spectator ? 0 : a.max_prediction;  // a spectator never predicts
  sc.hash_interval = a.hash_interval;
  sc.session_id = a.session_id;
  sc.sync_roundtrips = a.sync_roundtrips;
  sc.incarnation = static_cast<std::uint32_t>(std::random_device{}()) | 1u;
  sc.sync_timeout_us = static_cast<std::uint64_t>(a.sync_timeout_s * 1e6);
  sc.disconnect_notify_start_us = static_cast<std::uint64_t>(a.notify_ms * 1000);
  sc.disconnect_timeout_us = static_cast<std::uint64_t>(a.disconnect_ms * 1000);
  sc.max_frame_advantage = a.max_frame_advantage;
  sc.kept_desyncs = a.keep_desyncs;
  rollback::RollbackSession session(runner, sc, &transport);
  if (!session.status().ok())
    return report_error(a.json, kExitBadInput, std::string("cannot start the session: ") + session.status().message());

  replay::ReplayRecorder recorder;
  std::unique_ptr<rollback::RecorderSink> sink;
  if (!a.record.empty()) {
    if (a.checkpoint_every != 0 && (a.hash_interval == 0 || a.checkpoint_every % a.hash_interval != 0))
      return report_error(a.json, kExitBadInput, "--checkpoint-every must be a multiple of --hash-interval (" +
                                                     std::to_string(a.hash_interval) + ")");
    const replay::ReplayHeader header = replay::make_header(
        *sim, config, runner.world().storage(),
        replay::kReplayHasHashes | replay::kReplayHasComponentHashes |
            (a.checkpoint_every != 0 ? replay::kReplayHasCheckpoints : 0u),
        replay::kDefaultBlockTicks, a.checkpoint_every);
    replay::ReplayStatus st = recorder.open(a.record, header);
    if (st.ok()) st = recorder.initial(runner.hash());
    if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
    sink = std::make_unique<rollback::RecorderSink>(recorder, a.checkpoint_every);
    session.set_confirmed_sink(sink.get());
  }

  // Serves this peer's state of a tick to the others: the kept desync state when it is that
  // tick (the remote asks for the tick of its own Desync event), else the kept checkpoint.
  std::unique_ptr<rollback::StateExchange> ex;
  if (exchange) {
    ex = std::make_unique<rollback::StateExchange>(xudp);
    ex->serve([&session](std::uint64_t t) -> const Snapshot* {
      if (session.has_desync() && session.desync_tick() == t && session.desync_snapshot() != nullptr)
        return session.desync_snapshot();
      return session.checkpoint(t);
    });
  }
  bool requested = false;
  double requested_at = 0;

  std::vector<std::unique_ptr<replay::Bot>> bots(config.players);
  const std::uint64_t bot_seed = a.bot_given ? a.bot : a.seed;
  for (std::uint32_t p = 0; p < config.players; ++p)
    if (session.is_local(p)) bots[p] = sim->make_bot(config, bot_seed, p);
  std::vector<std::byte> buf(sim->input_type().size);

  std::fprintf(stderr, "lockstep peer %u/%u: %s bound to %s, %u players, %llu ticks at %u Hz, %s messages%s\n", a.id,
               peers, a.sim.c_str(), udp.local_address().c_str(), config.players,
               static_cast<unsigned long long>(a.ticks), a.tick_hz, rollback::wire_security_name(sc.security),
               lossy ? " (lossy link emulation on outgoing packets)" : "");

  const auto t0 = Clock::now();
  const auto period = std::chrono::nanoseconds(1000000000LL / a.tick_hz);
  auto next = t0;
  auto last_status = t0;
  std::uint64_t skip = 0, frames = 0, waited_frames = 0;
  std::uint64_t rollbacks_window = 0, last_rollbacks = 0;
  std::int32_t max_adv_seen = 0;
  std::uint64_t disconnects = 0, desyncs = 0;
  std::string first_desync;
  std::vector<std::string> notes;
  double done_at = -1;
  bool timed_out = false;
  int exit_code = kExitOk;
  std::string failure;
  for (;;) {
    const auto wall = Clock::now();
    const double elapsed = std::chrono::duration<double>(wall - t0).count();
    const auto now_us = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(wall - t0).count());
    if (elapsed > a.max_seconds) {
      timed_out = true;
      break;
    }
    if (lossy) wrapped.pump(now_us);
    session.set_time(now_us);
    Status st;
    if (a.spectator && session.running()) {
      // Follow the players `delay_frames` behind the furthest of them; catch up faster when
      // further behind. Only confirmed ticks are simulated (max_prediction 0).
      std::uint64_t lead = 0;
      for (std::uint32_t q = 0; q < config.players; ++q) lead = std::max(lead, session.peer_status(q).remote_tick);
      // Once the players reached the end, everything is confirmed: play it out.
      const std::uint64_t target =
          lead >= a.ticks ? a.ticks : lead > a.delay_frames ? lead - a.delay_frames : 0;
      const std::uint64_t behind = target > session.current_tick() ? target - session.current_tick() : 0;
      const std::uint32_t steps = behind > std::uint64_t{2} * a.catchup_speed ? a.catchup_speed : 1;
      bool advanced = true;
      for (std::uint32_t k = 0; k < steps && st.ok() && advanced && session.current_tick() < target; ++k)
        st = session.advance(&advanced);
      if (st.ok() && (!advanced || session.current_tick() >= target)) st = session.poll();
    } else if (session.running() && session.current_tick() < a.ticks && skip == 0) {
      for (std::uint32_t p = 0; p < config.players && st.ok(); ++p) {
        if (bots[p] == nullptr || !session.wants_local_input(p) || session.local_input_tick(p) >= a.ticks) continue;
        bots[p]->generate(session.local_input_tick(p), runner.world(), buf);
        st = session.add_local_input(p, buf);
      }
      if (st.ok()) st = session.advance();
    } else {
      if (skip > 0) {
        --skip;
        ++waited_frames;
      }
      st = session.poll();
    }
    ++frames;
    rollback::SessionEvent e;
    while (session.poll_event(e)) {
      switch (e.kind) {
        case rollback::SessionEventKind::WaitRecommendation: skip += e.frames; break;
        case rollback::SessionEventKind::Rollback: break;
        case rollback::SessionEventKind::Disconnected:
          if (e.peer != a.id) ++disconnects;
          notes.push_back("Disconnected peer " + std::to_string(e.peer) + " at tick " + std::to_string(e.tick));
          std::fprintf(stderr, "lockstep peer %u: Disconnected: peer %u (tick %llu)\n", a.id, e.peer,
                       static_cast<unsigned long long>(e.tick));
          break;
        case rollback::SessionEventKind::DisconnectAgreed:
          notes.push_back("player " + std::to_string(e.player) + " uses the default input from tick " + std::to_string(e.tick));
          std::fprintf(stderr, "lockstep peer %u: player %u (peer %u) uses the default input from tick %llu on\n", a.id,
                       e.player, e.peer, static_cast<unsigned long long>(e.tick));
          break;
        case rollback::SessionEventKind::NetworkInterrupted:
          std::fprintf(stderr, "lockstep peer %u: NetworkInterrupted: peer %u (disconnect in %.0f ms)\n", a.id, e.peer,
                       static_cast<double>(e.timeout_us) / 1000.0);
          break;
        case rollback::SessionEventKind::NetworkResumed:
          std::fprintf(stderr, "lockstep peer %u: NetworkResumed: peer %u\n", a.id, e.peer);
          break;
        case rollback::SessionEventKind::Running:
          std::fprintf(stderr, "lockstep peer %u: Synchronized with every peer, running (%.3f s)\n", a.id, elapsed);
          break;
        case rollback::SessionEventKind::Desync:
          if (desyncs++ == 0) first_desync = describe_session_desync(session, e);
          break;
        default: break;
      }
    }
    if (ex != nullptr) {
      if (!requested && session.has_desync()) {
        ex->request(session.desync_peer(), session.desync_tick());
        requested = true;
        requested_at = elapsed;
      }
      ex->poll();
    }
    if (!st.ok()) {
      failure = st.message();
      exit_code = st.code() == ErrorCode::Mismatch || st.code() == ErrorCode::IoError ? kExitBadInput : kExitMismatch;
      break;
    }
    if (session.running()) max_adv_seen = std::max(max_adv_seen, session.frame_advantage());
    const bool done = session.confirmed_tick() >= a.ticks && session.inputs_acknowledged(a.ticks);
    if (done && done_at < 0) done_at = elapsed;
    // The remote's state of the desync tick is still on its way: wait (bounded) before leaving.
    const bool fetching = requested && ex->result() == rollback::StateExchange::Result::Pending &&
                          (elapsed - requested_at) * 1000 < a.exchange_wait_ms;
    if (done_at >= 0 && (elapsed - done_at) * 1000 >= a.linger_ms && !fetching) break;  // answered late acks; leave
    if (a.status && std::chrono::duration<double>(wall - last_status).count() >= 0.25) {
      const double dt = std::chrono::duration<double>(wall - last_status).count();
      rollbacks_window = session.stats().rollbacks - last_rollbacks;
      last_rollbacks = session.stats().rollbacks;
      last_status = wall;
      std::string line;
      for (std::uint32_t q = 0; q < peers; ++q) {
        if (q == a.id) continue;
        const rollback::PeerStatus ps = session.peer_status(q);
        char b[96];
        std::snprintf(b, sizeof b, " | p%u %s ping %.0f ms adv %+d", q, state_name(ps.state), ps.rtt_us / 1000.0,
                      ps.frame_advantage);
        line += b;
      }
      const rollback::SessionStats& ss = session.stats();
      std::fprintf(stderr, "\r[peer %u] %s tick %llu confirmed %llu rollbacks/s %.0f dropped auth %llu replay %llu%s   ",
                   a.id, rollback::wire_security_name(sc.security), static_cast<unsigned long long>(session.current_tick()),
                   static_cast<unsigned long long>(session.confirmed_tick()), static_cast<double>(rollbacks_window) / dt,
                   static_cast<unsigned long long>(ss.dropped_auth), static_cast<unsigned long long>(ss.dropped_replay),
                   line.c_str());
      if (!stderr_is_tty()) std::fprintf(stderr, "\n");
    }
    next += period;
    const auto after = Clock::now();
    if (next < after - period * 4) next = after;  // fell far behind (stalled): do not burst
    std::this_thread::sleep_until(next);
  }
  if (a.status) std::fprintf(stderr, "\n");

  // Desync bundle: this peer's state and hashes of the desync tick, and the remote's state
  // when the exchange brought it (else its hashes only, and the reason in the report).
  std::string bundle_path, bundle_note;
  if (ex != nullptr && session.has_desync()) {
    if (!requested) {  // the desync surfaced on the loop's last frame
      ex->request(session.desync_peer(), session.desync_tick());
      requested_at = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    while (ex->result() == rollback::StateExchange::Result::Pending &&
           (std::chrono::duration<double>(Clock::now() - t0).count() - requested_at) * 1000 < a.exchange_wait_ms) {
      ex->poll();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    inspect::Bundle b = rollback::session_desync_bundle(session, nullptr, "peer" + std::to_string(a.id));
    switch (ex->result()) {
      case rollback::StateExchange::Result::Received:
        if (ex->state().tick != b.tick) {  // an earlier divergent tick was reported after the request
          bundle_note = "peer " + std::to_string(session.desync_peer()) + " sent tick " + std::to_string(ex->state().tick) +
                        ", not the earliest divergent tick: its hashes only";
          break;
        }
        b.sides[1].has_state = true;
        b.sides[1].state = ex->state();
        bundle_note = "with peer " + std::to_string(session.desync_peer()) + "'s state";
        break;
      case rollback::StateExchange::Result::Unavailable:
        bundle_note = "peer " + std::to_string(session.desync_peer()) + " no longer keeps tick " +
                      std::to_string(session.desync_tick()) + ": its hashes only";
        break;
      case rollback::StateExchange::Result::Failed:
        bundle_note = "peer " + std::to_string(session.desync_peer()) + "'s state could not be read (" + ex->error() +
                      "): its hashes only";
        break;
      default:
        bundle_note = "no answer from peer " + std::to_string(session.desync_peer()) + " within " +
                      std::to_string(static_cast<long long>(a.exchange_wait_ms)) + " ms: its hashes only";
        break;
    }
    const FileStatus fs = inspect::write_bundle(a.bundle_dir, b, bundle_path);
    if (!fs.ok()) return report_error(a.json, kExitBadInput, fs.message);
    std::fprintf(stderr, "lockstep peer %u: desync bundle %s (%s)\n", a.id, bundle_path.c_str(), bundle_note.c_str());
    // The next kept desyncs: this peer's state and the remote's hashes (how the divergence grew).
    for (std::uint32_t i = 1; i < session.desync_count(); ++i) {
      std::string more;
      const FileStatus ms = inspect::write_bundle(
          a.bundle_dir, rollback::session_desync_bundle(session, nullptr, "peer" + std::to_string(a.id), i), more);
      if (!ms.ok()) return report_error(a.json, kExitBadInput, ms.message);
      std::fprintf(stderr, "lockstep peer %u: desync bundle %s (desync %u of %u kept: its hashes only)\n", a.id,
                   more.c_str(), i + 1, session.desync_count());
    }
  }

  std::string recorded;
  if (sink != nullptr) {
    replay::ReplayStatus rs = sink->status();
    if (rs.ok()) rs = recorder.close();
    if (!rs.ok()) return report_error(a.json, kExitBadInput, rs.message, &rs);
    recorded = a.record;
  }
  const rollback::SessionStats& s = session.stats();
  const bool finished = session.confirmed_tick() >= a.ticks;
  if (exit_code == kExitOk && (timed_out || !finished || desyncs != 0)) exit_code = kExitMismatch;
  if (timed_out && failure.empty())
    failure = "the match did not finish within --max-seconds (confirmed " + std::to_string(session.confirmed_tick()) + " of " +
              std::to_string(a.ticks) + " ticks)";
  if (desyncs != 0) failure = "DESYNC: " + first_desync;
  const rollback::UdpTransportStats& u = udp.stats();
  if (a.json) {
    Json j;
    j.begin().field("ok", exit_code == kExitOk).field("exit", exit_code).field("peer", a.id).field("peers", peers)
        .field("sim", a.sim).field("ticks", a.ticks).field("confirmed_tick", session.confirmed_tick())
        .field("finished", finished).field("final_hash", hex(runner.hash().total)).field("frames", frames)
        .field("waited_frames", waited_frames).field("wait_recommendations", s.wait_recommendations)
        .field("max_frame_advantage_seen", static_cast<std::int64_t>(max_adv_seen)).field("rollbacks", s.rollbacks)
        .field("max_rollback_depth", s.max_rollback_depth).field("stalls", s.stalls).field("hash_checks", s.hash_checks)
        .field("desyncs", desyncs).field("disconnects", disconnects).field("relayed_inputs", s.relayed_inputs)
        .field("malformed", s.malformed).field("stale", s.stale)
        .field("security", rollback::wire_security_name(sc.security)).field("key", key_source)
        .field("dropped_auth", s.dropped_auth).field("dropped_replay", s.dropped_replay)
        .field("dropped_budget", s.dropped_budget).field("unsolicited_sync", s.unsolicited_sync)
        .field("sync_rejections_sent", s.sync_rejections_sent)
        .field("udp_sent", u.sent).field("udp_received", u.received)
        .field("udp_dropped", u.dropped_malformed + u.dropped_unknown + u.dropped_session + u.dropped_sender)
        .field("lossy_lost", wrapped.stats().lost);
    for (std::uint32_t q = 0; q < peers; ++q)
      if (q != a.id && session.peer_status(q).disconnect_tick != ~std::uint64_t{0})
        j.field("disconnect_tick_peer" + std::to_string(q), session.peer_status(q).disconnect_tick);
    if (!recorded.empty()) j.field("record", recorded);
    if (!bundle_path.empty()) j.field("bundle", bundle_path).field("bundle_remote_state", ex->result() == rollback::StateExchange::Result::Received);
    if (ex != nullptr) j.field("states_served", ex->requests_served());
    if (!failure.empty()) j.field("error", failure);
    j.end();
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("peer %u: %s, confirmed %llu/%llu ticks, %llu rollbacks (max depth %u), %llu stalls, %llu hash checks, "
                "%llu frames waited (time sync), final hash %s\n",
                a.id, exit_code == kExitOk ? "OK" : "FAILED", static_cast<unsigned long long>(session.confirmed_tick()),
                static_cast<unsigned long long>(a.ticks), static_cast<unsigned long long>(s.rollbacks), s.max_rollback_depth,
                static_cast<unsigned long long>(s.stalls), static_cast<unsigned long long>(s.hash_checks),
                static_cast<unsigned long long>(waited_frames), hex(runner.hash().total).c_str());
    if (!recorded.empty()) std::printf("recorded the confirmed match to %s\n", recorded.c_str());
  }
  if (!failure.empty()) std::fprintf(stderr, "lockstep peer %u: error: %s\n", a.id, failure.c_str());
  return exit_code;
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
            if (!f->source.empty()) {
              f->json = a->json;
              f->max_seconds = a->max_seconds;
              return follow_cmd(*f);
            }
            if (a->sim.empty() || app->count("--id") == 0)
              return report_error(a->json, kExitBadInput, "spectate: --sim and --id are required (or --follow FILE)");
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
