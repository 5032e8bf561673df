// Zero allocations per tick and per packet over real UDP: two sessions in this process talk
// through UdpTransports on 127.0.0.1 (port 0), each wrapped in a LossyTransport (15 % loss,
// asymmetric latency), with the handshake, disconnect timers and time sync on. After the
// handshake and a warm-up, advancing, sending, receiving, framing, checksumming, lossy
// queueing, rollbacks and hash checks allocate nothing.
//   lockstep-stats rollback_alloc window=udp_duel_lossy ticks=<n> packets=<n> allocations=<n>
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/runner.h>
#include <lockstep/rollback/lossy_transport.h>
#include <lockstep/rollback/session.h>
#include <lockstep/rollback/udp_transport.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "support/counting_allocator.h"

using namespace lockstep;
using namespace lockstep::replay;
using namespace lockstep::rollback;

TEST(rollback_alloc, UdpMatchAllocatesNothingPerTickOrPacket) {
  SimConfig c;
  c.players = 2;
  UdpTransport udp[2];
  for (std::uint32_t i = 0; i < 2; ++i) {
    UdpTransportConfig uc;
    uc.bind = "127.0.0.1:0";
    uc.local_peer = i;
    uc.session_id = 9;
    uc.peers = {"", ""};
    uc.loopback_only = true;
    ASSERT_TRUE(udp[i].open(uc)) << udp[i].error();
  }
  ASSERT_TRUE(udp[0].set_peer_address(1, udp[1].local_address()));
  ASSERT_TRUE(udp[1].set_peer_address(0, udp[0].local_address()));
  std::vector<std::unique_ptr<LossyTransport>> lossy;
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<std::unique_ptr<RollbackSession>> sessions;
  std::vector<std::unique_ptr<Bot>> bots;
  for (std::uint32_t i = 0; i < 2; ++i) {
    LossyConfig lc;
    lc.loss_ppm = 150000;
    lc.latency_us = 20000 + 30000 * i;
    lc.jitter_us = 10000;
    lc.seed = 5 + i;
    lossy.push_back(std::make_unique<LossyTransport>(udp[i], lc));
    runners.push_back(std::make_unique<Runner>(fixtures::duel_sim(), c));
    SessionConfig sc = SessionConfig::one_player_per_peer(2, 2, i);
    sc.input_delay = 1;
    sc.max_prediction = 12;
    sc.hash_interval = 4;
    sc.session_id = 9;
    sc.sync_roundtrips = 3;
    sc.incarnation = 100 + i;
    sc.match_key = insecure_test_key(9);  // zero allocations per packet with the MAC computed and checked
    sc.disconnect_notify_start_us = 2000000;
    sc.disconnect_timeout_us = 5000000;
    sc.max_frame_advantage = 2;
    sessions.push_back(std::make_unique<RollbackSession>(*runners.back(), sc, lossy.back().get()));
    ASSERT_TRUE(sessions.back()->status().ok());
    bots.push_back(fixtures::duel_sim().make_bot(c, 3, i));
  }
  std::vector<std::byte> buf(fixtures::duel_sim().input_type().size);
  const auto t0 = std::chrono::steady_clock::now();
  auto frame = [&] {
    const auto now = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
    for (std::uint32_t i = 0; i < 2; ++i) {
      lossy[i]->pump(now);
      RollbackSession& s = *sessions[i];
      s.set_time(now);
      if (s.running() && s.wants_local_input(i)) {
        bots[i]->generate(s.local_input_tick(i), runners[i]->world(), buf);
        ASSERT_TRUE(s.add_local_input(i, buf).ok());
      }
      ASSERT_TRUE(s.advance().ok());
      for (SessionEvent e; s.poll_event(e);) {
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  };
  for (int f = 0; f < 2000 && !(sessions[0]->running() && sessions[1]->running()); ++f) frame();
  ASSERT_TRUE(sessions[0]->running() && sessions[1]->running());
  for (int f = 0; f < 50; ++f) frame();  // warm-up
  lockstep_test::AllocationWindow window;
  const std::uint64_t packets_before = udp[0].stats().received + udp[1].stats().received;
  for (int f = 0; f < 500; ++f) frame();
  const long allocations = window.allocations();
  const long mallocs = window.mallocs();
  const std::uint64_t packets = udp[0].stats().received + udp[1].stats().received - packets_before;
  const std::uint64_t rollbacks = sessions[0]->stats().rollbacks + sessions[1]->stats().rollbacks;
  std::printf("lockstep-stats rollback_alloc window=udp_duel_lossy ticks=%llu packets=%llu rollbacks=%llu allocations=%ld\n",
              static_cast<unsigned long long>(sessions[0]->current_tick()), static_cast<unsigned long long>(packets),
              static_cast<unsigned long long>(rollbacks), allocations);
  EXPECT_GT(packets, 500u);
  EXPECT_GT(sessions[0]->current_tick(), 300u);
  EXPECT_GT(rollbacks, 0u);
  EXPECT_GT(lossy[0]->stats().lost, 0u);
  EXPECT_EQ(sessions[0]->stats().desyncs + sessions[1]->stats().desyncs, 0u);
  EXPECT_EQ(allocations, 0);
  if (lockstep_test::counts_malloc()) {
    EXPECT_EQ(mallocs, 0);  // nor malloc inside the socket calls
  }
}
