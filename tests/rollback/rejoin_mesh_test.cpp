// Rejoin in matches of more than two peers (docs/rollback.md, "Rejoin"; issue 38 item 2): the
// survivors agree on one return tick R — the sponsor (the lowest-numbered surviving player)
// chooses it and tells the others with REJOIN_NOTICE before any of them can confirm a tick >= R
// — and every survivor takes the rejoiner back at that R. A spectator inside the mesh does not
// stop it; two players drop and rejoin at different times; a peer owning two players rejoins.
// The rejoiner's history comes from the highest-numbered survivor (any survivor's recording
// will do), never necessarily from the sponsor. Over the deterministic in-process network.
#include "rollback/rollback_support.h"

#include <lockstep/replay/verify.h>
#include <lockstep/rollback/match_loop.h>
#include <lockstep/rollback/sim_network.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace rollback_test;

namespace {

constexpr std::uint64_t kEnd = 720;

class BotHost final : public MatchHost {
 public:
  BotHost(const Sim& sim, const SimConfig& config, std::uint32_t player, const World& world, std::uint64_t seed)
      : bot_(sim.make_bot(config, seed, player)), world_(world) {}
  void local_input(std::uint32_t player, std::uint64_t tick, std::span<std::byte> out) override {
    // A peer owning several players: each gets its own bot.
    while (extra_.size() <= player) extra_.push_back(nullptr);
    if (player == first_) {
      bot_->generate(tick, world_, out);
      return;
    }
    if (extra_[player] == nullptr) extra_[player] = sim_->make_bot(config_, 9, player);
    extra_[player]->generate(tick, world_, out);
  }
  void on_event(const SessionEvent& e) override { events.push_back(e); }
  std::vector<SessionEvent> events;
  const Sim* sim_ = nullptr;
  SimConfig config_{};
  std::uint32_t first_ = 0;

 private:
  std::unique_ptr<Bot> bot_;
  const World& world_;
  std::vector<std::unique_ptr<Bot>> extra_;
};

// Loses the first `count` REJOIN_NOTICE messages to peer `to` (a survivor that hears of the
// take-back late): until it has, it must not get the sponsor's inputs from the return tick on.
class LoseNotices final : public Transport {
 public:
  LoseNotices(Transport& inner, std::uint32_t to, std::uint32_t count) : inner_(inner), to_(to), left_(count) {}
  bool send(std::uint32_t peer, std::span<const std::byte> m) noexcept override {
    if (peer == to_ && left_ > 0 && !m.empty() && m[0] == std::byte{7}) {
      --left_;
      ++lost;
      return true;
    }
    return inner_.send(peer, m);
  }
  std::uint32_t receive(std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept override {
    return inner_.receive(from, out);
  }
  std::uint32_t lost = 0;

 private:
  Transport& inner_;
  std::uint32_t to_, left_;
};

struct Match {
  const Sim* sim = nullptr;
  SimConfig config{};
  std::uint32_t peers = 0;
  std::vector<std::uint8_t> owner;  // per player
  SimNetworkConfig net{};
  std::uint32_t lose_notices_to_2 = 0;  // REJOIN_NOTICEs peer 0 loses on the way to peer 2
};

struct Peer {
  std::unique_ptr<Runner> runner;
  std::unique_ptr<RollbackSession> session;
  std::unique_ptr<ReplayLogSink> log;
  std::unique_ptr<MatchLoop> loop;
  std::unique_ptr<BotHost> host;
  bool alive = true;
  std::uint32_t incarnation = 0;
  std::size_t events_at_death = 0;  // in the survivors' event lists
  std::vector<SessionEvent> past;   // the events of this peer's earlier processes
};

// A peer is killed (nothing more from its process) at `frame`, and restarts from a survivor's
// confirmed history once every survivor dropped its players.
struct Death {
  std::uint32_t peer;
  int frame;
};

SessionConfig session_config(const Match& m, std::uint32_t id, std::uint32_t incarnation, bool rejoin) {
  SessionConfig sc;
  sc.peers = m.peers;
  sc.local_peer = id;
  for (std::uint32_t p = 0; p < m.owner.size(); ++p) sc.owner[p] = m.owner[p];
  sc.input_delay = 2;
  sc.max_prediction = 8;
  sc.hash_interval = 8;
  sc.sync_roundtrips = 2;
  sc.incarnation = incarnation;
  sc.disconnect_notify_start_us = 200000;
  sc.disconnect_timeout_us = 500000;
  sc.sync_timeout_us = 20000000;
  sc.match_key = insecure_test_key(7);
  sc.rejoin = rejoin;
  return sc;
}

std::uint32_t first_player(const Match& m, std::uint32_t peer) {
  for (std::uint32_t p = 0; p < m.owner.size(); ++p)
    if (m.owner[p] == peer) return p;
  return 0;  // a spectator: never asked for input
}

void start(Peer& p, const Match& m, std::unique_ptr<Runner> runner, SimNetwork& net, std::uint32_t id, bool rejoin,
           Transport* via = nullptr) {
  p.runner = std::move(runner);
  p.session = std::make_unique<RollbackSession>(*p.runner, session_config(m, id, p.incarnation, rejoin),
                                                via != nullptr ? via : &net.endpoint(id));
  ASSERT_TRUE(p.session->status().ok()) << p.session->status().message();
  p.log = std::make_unique<ReplayLogSink>(*p.runner);
  p.session->set_confirmed_sink(p.log.get());
  MatchLoopConfig mc;
  mc.end_tick = kEnd;
  mc.linger_us = 300000;
  mc.catchup_speed = 8;
  p.loop = std::make_unique<MatchLoop>(*p.session, mc);
  const std::uint32_t first = first_player(m, id);
  p.host = std::make_unique<BotHost>(*m.sim, m.config, first, p.runner->world(), 9);
  p.host->sim_ = m.sim;
  p.host->config_ = m.config;
  p.host->first_ = first;
}

// Every DisconnectAgreed of `peer`'s players seen by `host` since event `from`.
bool all_dropped(const Match& m, const BotHost& host, std::size_t from, std::uint32_t peer) {
  for (std::uint32_t p = 0; p < m.owner.size(); ++p) {
    if (m.owner[p] != peer) continue;
    bool seen = false;
    for (std::size_t i = from; i < host.events.size() && !seen; ++i)
      seen = host.events[i].kind == SessionEventKind::DisconnectAgreed && host.events[i].player == p;
    if (!seen) return false;
  }
  return true;
}

// Plays the match to kEnd with the deaths given; each dead peer restarts (a new incarnation)
// from the confirmed history of the highest-numbered surviving peer.
// Returns the notices LoseNotices dropped.
std::uint32_t play(const Match& m, std::vector<Peer>& peers, const std::vector<Death>& deaths) {
  SimNetworkConfig nc = m.net;
  nc.peers = m.peers;
  SimNetwork net(nc);
  LoseNotices lose(net.endpoint(0), 2, m.lose_notices_to_2);
  peers.resize(m.peers);
  for (std::uint32_t q = 0; q < m.peers; ++q) {
    peers[q].incarnation = 100 + q;
    start(peers[q], m, std::make_unique<Runner>(*m.sim, m.config), net, q, false, q == 0 ? &lose : nullptr);
  }
  std::vector<bool> restarted(deaths.size(), false);
  std::uint64_t now = 0;
  auto done = [&] {
    for (const Peer& p : peers)
      if (!p.alive || !p.loop->finished()) return false;
    return true;
  };
  for (int f = 0; f < 9000 && !done(); ++f, now += 16667) {
    net.advance_to(now);
    for (std::size_t d = 0; d < deaths.size(); ++d) {
      Peer& dead = peers[deaths[d].peer];
      if (f == deaths[d].frame) {
        dead.alive = false;  // kill -9
        for (Peer& p : peers) p.events_at_death = p.host->events.size();
      }
      if (f <= deaths[d].frame || restarted[d]) continue;
      bool dropped = true;
      std::uint32_t source = 0;
      for (std::uint32_t q = 0; q < m.peers; ++q) {
        if (q == deaths[d].peer) continue;
        dropped = dropped && all_dropped(m, *peers[q].host, peers[q].events_at_death, deaths[d].peer);
        source = q;
      }
      if (!dropped) continue;
      // The restart: replay a survivor's confirmed history, checking every recorded hash.
      Replay history = peers[source].log->replay();
      auto runner = std::make_unique<Runner>(*m.sim, m.config);
      VerifyResult v = verify(*runner, history);
      EXPECT_TRUE(v.ok && v.error.empty()) << v.error << " " << v.differs;
      dead.incarnation += 1000;
      dead.alive = true;
      dead.past.insert(dead.past.end(), dead.host->events.begin(), dead.host->events.end());
      start(dead, m, std::move(runner), net, deaths[d].peer, true);
      dead.log->replay() = history;
      restarted[d] = true;
    }
    for (std::uint32_t q = 0; q < m.peers; ++q) {
      Peer& p = peers[q];
      if (!p.alive || !p.session->status().ok()) continue;
      EXPECT_TRUE(p.loop->frame(now, *p.host).ok()) << "peer " << q << ": " << p.session->status().message();
    }
  }
  for (std::size_t d = 0; d < deaths.size(); ++d) EXPECT_TRUE(restarted[d]) << "death " << d << " never restarted";
  if (::testing::Test::HasFailure() && std::getenv("REJOIN_MESH_DUMP") != nullptr)
    for (std::uint32_t q = 0; q < m.peers; ++q) {
      std::string line = "peer " + std::to_string(q) + ":";
      for (const SessionEvent& e : peers[q].host->events)
        if (e.kind != SessionEventKind::Synchronizing && e.kind != SessionEventKind::WaitRecommendation)
          line += " [" + std::to_string(static_cast<int>(e.kind)) + " p" + std::to_string(e.peer) + " pl" +
                  std::to_string(e.player) + " t" + std::to_string(e.tick) + "]";
      ADD_FAILURE() << line;
    }
  return lose.lost;
}

// Every peer confirmed the whole match; the recordings are byte-identical and verify; every
// Rejoined event of a rejoin names the same tick on every peer, and the rejoiner's players
// use the default input between their drop and that tick, and play again after it.
void check(const Match& m, const std::vector<Peer>& peers, const std::vector<Death>& deaths) {
  for (std::uint32_t q = 0; q < m.peers; ++q) {
    ASSERT_TRUE(peers[q].loop->finished()) << "peer " << q;
    EXPECT_EQ(peers[q].session->confirmed_tick(), kEnd) << "peer " << q;
  }
  const Replay& a = peers[0].log->replay();
  for (std::uint32_t q = 1; q < m.peers; ++q) {
    const Replay& b = peers[q].log->replay();
    ASSERT_EQ(a.frame_count(), b.frame_count()) << "peer " << q;
    std::uint64_t first_input = ~std::uint64_t{0};
    for (std::uint64_t t = 0; t < a.frame_count() && first_input == ~std::uint64_t{0}; ++t)
      if (!std::equal(a.frame(t).begin(), a.frame(t).end(), b.frame(t).begin())) first_input = t;
    EXPECT_EQ(first_input, ~std::uint64_t{0}) << "peer 0 and peer " << q << " differ from frame " << first_input;
    EXPECT_TRUE(a.hashes == b.hashes) << "peer " << q;
    EXPECT_EQ(peers[0].runner->hash().total, peers[q].runner->hash().total) << "peer " << q;
  }
  Runner fresh(*m.sim, m.config);
  const VerifyResult v = verify(fresh, a);
  EXPECT_TRUE(v.ok && v.error.empty()) << v.error << " tick " << v.tick << " " << v.differs;
  // The return ticks: the last Rejoined event of each player of each rejoiner, on every peer.
  const std::uint32_t size = m.sim->input_type().size;
  for (const Death& d : deaths) {
    for (std::uint32_t p = 0; p < m.owner.size(); ++p) {
      if (m.owner[p] != d.peer) continue;
      std::vector<std::uint64_t> back(m.peers, ~std::uint64_t{0}), drop(m.peers, ~std::uint64_t{0});
      for (std::uint32_t q = 0; q < m.peers; ++q)
        for (const std::vector<SessionEvent>* list : std::array<const std::vector<SessionEvent>*, 2>{&peers[q].past, &peers[q].host->events})
          for (const SessionEvent& e : *list) {
          if (e.player != p) continue;
          if (e.kind == SessionEventKind::Rejoined) back[q] = e.tick;
          if (e.kind == SessionEventKind::DisconnectAgreed) drop[q] = e.tick;
        }
      for (std::uint32_t q = 0; q < m.peers; ++q) {
        EXPECT_EQ(back[q], back[0]) << "player " << p << ": peer " << q << " and peer 0 name other return ticks";
        if (q != d.peer) {
          EXPECT_EQ(drop[q], drop[(d.peer + 1) % m.peers]) << "player " << p << " drop, peer " << q;
        }
      }
      const std::uint64_t from = drop[(d.peer + 1) % m.peers], to = back[0];
      ASSERT_LT(from, to);
      ASSERT_LT(to, kEnd);
      bool zero_between = true, plays_after = false;
      for (std::uint64_t t = from; t < to; ++t)
        for (std::uint32_t i = 0; i < size; ++i) zero_between = zero_between && a.frame(t)[p * size + i] == std::byte{0};
      for (std::uint64_t t = to; t < kEnd; ++t)
        for (std::uint32_t i = 0; i < size; ++i) plays_after = plays_after || a.frame(t)[p * size + i] != std::byte{0};
      EXPECT_TRUE(zero_between) << "player " << p << " between " << from << " and " << to;
      EXPECT_TRUE(plays_after) << "player " << p << " after " << to;
    }
  }
}

SimNetworkConfig lossy(std::uint64_t seed) {
  SimNetworkConfig nc;
  nc.conditions.latency_us = 30000;
  nc.conditions.jitter_us = 15000;
  nc.conditions.loss_ppm = 50000;
  nc.seed = seed;
  return nc;
}

// Issue 38: with a spectator inside the mesh (three addresses), a two-player rejoin was refused
// (reason 3, "exactly one surviving peer").
TEST(RejoinMesh, ASpectatorInTheMeshDoesNotStopARejoin) {
  Match m;
  m.sim = &fixtures::duel_sim();
  m.config = duel_config(2);
  m.peers = 3;
  m.owner = {0, 1};
  m.net = lossy(3);
  std::vector<Peer> peers;
  const std::vector<Death> deaths = {{1, 200}};
  play(m, peers, deaths);
  check(m, peers, deaths);
}

// The match: four players, peer 2 killed at ~1/3 and rejoined, then peer 3 killed at
// ~2/3 and rejoined; every peer ends with the same recording.
TEST(RejoinMesh, FourPeersTwoDropsAtDifferentTimesOverLoss) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Match m;
    m.sim = &fixtures::skirmish_sim();
    m.config = skirmish_config(4, 200, 3);
    m.peers = 4;
    m.owner = {0, 1, 2, 3};
    m.net = lossy(seed);
    std::vector<Peer> peers;
    const std::vector<Death> deaths = {{2, 240}, {3, 480}};
    play(m, peers, deaths);
    check(m, peers, deaths);
    if (HasFailure()) {
      ADD_FAILURE() << "seed " << seed;
      return;
    }
  }
}

// The spectator hears of the take-back half a second late (the sponsor's first 30 notices to
// it are lost). Meanwhile it holds the rejoiner's player absent; had it got the sponsor's
// inputs from the return tick on, it would have confirmed those ticks with the default input
// and recorded another match (take_back then fails: "a rejoin's return tick is already
// confirmed here"). The sponsor holds them back until the spectator's header shows the
// take-back applied.
TEST(RejoinMesh, ASurvivorThatHearsOfTheRejoinLateConfirmsNoTickPastItWithTheDefault) {
  Match m;
  m.sim = &fixtures::duel_sim();
  m.config = duel_config(2);
  m.peers = 3;
  m.owner = {0, 1};
  m.net = lossy(6);
  m.lose_notices_to_2 = 30;
  std::vector<Peer> peers;
  const std::vector<Death> deaths = {{1, 200}};
  EXPECT_EQ(play(m, peers, deaths), 30u);
  check(m, peers, deaths);
}

// The sponsor itself (peer 0, the lowest-numbered player) dies and rejoins: peer 1 sponsors.
TEST(RejoinMesh, TheLowestPeerRejoinsThroughTheNextOne) {
  Match m;
  m.sim = &fixtures::skirmish_sim();
  m.config = skirmish_config(3, 200, 5);
  m.peers = 3;
  m.owner = {0, 1, 2};
  m.net = lossy(11);
  std::vector<Peer> peers;
  const std::vector<Death> deaths = {{0, 250}};
  play(m, peers, deaths);
  check(m, peers, deaths);
}

// A peer that owns two players (players 1 and 2) dies and takes both back at one return tick.
TEST(RejoinMesh, APeerOwningTwoPlayersRejoins) {
  Match m;
  m.sim = &fixtures::skirmish_sim();
  m.config = skirmish_config(4, 200, 7);
  m.peers = 3;
  m.owner = {0, 1, 1, 2};
  m.net = lossy(5);
  std::vector<Peer> peers;
  const std::vector<Death> deaths = {{1, 220}};
  play(m, peers, deaths);
  check(m, peers, deaths);
}

}  // namespace
