// rollback/netsim_report.h: `lockstep netsim`'s request checked and turned into options, and
// its text / JSON / stderr reports as strings, without the tool.
#include "rollback/rollback_support.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/replay/open_replay.h>
#include <lockstep/rollback/netsim_report.h>

#include <gtest/gtest.h>

using namespace rollback_test;

namespace {

inspect::NetsimRequest duel_request() {
  fixtures::register_builtin_sims();
  inspect::NetsimRequest q;
  q.sim = "duel";
  q.peers = 2;
  q.ticks = 120;
  q.latency_ms = 40;
  q.jitter_ms = 10;
  q.loss = 0.05;
  q.seed = 5;
  return q;
}

TEST(NetsimReport, TheRequestBecomesTheOptions) {
  inspect::NetsimRequest q = duel_request();
  q.peers = 3;
  q.params = {4, 5};
  NetsimOptions o;
  ASSERT_EQ(netsim_options_from(q, o), "");
  EXPECT_EQ(o.sim, &fixtures::duel_sim());
  EXPECT_EQ(o.peers, 3u);
  EXPECT_EQ(o.config.players, 2u);  // duel takes two; the third peer spectates
  EXPECT_EQ(o.config.params[1], 5u);
  EXPECT_EQ(o.bot_seed, 5u);
  EXPECT_EQ(o.network_seed, 5u);
  EXPECT_EQ(o.network.latency_us, 40000u);
  EXPECT_EQ(o.network.jitter_us, 10000u);
  EXPECT_EQ(o.network.loss_ppm, 50000u);
  q.bot = 9;
  q.bot_given = true;
  ASSERT_EQ(netsim_options_from(q, o), "");
  EXPECT_EQ(o.bot_seed, 9u);
}

TEST(NetsimReport, ABadRequestIsRefusedWithTheFlagNamed) {
  NetsimOptions o;
  inspect::NetsimRequest q = duel_request();
  q.sim = "nope";
  EXPECT_EQ(netsim_options_from(q, o), "unknown sim 'nope' (known: " + replay::describe_registered_sims() + ")");
  q = duel_request();
  q.peers = 17;
  EXPECT_EQ(netsim_options_from(q, o), "--peers must be 1..16");
  q = duel_request();
  q.params = {1, 2, 3, 4, 5};
  EXPECT_EQ(netsim_options_from(q, o), "--param takes at most 4 values");
  q = duel_request();
  q.loss = 2;
  EXPECT_EQ(netsim_options_from(q, o), "--loss, --duplicate and --reorder are probabilities in 0..1");
  q = duel_request();
  q.players = 3;
  EXPECT_EQ(netsim_options_from(q, o), "--players must be <= --peers");
}

TEST(NetsimReport, AGoodMatchReportsOkWithItsFinalHash) {
  const inspect::NetsimRequest q = duel_request();
  NetsimOptions o;
  ASSERT_EQ(netsim_options_from(q, o), "");
  const NetsimMatch m = run_netsim_match(o);
  ASSERT_TRUE(m.error.empty()) << m.error;
  ASSERT_TRUE(m.report.ok());
  NetsimOutcome out;
  out.wall_ns = 250'000'000;
  out.recorded = "m.replay";
  const NetsimReport& r = m.report;
  EXPECT_EQ(netsim_report_text(q, o, m, out),
            "netsim duel: 2 peers (2 players), 120 ticks at 60 Hz; one-way latency 40 ms ± 10 ms, loss 5.0%, "
            "duplicate 0.0%, reorder 0.0%; input delay 2, prediction window 8, hash every 16 ticks, seed 5\n" +
                netsim_peer_table(r) + "network: " + std::to_string(r.network.sent) + " sent, " +
                std::to_string(r.network.lost) + " lost, 0 duplicated, 0 reordered, " +
                std::to_string(r.network.delivered) + " delivered\n" +
                inspect::netsim_frames_line(q, r.frames, out.wall_ns) +
                "OK: every peer confirmed all 120 ticks with identical inputs and hashes; an offline replay of the "
                "confirmed inputs matches (final hash " + to_hex(r.offline_final_hash) + ")\n"
                "recorded the confirmed inputs and hashes to m.replay (re-check: lockstep verify m.replay)\n");
  const std::string json = netsim_report_json(q, o, m, out);
  EXPECT_EQ(json.rfind("{\"ok\":true,\"exit\":0,\"sim\":\"duel\",\"peers\":2,\"players\":2,\"ticks\":120,", 0), 0u) << json;
  EXPECT_NE(json.find(",\"seconds\":0.25,\"record\":\"m.replay\",\"network\":{"), std::string::npos) << json;
  EXPECT_EQ(json.back(), '\n');
  EXPECT_EQ(netsim_failure_text(q, r, ""), "");
}

TEST(NetsimReport, ADesyncIsReportedOnBothStreams) {
  inspect::NetsimRequest q = duel_request();
  q.hash_interval = 1;
  q.ticks = 200;
  q.loss = 0;
  NetsimOptions o;
  ASSERT_EQ(netsim_options_from(q, o), "");
  o.sim = &broken_sim();  // not registered: set directly
  const NetsimMatch m = run_netsim_match(o);
  ASSERT_TRUE(m.error.empty()) << m.error;
  ASSERT_GT(m.report.desync_count, 0u);
  NetsimOutcome out;
  out.exit = 1;
  out.evidence = m.evidence.text;
  const std::string text = netsim_report_text(q, o, m, out);
  EXPECT_NE(text.find("\nDESYNC: the peers' confirmed state hashes differ (details on stderr)\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("OK:"), std::string::npos);
  const std::string json = netsim_report_json(q, o, m, out);
  EXPECT_EQ(json.rfind("{\"ok\":false,\"exit\":1,", 0), 0u) << json;
  EXPECT_NE(json.find(",\"desync\":\"first divergent confirmed tick "), std::string::npos) << json;
  const std::string err = netsim_failure_text(q, m.report, out.evidence);
  EXPECT_EQ(err.rfind("lockstep: DESYNC detected " + std::to_string(m.report.desync_count) +
                          " times by the hash exchange; first: " + out.evidence,
                      0),
            0u)
      << err;
}

TEST(NetsimReport, AnUnfinishedMatchSaysSo) {
  NetsimReport r;
  r.finished = false;
  r.frames = 4200;
  inspect::NetsimRequest q = duel_request();
  EXPECT_EQ(netsim_failure_text(q, r, ""),
            "lockstep: netsim did not finish: not every peer confirmed 120 ticks within 4200 frames\n");
}

}  // namespace
