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

// Keeps what the peer logs (and which warnings it gave).
class Lines final : public UdpPeerObserver {
 public:
  void on_log(std::string_view line) override { lines.emplace_back(line); }
  void on_warning(UdpPeerWarning w, std::string_view line) override {
    warnings.push_back(w);
    UdpPeerObserver::on_warning(w, line);  // the default: logged as is
  }
  std::vector<UdpPeerWarning> warnings;
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
            "the rendezvous publishes the state-exchange addresses: give none");
  EXPECT_EQ(exchange_peer_addresses({}, {"127.0.0.1:7000", "h:x"}, false, out),
            "cannot derive a state-exchange port from 'h:x' (port + 1): give the exchange addresses");
  EXPECT_EQ(exchange_peer_addresses({"127.0.0.1:9"}, {"127.0.0.1:7000", "127.0.0.1:7001"}, false, out),
            "the state-exchange addresses must be one per peer, in peer-id order (got 1 for 2 peers)");
}

TEST(UdpPeer, ExchangeAddressFailuresSayWhichInputIsWrong) {
  std::vector<std::string> out;
  EXPECT_FALSE(exchange_peer_addresses_failure({}, {"127.0.0.1:7000", "127.0.0.1:7001"}, false, out).has_value());
  auto f = exchange_peer_addresses_failure({"a:1"}, {"", ""}, true, out);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->problem, UdpPeerProblem::ExchangeWithRendezvous);
  EXPECT_EQ(f->message, "the rendezvous publishes the state-exchange addresses: give none");
  f = exchange_peer_addresses_failure({}, {"127.0.0.1:7000", "h:x"}, false, out);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->problem, UdpPeerProblem::ExchangePort);
  EXPECT_EQ(f->detail, "h:x");
  f = exchange_peer_addresses_failure({"127.0.0.1:9"}, {"127.0.0.1:7000", "127.0.0.1:7001"}, false, out);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->problem, UdpPeerProblem::ExchangeCount);
  EXPECT_FALSE(f->file.has_value());
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
      "WARNING: messages are not authenticated (no_auth); anyone who can send to this port can inject inputs or expel "
      "a peer (docs/rollback.md, \"Threat model\")";
  EXPECT_EQ(l0.lines, std::vector<std::string>{no_auth});
  EXPECT_EQ(l0.warnings, std::vector<UdpPeerWarning>{UdpPeerWarning::Unauthenticated});

  UdpPeerPlay r1;
  std::thread play1([&] { r1 = p1.play(l1); });
  const UdpPeerPlay r0 = p0.play(l0);
  play1.join();
  EXPECT_EQ(r0.failure, "");
  EXPECT_EQ(r1.failure, "");
  EXPECT_FALSE(r0.timed_out);
  EXPECT_FALSE(p0.finish(l0).has_value());
  EXPECT_FALSE(p1.finish(l1).has_value());
  EXPECT_EQ(p0.result(r0), UdpPeerResult::Ok);
  EXPECT_EQ(p1.result(r1), UdpPeerResult::Ok);
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

// Per-peer identities over real UDP: the match is played and recorded alike; the only warning
// is peer 0's, whose relay has no key file (its key is then derived from the session id).
TEST(UdpPeer, TwoPeersWithIdentitiesPlayAndOnlyTheRelayKeyIsWarnedAbout) {
  const std::string dir = scratch_dir("identity");
  std::string keys, why;
  for (int i = 0; i < 2; ++i) {
    PeerIdentity id;
    ASSERT_TRUE(make_peer_identity(id));
    ASSERT_TRUE(write_peer_identity_file(dir + "/p" + std::to_string(i) + ".id", id, why)) << why;
    keys += key_hex(id.public_key) + "\n";
  }
  std::ofstream(dir + "/match.keys") << keys;
  UdpPeerOptions o[2] = {duel_peer(0, dir), duel_peer(1, dir)};
  for (int i = 0; i < 2; ++i) {
    o[i].session.no_auth = false;
    o[i].session.identity_file = dir + "/p" + std::to_string(i) + ".id";
    o[i].session.peer_keys_file = dir + "/match.keys";
  }
  o[0].relay = "127.0.0.1:0";
  UdpPeer p0(fixtures::duel_sim(), o[0]);
  UdpPeer p1(fixtures::duel_sim(), o[1]);
  Lines l0, l1;
  std::optional<UdpPeerFailure> f1;
  std::thread other([&] { f1 = p1.open(l1); });
  const std::optional<UdpPeerFailure> f0 = p0.open(l0);
  other.join();
  ASSERT_FALSE(f0.has_value()) << f0->message;
  ASSERT_FALSE(f1.has_value()) << f1->message;
  EXPECT_EQ(l0.warnings, std::vector<UdpPeerWarning>{UdpPeerWarning::DerivedRelayKey});
  EXPECT_EQ(l0.lines.at(0),
            "WARNING: no key file: the relay's key (watchers, a rejoin's history) is derived from the session id, which "
            "is no secret (INSECURE; the players' messages are authenticated per pair of peers)");
  EXPECT_TRUE(l1.warnings.empty());
  EXPECT_EQ(p0.key_source(), MatchKeySource::Identity);
  UdpPeerPlay r1;
  std::thread play1([&] { r1 = p1.play(l1); });
  const UdpPeerPlay r0 = p0.play(l0);
  play1.join();
  EXPECT_EQ(r0.failure, "");
  EXPECT_EQ(r1.failure, "");
  EXPECT_FALSE(p0.finish(l0).has_value());
  EXPECT_FALSE(p1.finish(l1).has_value());
  EXPECT_EQ(p0.result(r0), UdpPeerResult::Ok);
  EXPECT_EQ(p1.result(r1), UdpPeerResult::Ok);
  EXPECT_EQ(p0.session().stats().dropped_auth, 0u);
  EXPECT_EQ(read_bytes(dir + "/p0.replay"), read_bytes(dir + "/p1.replay"));
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
  EXPECT_EQ(f->message.rfind("relay at not an address: ", 0), 0u) << f->message;
  EXPECT_EQ(f->problem, UdpPeerProblem::Relay);
  EXPECT_EQ(f->message, "relay at not an address: " + f->detail);
  EXPECT_FALSE(f->detail.empty());
  EXPECT_FALSE(f->file.has_value());
}

TEST(UdpPeer, InconsistentOptionsAreNamedInTheLibrarysTerms) {
  const UdpPeerOptions good = duel_peer(0, "unused");
  EXPECT_EQ(check_udp_peer_options(good), "");
  EXPECT_FALSE(udp_peer_options_failure(good).has_value());
  // The message (check_udp_peer_options is the failure's message) and which input it is about.
  auto with = [&](auto change, UdpPeerProblem problem) {
    UdpPeerOptions o = good;
    change(o);
    const std::optional<UdpPeerFailure> f = udp_peer_options_failure(o);
    EXPECT_TRUE(f.has_value());
    if (!f) return std::string();
    EXPECT_EQ(f->problem, problem) << f->message;
    EXPECT_FALSE(f->file.has_value());
    EXPECT_EQ(check_udp_peer_options(o), f->message);
    return f->message;
  };
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.addresses = {""}; }, UdpPeerProblem::AddressCount),
            "a match needs 2..16 peer addresses (every peer, in peer-id order), got 1");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.addresses.assign(17, ""); }, UdpPeerProblem::AddressCount),
            "a match needs 2..16 peer addresses (every peer, in peer-id order), got 17");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.peers = 3; }, UdpPeerProblem::SessionPeers),
            "session.peers (3) must equal the number of addresses (2)");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.local_peer = 2; }, UdpPeerProblem::LocalPeer),
            "the local peer (2) must be < the number of peers (2)");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.key_file = "k"; }, UdpPeerProblem::NoAuthWithKeyFile),
            "unauthenticated messages (no_auth) and a key file exclude each other");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.identity_file = "i"; }, UdpPeerProblem::NoAuthWithIdentity),
            "unauthenticated messages (no_auth) and per-peer identities exclude each other");
  EXPECT_EQ(with(
                [](UdpPeerOptions& o) {
                  o.session.no_auth = false;
                  o.session.peer_keys_file = "g";
                },
                UdpPeerProblem::IdentityWithoutPeerKeys),
            "an identity file and a peer keys file go together (this peer's secret key and every peer's public key)");
  EXPECT_EQ(with(
                [](UdpPeerOptions& o) {
                  o.record.clear();
                  o.relay = "127.0.0.1:0";
                },
                UdpPeerProblem::RelayWithoutRecord),
            "a relay serves the recording: it needs a record file");
  EXPECT_EQ(with(
                [](UdpPeerOptions& o) {
                  o.session.hash_interval = 4;
                  o.checkpoint_every = 6;
                },
                UdpPeerProblem::CheckpointInterval),
            "the checkpoint interval (6) must be a multiple of the hash interval (4)");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.config.players = o.session.players = 3; }, UdpPeerProblem::PlayersOverPeers),
            "the players (3) must be <= the number of peers (2)");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.players = 1; }, UdpPeerProblem::SessionPlayers),
            "session.players (1) must equal config.players (2)");
  EXPECT_EQ(with([](UdpPeerOptions& o) { o.session.spectator = true; }, UdpPeerProblem::SpectatorOwnsPlayer),
            "a spectator's peer id (0) must be >= the players (2; peer p owns player p)");
  EXPECT_EQ(with(
                [](UdpPeerOptions& o) {
                  o.addresses = {"", "", ""};
                  o.session.peers = 3;
                  o.session.local_peer = 2;
                },
                UdpPeerProblem::PlayerOwnsNoPlayer),
            "peer 2 owns no player (2 players; peer p owns player p): make it a spectator");
}

TEST(UdpPeer, OpenRefusesInconsistentOptionsBeforeBindingAnything) {
  const std::string dir = scratch_dir("inconsistent");
  UdpPeerOptions o = duel_peer(0, dir);
  o.session.local_peer = 7;
  UdpPeer p(fixtures::duel_sim(), o);
  Lines l;
  const std::optional<UdpPeerFailure> f = p.open(l);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->message, "the local peer (7) must be < the number of peers (2)");
  EXPECT_EQ(f->problem, UdpPeerProblem::LocalPeer);
  EXPECT_FALSE(f->file.has_value());
  EXPECT_TRUE(l.lines.empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "nothing published to the rendezvous, no recording started";
}

// The outcome a caller maps to its exit code (the report itself is the tool's: cli/src/cmd_peer.cpp,
// checked end to end by tests/rollback/udp_match.sh).
TEST(UdpPeer, TheResultOfAPlayedMatch) {
  const std::string dir = scratch_dir("result");
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
  const UdpPeerPlay played = p0.play(l0);
  other.join();
  ASSERT_EQ(played.failure, "");
  ASSERT_FALSE(p0.finish(l0).has_value());
  EXPECT_TRUE(p0.finished());
  EXPECT_EQ(p0.result(played), UdpPeerResult::Ok);
  EXPECT_EQ(p0.result(UdpPeerPlay{"the handshake was rejected", true, false}), UdpPeerResult::BadInput);
  EXPECT_EQ(p0.result(UdpPeerPlay{"every other peer disconnected", false, false}), UdpPeerResult::Unfinished);
}

TEST(UdpPeer, APlayPastItsWallClockLimitIsUnfinished) {
  const std::string dir = scratch_dir("timeout");
  UdpPeerOptions o0 = duel_peer(0, dir), o1 = duel_peer(1, dir);
  o0.record.clear();
  o1.record.clear();
  o0.max_us = o1.max_us = 0;  // over before the first frame
  UdpPeer p0(fixtures::duel_sim(), o0), p1(fixtures::duel_sim(), o1);
  Lines l0, l1;
  std::optional<UdpPeerFailure> f1;
  std::thread other([&] { f1 = p1.open(l1); });
  const std::optional<UdpPeerFailure> f0 = p0.open(l0);
  other.join();
  ASSERT_FALSE(f0.has_value()) << f0->message;
  ASSERT_FALSE(f1.has_value()) << f1->message;
  const UdpPeerPlay played = p0.play(l0);
  EXPECT_TRUE(played.timed_out);
  EXPECT_FALSE(played.bad_input);
  EXPECT_EQ(played.failure, "the match did not finish within its wall-clock limit (confirmed 0 of 90 ticks)");
  EXPECT_EQ(p0.result(played), UdpPeerResult::Unfinished);
}
