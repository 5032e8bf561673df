// rollback/watch_source.h: a watcher's source (relay, file, the caller's opener) and its onward
// relay, with the tool's exact errors.
#include <lockstep/rollback/match_key.h>
#include <lockstep/rollback/watch_source.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

namespace {

using namespace lockstep::rollback;

TEST(WatchSource, RelayConfigCarriesTheWatchKeyOfTheMatchKey) {
  WatchSourceOptions o;
  o.session_id = 9;
  o.relay_slots = 5;
  RelayConfig c;
  EXPECT_EQ(watch_relay_config(o, c), "");
  EXPECT_EQ(c.bind, "127.0.0.1:0");
  EXPECT_TRUE(c.loopback_only);
  EXPECT_EQ(c.session_id, 9u);
  EXPECT_EQ(c.max_subscribers, 5u);
  EXPECT_EQ(c.security, WireSecurity::Authenticated);
  EXPECT_EQ(c.key.bytes, derive_watch_key(insecure_test_key(9)).bytes);  // never the match key itself
  EXPECT_NE(c.key.bytes, insecure_test_key(9).bytes);
  o.no_auth = true;
  o.allow_remote = true;
  RelayConfig open;
  EXPECT_EQ(watch_relay_config(o, open), "");
  EXPECT_EQ(open.bind, "0.0.0.0:0");
  EXPECT_FALSE(open.loopback_only);
  EXPECT_EQ(open.security, WireSecurity::Unauthenticated);
}

TEST(WatchSource, AFilePathIsAGrowingFile) {
  WatchSourceOptions o;
  o.source = "/nonexistent/p0.replay";
  const WatchSource w = open_watch_source(o);
  EXPECT_EQ(w.error, "");
  ASSERT_NE(w.source, nullptr);
  EXPECT_NE(dynamic_cast<lockstep::replay::GrowingFileSource*>(w.source.get()), nullptr);
  EXPECT_EQ(w.relayed, nullptr);
  EXPECT_EQ(w.onward, nullptr);
}

TEST(WatchSource, TheCallersOpenerNamesTheSource) {
  WatchSourceOptions o;
  o.source = "ftp://x/p0.replay";
  o.open_recording = [](const std::string& source, std::string& error) -> std::unique_ptr<lockstep::replay::ByteSource> {
    error = "refused " + source;
    return nullptr;
  };
  const WatchSource w = open_watch_source(o);
  EXPECT_EQ(w.error, "recording ftp://x/p0.replay: refused ftp://x/p0.replay");
  EXPECT_EQ(w.problem, WatchSourceProblem::Source);
  EXPECT_EQ(w.detail, "refused ftp://x/p0.replay");
  EXPECT_EQ(w.source, nullptr);
}

TEST(WatchSource, HostAndFollowExcludeEachOther) {
  WatchSourceOptions o;
  o.host = "127.0.0.1:7000";
  o.source = "p0.replay";
  const WatchSource w = open_watch_source(o);
  EXPECT_EQ(w.error, "a relay host and a recording source exclude each other");
  EXPECT_EQ(w.problem, WatchSourceProblem::HostAndSource);
}

TEST(WatchSource, ABadKeyFileIsTheError) {
  WatchSourceOptions o;
  o.host = "127.0.0.1:7000";
  o.key_file = "/nonexistent/match.key";
  MatchKey key{};
  std::string why;
  ASSERT_FALSE(read_match_key_file(o.key_file, key, why));
  const WatchSource w = open_watch_source(o);
  EXPECT_EQ(w.error, why);
  EXPECT_EQ(w.problem, WatchSourceProblem::Key);
}

TEST(WatchSource, ARelayHostThatCannotBeWatchedIsTheError) {
  WatchSourceOptions o;
  o.host = "not-an-address";
  o.no_auth = true;
  const WatchSource w = open_watch_source(o);
  EXPECT_EQ(w.problem, WatchSourceProblem::Host);
  EXPECT_FALSE(w.detail.empty());
  EXPECT_EQ(w.error, "relay host not-an-address: " + w.detail);
  EXPECT_EQ(w.source, nullptr);
}

TEST(WatchSource, WatchesThroughARelayAndRelaysOnward) {
  WatchSourceOptions o;
  o.host = "127.0.0.1:9";
  o.relay = "127.0.0.1:0";
  o.no_auth = true;
  const WatchSource w = open_watch_source(o);
  ASSERT_EQ(w.error, "");
  EXPECT_EQ(w.problem, WatchSourceProblem::None);
  ASSERT_NE(w.source, nullptr);
  EXPECT_EQ(w.relayed, w.source.get());
  ASSERT_NE(w.onward, nullptr);
  EXPECT_EQ(w.onward->local_address().rfind("127.0.0.1:", 0), 0u) << w.onward->local_address();
}

// A relay keyed by what is no secret gets the warning a peer gives for the same key (issue 39:
// `spectate --host` said nothing about its derived key).
TEST(WatchSource, ARelayWithAKeyThatIsNoSecretCarriesTheWarning) {
  WatchSourceOptions o;
  o.host = "127.0.0.1:9";
  WatchSource w = open_watch_source(o);
  ASSERT_EQ(w.error, "");
  EXPECT_EQ(w.warning, UdpPeerWarning::DerivedKey);
  o.no_auth = true;
  w = open_watch_source(o);
  ASSERT_EQ(w.error, "");
  EXPECT_EQ(w.warning, UdpPeerWarning::Unauthenticated);
  // A key file: no warning.
  const std::filesystem::path key = std::filesystem::temp_directory_path() / "lockstep_watch_source_test.key";
  {
    std::FILE* f = std::fopen(key.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n", f);
    std::fclose(f);
  }
  o.no_auth = false;
  o.key_file = key.string();
  w = open_watch_source(o);
  ASSERT_EQ(w.error, "");
  EXPECT_EQ(w.warning, std::nullopt);
  std::filesystem::remove(key);
  // A recording file and no relay: no key is used, nothing to warn about; an onward relay uses one.
  WatchSourceOptions file;
  file.source = "/nonexistent/p0.replay";
  w = open_watch_source(file);
  ASSERT_EQ(w.error, "");
  EXPECT_EQ(w.warning, std::nullopt);
  file.relay = "127.0.0.1:0";
  w = open_watch_source(file);
  ASSERT_EQ(w.error, "");
  EXPECT_EQ(w.warning, UdpPeerWarning::DerivedKey);
}

// A watcher given the watch key itself (`keygen --watch-key-of`): the relays use it as it is,
// and it excludes a match key file and no_auth; a missing file is named as a watch key file.
TEST(WatchSource, AWatchKeyFileKeysTheRelaysAsItIs) {
  const std::filesystem::path key = std::filesystem::temp_directory_path() / "lockstep_watch_source_test.watch";
  {
    std::FILE* f = std::fopen(key.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100\n", f);
    std::fclose(f);
  }
  WatchSourceOptions o;
  o.session_id = 9;
  o.watch_key_file = key.string();
  RelayConfig c;
  MatchKeySource source = MatchKeySource::None;
  ASSERT_EQ(watch_relay_config(o, c, &source), "");
  EXPECT_EQ(c.security, WireSecurity::Authenticated);
  EXPECT_EQ(c.key.bytes[0], 0xFF);
  EXPECT_EQ(c.key.bytes[15], 0x00);
  EXPECT_EQ(c.key.bytes[31], 0x00);
  EXPECT_EQ(source, MatchKeySource::WatchKeyFile);
  EXPECT_STREQ(match_key_source_name(source), "watch-key-file");
  o.host = "127.0.0.1:9";
  WatchSource w = open_watch_source(o);
  ASSERT_EQ(w.error, "");
  EXPECT_EQ(w.warning, std::nullopt);  // a real secret: nothing to warn about
  o.key_file = key.string();
  EXPECT_EQ(watch_relay_config(o, c), "a watch key file excludes a match key file and no_auth");
  o.key_file.clear();
  o.no_auth = true;
  EXPECT_EQ(watch_relay_config(o, c), "a watch key file excludes a match key file and no_auth");
  std::filesystem::remove(key);
  o.no_auth = false;
  w = open_watch_source(o);
  EXPECT_EQ(w.problem, WatchSourceProblem::Key);
  EXPECT_EQ(w.error, "watch key file " + key.string() + ": cannot open: No such file or directory");
}

TEST(WatchSource, AnOnwardRelayThatCannotBindIsTheError) {
  WatchSourceOptions o;
  o.source = "/nonexistent/p0.replay";
  o.relay = "not-an-address";
  o.no_auth = true;
  RelayServer direct;
  RelayConfig c;
  ASSERT_EQ(watch_relay_config(o, c), "");
  c.bind = o.relay;
  std::string why;
  ASSERT_FALSE(direct.open(c, why));
  const WatchSource w = open_watch_source(o);
  EXPECT_EQ(w.error, "onward relay at not-an-address: " + why);
  EXPECT_EQ(w.problem, WatchSourceProblem::Onward);
  EXPECT_EQ(w.detail, why);
  EXPECT_EQ(w.source, nullptr);
  EXPECT_EQ(w.onward, nullptr);
}

}  // namespace
