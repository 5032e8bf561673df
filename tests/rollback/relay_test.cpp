// Host-fed spectators (rollback/relay.h): a relay serves a growing recording over UDP on
// loopback; watchers fetch it (two levels), follow it from its newest checkpoint, and the
// relay's bounds hold (subscriber slots, keys, forged requests).
#include "rollback/rollback_support.h"

#include <lockstep/replay/record.h>
#include <lockstep/replay/replay_follow.h>
#include <lockstep/rollback/peer_setup.h>
#include <lockstep/rollback/relay.h>

#include "../../rollback/src/wire_auth.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace rollback_test;

namespace {

// A recording that grows as a recorder writes it: `visible` bytes of `all` can be read.
class GrowingBytes final : public ByteSource {
 public:
  explicit GrowingBytes(std::vector<std::byte> all) : all_(std::move(all)) {}
  ReplayStatus read(std::uint64_t offset, std::span<std::byte> out, std::size_t& got) override {
    got = offset >= visible ? 0 : std::min<std::size_t>(out.size(), visible - offset);
    if (got != 0) std::memcpy(out.data(), all_.data() + offset, got);
    return ReplayStatus::Ok();
  }
  std::string describe() const override { return "test bytes"; }
  std::size_t visible = 0;
  const std::vector<std::byte>& all() const { return all_; }

 private:
  std::vector<std::byte> all_;
};

std::vector<std::byte> recorded_duel(std::uint64_t ticks, std::uint32_t checkpoint_every, std::uint64_t& final_hash) {
  Replay r;
  EXPECT_TRUE(record_bots(fixtures::duel_sim(), duel_config(3), 5, ticks, checkpoint_every, r).ok());
  final_hash = r.hashes.back().total;
  std::vector<std::byte> bytes;
  EXPECT_TRUE(encode_replay(r, bytes).ok());
  return bytes;
}

RelayConfig config(std::uint32_t key_byte = 7) {
  RelayConfig c;
  c.session_id = 41;
  c.key.bytes.fill(key_byte);
  return c;
}

// Polls the servers and reads every source until `done` or 5 s pass.
template <class Done>
bool pump(std::vector<std::pair<RelayServer*, ByteSource*>> servers, std::vector<RelaySource*> sources, Done done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::vector<std::byte> scratch(65536);
  while (std::chrono::steady_clock::now() < until) {
    for (auto& [server, source] : servers) EXPECT_TRUE(server->poll(*source).ok());
    for (RelaySource* s : sources) {
      std::size_t got = 0;
      EXPECT_TRUE(s->read(s->fetched_bytes(), scratch, got).ok());
    }
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

std::vector<std::byte> fetched(RelaySource& s) {
  std::vector<std::byte> out(s.fetched_bytes());
  std::size_t got = 0;
  EXPECT_TRUE(s.read(0, out, got).ok());
  out.resize(got);
  return out;
}

// A raw datagram to the relay from a socket nobody knows.
void send_raw(const RelayServer& relay, const void* bytes, std::size_t size) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::string at = relay.local_address();
  to.sin_port = htons(static_cast<std::uint16_t>(std::stoi(at.substr(at.rfind(':') + 1))));
  EXPECT_EQ(::sendto(fd, bytes, size, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to), static_cast<ssize_t>(size));
  ::close(fd);
}

TEST(Relay, TwoLevelsOfWatchersGetTheGrowingStreamByteForByte) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(600, 64, final_hash));
  host.visible = host.all().size() / 3;
  RelayServer top;
  std::string error;
  ASSERT_TRUE(top.open(config(), error)) << error;
  RelaySource first;
  ASSERT_TRUE(first.open(top.local_address(), config(), error)) << error;
  RelayServer second;  // the first watcher relays again
  ASSERT_TRUE(second.open(config(), error)) << error;
  RelaySource leaf;
  ASSERT_TRUE(leaf.open(second.local_address(), config(), error)) << error;

  auto level = [&](std::size_t n) { return [&, n] { return first.fetched_bytes() == n && leaf.fetched_bytes() == n; }; };
  ASSERT_TRUE(pump({{&top, &host}, {&second, &first}}, {&first, &leaf}, level(host.visible)));
  host.visible = host.all().size();  // the recorder wrote the rest
  ASSERT_TRUE(pump({{&top, &host}, {&second, &first}}, {&first, &leaf}, level(host.visible)));
  EXPECT_EQ(fetched(first), host.all());
  EXPECT_EQ(fetched(leaf), host.all());
  EXPECT_EQ(top.stats().max_subscribers_seen, 1u);  // the leaf costs the top relay nothing
  EXPECT_EQ(second.stats().max_subscribers_seen, 1u);
  EXPECT_EQ(top.stats().bytes_sent, host.all().size());
  EXPECT_EQ(top.stats().dropped, 0u);
}

TEST(Relay, ALateWatcherFollowsFromTheNewestCheckpointAndEndsOnTheRecordedState) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(900, 64, final_hash));
  host.visible = host.all().size() * 2 / 3;  // joined two thirds into the match
  RelayServer relay;
  std::string error;
  ASSERT_TRUE(relay.open(config(), error)) << error;
  RelaySource source;
  ASSERT_TRUE(source.open(relay.local_address(), config(), error)) << error;
  FollowOptions o;
  o.start = FollowOptions::Start::NewestCheckpoint;
  ReplayFollower follower([](std::string_view n) -> const Sim* { return n == "duel" ? &fixtures::duel_sim() : nullptr; }, o, "relay");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!follower.finished() && std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE(relay.poll(host).ok());
    const ReplayStatus st = follower.poll(source);
    ASSERT_TRUE(st.ok()) << st.message;
    if (follower.started()) host.visible = host.all().size();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(follower.finished());
  EXPECT_GT(follower.start_tick(), 0u);
  EXPECT_EQ(follower.start_tick() % 64, 0u);
  EXPECT_EQ(follower.tick(), 900u);
  // Every tick from the checkpoint's on is compared, the checkpoint's too (a tick whose hash
  // had not arrived yet waited for it).
  EXPECT_EQ(follower.checked_ticks(), 900u - follower.start_tick() + 1);
  EXPECT_EQ(follower.runner()->hash().total, final_hash);
}

TEST(Relay, AFullRelayRefusesWithAClearError) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(60, 0, final_hash));
  host.visible = host.all().size();
  RelayConfig c = config();
  c.max_subscribers = 1;
  RelayServer relay;
  std::string error;
  ASSERT_TRUE(relay.open(c, error)) << error;
  RelaySource one, two;
  ASSERT_TRUE(one.open(relay.local_address(), config(), error)) << error;
  ASSERT_TRUE(pump({{&relay, &host}}, {&one}, [&] { return one.fetched_bytes() == host.all().size(); }));
  ASSERT_TRUE(two.open(relay.local_address(), config(), error)) << error;
  std::vector<std::byte> scratch(1024);
  std::size_t got = 0;
  ReplayStatus st;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (st.ok() && std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE(relay.poll(host).ok());
    st = two.read(0, scratch, got);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(st.message, "relay " + relay.local_address() +
                            ": byte 0: the relay refused: all of its subscriber slots are taken (try another relay)");
  EXPECT_EQ(relay.stats().refused_full, 1u);
  EXPECT_EQ(relay.stats().subscribers, 1u);
}

TEST(Relay, WrongKeysAndForgedRequestsGetNothing) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(60, 0, final_hash));
  host.visible = host.all().size();
  RelayServer relay;
  std::string error;
  ASSERT_TRUE(relay.open(config(7), error)) << error;
  RelaySource stranger;
  ASSERT_TRUE(stranger.open(relay.local_address(), config(8), error)) << error;
  // A forged request: the right layout and session, a made-up tag.
  unsigned char forged[kRelayHeaderBytes + kRelayCookieBytes + 16] = {'L', 'S', 'R', '2', 1, 1, 0, 0, 41, 0, 0, 0};
  forged[28] = 0;
  forged[29] = 0x80;  // 32 KiB
  send_raw(relay, forged, sizeof forged);
  (void)pump({{&relay, &host}}, {&stranger}, [&] { return relay.stats().dropped >= 2; });
  EXPECT_EQ(stranger.fetched_bytes(), 0u);
  EXPECT_EQ(relay.stats().requests, 0u);
  EXPECT_EQ(relay.stats().data_sent, 0u);
  EXPECT_GE(relay.stats().dropped, 2u);
  EXPECT_EQ(relay.stats().subscribers, 0u);  // forgeries take no slot
}

// A watcher whose key is not the relay's hears nothing back; after its idle timeout it says
// the relay never answered and why that happens, not "the recorder stopped?" (issue 39).
TEST(Relay, AWatcherThatIsNeverAnsweredSaysSoAndNamesTheLikelyCauses) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(60, 0, final_hash));
  host.visible = host.all().size() / 2;  // a live match: no END block yet
  RelayServer relay;
  std::string error;
  ASSERT_TRUE(relay.open(config(7), error)) << error;
  std::atomic<bool> stop{false};
  std::thread serve([&] {
    while (!stop) {
      (void)relay.poll(host);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  auto find = [](std::string_view n) -> const Sim* { return n == "duel" ? &fixtures::duel_sim() : nullptr; };
  WatchOptions wo;
  wo.poll_us = 1000;
  wo.idle_timeout_us = 300000;
  {
    RelaySource stranger;
    ASSERT_TRUE(stranger.open(relay.local_address(), config(8), error)) << error;
    ReplayFollower follower(find, FollowOptions{}, stranger.describe());
    const WatchResult w = watch_recording(follower, stranger, nullptr, wo);
    EXPECT_TRUE(w.idle);
    EXPECT_TRUE(w.relay_silent);
    EXPECT_FALSE(stranger.answered());
    EXPECT_EQ(w.status.code, ErrorCode::Mismatch);
    EXPECT_EQ(w.status.message, "relay " + relay.local_address() + " never answered (" +
                                    std::to_string(stranger.stats().requests_sent) +
                                    " requests in 0.3 s): its match key or session id differs from ours, or no relay "
                                    "listens at that address");
    EXPECT_EQ(w.status.message, relay_never_answered(stranger, wo.idle_timeout_us));
  }
  {
    // The right key: answered, and a recording that stops growing is the recorder's silence.
    RelaySource watcher;
    ASSERT_TRUE(watcher.open(relay.local_address(), config(7), error)) << error;
    ReplayFollower follower(find, FollowOptions{}, watcher.describe());
    const WatchResult w = watch_recording(follower, watcher, nullptr, wo);
    EXPECT_TRUE(w.idle);
    EXPECT_FALSE(w.relay_silent);
    EXPECT_TRUE(watcher.answered());
    EXPECT_EQ(w.status.message, "relay " + relay.local_address() + ": nothing new for 0 s and no END block (the recorder "
                                "stopped?) at tick " + std::to_string(follower.recorded_ticks()));
  }
  stop = true;
  serve.join();
}

// Junk at the relay (random lengths; half of it with a valid-looking header and unauthenticated
// or truncated bodies): everything is dropped and counted, nothing is served or taken.
TEST(Relay, JunkDatagramsAreDroppedByTheRelay) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(60, 0, final_hash));
  host.visible = host.all().size();
  RelayConfig c = config();
  c.security = WireSecurity::Unauthenticated;  // the parser is reached without a tag check
  RelayServer relay;
  std::string error;
  ASSERT_TRUE(relay.open(c, error)) << error;
  std::uint64_t rng = 0x1234567;
  auto next = [&] { return (rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  constexpr int kJunk = 400;
  for (int i = 0; i < kJunk; ++i) {
    unsigned char d[1200];
    const std::size_t n = 1 + next() % sizeof d;
    for (std::size_t k = 0; k < n; ++k) d[k] = static_cast<unsigned char>(next());
    if (i % 2 == 0 && n >= kRelayHeaderBytes) {  // a plausible header: magic, kind, session
      std::memcpy(d, "LSR2", 4);
      d[4] = static_cast<unsigned char>(2 + next() % 2);  // DATA or FULL: not for a relay
      d[5] = d[6] = d[7] = 0;
      d[8] = 41;
      d[9] = d[10] = d[11] = 0;
    }
    send_raw(relay, d, n);
    if (i % 50 == 49) {
      ASSERT_TRUE(relay.poll(host).ok());
    }
  }
  (void)pump({{&relay, &host}}, {}, [&] { return relay.stats().dropped >= kJunk; });
  EXPECT_EQ(relay.stats().dropped, static_cast<std::uint64_t>(kJunk));
  EXPECT_EQ(relay.stats().requests, 0u);
  EXPECT_EQ(relay.stats().data_sent, 0u);
  EXPECT_EQ(relay.stats().subscribers, 0u);
}

TEST(Relay, RefusesToStartWithoutAKeyOrWithTooManySlots) {
  RelayConfig c;
  RelayServer relay;
  std::string error;
  EXPECT_FALSE(relay.open(c, error));
  EXPECT_EQ(error, "relay: no key: set RelayConfig::key (the watch key: derive_watch_key of the match key), or Unauthenticated");
  c = config();
  c.max_subscribers = 33;
  EXPECT_FALSE(relay.open(c, error));
  EXPECT_EQ(error, "relay: max_subscribers must be 1..32");
  c = config();
  c.bind = "10.1.2.3:0";
  EXPECT_FALSE(relay.open(c, error));
  EXPECT_EQ(error, "relay: 10.1.2.3:0 is not a loopback address (allow remote addresses explicitly)");
}

}  // namespace

// Relay failover (issue 38): a watcher given two relays of the same recording switches to the
// second when the first goes away, resumes at the byte it holds and ends with every byte.
TEST(RelayFailover, AWatcherWhoseRelayGoesAwaySwitchesToTheNextAndEndsWithTheSameBytes) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(600, 64, final_hash));
  host.visible = host.all().size() / 3;
  auto first = std::make_unique<RelayServer>();
  RelayServer second;
  std::string error;
  ASSERT_TRUE(first->open(config(), error)) << error;
  ASSERT_TRUE(second.open(config(), error)) << error;
  const std::string a = first->local_address(), b = second.local_address();
  RelayConfig c = config();
  c.failover_ms = 100;
  RelaySource watcher;
  ASSERT_TRUE(watcher.open(a, c, error)) << error;
  ASSERT_TRUE(watcher.add_fallback(b, error)) << error;
  const std::size_t held = host.visible;
  ASSERT_TRUE(pump({{first.get(), &host}, {&second, &host}}, {&watcher}, [&] { return watcher.fetched_bytes() == held; }));
  EXPECT_TRUE(watcher.switches().empty());
  first.reset();  // the first relay's process is gone
  host.visible = host.all().size();
  ASSERT_TRUE(pump({{&second, &host}}, {&watcher}, [&] { return watcher.fetched_bytes() == host.all().size(); }));
  ASSERT_EQ(watcher.switches().size(), 1u);
  const RelaySwitch& sw = watcher.switches()[0];
  EXPECT_EQ(sw.from, a);
  EXPECT_EQ(sw.to, b);
  EXPECT_EQ(sw.byte, held);
  EXPECT_FALSE(sw.full);
  EXPECT_GE(sw.silent_us, 100000u);
  EXPECT_EQ(watcher.describe(), "relay " + b);
  EXPECT_EQ(fetched(watcher), host.all());
  // The second relay served the bytes held once more (compared), then the rest.
  EXPECT_GE(second.stats().bytes_sent, host.all().size());
}

TEST(RelayFailover, ARelayServingOtherBytesIsRefusedNotSpliced) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(600, 64, final_hash));
  host.visible = host.all().size() / 3;
  std::vector<std::byte> other = host.all();
  other[100] ^= std::byte{1};
  GrowingBytes forged(other);
  forged.visible = other.size();
  auto first = std::make_unique<RelayServer>();
  RelayServer second;
  std::string error;
  ASSERT_TRUE(first->open(config(), error)) << error;
  ASSERT_TRUE(second.open(config(), error)) << error;
  const std::string a = first->local_address(), b = second.local_address();
  RelayConfig c = config();
  c.failover_ms = 100;
  RelaySource watcher;
  ASSERT_TRUE(watcher.open(a, c, error)) << error;
  ASSERT_TRUE(watcher.add_fallback(b, error)) << error;
  const std::size_t held = host.visible;
  ASSERT_TRUE(pump({{first.get(), &host}}, {&watcher}, [&] { return watcher.fetched_bytes() == held; }));
  first.reset();
  std::vector<std::byte> scratch(1024);
  std::size_t got = 0;
  ReplayStatus st;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (st.ok() && std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE(second.poll(forged).ok());
    st = watcher.read(held, scratch, got);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(st.message, "relay " + b + ": byte 100: serves another recording than relay " + a +
                            " (this byte differs from the one already read from it): refused, not spliced");
  EXPECT_EQ(watcher.fetched_bytes(), held);  // nothing of the other recording was taken
}

TEST(RelayFailover, AFirstRelayThatNeverAnsweredIsLeftAtByteZero) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(200, 64, final_hash));
  host.visible = host.all().size();
  std::string error;
  auto gone = std::make_unique<RelayServer>();
  ASSERT_TRUE(gone->open(config(), error)) << error;
  const std::string a = gone->local_address();
  gone.reset();  // nothing listens there any more
  RelayServer second;
  ASSERT_TRUE(second.open(config(), error)) << error;
  RelayConfig c = config();
  c.failover_ms = 100;
  RelaySource watcher;
  ASSERT_TRUE(watcher.open(a, c, error)) << error;
  ASSERT_TRUE(watcher.add_fallback(second.local_address(), error)) << error;
  ASSERT_TRUE(pump({{&second, &host}}, {&watcher}, [&] { return watcher.fetched_bytes() == host.all().size(); }));
  ASSERT_EQ(watcher.switches().size(), 1u);
  EXPECT_EQ(watcher.switches()[0].from, a);
  EXPECT_EQ(watcher.switches()[0].byte, 0u);
  EXPECT_EQ(fetched(watcher), host.all());
  EXPECT_EQ(second.stats().bytes_sent, host.all().size());  // nothing held: nothing compared
}

TEST(RelayFailover, AFallbackMustBeAnAddressOnLoopbackUnlessAllowed) {
  RelaySource watcher;
  std::string error;
  ASSERT_TRUE(watcher.open("127.0.0.1:9", config(), error)) << error;
  EXPECT_FALSE(watcher.add_fallback("10.1.2.3:9", error));
  EXPECT_EQ(error, "relay: 10.1.2.3:9 is not a loopback address (allow remote addresses explicitly)");
}

// ---- Issue 39 item 19: a hostile watcher (holds the watch key, spoofs source addresses) -----

namespace {

// What relay.cpp's messages are (rollback/relay.h, "Wire"): kinds and the direction ids
// their tags are bound to.
constexpr std::uint8_t kRequest = 1, kData = 2, kFull = 3, kChallenge = 4;
constexpr std::uint32_t kToRelay = 0xC1, kToWatcher = 0xC2;

std::uint64_t get_u64(const std::vector<std::byte>& m, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint64_t>(m[at + i]);
  return v;
}

// An "LSR2" message as anyone holding `key` writes it: header, payload, tag.
std::vector<std::byte> relay_message(std::uint8_t kind, std::uint64_t nonce, std::uint64_t offset, std::uint32_t length,
                                     std::span<const std::byte> payload, const MatchKey& key, std::uint32_t to) {
  std::vector<std::byte> m(kRelayHeaderBytes + payload.size() + wire::kTagBytes);
  std::memcpy(m.data(), "LSR2", 4);
  m[4] = std::byte{kind};
  m[5] = std::byte{1};  // authenticated
  m[8] = std::byte{41};  // session id 41 (config())
  for (int i = 0; i < 8; ++i) m[12 + i] = static_cast<std::byte>(nonce >> (8 * i));
  for (int i = 0; i < 8; ++i) m[20 + i] = static_cast<std::byte>(offset >> (8 * i));
  for (int i = 0; i < 4; ++i) m[28 + i] = static_cast<std::byte>(length >> (8 * i));
  if (!payload.empty()) std::memcpy(m.data() + kRelayHeaderBytes, payload.data(), payload.size());
  const std::size_t signed_bytes = kRelayHeaderBytes + payload.size();
  wire::compute_tag(key, to, std::span<const std::byte>(m.data(), signed_bytes), m.data() + signed_bytes);
  return m;
}

std::vector<std::byte> request(std::uint64_t nonce, std::span<const std::byte> cookie, const MatchKey& key) {
  std::vector<std::byte> c(kRelayCookieBytes, std::byte{0});
  if (!cookie.empty()) std::memcpy(c.data(), cookie.data(), kRelayCookieBytes);
  return relay_message(kRequest, nonce, 0, kRelayWindowBytes, c, key, kToRelay);
}

// A UDP socket of the test's own on 127.0.0.1: what a hostile watcher sends from (any address
// it likes, in the threat; here each socket is one spoofed source port).
class RawSocket {
 public:
  RawSocket() {
    fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a), 0);
  }
  ~RawSocket() { ::close(fd_); }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;
  std::string address() const {
    sockaddr_in a{};
    socklen_t n = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n);
    return "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  }
  void send_to(const sockaddr_in& to, const std::vector<std::byte>& m) const {
    EXPECT_EQ(::sendto(fd_, m.data(), m.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to),
              static_cast<ssize_t>(m.size()));
  }
  void send_to(const std::string& host_port, const std::vector<std::byte>& m) const {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.sin_port = htons(static_cast<std::uint16_t>(std::stoi(host_port.substr(host_port.rfind(':') + 1))));
    send_to(to, m);
  }
  // One datagram within `ms` (empty: none); `from` is where it came from.
  std::vector<std::byte> receive(int ms, sockaddr_in* from = nullptr) const {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, ms) != 1) return {};
    std::vector<std::byte> m(4096);
    sockaddr_in a{};
    socklen_t n = sizeof a;
    const ssize_t got = ::recvfrom(fd_, m.data(), m.size(), 0, reinterpret_cast<sockaddr*>(&a), &n);
    m.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    if (from != nullptr) *from = a;
    return m;
  }

 private:
  int fd_ = -1;
};

// Polls the relay for 100 ms and returns every datagram `socket` received meanwhile.
std::vector<std::vector<std::byte>> answers_to(const RawSocket& socket, RelayServer& relay, ByteSource& host) {
  std::vector<std::vector<std::byte>> got;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (std::chrono::steady_clock::now() < until) {
    EXPECT_TRUE(relay.poll(host).ok());
    for (std::vector<std::byte> m = socket.receive(1); !m.empty(); m = socket.receive(0)) got.push_back(std::move(m));
  }
  return got;
}

std::size_t bytes_of(const std::vector<std::vector<std::byte>>& ms) {
  std::size_t n = 0;
  for (const auto& m : ms) n += m.size();
  return n;
}

}  // namespace

// The reflector: a request from an address that never proves it receives there (a spoofed
// victim's) gets one CHALLENGE of its own size, no DATA and no slot; the cookie is bound to the
// address it was sent to; returned from there, the window comes back.
TEST(RelayCookie, AnUnprovenRequestGetsOneDatagramNoLargerThanItselfAndNoSlot) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(600, 64, final_hash));
  host.visible = host.all().size();
  ASSERT_GE(host.visible, std::size_t{kRelayWindowBytes});  // a whole window to reflect
  RelayServer relay;
  std::string error;
  ASSERT_TRUE(relay.open(config(), error)) << error;
  const MatchKey key = config().key;
  RawSocket victim;
  const std::vector<std::byte> first = request(0xABCDEF0123456789ull, {}, key);
  ASSERT_EQ(first.size(), 64u);
  victim.send_to(relay.local_address(), first);
  const auto answers = answers_to(victim, relay, host);
  ASSERT_EQ(answers.size(), 1u) << "a 64-byte unproven request was answered with " << answers.size() << " datagrams, "
                                << bytes_of(answers) << " bytes";
  const std::vector<std::byte>& challenge = answers[0];
  EXPECT_EQ(challenge.size(), first.size());  // 64: nothing amplified before the proof
  EXPECT_EQ(std::to_integer<int>(challenge[4]), kChallenge);
  EXPECT_EQ(get_u64(challenge, 12), 0xABCDEF0123456789ull);  // the requester's nonce, echoed
  EXPECT_EQ(relay.stats().challenges, 1u);
  EXPECT_EQ(relay.stats().subscribers, 0u);
  EXPECT_EQ(relay.stats().data_sent, 0u);
  EXPECT_EQ(relay.stats().requests, 0u);
  const std::span<const std::byte> cookie(challenge.data() + kRelayHeaderBytes, kRelayCookieBytes);
  const std::vector<std::byte> proven = request(0xABCDEF0123456789ull, cookie, key);

  RawSocket elsewhere;  // the same cookie from another port proves nothing
  elsewhere.send_to(relay.local_address(), proven);
  const auto again = answers_to(elsewhere, relay, host);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(std::to_integer<int>(again[0][4]), kChallenge);
  EXPECT_EQ(relay.stats().subscribers, 0u);
  EXPECT_EQ(relay.stats().data_sent, 0u);

  victim.send_to(relay.local_address(), proven);  // the round trip completed: admitted and served
  const auto served = answers_to(victim, relay, host);
  ASSERT_EQ(served.size(), std::size_t{kRelayWindowBytes / kRelayChunkBytes});
  std::vector<std::byte> window;
  for (const auto& m : served) {
    EXPECT_EQ(std::to_integer<int>(m[4]), kData);
    EXPECT_EQ(get_u64(m, 12), 0xABCDEF0123456789ull);
    window.insert(window.end(), m.begin() + kRelayHeaderBytes, m.end() - 8 - wire::kTagBytes);
  }
  EXPECT_TRUE(std::equal(window.begin(), window.end(), host.all().begin()));
  EXPECT_EQ(window.size(), std::size_t{kRelayWindowBytes});
  EXPECT_EQ(relay.stats().subscribers, 1u);
  EXPECT_EQ(relay.stats().challenges, 2u);
}

// Slot filling: 40 sources (one per spoofed port) that never return their cookie take no slot;
// a real watcher is then admitted and fetches every byte.
TEST(RelayCookie, FortySourcesThatNeverProveTakeNoSlot) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(300, 64, final_hash));
  host.visible = host.all().size();
  RelayServer relay;
  std::string error;
  ASSERT_TRUE(relay.open(config(), error)) << error;
  std::vector<std::unique_ptr<RawSocket>> spoofed;
  for (std::uint64_t k = 0; k < 40; ++k) {
    spoofed.push_back(std::make_unique<RawSocket>());
    spoofed.back()->send_to(relay.local_address(), request(1000 + k, {}, config().key));
  }
  (void)pump({{&relay, &host}}, {}, [&] { return relay.stats().challenges + relay.stats().requests >= 40; });
  EXPECT_EQ(relay.stats().challenges, 40u);
  EXPECT_EQ(relay.stats().subscribers, 0u);
  EXPECT_EQ(relay.stats().data_sent, 0u);
  EXPECT_EQ(relay.stats().refused_full, 0u);
  RelaySource watcher;
  ASSERT_TRUE(watcher.open(relay.local_address(), config(), error)) << error;
  ASSERT_TRUE(pump({{&relay, &host}}, {&watcher}, [&] { return watcher.fetched_bytes() == host.all().size(); }));
  EXPECT_EQ(fetched(watcher), host.all());
  EXPECT_EQ(relay.stats().subscribers, 1u);
  EXPECT_EQ(relay.stats().max_subscribers_seen, 1u);
  EXPECT_EQ(watcher.stats().challenges, 1u);  // one round trip, then served
}

// Another watcher holds the watch key but is not on the path: it does not know this watcher's
// nonce, so its correctly tagged FULL and DATA are dropped; the relay's (with the nonce) count.
TEST(RelayNonce, AForgedFullOrDataWithoutTheWatchersNonceIsDropped) {
  RawSocket relay;  // stands in for the relay (and for the forger: same address, same key)
  RelaySource watcher;
  std::string error;
  ASSERT_TRUE(watcher.open(relay.address(), config(), error)) << error;
  std::vector<std::byte> scratch(4096);
  std::size_t got = 0;
  ASSERT_TRUE(watcher.read(0, scratch, got).ok());
  sockaddr_in at{};
  const std::vector<std::byte> asked = relay.receive(1000, &at);
  ASSERT_EQ(asked.size(), 64u);
  ASSERT_EQ(std::to_integer<int>(asked[4]), kRequest);
  const std::uint64_t nonce = get_u64(asked, 12);
  const MatchKey key = config().key;
  std::vector<std::byte> body(100, std::byte{0x5A});
  std::vector<std::byte> data_payload = body;
  for (int i = 0; i < 8; ++i) data_payload.push_back(static_cast<std::byte>(std::uint64_t{100} >> (8 * i)));
  const std::uint64_t forged_nonce = nonce ^ 0x8000000000000001ull;
  relay.send_to(at, relay_message(kFull, forged_nonce, 0, 0, {}, key, kToWatcher));
  relay.send_to(at, relay_message(kData, forged_nonce, 0, 100, data_payload, key, kToWatcher));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const ReplayStatus forged = watcher.read(0, scratch, got);
  EXPECT_TRUE(forged.ok()) << forged.message;  // no "the relay refused": the FULL was not believed
  EXPECT_EQ(watcher.fetched_bytes(), 0u);
  EXPECT_EQ(watcher.stats().dropped, 2u);
  EXPECT_EQ(watcher.stats().unbound, 2u);
  EXPECT_EQ(watcher.stats().data_received, 0u);
  EXPECT_FALSE(watcher.answered());
  // With the nonce: taken.
  relay.send_to(at, relay_message(kData, nonce, 0, 100, data_payload, key, kToWatcher));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(watcher.read(0, scratch, got).ok());
  EXPECT_EQ(watcher.fetched_bytes(), 100u);
  EXPECT_EQ(watcher.stats().data_received, 1u);
  EXPECT_TRUE(watcher.answered());
  relay.send_to(at, relay_message(kFull, nonce, 0, 0, {}, key, kToWatcher));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(watcher.read(100, scratch, got).message,
            "relay " + relay.address() + ": byte 100: the relay refused: all of its subscriber slots are taken (try another relay)");
  EXPECT_EQ(watcher.stats().dropped, 2u);
}

// The watch key is libsodium's crypto_kdf_derive_from_key (context "LSwatch1", subkey 1) of the
// match key: the same bytes as BLAKE2b-256 keyed with the match key, salt = LE64(1), personal =
// "LSwatch1" (computed independently with Python's hashlib).
TEST(RelayWatchKey, IsTheKdfOfTheMatchKey) {
  if (!wire_auth_available()) GTEST_SKIP() << "no libsodium";
  MatchKey match;
  for (std::size_t i = 0; i < 32; ++i) match.bytes[i] = static_cast<std::uint8_t>(i + 1);
  const MatchKey watch = derive_watch_key(match);
  std::string hex;
  for (std::uint8_t b : watch.bytes) hex += "0123456789abcdef"[b >> 4], hex += "0123456789abcdef"[b & 15];
  EXPECT_EQ(hex, "ad6bbd3793baa53824c56e7710006bc0fbcafd424c3e7b5de9e58c517c4c8f5b");
  EXPECT_TRUE(derive_watch_key(MatchKey{}).empty());  // no key, no watch key
}

// A peer's relay (relay_config_for) is keyed with the watch key: a watcher given only the watch
// key fetches it byte for byte; the match key itself is not the relay's key.
TEST(RelayWatchKey, AWatcherWithOnlyTheWatchKeyFetchesAPeersRelay) {
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(300, 64, final_hash));
  host.visible = host.all().size();
  SessionConfig sc = SessionConfig::one_player_per_peer(2, 2, 0);
  sc.session_id = 41;
  sc.match_key.bytes.fill(9);
  const RelayConfig rc = relay_config_for(sc, "127.0.0.1:0", true);
  EXPECT_EQ(rc.key.bytes, derive_watch_key(sc.match_key).bytes);
  EXPECT_NE(rc.key.bytes, sc.match_key.bytes);
  RelayServer relay;
  std::string error;
  ASSERT_TRUE(relay.open(rc, error)) << error;
  RelayConfig wc = config();
  wc.key = derive_watch_key(sc.match_key);
  RelaySource watcher;
  ASSERT_TRUE(watcher.open(relay.local_address(), wc, error)) << error;
  ASSERT_TRUE(pump({{&relay, &host}}, {&watcher}, [&] { return watcher.fetched_bytes() == host.all().size(); }));
  EXPECT_EQ(fetched(watcher), host.all());
  RelayConfig mc = config();
  mc.key = sc.match_key;
  RelaySource with_match_key;
  ASSERT_TRUE(with_match_key.open(relay.local_address(), mc, error)) << error;
  (void)pump({{&relay, &host}}, {&with_match_key}, [&] { return with_match_key.stats().requests_sent >= 5; });
  EXPECT_FALSE(with_match_key.answered());
  EXPECT_EQ(with_match_key.fetched_bytes(), 0u);
}

namespace {
// A non-loopback IPv4 address of this machine ("" none).
std::string non_loopback_ipv4() {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return "";
  std::string found;
  for (ifaddrs* i = all; i != nullptr && found.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) continue;
    char text[INET_ADDRSTRLEN] = {};
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) != nullptr) found = text;
  }
  ::freeifaddrs(all);
  return found;
}
}  // namespace

// One host cannot take every slot from its many ports: past max_per_host (non-loopback
// sources; loopback is exempt, every other test runs its watchers there) a proven watcher is
// refused with FULL. Skipped on a machine without a non-loopback IPv4 address.
TEST(RelayCookie, OneRemoteHostTakesAtMostItsShareOfTheSlots) {
  const std::string ip = non_loopback_ipv4();
  if (ip.empty()) GTEST_SKIP() << "no non-loopback IPv4 address";
  std::uint64_t final_hash = 0;
  GrowingBytes host(recorded_duel(60, 0, final_hash));
  host.visible = host.all().size();
  RelayConfig c = config();
  c.loopback_only = false;
  c.bind = ip + ":0";
  c.max_per_host = 2;
  RelayServer relay;
  std::string error;
  ASSERT_TRUE(relay.open(c, error)) << error;
  RelayConfig w = config();
  w.loopback_only = false;
  w.bind = ip + ":0";
  RelaySource one, two, three;
  for (RelaySource* s : {&one, &two, &three}) ASSERT_TRUE(s->open(relay.local_address(), w, error)) << error;
  ASSERT_TRUE(pump({{&relay, &host}}, {&one, &two}, [&] {
    return one.fetched_bytes() == host.all().size() && two.fetched_bytes() == host.all().size();
  }));
  std::vector<std::byte> scratch(1024);
  std::size_t got = 0;
  ReplayStatus st;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (st.ok() && std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE(relay.poll(host).ok());
    st = three.read(0, scratch, got);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(st.message, "relay " + relay.local_address() +
                            ": byte 0: the relay refused: all of its subscriber slots are taken (try another relay)");
  EXPECT_EQ(relay.stats().subscribers, 2u);
  EXPECT_EQ(relay.stats().refused_full, 1u);
  c.max_per_host = 33;
  RelayServer bad;
  EXPECT_FALSE(bad.open(c, error));
  EXPECT_EQ(error, "relay: max_per_host must be 1..32");
}
