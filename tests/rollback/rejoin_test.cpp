// Rejoin (docs/rollback.md, "Rejoin"): a peer that crashed mid-match restarts from the
// survivor's confirmed history, asks to play again, and both peers agree on the tick its player
// returns; both recordings then hold the same frames (the default input between the agreed drop
// and return ticks) and verify. Over the deterministic in-process network, with loss.
#include "rollback/rollback_support.h"

#include <lockstep/replay/verify.h>
#include <lockstep/rollback/match_loop.h>
#include <lockstep/rollback/sim_network.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

using namespace rollback_test;

namespace {

class BotHost final : public MatchHost {
 public:
  BotHost(const Sim& sim, const SimConfig& config, std::uint32_t player, const World& world, std::uint64_t seed)
      : bot_(sim.make_bot(config, seed, player)), world_(world) {}
  void local_input(std::uint32_t, std::uint64_t tick, std::span<std::byte> out) override { bot_->generate(tick, world_, out); }
  void on_event(const SessionEvent& e) override { events.push_back(e); }
  const SessionEvent* find(SessionEventKind kind) const {
    for (const SessionEvent& e : events)
      if (e.kind == kind) return &e;
    return nullptr;
  }
  std::vector<SessionEvent> events;

 private:
  std::unique_ptr<Bot> bot_;
  const World& world_;
};

struct Peer {
  std::unique_ptr<Runner> runner;
  std::unique_ptr<RollbackSession> session;
  std::unique_ptr<ReplayLogSink> log;
  std::unique_ptr<MatchLoop> loop;
  std::unique_ptr<BotHost> host;
};

constexpr std::uint64_t kEnd = 720;

SessionConfig session_config(std::uint32_t id, std::uint32_t incarnation, bool rejoin) {
  SessionConfig sc = SessionConfig::one_player_per_peer(2, 2, id);
  sc.input_delay = 2;
  sc.max_prediction = 8;
  sc.hash_interval = 8;
  sc.sync_roundtrips = 2;
  sc.incarnation = incarnation;
  sc.disconnect_notify_start_us = 200000;
  sc.disconnect_timeout_us = 500000;
  sc.sync_timeout_us = 20000000;
  sc.match_key = insecure_test_key(5);
  sc.rejoin = rejoin;
  return sc;
}

// A fresh peer; `runner` is at tick 0, or at the end of the history for a rejoiner.
void start(Peer& p, std::unique_ptr<Runner> runner, SimNetwork& net, std::uint32_t id, std::uint32_t incarnation,
           bool rejoin) {
  p.runner = std::move(runner);
  p.session = std::make_unique<RollbackSession>(*p.runner, session_config(id, incarnation, rejoin), &net.endpoint(id));
  ASSERT_TRUE(p.session->status().ok()) << p.session->status().message();
  p.log = std::make_unique<ReplayLogSink>(*p.runner);
  p.session->set_confirmed_sink(p.log.get());
  MatchLoopConfig mc;
  mc.end_tick = kEnd;
  mc.linger_us = 200000;
  mc.catchup_speed = 8;
  p.loop = std::make_unique<MatchLoop>(*p.session, mc);
  p.host = std::make_unique<BotHost>(fixtures::duel_sim(), duel_config(2), id, p.runner->world(), 9);
}

struct Outcome {
  std::uint64_t drop = 0, back = 0, history = 0;
};

// Peer 1 dies at frame 200 and restarts from peer 0's confirmed history once peer 0 dropped
// its player; both play to the end. Returns the agreed ticks.
// `before_drop` > 0: the rejoiner's history ends that many ticks before the drop tick (its
// recording was fetched early), so the survivor completes it with the player's last inputs.
Outcome play(SimNetwork& net, Peer& survivor, Peer& rejoiner, std::uint64_t before_drop = 0) {
  Outcome o;
  start(survivor, std::make_unique<Runner>(fixtures::duel_sim(), duel_config(2)), net, 0, 11, false);
  start(rejoiner, std::make_unique<Runner>(fixtures::duel_sim(), duel_config(2)), net, 1, 22, false);
  std::uint64_t now = 0;
  bool alive = true, restarted = false;
  for (int f = 0; f < 6000 && !(survivor.loop->finished() && restarted && rejoiner.loop->finished()); ++f, now += 16667) {
    net.advance_to(now);
    EXPECT_TRUE(survivor.loop->frame(now, *survivor.host).ok()) << survivor.session->status().message();
    if (f == 200) alive = false;  // kill -9: nothing more from this process
    if (!alive && !restarted && survivor.host->find(SessionEventKind::DisconnectAgreed) != nullptr) {
      // The restart: replay the survivor's confirmed history (as a rejoining game does from a
      // recording fetched from the survivor), checking every recorded hash on the way.
      Replay history = survivor.log->replay();
      if (before_drop != 0) {
        const std::uint64_t keep = survivor.host->find(SessionEventKind::DisconnectAgreed)->tick - before_drop;
        history.inputs.resize(keep * history.header.frame_bytes());
        history.hashes.resize(keep + 1);
        history.component_hashes.resize((keep + 1) * history.header.components.size());
      }
      auto runner = std::make_unique<Runner>(fixtures::duel_sim(), duel_config(2));
      VerifyResult v = verify(*runner, history);
      EXPECT_TRUE(v.ok && v.error.empty()) << v.error << " " << v.differs;
      o.history = runner->world().tick();
      start(rejoiner, std::move(runner), net, 1, 33, true);
      rejoiner.log->replay() = history;  // its recording begins with the same history
      restarted = true;
    }
    if (alive || restarted) {
      EXPECT_TRUE(rejoiner.loop->frame(now, *rejoiner.host).ok()) << rejoiner.session->status().message();
    }
  }
  const SessionEvent* dropped = survivor.host->find(SessionEventKind::DisconnectAgreed);
  const SessionEvent* back = survivor.host->find(SessionEventKind::Rejoined);
  const SessionEvent* mine = rejoiner.host->find(SessionEventKind::Rejoined);
  EXPECT_NE(dropped, nullptr);
  EXPECT_NE(back, nullptr);
  EXPECT_NE(mine, nullptr);
  if (dropped == nullptr || back == nullptr || mine == nullptr) return o;
  EXPECT_EQ(back->tick, mine->tick) << "both peers agree on the return tick";
  EXPECT_EQ(back->player, 1u);
  EXPECT_EQ(mine->player, 1u);
  o.drop = dropped->tick;
  o.back = back->tick;
  return o;
}

void check(const Peer& survivor, const Peer& rejoiner, const Outcome& o, bool history_before_drop = false) {
  ASSERT_TRUE(survivor.loop->finished());
  ASSERT_TRUE(rejoiner.loop->finished());
  if (history_before_drop) {
    EXPECT_LT(o.history, o.drop);
  } else {
    EXPECT_LT(o.drop, o.history);
  }
  EXPECT_LT(o.history, o.back);
  EXPECT_EQ(survivor.session->confirmed_tick(), kEnd);
  EXPECT_EQ(rejoiner.session->confirmed_tick(), kEnd);
  const Replay& a = survivor.log->replay();
  const Replay& b = rejoiner.log->replay();
  EXPECT_EQ(a.frame_count(), b.frame_count());
  std::uint64_t first_input = ~std::uint64_t{0}, first_hash = ~std::uint64_t{0};
  for (std::uint64_t t = 0; t < std::min(a.frame_count(), b.frame_count()) && first_input == ~std::uint64_t{0}; ++t)
    if (!std::equal(a.frame(t).begin(), a.frame(t).end(), b.frame(t).begin())) first_input = t;
  for (std::size_t t = 0; t < std::min(a.hashes.size(), b.hashes.size()) && first_hash == ~std::uint64_t{0}; ++t)
    if (!(a.hashes[t] == b.hashes[t])) first_hash = t;
  EXPECT_EQ(first_input, ~std::uint64_t{0}) << "first differing frame (drop " << o.drop << ", history " << o.history
                                            << ", return " << o.back << ")";
  EXPECT_EQ(first_hash, ~std::uint64_t{0}) << "first differing hash";
  if (first_input != ~std::uint64_t{0}) {
    std::string fa, fb;
    for (std::byte x : a.frame(first_input)) fa += std::to_string(std::to_integer<int>(x)) + " ";
    for (std::byte x : b.frame(first_input)) fb += std::to_string(std::to_integer<int>(x)) + " ";
    ADD_FAILURE() << "survivor: " << fa << "| rejoiner: " << fb;
  }
  EXPECT_EQ(survivor.runner->hash().total, rejoiner.runner->hash().total);
  // Player 1's input: the default on [drop, back), the bot's again from `back` on.
  const std::uint32_t size = fixtures::duel_sim().input_type().size;
  bool zero_between = true, plays_after = false;
  for (std::uint64_t t = o.drop; t < o.back; ++t)
    for (std::uint32_t i = 0; i < size; ++i) zero_between = zero_between && a.frame(t)[size + i] == std::byte{0};
  for (std::uint64_t t = o.back; t < kEnd; ++t)
    for (std::uint32_t i = 0; i < size; ++i) plays_after = plays_after || a.frame(t)[size + i] != std::byte{0};
  EXPECT_TRUE(zero_between);
  EXPECT_TRUE(plays_after);
  Runner fresh(fixtures::duel_sim(), duel_config(2));
  const VerifyResult v = verify(fresh, a);
  EXPECT_TRUE(v.ok && v.error.empty()) << v.error << " tick " << v.tick << " " << v.differs;
}

TEST(Rejoin, ACrashedPeerTakesItsPlayerBackAndBothRecordingsAgree) {
  SimNetworkConfig nc;
  nc.conditions.latency_us = 20000;
  nc.conditions.jitter_us = 10000;
  nc.seed = 4;
  SimNetwork net(nc);
  Peer survivor, rejoiner;
  const Outcome o = play(net, survivor, rejoiner);
  check(survivor, rejoiner, o);
}

TEST(Rejoin, WorksOverALossyLink) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SimNetworkConfig nc;
    nc.conditions.latency_us = 80000;
    nc.conditions.jitter_us = 40000;
    nc.conditions.loss_ppm = 150000;
    nc.seed = seed;
    SimNetwork net(nc);
    Peer survivor, rejoiner;
    const Outcome o = play(net, survivor, rejoiner);
    check(survivor, rejoiner, o);
  }
}

TEST(Rejoin, AHistoryEndingBeforeTheDropIsCompletedByTheSurvivor) {
  SimNetworkConfig nc;
  nc.conditions.latency_us = 40000;
  nc.conditions.jitter_us = 20000;
  nc.conditions.loss_ppm = 100000;
  nc.seed = 8;
  SimNetwork net(nc);
  Peer survivor, rejoiner;
  const Outcome o = play(net, survivor, rejoiner, /*before_drop=*/30);
  check(survivor, rejoiner, o, /*history_before_drop=*/true);
}

TEST(Rejoin, ARestartWithoutRejoinIsStillRefusedClearly) {
  SimNetworkConfig nc;
  nc.seed = 2;
  SimNetwork net(nc);
  Peer a, b;
  start(a, std::make_unique<Runner>(fixtures::duel_sim(), duel_config(2)), net, 0, 11, false);
  start(b, std::make_unique<Runner>(fixtures::duel_sim(), duel_config(2)), net, 1, 22, false);
  std::uint64_t now = 0;
  Status st;
  for (int f = 0; f < 3000 && st.ok(); ++f, now += 16667) {
    net.advance_to(now);
    ASSERT_TRUE(a.loop->frame(now, *a.host).ok());
    if (f == 100) start(b, std::make_unique<Runner>(fixtures::duel_sim(), duel_config(2)), net, 1, 44, false);
    st = b.loop->frame(now, *b.host);
  }
  EXPECT_EQ(std::string(st.message()),
            "RollbackSession: a peer rejected the handshake: it already runs this match with an earlier run of this peer "
            "(restart with SessionConfig::rejoin to take the player back)");
}

TEST(Rejoin, ARejoiningSessionNeedsTwoPeersAndAHandshake) {
  Runner runner(fixtures::duel_sim(), duel_config(2));
  SimNetworkConfig nc;
  nc.peers = 3;
  SimNetwork net(nc);
  SessionConfig sc = session_config(1, 5, true);
  sc.peers = 3;
  RollbackSession three(runner, sc, &net.endpoint(1));
  EXPECT_EQ(std::string(three.status().message()),
            "RollbackSession: a rejoining session needs a two-peer match (one survivor) and sync_roundtrips >= 1");
}

}  // namespace
