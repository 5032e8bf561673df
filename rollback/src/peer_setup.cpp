// One peer process's setup over UDP (peer_setup.h).
#include <lockstep/hash/durable_file.h>
#include <lockstep/replay/resume.h>
#include <lockstep/rollback/peer_setup.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace lockstep::rollback {

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

std::vector<std::string> exchange_addresses(const std::vector<std::string>& peers) {
  std::vector<std::string> out;
  out.reserve(peers.size());
  for (const std::string& p : peers) out.push_back(shift_port(p, 1));
  return out;
}

std::string open_peer_sockets(const PeerSocketsConfig& c, UdpTransport& udp, UdpTransport& xudp) {
  UdpTransportConfig uc;
  const std::string& own = c.local_peer < c.peers.size() ? c.peers[c.local_peer] : std::string();
  uc.bind = !c.bind.empty() ? c.bind : !own.empty() ? own : "127.0.0.1:0";
  uc.local_peer = c.local_peer;
  uc.session_id = c.session_id;
  uc.peers = c.peers;
  uc.loopback_only = c.loopback_only;
  if (!udp.open(uc)) return udp.error();
  if (c.exchange_peers.empty()) return {};
  UdpTransportConfig xc = uc;
  // Rendezvous: any free port on the session socket's host (published later); otherwise this
  // peer's exchange address (its bind moved by one port when a bind is given).
  if (c.rendezvous) xc.bind = uc.bind.substr(0, uc.bind.rfind(':')) + ":0";
  else if (!c.bind.empty() && !shift_port(c.bind, 1).empty()) xc.bind = shift_port(c.bind, 1);
  else xc.bind = c.exchange_peers[c.local_peer];
  xc.peers = c.exchange_peers;
  if (!xudp.open(xc)) return "state exchange socket: " + xudp.error();
  return {};
}

namespace {
std::string first_line(const char* text) {
  std::string s(text);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}
}  // namespace

std::string rendezvous_in_directory(const std::string& dir, std::uint32_t local_peer, std::uint32_t peers,
                                    std::uint64_t timeout_us, UdpTransport& udp, UdpTransport* exchange) {
  const std::string mine = dir + "/peer" + std::to_string(local_peer) + ".addr";
  std::string text = udp.local_address() + "\n";
  if (exchange != nullptr) text += "exchange " + exchange->local_address() + "\n";
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(mine, text.data(), text.size(), failure))
    return "rendezvous: " + failure.failed_path + ": " + failure.what;
  // lockstep: allow(time) a bounded wait for the other processes' files at start-up, never simulated
  using Clock = std::chrono::steady_clock;
  // lockstep: allow(time) a bounded wait for the other processes' files at start-up, never simulated
  const auto deadline = Clock::now() + std::chrono::microseconds(timeout_us);
  for (std::uint32_t q = 0; q < peers; ++q) {
    if (q == local_peer) continue;
    const std::string path = dir + "/peer" + std::to_string(q) + ".addr";
    char line[128] = {}, xline[160] = {};
    for (;;) {
      if (std::FILE* f = std::fopen(path.c_str(), "r")) {
        const bool got = std::fgets(line, sizeof line, f) != nullptr;
        if (got && std::fgets(xline, sizeof xline, f) == nullptr) xline[0] = '\0';
        std::fclose(f);
        if (got) break;
      }
      if (Clock::now() > deadline) return "rendezvous: " + path + " did not appear within the sync timeout";
      // lockstep: allow(time) a bounded wait for the other processes' files at start-up, never simulated
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!udp.set_peer_address(q, first_line(line))) return udp.error();
    // A peer without an exchange socket publishes no exchange address: our requests then go
    // unanswered and the bundle keeps its hashes only.
    const std::string xaddr = first_line(xline);
    if (exchange != nullptr && xaddr.rfind("exchange ", 0) == 0 && !exchange->set_peer_address(q, xaddr.substr(9)))
      return "state exchange: " + exchange->error();
  }
  return {};
}

const char* match_key_source_name(MatchKeySource source) noexcept {
  switch (source) {
    case MatchKeySource::File: return "file";
    case MatchKeySource::DerivedFromSessionId: return "derived-from-session-id";
    case MatchKeySource::Identity: return "identity";
    case MatchKeySource::WatchKeyFile: return "watch-key-file";
    case MatchKeySource::None: break;
  }
  return "none";
}

std::optional<UdpPeerWarning> match_key_warning(bool no_auth, MatchKeySource source) noexcept {
  if (no_auth) return UdpPeerWarning::Unauthenticated;
  if (source == MatchKeySource::DerivedFromSessionId) return UdpPeerWarning::DerivedKey;
  return std::nullopt;
}

std::string_view match_key_warning_line(UdpPeerWarning warning) noexcept {
  switch (warning) {
    case UdpPeerWarning::Unauthenticated:
      return "WARNING: messages are not authenticated (no_auth); anyone who can send to this port can inject "
             "inputs or expel a peer (docs/rollback.md, \"Threat model\")";
    case UdpPeerWarning::DerivedKey:
      return "WARNING: no key file: the match key is derived from the session id, which is no secret "
             "(INSECURE: for tests and demos; docs/rollback.md, \"Threat model\")";
    case UdpPeerWarning::DerivedRelayKey:
      return "WARNING: no key file: the relay's key (watchers, a rejoin's history) is derived from the session "
             "id, which is no secret (INSECURE; the players' messages are authenticated per pair of peers)";
  }
  return {};
}

std::string load_match_key(bool no_auth, const std::string& key_file, std::uint32_t session_id, WireSecurity& security,
                           MatchKey& key, MatchKeySource& source) {
  source = MatchKeySource::None;
  if (no_auth) {
    security = WireSecurity::Unauthenticated;
    return {};
  }
  if (!key_file.empty()) {
    std::string why;
    if (!read_match_key_file(key_file, key, why)) return why;
    source = MatchKeySource::File;
    return {};
  }
  key = insecure_test_key(session_id);
  source = MatchKeySource::DerivedFromSessionId;
  return {};
}

std::string peer_session_config(const PeerSessionOptions& o, SessionConfig& sc, MatchKeySource& source) {
  sc = SessionConfig::one_player_per_peer(o.peers, o.players, o.local_peer);
  if (std::string why = load_match_key(o.no_auth, o.key_file, o.session_id, sc.security, sc.match_key, source); !why.empty())
    return why;
  if (!o.no_auth && (!o.identity_file.empty() || !o.peer_keys_file.empty())) {
    std::string why;
    if (!load_match_identity(o.identity_file, o.peer_keys_file, o.peers, o.local_peer, sc.identity, why)) return why;
    source = MatchKeySource::Identity;
  }
  sc.input_delay = o.input_delay;
  sc.max_prediction = o.spectator ? 0 : o.max_prediction;  // a spectator never predicts
  sc.hash_interval = o.hash_interval;
  sc.session_id = o.session_id;
  sc.sync_roundtrips = o.sync_roundtrips;
  sc.incarnation = o.incarnation;
  sc.sync_timeout_us = o.sync_timeout_us;
  sc.disconnect_notify_start_us = o.notify_us;
  sc.disconnect_timeout_us = o.disconnect_us;
  sc.max_frame_advantage = o.max_frame_advantage;
  sc.kept_desyncs = o.kept_desyncs;
  return {};
}

RelayConfig relay_config_for(const SessionConfig& session, std::string bind, bool loopback_only) {
  RelayConfig rc;
  rc.bind = std::move(bind);
  rc.loopback_only = loopback_only;
  rc.session_id = session.session_id;
  rc.security = session.security;
  // The watch key: the watchers (and a rejoining peer's fetch) never get the match key.
  rc.key = derive_watch_key(session.match_key);
  return rc;
}

bool rejoin_from_relay(const std::string& relay, const RelayConfig& watcher, std::uint32_t timeout_ms,
                       const replay::Sim& sim, const replay::SimConfig& config, replay::Runner& runner,
                       const std::string& record_path, replay::ReplayRecorder& recorder, RejoinFailure& why,
                       replay::ReplayHeader* history_header) {
  RelaySource source;
  std::string error;
  if (!source.open(relay, watcher, error)) {
    why = {RejoinFailure::Kind::Relay, error};
    return false;
  }
  replay::Replay history;
  replay::ReplayStatus st = fetch_recording(source, timeout_ms, history);
  if (!st.ok() && !source.answered()) {
    why = {RejoinFailure::Kind::NoAnswer, st.message};
    return false;
  }
  if (st.ok() && (history.header.sim_name != sim.name() || !(history.header.config == config))) {
    why = {RejoinFailure::Kind::OtherMatch, "the survivor records another match (sim " + history.header.sim_name + ")"};
    return false;
  }
  if (st.ok() && history_header != nullptr) *history_header = history.header;
  if (st.ok() && !record_path.empty()) st = recorder.open(record_path, history.header);
  if (st.ok()) st = replay::resume_from_recording(runner, history, record_path.empty() ? nullptr : &recorder);
  if (!st.ok()) {
    why = {RejoinFailure::Kind::Recording, st.message, st};
    return false;
  }
  return true;
}

BotMatchHost::BotMatchHost(const replay::Sim& sim, const replay::SimConfig& config, std::uint64_t bot_seed,
                           RollbackSession& session)
    : session_(session), bots_(config.players) {
  for (std::uint32_t p = 0; p < config.players; ++p)
    if (session.is_local(p)) bots_[p] = sim.make_bot(config, bot_seed, p);
}

void BotMatchHost::local_input(std::uint32_t player, std::uint64_t tick, std::span<std::byte> out) {
  if (player < bots_.size() && bots_[player] != nullptr) bots_[player]->generate(tick, session_.runner().world(), out);
}

namespace {
// Milliseconds rounded as printf's "%.0f" rounds us / 1000.0 (half to even): integers only.
std::uint64_t rounded_ms(std::uint64_t us) {
  const std::uint64_t q = us / 1000, r = us % 1000;
  return r > 500 || (r == 500 && (q & 1) != 0) ? q + 1 : q;
}
}  // namespace

std::string describe_session_event(const SessionEvent& e) {
  const std::string peer = "peer " + std::to_string(e.peer);
  const std::string tick = std::to_string(e.tick);
  switch (e.kind) {
    case SessionEventKind::Disconnected: return "Disconnected: " + peer + " (tick " + tick + ")";
    case SessionEventKind::DisconnectAgreed:
      return "player " + std::to_string(e.player) + " (" + peer + ") uses the default input from tick " + tick + " on";
    case SessionEventKind::NetworkInterrupted:
      return "NetworkInterrupted: " + peer + " (disconnect in " + std::to_string(rounded_ms(e.timeout_us)) + " ms)";
    case SessionEventKind::NetworkResumed: return "NetworkResumed: " + peer;
    case SessionEventKind::Rejoined:
      return "player " + std::to_string(e.player) + " (" + peer + ") plays again from tick " + tick + " (rejoined)";
    default: return {};
  }
}

void append_match_fields(inspect::JsonWriter& j, const RollbackSession& session, const MatchLoop& loop,
                         const UdpTransportStats& u, std::uint64_t lossy_lost, std::string_view key_source) {
  const SessionStats& s = session.stats();
  const MatchLoopStats& ls = loop.stats();
  j.field("frames", ls.frames).field("waited_frames", ls.waited_frames).field("wait_recommendations", s.wait_recommendations)
      .field("max_frame_advantage_seen", static_cast<std::int64_t>(ls.max_frame_advantage_seen)).field("rollbacks", s.rollbacks)
      .field("max_rollback_depth", s.max_rollback_depth).field("stalls", s.stalls).field("hash_checks", s.hash_checks)
      .field("desyncs", ls.desyncs).field("disconnects", ls.disconnects).field("relayed_inputs", s.relayed_inputs)
      .field("malformed", s.malformed).field("stale", s.stale)
      .field("security", wire_security_name(session.config().security)).field("key", key_source)
      .field("dropped_auth", s.dropped_auth).field("dropped_replay", s.dropped_replay)
      .field("dropped_budget", s.dropped_budget).field("unsolicited_sync", s.unsolicited_sync)
      .field("sync_rejections_sent", s.sync_rejections_sent).field("rejoin_challenges", s.rejoin_challenges)
      .field("udp_sent", u.sent).field("udp_received", u.received)
      .field("udp_dropped", u.dropped_malformed + u.dropped_unknown + u.dropped_session + u.dropped_sender)
      .field("lossy_lost", lossy_lost);
  const std::uint32_t peers = session.config().peers;
  for (std::uint32_t q = 0; q < peers; ++q) {
    const PeerStatus ps = session.peer_status(q);
    if (q == session.config().local_peer || ps.disconnect_tick == ~std::uint64_t{0}) continue;
    j.field("disconnect_tick_peer" + std::to_string(q), ps.disconnect_tick);
    if (ps.rejoin_tick != ~std::uint64_t{0}) j.field("rejoin_tick_peer" + std::to_string(q), ps.rejoin_tick);
  }
}

void append_relay_fields(inspect::JsonWriter& j, const RelayServer& relay) {
  const RelayStats& rs = relay.stats();
  j.field("relay", relay.local_address()).field("relay_watchers_max", rs.max_subscribers_seen)
      .field("relay_bytes_sent", rs.bytes_sent).field("relay_refused_full", rs.refused_full)
      .field("relay_dropped", rs.dropped);
}

}  // namespace lockstep::rollback
