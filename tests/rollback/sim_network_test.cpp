// SimNetwork: seeded, clock-driven, totally ordered; loss/duplication/reordering counted.
#include <lockstep/rollback/sim_network.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

using namespace lockstep::rollback;

namespace {
struct Delivery {
  std::uint64_t at;
  std::uint32_t to, from, size;
  std::uint8_t first;
  bool operator==(const Delivery&) const = default;
};

std::vector<Delivery> run(const SimNetworkConfig& c, std::uint32_t sends_per_ms, std::uint32_t ms) {
  SimNetwork net(c);
  std::vector<Delivery> out;
  std::array<std::byte, kMaxMessageBytes> buf{};
  std::uint8_t counter = 0;
  for (std::uint32_t t = 0; t < ms; ++t) {
    net.advance_to(std::uint64_t{t} * 1000);
    for (std::uint32_t i = 0; i < sends_per_ms; ++i) {
      const std::uint32_t from = i % c.peers, to = (i + 1) % c.peers;
      std::array<std::byte, 3> m{std::byte{counter++}, std::byte{1}, std::byte{2}};
      net.endpoint(from).send(to, m);
    }
    for (std::uint32_t p = 0; p < c.peers; ++p) {
      std::uint32_t from = 0;
      while (std::uint32_t n = net.endpoint(p).receive(from, buf))
        out.push_back({net.now_us(), p, from, n, std::to_integer<std::uint8_t>(buf[0])});
    }
  }
  return out;
}
}  // namespace

TEST(sim_network, PerfectLinkIsFifoWithExactLatency) {
  SimNetworkConfig c;
  c.peers = 2;
  c.conditions.latency_us = 5000;
  SimNetwork net(c);
  std::array<std::byte, kMaxMessageBytes> buf{};
  for (std::uint8_t i = 0; i < 10; ++i) {
    std::array<std::byte, 1> m{std::byte{i}};
    EXPECT_TRUE(net.endpoint(0).send(1, m));
  }
  std::uint32_t from = 9;
  net.advance_to(4999);
  EXPECT_EQ(net.endpoint(1).receive(from, buf), 0u);
  net.advance_to(5000);
  for (std::uint8_t i = 0; i < 10; ++i) {
    ASSERT_EQ(net.endpoint(1).receive(from, buf), 1u);
    EXPECT_EQ(from, 0u);
    EXPECT_EQ(std::to_integer<std::uint8_t>(buf[0]), i);
  }
  EXPECT_EQ(net.endpoint(1).receive(from, buf), 0u);
  EXPECT_EQ(net.endpoint(0).receive(from, buf), 0u);
  EXPECT_EQ(net.stats().delivered, 10u);
}

TEST(sim_network, SameSeedSameDeliveriesOtherSeedOthers) {
  SimNetworkConfig c;
  c.peers = 3;
  c.conditions = {20000, 15000, 200000, 50000, 50000, 0};
  c.seed = 42;
  const auto a = run(c, 4, 400);
  const auto b = run(c, 4, 400);
  EXPECT_EQ(a, b);
  c.seed = 43;
  EXPECT_NE(a, run(c, 4, 400));
}

TEST(sim_network, LossDuplicationAndReorderingHappenAtTheirRates) {
  SimNetworkConfig c;
  c.peers = 2;
  c.conditions = {10000, 5000, 100000, 100000, 100000, 0};
  SimNetwork net(c);
  std::array<std::byte, kMaxMessageBytes> buf{};
  std::uint32_t from = 0;
  std::uint64_t received = 0, out_of_order = 0;
  int last = -1;
  for (std::uint32_t i = 0; i < 20000; ++i) {
    net.advance_to(std::uint64_t{i} * 100);
    std::array<std::byte, 2> m{std::byte{static_cast<std::uint8_t>(i & 0xFF)}, std::byte{static_cast<std::uint8_t>(i >> 8)}};
    net.endpoint(0).send(1, m);
    while (net.endpoint(1).receive(from, buf) != 0) {
      const int v = std::to_integer<int>(buf[0]) | (std::to_integer<int>(buf[1]) << 8);
      if (v < last) ++out_of_order;
      last = v;
      ++received;
    }
  }
  const SimNetworkStats& s = net.stats();
  EXPECT_EQ(s.sent, 20000u);
  EXPECT_NEAR(static_cast<double>(s.lost), 2000.0, 300.0);
  EXPECT_NEAR(static_cast<double>(s.duplicated), 1800.0, 300.0);
  EXPECT_GT(s.reordered, 1000u);
  EXPECT_GT(out_of_order, 1000u);
  EXPECT_EQ(s.overflowed, 0u);
  EXPECT_EQ(received + net.in_flight(), s.sent - s.lost + s.duplicated);
}

TEST(sim_network, OverflowAndBadSendsAreCountedNotFatal) {
  SimNetworkConfig c;
  c.peers = 2;
  c.capacity = 4;
  c.conditions.latency_us = 1000;
  SimNetwork net(c);
  std::array<std::byte, 1> m{std::byte{1}};
  for (int i = 0; i < 6; ++i) net.endpoint(0).send(1, m);
  EXPECT_EQ(net.stats().overflowed, 2u);
  EXPECT_FALSE(net.endpoint(0).send(0, m));  // to self
  EXPECT_FALSE(net.endpoint(0).send(7, m));  // no such peer
  EXPECT_FALSE(net.endpoint(0).send(1, {}));
  std::array<std::byte, kMaxMessageBytes + 1> big{};
  EXPECT_FALSE(net.endpoint(0).send(1, big));
  EXPECT_EQ(net.stats().rejected, 4u);
  net.advance_to(500);
  net.advance_to(100);  // the clock never goes back
  EXPECT_EQ(net.now_us(), 500u);
}
