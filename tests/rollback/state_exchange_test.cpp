// StateExchange (rollback/state_exchange.h): a peer fetches another peer's state of a confirmed
// tick through a Transport, over the seeded lossy SimNetwork — after a netsim match (both
// sessions' kept checkpoints), for a multi-chunk skirmish state, and for states that differ.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/state.h>
#include <lockstep/replay/runner.h>
#include <lockstep/rollback/netsim.h>
#include <lockstep/rollback/sim_network.h>
#include <lockstep/rollback/state_exchange.h>
#include <lockstep/store/snapshot.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

using namespace lockstep;
using namespace lockstep::rollback;

namespace {

SimNetworkConfig lossy() {
  SimNetworkConfig c;
  c.peers = 2;
  c.seed = 7;
  c.conditions.latency_us = 40000;
  c.conditions.jitter_us = 20000;
  c.conditions.loss_ppm = 300000;  // 30 %
  c.conditions.duplicate_ppm = 50000;
  c.conditions.reorder_ppm = 50000;
  return c;
}

// Runs both exchanges until peer 0's request is answered; returns the number of polls.
int exchange(SimNetwork& net, StateExchange& asker, StateExchange& server) {
  int polls = 0;
  for (; polls < 20000 && asker.result() == StateExchange::Result::Pending; ++polls) {
    net.advance_to(static_cast<std::uint64_t>(polls) * 1000);
    server.poll();
    asker.poll();
  }
  return polls;
}

std::unique_ptr<replay::Runner> runner(const replay::Sim& sim, std::uint32_t units, std::uint64_t ticks,
                                       std::uint16_t buttons) {
  replay::SimConfig config;
  config.players = 2;
  config.units = units;
  auto r = std::make_unique<replay::Runner>(sim, config);
  std::vector<std::byte> frame(r->frame_bytes(), std::byte{0});
  if (buttons != 0) frame[0] = static_cast<std::byte>(buttons);  // player 0's first input byte
  for (std::uint64_t t = 0; t < ticks; ++t) EXPECT_TRUE(r->step(frame).ok());
  return r;
}

}  // namespace

TEST(StateExchange, PeersOfANetsimMatchExchangeAConfirmedTick) {
  NetsimOptions o;
  o.sim = &fixtures::duel_sim();
  o.config.players = 2;
  o.peers = 2;
  o.ticks = 300;
  o.network.latency_us = 50000;
  o.network.jitter_us = 10000;
  o.network.loss_ppm = 100000;
  Netsim match(o);
  ASSERT_TRUE(match.status().ok());
  ASSERT_TRUE(match.run().ok());
  const std::uint64_t tick = 288;  // a hash-interval (16) multiple both sessions still keep
  const Snapshot* mine = match.session(0).checkpoint(tick);
  ASSERT_NE(mine, nullptr);
  ASSERT_NE(match.session(1).checkpoint(tick), nullptr);

  SimNetwork side(lossy());  // a channel of its own beside the sessions'
  StateExchange asker(side.endpoint(0)), server(side.endpoint(1));
  server.serve([&](std::uint64_t t) { return match.session(1).checkpoint(t); });
  asker.request(1, tick);
  const int polls = exchange(side, asker, server);
  ASSERT_EQ(asker.result(), StateExchange::Result::Received) << asker.error() << " after " << polls << " polls";
  EXPECT_EQ(asker.state().tick, tick);
  // Same confirmed tick, same state: byte-identical canonical encodings, an empty diff.
  const inspect::State local = inspect::capture(mine->view());
  EXPECT_EQ(inspect::encode_state(asker.state()), inspect::encode_state(local));
  EXPECT_TRUE(inspect::diff(local, asker.state()).equal());
  EXPECT_GE(server.requests_served(), 1u);

  // A tick the server no longer keeps: a clear "unavailable", not a hang.
  asker.request(1, 5);
  exchange(side, asker, server);
  EXPECT_EQ(asker.result(), StateExchange::Result::Unavailable);
}

TEST(StateExchange, DifferingStatesGiveTheSameDiffAsLocally) {
  auto a = runner(fixtures::duel_sim(), 0, 30, 0);
  auto b = runner(fixtures::duel_sim(), 0, 30, 0x08);  // player 0 holds "right" for 30 ticks
  Snapshot sb(b->world());
  b->world().save(sb);
  SimNetwork side(lossy());
  StateExchange asker(side.endpoint(0)), server(side.endpoint(1));
  server.serve([&](std::uint64_t t) { return t == 30 ? &sb : nullptr; });
  asker.request(1, 30);
  exchange(side, asker, server);
  ASSERT_EQ(asker.result(), StateExchange::Result::Received) << asker.error();
  const inspect::State local = inspect::capture(a->world().storage());
  const inspect::StateDiff remote = inspect::diff(local, asker.state());
  const inspect::StateDiff direct = inspect::diff(local, inspect::capture(b->world().storage()));
  ASSERT_FALSE(remote.equal());
  EXPECT_EQ(remote.total, direct.total);
  EXPECT_EQ(inspect::format_text(remote), inspect::format_text(direct));
}

TEST(StateExchange, LargeStatesArriveInChunksDespiteLoss) {
  auto s = runner(fixtures::skirmish_sim(), 2500, 5, 0);  // ~60 bytes a unit since the scratch moved out of the state
  Snapshot snap(s->world());
  s->world().save(snap);
  std::vector<std::byte> file;
  ASSERT_TRUE(encode_snapshot(snap.view(), file).ok());
  ASSERT_GT(file.size(), 100u * kStateExchangeChunkBytes);  // hundreds of chunks
  SimNetwork side(lossy());
  StateExchange asker(side.endpoint(0)), server(side.endpoint(1));
  server.serve([&](std::uint64_t t) { return t == 5 ? &snap : nullptr; });
  asker.request(1, 5);
  exchange(side, asker, server);
  ASSERT_EQ(asker.result(), StateExchange::Result::Received) << asker.error();
  EXPECT_EQ(inspect::encode_state(asker.state()), inspect::encode_state(inspect::capture(snap.view())));
  EXPECT_GE(server.requests_served(), 2u);  // 30 % loss: at least one resend was needed
}
