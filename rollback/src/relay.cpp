#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/json_writer.h>
#include <lockstep/rollback/relay.h>

#include "session_wire.h"
#include "udp_socket.h"
#include "wire_auth.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

namespace lockstep::rollback {

namespace {

// lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
using Clock = std::chrono::steady_clock;
using session_wire::get_u32;
using session_wire::get_u64;
using session_wire::put_u32;
using session_wire::put_u64;

enum class Kind : std::uint8_t { Request = 1, Data = 2, Full = 3, Challenge = 4 };
constexpr std::uint8_t kFlagAuthenticated = 1;
constexpr char kMagic[4] = {'L', 'S', 'R', '2'};
// Tags are bound to the direction (the `receiver` of wire::compute_tag): ids no session peer
// has (at most 16), so no relay message verifies as a session message or the other way round.
constexpr std::uint32_t kToRelay = 0xC1;
constexpr std::uint32_t kToWatcher = 0xC2;
constexpr std::size_t kMaxDatagram = kRelayHeaderBytes + kRelayChunkBytes + 8 + wire::kTagBytes;
static_assert(kRelayCookieBytes == wire::kCookieBytes);
// A cookie is good for the epoch it was made in and the next one: 2 to 4 s.
// lockstep: allow(time) relay cookie epochs of the broadcast socket, never simulated
constexpr auto kCookieEpoch = std::chrono::seconds(2);

using Cookie = std::array<std::byte, kRelayCookieBytes>;

struct Message {
  Kind kind = Kind::Request;
  std::uint64_t nonce = 0;          // the watcher's, echoed by the relay
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  Cookie cookie{};                  // REQUEST (all zero: none yet), CHALLENGE
  std::span<const std::byte> body;  // DATA
  std::uint64_t total = 0;          // DATA
};

// Writes one message into `out`; returns its size.
std::size_t encode(const RelayConfig& c, std::uint32_t to, const Message& m, std::array<std::byte, kMaxDatagram>& out) {
  const bool auth = c.security == WireSecurity::Authenticated;
  std::byte* p = out.data();
  std::memcpy(p, kMagic, 4);
  p[4] = static_cast<std::byte>(m.kind);
  p[5] = static_cast<std::byte>(auth ? kFlagAuthenticated : 0);
  p[6] = p[7] = std::byte{0};
  put_u32(p + 8, c.session_id);
  put_u64(p + 12, m.nonce);
  put_u64(p + 20, m.offset);
  put_u32(p + 28, m.kind == Kind::Data ? static_cast<std::uint32_t>(m.body.size()) : m.length);
  std::size_t n = kRelayHeaderBytes;
  if (m.kind == Kind::Request || m.kind == Kind::Challenge) {
    std::memcpy(p + n, m.cookie.data(), m.cookie.size());
    n += m.cookie.size();
  } else if (m.kind == Kind::Data) {
    if (!m.body.empty()) std::memcpy(p + n, m.body.data(), m.body.size());
    n += m.body.size();
    put_u64(p + n, m.total);
    n += 8;
  }
  if (auth) {
    wire::compute_tag(c.key, to, std::span<const std::byte>(p, n), p + n);
    n += wire::kTagBytes;
  }
  return n;
}

// Parses and authenticates one datagram addressed to `to`; false: drop it.
bool decode(const RelayConfig& c, std::uint32_t to, std::span<const std::byte> in, Message& m) {
  const bool auth = c.security == WireSecurity::Authenticated;
  const std::size_t tag = auth ? wire::kTagBytes : 0;
  if (in.size() < kRelayHeaderBytes + tag || std::memcmp(in.data(), kMagic, 4) != 0) return false;
  const std::byte* p = in.data();
  if (std::to_integer<std::uint8_t>(p[5]) != (auth ? kFlagAuthenticated : 0) || p[6] != std::byte{0} || p[7] != std::byte{0})
    return false;
  if (get_u32(p + 8) != c.session_id) return false;
  const std::size_t signed_bytes = in.size() - tag;
  if (auth && !wire::verify_tag(c.key, to, in.first(signed_bytes), p + signed_bytes)) return false;
  m.kind = static_cast<Kind>(std::to_integer<std::uint8_t>(p[4]));
  m.nonce = get_u64(p + 12);
  m.offset = get_u64(p + 20);
  m.length = get_u32(p + 28);
  switch (m.kind) {
    case Kind::Request:
    case Kind::Challenge:
      if (signed_bytes != kRelayHeaderBytes + kRelayCookieBytes) return false;
      std::memcpy(m.cookie.data(), p + kRelayHeaderBytes, kRelayCookieBytes);
      return m.kind == Kind::Challenge || m.length <= kRelayWindowBytes;
    case Kind::Full: return signed_bytes == kRelayHeaderBytes;
    case Kind::Data:
      if (m.length > kRelayChunkBytes || signed_bytes != kRelayHeaderBytes + m.length + 8) return false;
      m.body = in.subspan(kRelayHeaderBytes, m.length);
      m.total = get_u64(p + kRelayHeaderBytes + m.length);
      return m.offset <= kRelayMaxBytes && m.total <= kRelayMaxBytes && m.offset + m.length <= m.total;
  }
  return false;
}

bool check_config(const RelayConfig& c, std::string& error) {
  if (c.security == WireSecurity::Authenticated && !wire_auth_available()) {
    error = "relay: this build has no libsodium: authenticated relaying is unavailable (or set Unauthenticated)";
    return false;
  }
  if (c.security == WireSecurity::Authenticated && c.key.empty()) {
    error = "relay: no key: set RelayConfig::key (the watch key: derive_watch_key of the match key), or Unauthenticated";
    return false;
  }
  if (c.max_subscribers < 1 || c.max_subscribers > kRelayMaxSubscribers) {
    error = "relay: max_subscribers must be 1..32";
    return false;
  }
  if (c.max_per_host < 1 || c.max_per_host > kRelayMaxSubscribers) {
    error = "relay: max_per_host must be 1..32";
    return false;
  }
  return true;
}

bool open_socket(const RelayConfig& c, net::Socket& socket, std::string& error) {
  net::Address bind_to;
  if (!net::parse_address(c.bind, bind_to, error)) return false;
  if (c.loopback_only && !bind_to.is_loopback()) {
    error = "relay: " + c.bind + " is not a loopback address (allow remote addresses explicitly)";
    return false;
  }
  return socket.open(bind_to, error);
}

replay::ReplayStatus source_error(const std::string& where, std::uint64_t offset, const std::string& what) {
  replay::ReplayStatus st;
  st.code = ErrorCode::IoError;
  st.offset = offset;
  st.message = where + ": byte " + std::to_string(offset) + ": " + what;
  return st;
}

}  // namespace

// ---- RelayServer ---------------------------------------------------------------------------

struct RelayServer::State {
  RelayConfig config;
  net::Socket socket;
  std::vector<std::byte> bytes;  // the stream so far
  struct Subscriber {
    net::Address address;
    std::uint64_t nonce = 0;  // the watcher's, proven with a cookie: requests with another re-prove
    Clock::time_point last_seen;
    std::uint64_t asked_from = 0;  // the offset of its newest request: it has everything before
  };
  std::vector<Subscriber> subscribers;
  RelayStats stats;
  // The cookies' secret (drawn at open) and the clock of their epochs.
  wire::CookieSecret cookie_secret{};
  Clock::time_point opened{};
  std::array<std::byte, kMaxDatagram> out{};
  std::array<std::byte, 2048> in{};

  replay::ReplayStatus ingest(replay::ByteSource& source);
  Cookie cookie(const net::Address& from, std::uint64_t nonce, std::uint64_t at_epoch) const;
  std::uint64_t epoch(Clock::time_point now) const;
  bool proven(const net::Address& from, const Message& request, Clock::time_point now) const;
  Subscriber* find(const net::Address& from, std::uint64_t nonce);
  Subscriber* admit(const net::Address& from, std::uint64_t nonce, Clock::time_point now);
  void send(const net::Address& to, const Message& m);
  void answer(const net::Address& to, const Message& request);
};

replay::ReplayStatus RelayServer::State::ingest(replay::ByteSource& source) {
  // At most 1 MiB per poll: a long recording is taken in over several frames.
  for (int round = 0; round < 16; ++round) {
    const std::size_t at = bytes.size();
    if (at >= kRelayMaxBytes) return source_error(source.describe(), at, "the stream exceeds the relay's 256 MiB bound");
    bytes.resize(at + 65536);
    std::size_t got = 0;
    replay::ReplayStatus st = source.read(at, std::span<std::byte>(bytes.data() + at, 65536), got);
    bytes.resize(at + (st.ok() ? got : 0));
    if (!st.ok()) return st;
    if (got == 0) break;
  }
  return replay::ReplayStatus::Ok();
}

// keyed BLAKE2b (wire::compute_cookie) of the source's address and port, the session id, the
// watcher's nonce and the epoch, under this relay's secret: nothing is kept per unproven source.
Cookie RelayServer::State::cookie(const net::Address& from, std::uint64_t nonce, std::uint64_t at_epoch) const {
  std::byte what[net::kEndpointBytesMax + 4 + 8 + 8] = {};
  const std::size_t n = net::endpoint_bytes(from, what);
  put_u32(what + n, config.session_id);
  put_u64(what + n + 4, nonce);
  put_u64(what + n + 12, at_epoch);
  Cookie made{};
  wire::compute_cookie(cookie_secret, std::span<const std::byte>(what, n + 20), made.data());
  return made;
}

std::uint64_t RelayServer::State::epoch(Clock::time_point now) const {
  // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
  return static_cast<std::uint64_t>((now - opened) / kCookieEpoch) + 1;
}

bool RelayServer::State::proven(const net::Address& from, const Message& request, Clock::time_point now) const {
  const std::uint64_t e = epoch(now);
  const Cookie current = cookie(from, request.nonce, e), previous = cookie(from, request.nonce, e - 1);
  // Both compared (constant time each), whatever the first says.
  const bool a = wire::cookie_equal(request.cookie.data(), current.data());
  const bool b = wire::cookie_equal(request.cookie.data(), previous.data());
  return a || b;
}

RelayServer::State::Subscriber* RelayServer::State::find(const net::Address& from, std::uint64_t nonce) {
  for (Subscriber& s : subscribers)
    if (net::same_endpoint(s.address, from) && s.nonce == nonce) return &s;
  return nullptr;
}

RelayServer::State::Subscriber* RelayServer::State::admit(const net::Address& from, std::uint64_t nonce,
                                                          Clock::time_point now) {
  // A watcher that proved a new nonce from the same endpoint (it restarted) keeps its slot.
  for (Subscriber& s : subscribers)
    if (net::same_endpoint(s.address, from)) {
      s.nonce = nonce;
      s.asked_from = 0;
      return &s;
    }
  // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
  const auto idle = std::chrono::milliseconds(config.idle_timeout_ms);
  subscribers.erase(std::remove_if(subscribers.begin(), subscribers.end(),
                                   [&](const Subscriber& s) { return now - s.last_seen > idle; }),
                    subscribers.end());
  if (subscribers.size() >= config.max_subscribers) return nullptr;
  if (!from.is_loopback()) {
    const auto same = std::count_if(subscribers.begin(), subscribers.end(),
                                    [&](const Subscriber& s) { return net::same_host(s.address, from); });
    if (static_cast<std::uint64_t>(same) >= config.max_per_host) return nullptr;
  }
  subscribers.push_back({from, nonce, now, 0});
  stats.max_subscribers_seen = std::max<std::uint32_t>(stats.max_subscribers_seen, static_cast<std::uint32_t>(subscribers.size()));
  return &subscribers.back();
}

void RelayServer::State::send(const net::Address& to, const Message& m) {
  const std::size_t size = encode(config, kToWatcher, m, out);
  (void)socket.send_to(to, std::span<const std::byte>(out.data(), size));
}

void RelayServer::State::answer(const net::Address& to, const Message& request) {
  const std::uint64_t have = bytes.size();
  std::uint64_t at = std::min<std::uint64_t>(request.offset, have);
  const std::uint64_t end = std::min<std::uint64_t>(request.offset + request.length, have);
  do {  // at least one DATA, possibly empty: "alive, this is all there is"
    const std::uint64_t n = std::min<std::uint64_t>(end > at ? end - at : 0, kRelayChunkBytes);
    Message m;
    m.kind = Kind::Data;
    m.nonce = request.nonce;
    m.offset = at;
    m.body = std::span<const std::byte>(bytes.data() + at, static_cast<std::size_t>(n));
    m.total = have;
    const std::size_t size = encode(config, kToWatcher, m, out);
    if (socket.send_to(to, std::span<const std::byte>(out.data(), size))) {
      ++stats.data_sent;
      stats.bytes_sent += n;
    }
    at += n;
  } while (at < end);
}

RelayServer::RelayServer() : state_(std::make_unique<State>()) {}
RelayServer::~RelayServer() = default;

bool RelayServer::open(const RelayConfig& config, std::string& error) {
  if (!check_config(config, error)) return false;
  state_->config = config;
  for (std::size_t i = 0; i < state_->cookie_secret.size(); i += 8) {
    const std::uint64_t r = wire::random_u64();
    for (std::size_t k = 0; k < 8; ++k) state_->cookie_secret[i + k] = static_cast<std::uint8_t>(r >> (8 * k));
  }
  state_->opened = Clock::now();
  return open_socket(config, state_->socket, error);
}

std::string RelayServer::local_address() const { return net::format_address(state_->socket.local()); }

replay::ReplayStatus RelayServer::poll(replay::ByteSource& source) {
  State& s = *state_;
  const replay::ReplayStatus ingested = s.ingest(source);
  const Clock::time_point now = Clock::now();
  for (std::uint32_t i = 0; i < s.config.requests_per_poll; ++i) {
    net::Address from;
    bool truncated = false;
    const std::uint32_t n = s.socket.receive_from(from, s.in, truncated);
    if (n == 0) break;
    Message m;
    if (truncated || (s.config.loopback_only && !from.is_loopback()) ||
        !decode(s.config, kToRelay, std::span<const std::byte>(s.in.data(), n), m) || m.kind != Kind::Request) {
      ++s.stats.dropped;
      continue;
    }
    // A subscriber keeps its slot while its requests carry the nonce it proved. Anything else
    // is served only once its source proved it receives at its address (a cookie round trip):
    // until then its only answer is a CHALLENGE, of the request's own size.
    State::Subscriber* sub = s.find(from, m.nonce);
    if (sub == nullptr && !s.proven(from, m, now)) {
      Message challenge;
      challenge.kind = Kind::Challenge;
      challenge.nonce = m.nonce;
      challenge.offset = m.offset;
      challenge.length = m.length;
      challenge.cookie = s.cookie(from, m.nonce, s.epoch(now));
      s.send(from, challenge);
      ++s.stats.challenges;
      continue;
    }
    if (sub == nullptr) sub = s.admit(from, m.nonce, now);
    if (sub == nullptr) {
      Message full;
      full.kind = Kind::Full;
      full.nonce = m.nonce;
      s.send(from, full);
      ++s.stats.refused_full;
      continue;
    }
    sub->last_seen = now;
    sub->asked_from = std::max(sub->asked_from, m.offset);
    ++s.stats.requests;
    s.answer(from, m);
  }
  s.stats.subscribers = static_cast<std::uint32_t>(s.subscribers.size());
  return ingested;
}

const RelayStats& RelayServer::stats() const noexcept { return state_->stats; }

bool RelayServer::subscribers_have_everything() const noexcept {
  // Only watchers still asking count: one that fetched what it needed and went quiet (a
  // rejoining peer takes the history once) is not waited for.
  // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
  const Clock::time_point active = Clock::now() - std::chrono::seconds(1);
  for (const State::Subscriber& sub : state_->subscribers)
    if (sub.last_seen > active && sub.asked_from < state_->bytes.size()) return false;
  return true;
}

std::uint32_t RelayServer::finish(replay::ByteSource& source, std::uint64_t linger_us) {
  // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
  const Clock::time_point until = Clock::now() + std::chrono::microseconds(linger_us);
  std::uint32_t polls = 0, quiet_polls = 0;
  while (Clock::now() < until && quiet_polls < 50) {  // 50 polls of 10 ms with everything fetched
    ++polls;
    if (!poll(source).ok()) break;
    quiet_polls = subscribers_have_everything() ? quiet_polls + 1 : 0;
    // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return polls;
}

// ---- RelaySource ---------------------------------------------------------------------------

struct RelaySource::State {
  RelayConfig config;
  net::Socket socket;
  net::Address relay;
  std::string relay_text;
  std::vector<std::byte> bytes;                              // the contiguous prefix fetched
  std::map<std::uint64_t, std::vector<std::byte>> pending;  // chunks ahead of a lost one
  std::uint64_t requested_end = 0;
  Clock::time_point last_request{};
  bool full = false;
  // What the relay had when it first answered: nothing is handed out before that much arrived,
  // so a late watcher's first read holds the whole stream so far (its newest checkpoint).
  std::uint64_t first_total = ~std::uint64_t{0};
  std::uint64_t relay_total = 0;
  bool answered = false;
  // This watcher's nonce for the relay it talks to (drawn anew per relay): the relay echoes it,
  // and a message without it is not for this watcher. The relay's newest cookie (all zero:
  // none yet) goes back in every request; a CHALLENGE asks again at once.
  std::uint64_t nonce = 0;
  Cookie cookie{};
  bool challenged = false;
  RelaySourceStats stats;
  std::array<std::byte, kMaxDatagram> out{};
  std::array<std::byte, 2048> in{};
  // Failover: the relays still to try (in order), when the current one was last heard from,
  // and how far the current one's bytes were compared with those held (bytes before
  // `verified` agree; after a switch it starts at 0, and nothing new is taken before it
  // reaches the end of what is held).
  std::vector<std::pair<std::string, net::Address>> fallbacks;
  std::size_t next_fallback = 0;
  Clock::time_point last_heard{};
  std::uint64_t verified = ~std::uint64_t{0};  // none to compare: all held came from this relay
  std::string differs;  // "" or why the current relay was refused
  std::uint64_t differs_at = 0;
  std::vector<RelaySwitch> switches;

  std::uint64_t cursor() const { return verified < bytes.size() ? verified : bytes.size(); }
  void take(const Message& m);
  void receive();
  void request(Clock::time_point now);
  void switch_relay(Clock::time_point now);
};

void RelaySource::State::take(const Message& m) {
  if (first_total == ~std::uint64_t{0}) first_total = m.total;
  relay_total = std::max(relay_total, m.total);
  const std::uint64_t have = bytes.size();
  if (verified < have) {
    // A relay taken over: what it sends of the bytes held must be those bytes.
    if (!differs.empty() || m.body.empty() || m.offset > verified || m.offset + m.body.size() <= verified) return;
    const std::uint64_t end = std::min<std::uint64_t>(m.offset + m.body.size(), have);
    for (std::uint64_t at = verified; at < end; ++at)
      if (bytes[static_cast<std::size_t>(at)] != m.body[static_cast<std::size_t>(at - m.offset)]) {
        differs_at = at;
        differs = "serves another recording than relay " + switches.back().from +
                  " (this byte differs from the one already read from it): refused, not spliced";
        return;
      }
    verified = end;
    if (verified < have) return;
    verified = ~std::uint64_t{0};
  }
  if (m.body.empty() || m.offset + m.body.size() <= have) return;  // nothing new (or a liveness answer)
  if (m.offset > have) {
    // Ahead of a lost chunk: kept, within one window only (bounded memory).
    if (m.offset - have < kRelayWindowBytes && pending.size() < kRelayWindowBytes / kRelayChunkBytes)
      pending.emplace(m.offset, std::vector<std::byte>(m.body.begin(), m.body.end()));
    else
      ++stats.dropped;
    return;
  }
  const std::size_t skip = static_cast<std::size_t>(have - m.offset);
  bytes.insert(bytes.end(), m.body.begin() + static_cast<std::ptrdiff_t>(skip), m.body.end());
  for (auto it = pending.begin(); it != pending.end() && it->first <= bytes.size();) {
    const std::uint64_t end = it->first + it->second.size();
    if (end > bytes.size())
      bytes.insert(bytes.end(), it->second.begin() + static_cast<std::ptrdiff_t>(bytes.size() - it->first), it->second.end());
    it = pending.erase(it);
  }
}

void RelaySource::State::receive() {
  for (int i = 0; i < 1024; ++i) {
    net::Address from;
    bool truncated = false;
    const std::uint32_t n = socket.receive_from(from, in, truncated);
    if (n == 0) return;
    Message m;
    if (truncated || !net::same_endpoint(from, relay) ||
        !decode(config, kToWatcher, std::span<const std::byte>(in.data(), n), m) || m.kind == Kind::Request) {
      ++stats.dropped;
      continue;
    }
    if (m.nonce != nonce) {  // authentic, but for another watcher (or forged by one)
      ++stats.dropped;
      ++stats.unbound;
      continue;
    }
    answered = true;
    last_heard = Clock::now();
    if (m.kind == Kind::Challenge) {
      cookie = m.cookie;
      challenged = true;
      ++stats.challenges;
      continue;
    }
    if (m.kind == Kind::Full) {
      full = true;
      continue;
    }
    ++stats.data_received;
    take(m);
  }
}

void RelaySource::State::request(Clock::time_point now) {
  // Ask for the next window once the last one arrived, or again after 20 ms (loss, or nothing
  // new yet at the relay).
  // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
  if (!challenged && cursor() < requested_end && now - last_request < std::chrono::milliseconds(20)) return;
  challenged = false;
  Message m;
  m.kind = Kind::Request;
  m.nonce = nonce;
  m.cookie = cookie;
  m.offset = cursor();
  m.length = kRelayWindowBytes;
  const std::size_t size = encode(config, kToRelay, m, out);
  if (socket.send_to(relay, std::span<const std::byte>(out.data(), size))) ++stats.requests_sent;
  requested_end = m.offset + m.length;
  last_request = now;
}

void RelaySource::State::switch_relay(Clock::time_point now) {
  RelaySwitch sw;
  sw.from = relay_text;
  sw.to = fallbacks[next_fallback].first;
  sw.byte = bytes.size();
  sw.full = full;
  // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
  sw.silent_us = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(now - last_heard).count());
  switches.push_back(sw);
  relay_text = fallbacks[next_fallback].first;
  relay = fallbacks[next_fallback].second;
  ++next_fallback;
  // The new relay is compared from byte 0; the old one's late datagrams are dropped (sender).
  verified = bytes.empty() ? ~std::uint64_t{0} : 0;
  pending.clear();
  requested_end = 0;
  last_request = {};
  last_heard = now;
  full = false;
  answered = false;
  relay_total = 0;
  nonce = wire::random_u64();
  cookie = {};
  challenged = false;
  if (bytes.size() < first_total) first_total = ~std::uint64_t{0};
}

RelaySource::RelaySource() : state_(std::make_unique<State>()) {}
RelaySource::~RelaySource() = default;

bool RelaySource::open(const std::string& relay, const RelayConfig& config, std::string& error) {
  if (!check_config(config, error)) return false;
  State& s = *state_;
  s.config = config;
  s.relay_text = relay;
  if (!net::parse_address(relay, s.relay, error)) return false;
  if (config.loopback_only && !s.relay.is_loopback()) {
    error = "relay: " + relay + " is not a loopback address (allow remote addresses explicitly)";
    return false;
  }
  s.last_heard = Clock::now();
  s.nonce = wire::random_u64();
  return open_socket(config, s.socket, error);
}

bool RelaySource::add_fallback(const std::string& relay, std::string& error) {
  net::Address address;
  if (!net::parse_address(relay, address, error)) return false;
  if (state_->config.loopback_only && !address.is_loopback()) {
    error = "relay: " + relay + " is not a loopback address (allow remote addresses explicitly)";
    return false;
  }
  state_->fallbacks.emplace_back(relay, address);
  return true;
}

const std::vector<RelaySwitch>& RelaySource::switches() const noexcept { return state_->switches; }

replay::ReplayStatus RelaySource::read(std::uint64_t offset, std::span<std::byte> out, std::size_t& got) {
  State& s = *state_;
  got = 0;
  s.receive();
  if (s.next_fallback < s.fallbacks.size()) {
    const Clock::time_point now = Clock::now();
    // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
    if (s.full || now - s.last_heard > std::chrono::milliseconds(s.config.failover_ms)) {
      s.switch_relay(now);
      s.receive();
    }
  }
  if (!s.differs.empty()) return source_error(describe(), s.differs_at, s.differs);
  if (s.bytes.size() > kRelayMaxBytes) return source_error(describe(), s.bytes.size(), "the stream exceeds 256 MiB");
  if (s.full)
    return source_error(describe(), s.bytes.size(), "the relay refused: all of its subscriber slots are taken (try another relay)");
  s.request(Clock::now());
  // Behind the relay (joining late, or after a burst): fetch window after window for up to
  // 10 ms instead of one window per read.
  // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
  const Clock::time_point until = Clock::now() + std::chrono::milliseconds(10);
  while ((s.bytes.size() < s.relay_total || s.cursor() < s.bytes.size()) && !s.full && s.differs.empty() &&
         Clock::now() < until) {
    // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    s.receive();
    s.request(Clock::now());
  }
  if (s.first_total == ~std::uint64_t{0} || s.bytes.size() < s.first_total) return replay::ReplayStatus::Ok();
  if (offset > s.bytes.size()) return source_error(describe(), offset, "read past the fetched bytes");
  got = std::min<std::size_t>(out.size(), static_cast<std::size_t>(s.bytes.size() - offset));
  if (got != 0) std::memcpy(out.data(), s.bytes.data() + offset, got);
  return replay::ReplayStatus::Ok();
}

std::string RelaySource::describe() const { return "relay " + state_->relay_text; }
bool RelaySource::answered() const noexcept { return state_->answered; }

std::string relay_never_answered(const RelaySource& source, std::uint64_t waited_us) {
  const std::uint64_t tenths = (waited_us + 50000) / 100000;  // seconds to one decimal, in integers
  return source.describe() + " never answered (" + std::to_string(source.stats().requests_sent) + " requests in " +
         std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) +
         " s): its match key or session id differs from ours, or no relay listens at that address";
}
bool RelaySource::caught_up() const noexcept {
  return state_->first_total != ~std::uint64_t{0} && state_->bytes.size() >= state_->first_total;
}

replay::ReplayStatus fetch_recording(RelaySource& source, std::uint32_t timeout_ms, replay::Replay& out) {
  replay::ReplayStreamDecoder decoder(source.describe());
  std::vector<std::byte> buf(65536);
  // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
  const auto until = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!source.caught_up() || decoder.bytes_received() < source.fetched_bytes() || !decoder.has_header()) {
    std::size_t got = 0;
    replay::ReplayStatus st = source.read(decoder.bytes_received(), buf, got);
    if (st.ok() && got != 0) st = decoder.feed(std::span<const std::byte>(buf.data(), got));
    if (!st.ok()) return st;
    if (got == 0 && Clock::now() > until) {
      if (!source.answered()) {
        replay::ReplayStatus silent;
        silent.code = ErrorCode::IoError;
        silent.message = relay_never_answered(source, std::uint64_t{timeout_ms} * 1000);
        return silent;
      }
      return source_error(source.describe(), decoder.bytes_received(),
                          source.caught_up() ? "no recording header arrived within the timeout"
                                             : "the recording did not arrive within the timeout");
    }
    // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
    if (got == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  out = decoder.replay();
  return replay::ReplayStatus::Ok();
}
std::uint64_t RelaySource::fetched_bytes() const noexcept { return state_->bytes.size(); }
const RelaySourceStats& RelaySource::stats() const noexcept { return state_->stats; }

WatchResult watch_recording(replay::ReplayFollower& follower, replay::ByteSource& source, RelayServer* onward,
                            const WatchOptions& options) {
  WatchResult out;
  // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
  const Clock::time_point t0 = Clock::now();
  Clock::time_point last_growth = t0;
  std::uint64_t last_recorded = 0;
  const auto* relayed = dynamic_cast<const RelaySource*>(&source);
  std::size_t switches_seen = 0;
  for (;;) {
    const std::uint64_t tick_before = follower.tick();
    const bool started_before = follower.started();
    out.status = follower.poll(source);
    if (onward != nullptr) (void)onward->poll(source);
    if (relayed != nullptr && relayed->switches().size() > switches_seen) {
      for (; switches_seen < relayed->switches().size(); ++switches_seen)
        if (options.on_relay_switch) options.on_relay_switch(relayed->switches()[switches_seen], follower.tick());
    }
    if (!out.status.ok()) break;
    const Clock::time_point now = Clock::now();
    if (follower.recorded_ticks() != last_recorded) {
      last_recorded = follower.recorded_ticks();
      last_growth = now;
    }
    // How far behind the newest recorded tick, once caught up with the delay (while live).
    if (follower.started() && !follower.recording().complete && follower.tick() >= follower.start_tick() + options.delay_ticks)
      out.lag_max = std::max(out.lag_max, follower.recorded_ticks() - std::min(follower.recorded_ticks(), follower.tick()));
    if (follower.finished()) break;
    // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
    if (now - t0 > std::chrono::microseconds(options.max_us)) {
      out.timed_out = true;
      break;
    }
    // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
    if (now - last_growth > std::chrono::microseconds(options.idle_timeout_us)) {
      out.idle = true;
      out.status.code = ErrorCode::Mismatch;
      // Any caller's relay watcher gets the relay's cause, whatever it passed the source as.
      out.relay_silent = relayed != nullptr && !relayed->answered();
      if (out.relay_silent)
        out.status.message = relay_never_answered(*relayed, options.idle_timeout_us);
      else
        out.status.message = source.describe() + ": nothing new for " + std::to_string(options.idle_timeout_us / 1000000) +
                             " s and no END block (the recorder stopped?) at tick " + std::to_string(follower.recorded_ticks());
      break;
    }
    // Caught up with the delay, or waiting for bytes (or for the hashes of the tick it is at).
    if (follower.tick() == tick_before && follower.started() == started_before)
      // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
      std::this_thread::sleep_for(std::chrono::microseconds(options.poll_us));
  }
  // The onward relay's watchers get the end too (bounded).
  for (int quiet = 0, polls = 0; onward != nullptr && quiet < 50 && polls < 1000; ++polls) {
    (void)onward->poll(source);
    quiet = onward->subscribers_have_everything() ? quiet + 1 : 0;
    // lockstep: allow(time) relay pacing and timeouts of the broadcast socket, never simulated
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return out;
}

std::string watch_report(const replay::ReplayFollower& follower, const replay::ByteSource& source,
                         const RelaySource* relayed, const RelayServer* onward, const WatchOutcome& outcome, bool json) {
  const replay::Runner* runner = follower.runner();
  const std::string final_hash = runner != nullptr ? to_hex(runner->hash().total) : std::string();
  if (!json)
    return "followed " + source.describe() + " from tick " + std::to_string(follower.start_tick()) + " to " +
           std::to_string(follower.tick()) + ": " + std::to_string(follower.checked_ticks()) +
           " ticks checked against the recording" + (outcome.exit_code == 0 ? "" : " (FAILED)") + ", final hash " +
           final_hash + "\n";
  inspect::JsonWriter j;
  j.begin().field("ok", outcome.exit_code == 0).field("exit", outcome.exit_code).field("source", source.describe())
      .field("sim", follower.recording().header.sim_name).field("start_tick", follower.start_tick())
      .field("tick", follower.tick()).field("recorded_ticks", follower.recorded_ticks())
      .field("checked_ticks", follower.checked_ticks()).field("complete", follower.recording().complete)
      .field("checkpoints", static_cast<std::uint64_t>(follower.recording().checkpoints.size()))
      .field("delay_ticks", outcome.delay_ticks).field("lag_max_ticks", outcome.lag_max).field("final_hash", final_hash);
  if (!outcome.record.empty()) j.field("record", outcome.record);
  if (relayed != nullptr)
    j.field("relay_requests", relayed->stats().requests_sent).field("relay_dropped", relayed->stats().dropped)
        .field("relay_switches", static_cast<std::uint64_t>(relayed->switches().size()));
  if (onward != nullptr) j.field("relay", onward->local_address()).field("relay_watchers_max", onward->stats().max_subscribers_seen);
  if (!outcome.failure.empty()) j.field("error", outcome.failure);
  j.end();
  return j.str() + "\n";
}

}  // namespace lockstep::rollback
