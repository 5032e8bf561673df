#pragma once
// lockstep spectate --follow (cmd_follow.cpp): its options and its run.
#include <lockstep/rollback/watch_source.h>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lockstep::cli {

struct FollowArgs {
  // --host (a relay's HOST:PORT) or --follow (a path or URL), and, shared with `spectate` as a
  // peer (cmd_peer.cpp fills them): serve what was fetched onward (--relay) and the key of the
  // relay's messages (rollback/watch_source.h).
  rollback::WatchSourceOptions watch;
  std::vector<std::string> hosts;  // --host, once or more: watch.host and watch.more_hosts (add_spectate)
  std::string record;  // --record: keep a copy
  std::string from = "checkpoint";
  std::uint64_t delay_ticks = 0;
  std::uint32_t catchup_ticks = 256;
  std::uint32_t poll_ms = 20;
  double idle_timeout_s = 30;
  double max_seconds = 3600;
  bool json = false;
};

void add_follow_options(CLI::App* app, const std::shared_ptr<FollowArgs>& f);
// A key's security warning (rollback::match_key_warning) in the terms of the flags: what
// `peer` and `spectate` print.
std::string security_warning_text(rollback::UdpPeerWarning warning);
int follow_cmd(const FollowArgs& a);

}  // namespace lockstep::cli
