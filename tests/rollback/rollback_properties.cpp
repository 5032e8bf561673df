// RapidCheck: random network conditions, session parameters and input streams (bot seeds)
// → every peer's confirmed trace equals the trace of an offline replay of the confirmed
// inputs, and no peer ever reports a desync.
#include "rollback/rollback_support.h"

#include <lockstep/rollback/synctest.h>
#include <lockstep/replay/trace.h>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

using namespace rollback_test;

namespace {

// Trace text (total + every part) of a recorded history.
std::string recorded_trace(const Replay& r) {
  std::string text;
  for (std::uint64_t t = 0; t < r.hashes.size(); ++t) append_trace_line(text, r, t, true);
  return text;
}

// Trace text of a fresh world replaying the history's inputs.
std::string offline_trace(const Sim& sim, const Replay& r) {
  Runner runner(sim, r.header.config);
  RC_ASSERT(runner.status().ok());
  Replay again;
  again.header = r.header;
  again.add_hash(runner.hash());
  std::vector<std::byte> frame(r.header.frame_bytes());
  for (std::uint64_t t = 0; t < r.frame_count(); ++t) {
    Runner::copy_to_host(sim.input_type(), r.frame(t), frame);
    RC_ASSERT(runner.step(frame).ok());
    again.add_hash(runner.hash());
  }
  return recorded_trace(again);
}

NetworkConditions gen_conditions() {
  NetworkConditions n;
  n.latency_us = *rc::gen::inRange<std::uint32_t>(0, 200001);
  n.jitter_us = *rc::gen::inRange<std::uint32_t>(0, 80001);
  n.loss_ppm = *rc::gen::inRange<std::uint32_t>(0, 300001);
  n.duplicate_ppm = *rc::gen::inRange<std::uint32_t>(0, 100001);
  n.reorder_ppm = *rc::gen::inRange<std::uint32_t>(0, 100001);
  return n;
}

void check_match(NetsimOptions o) {
  o.network = gen_conditions();
  o.peers = *rc::gen::inRange<std::uint32_t>(o.config.players, 5);
  o.input_delay = *rc::gen::inRange<std::uint32_t>(0, 5);
  o.max_prediction = *rc::gen::inRange<std::uint32_t>(0, 11);
  o.hash_interval = *rc::gen::element<std::uint32_t>(0u, 1u, 4u, 16u);
  o.network_seed = *rc::gen::arbitrary<std::uint64_t>();
  o.bot_seed = *rc::gen::arbitrary<std::uint64_t>();
  Netsim net(o);
  RC_ASSERT(net.status().ok());
  const NetsimReport& r = net.run();
  RC_ASSERT(r.finished);
  RC_ASSERT(r.desync_count == 0u);
  RC_ASSERT(r.peers_agree);
  RC_ASSERT(r.offline_agrees);
  const std::string offline = offline_trace(*o.sim, net.confirmed(0));
  for (std::uint32_t i = 0; i < o.peers; ++i) {
    RC_ASSERT(net.confirmed(i).frame_count() == o.ticks);
    RC_ASSERT(recorded_trace(net.confirmed(i)) == offline);
  }
}

}  // namespace

RC_GTEST_PROP(rollback_properties, DuelConfirmedTracesEqualOfflineReplay, ()) {
  NetsimOptions o;
  o.sim = &fixtures::duel_sim();
  o.config = duel_config(*rc::gen::inRange<std::uint64_t>(0, 1000));
  o.ticks = *rc::gen::inRange<std::uint64_t>(1, 240 / kScale);
  check_match(o);
}

RC_GTEST_PROP(rollback_properties, SkirmishConfirmedTracesEqualOfflineReplay, ()) {
  NetsimOptions o;
  o.sim = &fixtures::skirmish_sim();
  const std::uint32_t players = *rc::gen::inRange<std::uint32_t>(2, 5);
  o.config = skirmish_config(players, *rc::gen::inRange<std::uint32_t>(players, 120), *rc::gen::arbitrary<std::uint64_t>());
  o.ticks = *rc::gen::inRange<std::uint64_t>(1, 120 / kScale);
  check_match(o);
}

RC_GTEST_PROP(rollback_properties, SyncTestPassesAnyDistanceAndInputs, ()) {
  const std::uint32_t d = *rc::gen::inRange<std::uint32_t>(1, 9);
  const std::uint64_t seed = *rc::gen::arbitrary<std::uint64_t>();
  const SyncTestResult r = synctest_bots(fixtures::duel_sim(), duel_config(seed), seed, 120 / kScale, d);
  RC_ASSERT(r.status.ok());
  RC_ASSERT(r.ok);
}
