// rollback/udp_peer.h: one peer process of a UDP match as library calls — the players it picks,
// the exchange addresses it derives, and two in-process peers that play a short duel to the end
// over loopback, recording the same confirmed history byte for byte.
#include "rollback/rollback_support.h"

#include <lockstep/rollback/udp_peer.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

using namespace rollback_test;

namespace {

std::string scratch_dir(const char* name) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                  ("lockstep_udp_peer_" + std::string(name) + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Keeps what the peer logs.
class Lines final : public UdpPeerObserver {
 public:
  void on_log(std::string_view line) override { lines.emplace_back(line); }
  void on_event(const SessionEvent& e) override {
    if (e.kind == SessionEventKind::Running) ++running;
  }
  std::vector<std::string> lines;
  int running = 0;
};

UdpPeerOptions duel_peer(std::uint32_t id, const std::string& dir) {
  UdpPeerOptions o;
  o.session.peers = 2;
  o.session.players = 2;
  o.session.local_peer = id;
  o.session.no_auth = true;
  o.session.incarnation = 2 * id + 1;
  o.config = duel_config(3);
  o.addresses = {"", ""};
  o.rendezvous = dir;
  o.bot_seed = 7;
  o.ticks = 90;
  o.tick_hz = 1000;
  o.max_us = 30000000;
  o.linger_us = 50000;
  o.record = dir + "/p" + std::to_string(id) + ".replay";
  return o;
}

}  // namespace

TEST(UdpPeer, PlayersForPeersIsTheMostTheSimAcceptsElseTwo) {
  EXPECT_EQ(players_for_peers(fixtures::duel_sim(), duel_config(), 4), 2u);
  EXPECT_EQ(players_for_peers(fixtures::duel_sim(), duel_config(), 2), 2u);
  EXPECT_EQ(players_for_peers(fixtures::skirmish_sim(), skirmish_config(), 3), 3u);
}

TEST(UdpPeer, ExchangeAddressesAreGivenDerivedOrPublished) {
  std::vector<std::string> out;
  EXPECT_EQ(exchange_peer_addresses({}, {"127.0.0.1:7000", "127.0.0.1:7001"}, false, out), "");
  EXPECT_EQ(out, (std::vector<std::string>{"127.0.0.1:7001", "127.0.0.1:7002"}));
  EXPECT_EQ(exchange_peer_addresses({}, {"", ""}, true, out), "");
  EXPECT_EQ(out, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(exchange_peer_addresses({"a:1"}, {"", ""}, true, out),
            "--rendezvous publishes the exchange addresses: drop --exchange-peers");
  EXPECT_EQ(exchange_peer_addresses({}, {"127.0.0.1:7000", "h:x"}, false, out),
            "--bundle-dir: cannot derive an exchange port from 'h:x' (give --exchange-peers)");
  EXPECT_EQ(exchange_peer_addresses({"127.0.0.1:9"}, {"127.0.0.1:7000", "127.0.0.1:7001"}, false, out),
            "--exchange-peers needs one address per peer, in peer-id order");
}

TEST(UdpPeer, TwoPeersPlayADuelToTheEndAndRecordTheSameMatch) {
  const std::string dir = scratch_dir("duel");
  UdpPeer p0(fixtures::duel_sim(), duel_peer(0, dir));
  UdpPeer p1(fixtures::duel_sim(), duel_peer(1, dir));
  Lines l0, l1;
  std::optional<UdpPeerFailure> f1;
  std::thread other([&] { f1 = p1.open(l1); });
  const std::optional<UdpPeerFailure> f0 = p0.open(l0);
  other.join();
  ASSERT_FALSE(f0.has_value()) << f0->message;
  ASSERT_FALSE(f1.has_value()) << f1->message;
  const std::string no_auth =
      "WARNING: --no-auth: messages are not authenticated; anyone who can send to this port can inject inputs or expel "
      "a peer (docs/rollback.md, \"Threat model\")";
  EXPECT_EQ(l0.lines, std::vector<std::string>{no_auth});

  UdpPeerPlay r1;
  std::thread play1([&] { r1 = p1.play(l1); });
  const UdpPeerPlay r0 = p0.play(l0);
  play1.join();
  EXPECT_EQ(r0.failure, "");
  EXPECT_EQ(r1.failure, "");
  EXPECT_FALSE(p0.finish(l0).has_value());
  EXPECT_FALSE(p1.finish(l1).has_value());
  EXPECT_EQ(l0.running, 1);
  EXPECT_TRUE(p0.finished());
  EXPECT_TRUE(p1.finished());
  EXPECT_EQ(p0.loop().stats().desyncs, 0u);
  EXPECT_FALSE(p0.lossy());
  EXPECT_EQ(p0.key_source(), MatchKeySource::None);
  EXPECT_EQ(p0.exchange(), nullptr);
  EXPECT_EQ(p0.relay(), nullptr);
  EXPECT_EQ(p0.session().confirmed_tick(), 90u);
  EXPECT_EQ(p0.session().runner().hash().total, p1.session().runner().hash().total);
  const std::string a = read_bytes(dir + "/p0.replay"), b = read_bytes(dir + "/p1.replay");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
}

TEST(UdpPeer, AnUnusableRelayAddressFailsBeforeTheMatch) {
  const std::string dir = scratch_dir("badrelay");
  UdpPeerOptions o = duel_peer(0, dir);
  o.rendezvous.clear();
  o.addresses = {"127.0.0.1:0", "127.0.0.1:9"};
  o.relay = "not an address";
  UdpPeer p(fixtures::duel_sim(), o);
  Lines l;
  const std::optional<UdpPeerFailure> f = p.open(l);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->message.rfind("--relay not an address: ", 0), 0u) << f->message;
  EXPECT_FALSE(f->file.has_value());
}

TEST(UdpPeer, InconsistentOptionsAreNamedInTheToolsTerms) {
  const UdpPeerOptions good = duel_peer(0, "unused");
  EXPECT_EQ(check_udp_peer_options(good), "");
  auto with = [&](auto change) {
    UdpPeerOptions o = good;
    change(o);
    return check_udp_peer_options(o);
  };
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.addresses = {""}; }),
            "--peers needs 2..16 addresses (every peer, in peer-id order), or --rendezvous DIR --count N");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.addresses.assign(17, ""); }),
            "--peers needs 2..16 addresses (every peer, in peer-id order), or --rendezvous DIR --count N");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.peers = 3; }),
            "session.peers (3) must equal the number of addresses (2)");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.local_peer = 2; }), "--id must be < the number of --peers");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.key_file = "k"; }), "--no-auth and --key-file exclude each other");
  EXPECT_EQ(with([](UdpPeerOptions& o) {
              o.record.clear();
              o.relay = "127.0.0.1:0";
            }),
            "--relay serves the recording: give --record FILE too");
  EXPECT_EQ(with([](UdpPeerOptions& o) {
              o.session.hash_interval = 4;
              o.checkpoint_every = 6;
            }),
            "--checkpoint-every must be a multiple of --hash-interval (4)");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.config.players = o.session.players = 3; }),
            "--players must be <= the number of peers");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.players = 1; }), "session.players (1) must equal config.players (2)");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.spectator = true; }),
            "a spectator's --id must be >= --players (peer p owns player p)");
  EXPECT_EQ(with([](UdpPeerOptions& o) {
              o.addresses = {"", "", ""};
              o.session.peers = 3;
              o.session.local_peer = 2;
            }),
            "--id owns no player: use 'lockstep spectate' for a spectator");
}

TEST(UdpPeer, OpenRefusesInconsistentOptionsBeforeBindingAnything) {
  const std::string dir = scratch_dir("inconsistent");
  UdpPeerOptions o = duel_peer(0, dir);
  o.session.local_peer = 7;
  UdpPeer p(fixtures::duel_sim(), o);
  Lines l;
  const std::optional<UdpPeerFailure> f = p.open(l);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->message, "--id must be < the number of --peers");
  EXPECT_FALSE(f->file.has_value());
  EXPECT_TRUE(l.lines.empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "nothing published to the rendezvous, no recording started";
}

TEST(UdpPeer, TheReportAsTheToolPrintsIt) {
  const std::string dir = scratch_dir("report");
  UdpPeerOptions o0 = duel_peer(0, dir), o1 = duel_peer(1, dir);
  o0.record.clear();
  o1.record.clear();
  o0.ticks = o1.ticks = 30;
  UdpPeer p0(fixtures::duel_sim(), o0), p1(fixtures::duel_sim(), o1);
  Lines l0, l1;
  std::thread other([&] {
    ASSERT_FALSE(p1.open(l1).has_value());
    (void)p1.play(l1);
  });
  ASSERT_FALSE(p0.open(l0).has_value());
  ASSERT_EQ(p0.play(l0).failure, "");
  other.join();
  ASSERT_FALSE(p0.finish(l0).has_value());
  const SessionStats& s = p0.session().stats();
  const std::string hash = to_hex(p0.session().runner().hash().total);
  UdpPeerOutcome ok{0, "", "duel"};
  EXPECT_EQ(udp_peer_report(p0, ok, false),
            "peer 0: OK, confirmed 30/30 ticks, " + std::to_string(s.rollbacks) + " rollbacks (max depth " +
                std::to_string(s.max_rollback_depth) + "), " + std::to_string(s.stalls) + " stalls, " +
                std::to_string(s.hash_checks) + " hash checks, " + std::to_string(p0.loop().stats().waited_frames) +
                " frames waited (time sync), final hash " + hash + "\n");
  UdpPeerOutcome failed{1, "DESYNC: tick 9", "duel", 12, 345};
  const std::string json = udp_peer_report(p0, failed, true);
  EXPECT_EQ(json.rfind("{\"ok\":false,\"exit\":1,\"peer\":0,\"peers\":2,\"sim\":\"duel\",\"ticks\":30,\"confirmed_tick\":30,"
                       "\"finished\":true,\"final_hash\":\"" + hash + "\",\"frames\":",
                       0),
            0u)
      << json;
  EXPECT_NE(json.find(",\"key\":\"none\","), std::string::npos) << json;
  const std::string tail = ",\"rejoin_tick\":12,\"rejoined_after_ms\":345,\"error\":\"DESYNC: tick 9\"}\n";
  ASSERT_GE(json.size(), tail.size());
  EXPECT_EQ(json.substr(json.size() - tail.size()), tail);
}
