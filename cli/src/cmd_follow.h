#pragma once
// lockstep spectate --follow (cmd_follow.cpp): its options and its run.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace lockstep::cli {

struct FollowArgs {
  std::string source;  // --follow
  std::string host;    // --host: a relay's HOST:PORT (rollback/relay.h)
  // Shared with `spectate` as a peer (cmd_peer.cpp fills them): serve what was fetched onward
  // (--relay), keep a copy (--record), and the key of the relay's messages.
  std::string relay, record, key_file;
  bool no_auth = false;
  bool allow_remote = false;
  std::uint32_t session_id = 1;
  std::uint32_t relay_slots = 32;
  std::string from = "checkpoint";
  std::uint64_t delay_ticks = 0;
  std::uint32_t catchup_ticks = 256;
  std::uint32_t poll_ms = 20;
  double idle_timeout_s = 30;
  double max_seconds = 3600;
  bool json = false;
};

void add_follow_options(CLI::App* app, const std::shared_ptr<FollowArgs>& f);
int follow_cmd(const FollowArgs& a);

}  // namespace lockstep::cli
