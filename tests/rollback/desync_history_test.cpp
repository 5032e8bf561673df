// More than the first desync, and the first one exactly (docs/rollback.md, "Desync detection"):
// with a hash report every tick and lossy links, several ticks confirm in one frame; every
// report is sent (not only the newest), so the earliest divergent confirmed tick is the one
// named, and the session keeps the evidence of the next kept_desyncs − 1 as well.
#include "rollback/rollback_support.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/rollback/desync_bundle.h>
#include <lockstep/rollback/sim_network.h>

#include <gtest/gtest.h>

#include <memory>
#include <vector>

using namespace rollback_test;

namespace {

struct Result {
  std::uint64_t truth = ~std::uint64_t{0};  // first tick whose confirmed hashes differ (from the logs)
  std::uint64_t bursts = 0;                 // frames that confirmed two ticks or more
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<std::unique_ptr<RollbackSession>> sessions;
  std::vector<std::unique_ptr<ReplayLogSink>> logs;
};

// The broken sim (state outside the world: resimulation changes it) over a lossy link.
void play(Result& r, std::uint64_t seed, std::uint32_t kept_desyncs) {
  SimNetworkConfig nc;
  nc.peers = 2;
  nc.conditions.latency_us = 30000;
  nc.conditions.jitter_us = 20000;
  nc.conditions.loss_ppm = 150000;
  nc.seed = seed;
  SimNetwork net(nc);
  SimConfig config;
  config.players = 2;
  std::vector<std::unique_ptr<Bot>> bots;
  for (std::uint32_t i = 0; i < 2; ++i) {
    r.runners.push_back(std::make_unique<Runner>(broken_sim(), config));
    SessionConfig sc = SessionConfig::one_player_per_peer(2, 2, i);
    sc.input_delay = 1;
    sc.max_prediction = 12;
    sc.hash_interval = 1;
    sc.report_repeats = 6;  // 15 % loss: all six copies lost ≈ 1e-5
    sc.kept_desyncs = kept_desyncs;
    sc.match_key = insecure_test_key(2);
    r.sessions.push_back(std::make_unique<RollbackSession>(*r.runners[i], sc, &net.endpoint(i)));
    r.logs.push_back(std::make_unique<ReplayLogSink>(*r.runners[i]));
    r.sessions[i]->set_confirmed_sink(r.logs[i].get());
    bots.push_back(broken_sim().make_bot(config, seed, i));
  }
  std::vector<std::byte> buf(broken_sim().input_type().size);
  constexpr std::uint64_t kTicks = 160;
  std::uint64_t now = 0;
  for (int f = 0; f < 3000; ++f, now += 16667) {
    net.advance_to(now);
    bool done = true;
    for (std::uint32_t i = 0; i < 2; ++i) {
      RollbackSession& s = *r.sessions[i];
      s.set_time(now);
      const std::uint64_t before = s.confirmed_tick();
      if (s.wants_local_input(i) && s.local_input_tick(i) < kTicks) {
        bots[i]->generate(s.local_input_tick(i), r.runners[i]->world(), buf);
        ASSERT_TRUE(s.add_local_input(i, buf).ok());
      }
      ASSERT_TRUE((s.current_tick() < kTicks ? s.advance() : s.poll()).ok());
      for (SessionEvent e; s.poll_event(e);) {
      }
      if (s.confirmed_tick() >= before + 2) ++r.bursts;
      done = done && s.confirmed_tick() >= kTicks && s.inputs_acknowledged(kTicks);
    }
    if (done) break;
  }
  const auto& a = r.logs[0]->replay().hashes;
  const auto& b = r.logs[1]->replay().hashes;
  for (std::size_t t = 0; t < std::min(a.size(), b.size()); ++t)
    if (!(a[t] == b[t])) {
      r.truth = t;
      break;
    }
}

}  // namespace

TEST(desync_history, TheEarliestDivergentTickIsNamedEvenWhenTicksConfirmTogether) {
  std::uint64_t bursts = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Result r;
    play(r, seed, 1);
    ASSERT_NE(r.truth, ~std::uint64_t{0}) << "seed " << seed << ": the broken sim did not diverge";
    bursts += r.bursts;
    for (std::uint32_t i = 0; i < 2; ++i) {
      const RollbackSession& s = *r.sessions[i];
      ASSERT_TRUE(s.has_desync()) << "seed " << seed << " peer " << i;
      EXPECT_EQ(s.desync_tick(), r.truth) << "seed " << seed << " peer " << i;
      ASSERT_NE(s.desync_snapshot(), nullptr);
      EXPECT_EQ(s.desync_snapshot()->tick(), r.truth);
      EXPECT_EQ(hash_storage(s.desync_snapshot()->view()).total, s.desync_local_hash().total);
    }
  }
  // The condition under test happened: frames that confirmed several ticks at once.
  EXPECT_GT(bursts, 10u);
}

TEST(desync_history, KeepsTheFirstDesyncAndTheNextOnes) {
  Result r;
  play(r, 3, 4);
  ASSERT_NE(r.truth, ~std::uint64_t{0});
  const RollbackSession& s = *r.sessions[0];
  ASSERT_EQ(s.desync_count(), 4u);
  EXPECT_EQ(s.desync_record(0)->tick, r.truth);
  EXPECT_EQ(s.desync_record(4), nullptr);
  for (std::uint32_t i = 0; i < 4; ++i) {
    const DesyncRecord* d = s.desync_record(i);
    ASSERT_NE(d, nullptr);
    if (i > 0) {
      EXPECT_GT(d->tick, s.desync_record(i - 1)->tick);
    }
    EXPECT_EQ(d->peer, 1u);
    EXPECT_NE(d->local.total, d->remote.total);
    // This peer's own hash of that tick, as its confirmed log recorded it.
    EXPECT_EQ(d->local.total, r.logs[0]->replay().hashes[d->tick].total) << "record " << i;
    EXPECT_EQ(d->remote.total, r.logs[1]->replay().hashes[d->tick].total) << "record " << i;
    const Snapshot* snap = s.desync_snapshot(i);
    ASSERT_NE(snap, nullptr) << "record " << i;
    EXPECT_EQ(snap->tick(), d->tick);
    EXPECT_EQ(hash_storage(snap->view()).total, d->local.total);
    // Each kept desync makes a bundle of its own tick.
    const inspect::Bundle b = session_desync_bundle(*r.sessions[0], nullptr, "peer0", i);
    EXPECT_EQ(b.tick, d->tick);
    ASSERT_EQ(b.sides.size(), 2u);
    EXPECT_TRUE(b.sides[0].has_state);
  }
  EXPECT_TRUE(session_desync_bundle(*r.sessions[0], nullptr, "peer0", 4).sides.empty());
}

TEST(desync_history, KeptDesyncsIsBounded) {
  Runner runner(fixtures::duel_sim(), duel_config());
  SimNetwork net({});
  SessionConfig c = SessionConfig::one_player_per_peer(2, 2, 0);
  c.match_key = insecure_test_key(1);
  c.kept_desyncs = 0;
  EXPECT_EQ(RollbackSession(runner, c, &net.endpoint(0)).status().code(), ErrorCode::InvalidArgument);
  c.kept_desyncs = 65;
  EXPECT_EQ(RollbackSession(runner, c, &net.endpoint(0)).status().code(), ErrorCode::InvalidArgument);
  c.kept_desyncs = 64;
  EXPECT_TRUE(RollbackSession(runner, c, &net.endpoint(0)).status().ok());
}
