// relay_serve: a relay (rollback::RelayServer) serving any file's bytes as a match's live
// recording, keyed as a peer's relay is (a key file, or derived from the session id), standing
// in for a survivor's or a peer's relay in tests/rollback/udp_match.sh (watch_messages): a
// relay whose key differs from the watcher's, and one that serves forged bytes.
//   relay_serve FILE ADDR_FILE SESSION_ID KEY_FILE|- SECONDS
// Writes the bound HOST:PORT to ADDR_FILE, then serves for SECONDS.
#include <lockstep/replay/replay_follow.h>
#include <lockstep/rollback/relay.h>
#include <lockstep/rollback/watch_source.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: relay_serve FILE ADDR_FILE SESSION_ID KEY_FILE|- SECONDS\n");
    return 2;
  }
  lockstep::rollback::WatchSourceOptions o;
  o.session_id = static_cast<std::uint32_t>(std::stoul(argv[3]));
  if (std::string(argv[4]) != "-") o.key_file = argv[4];
  lockstep::rollback::RelayConfig c;
  if (const std::string why = lockstep::rollback::watch_relay_config(o, c); !why.empty()) {
    std::fprintf(stderr, "relay_serve: %s\n", why.c_str());
    return 2;
  }
  lockstep::rollback::RelayServer relay;
  std::string error;
  if (!relay.open(c, error)) {
    std::fprintf(stderr, "relay_serve: %s\n", error.c_str());
    return 2;
  }
  const std::string tmp = std::string(argv[2]) + ".tmp";
  if (std::FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fprintf(f, "%s\n", relay.local_address().c_str());
    std::fclose(f);
    std::rename(tmp.c_str(), argv[2]);
  }
  lockstep::replay::GrowingFileSource source(argv[1]);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::stod(argv[5]));
  while (std::chrono::steady_clock::now() < until) {
    (void)relay.poll(source);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return 0;
}
