// Host-fed spectators (rollback/relay.h): a relay serves a growing recording over UDP on
// loopback; watchers fetch it (two levels), follow it from its newest checkpoint, and the
// relay's bounds hold (subscriber slots, keys, forged requests).
#include "rollback/rollback_support.h"

#include <lockstep/replay/record.h>
#include <lockstep/replay/replay_follow.h>
#include <lockstep/rollback/relay.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
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
  EXPECT_EQ(error, "relay: no key: set RelayConfig::key (the broadcast key), or Unauthenticated");
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
