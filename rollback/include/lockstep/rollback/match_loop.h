#pragma once
// The frame loop of a game that plays a rollback match (docs/embedding.md, "Your game's frame
// loop"). A game calls MatchLoop::frame() once per rendered frame with the session clock; the
// loop asks the game for its local players' inputs, advances or polls the session, follows the
// session's wait recommendations (time sync: a peer that runs ahead skips simulation frames), runs
// a spectator behind the players with catch-up, keeps the first desync's description, fetches the
// remote's state of a desync tick over a StateExchange, and says when the match is over. The game
// draws `session.runner().world()` after each frame and sleeps (FramePacer does that at a fixed
// rate). GGRS keeps the same policy in its session and builder; GGPO leaves it to every game.
//
//   rollback::MatchLoop loop(session, {.end_tick = 3600});
//   rollback::FramePacer pacer(60);
//   while (!loop.finished()) {
//     if (Status st = loop.frame(pacer.now_us(), host); !st.ok()) break;   // host = your MatchHost
//     draw(session.runner().world());
//     pacer.wait_next_frame();
//   }
//
// frame() allocates nothing once the session runs (a desync's description and the exchange are
// the diagnostic path).
#include <lockstep/inspect/bundle.h>
#include <lockstep/rollback/session.h>
#include <lockstep/rollback/state_exchange.h>
#include <lockstep/status.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::rollback {

// The game's side of the loop (what GGPOSessionCallbacks is to GGPO, reduced to the frame).
class MatchHost {
 public:
  virtual ~MatchHost() = default;
  // Writes local player `player`'s input for `tick` into `out` (the sim's input size, zeroed).
  // Called once per local player whose input the session wants this frame.
  virtual void local_input(std::uint32_t player, std::uint64_t tick, std::span<std::byte> out) = 0;
  // Every session event, after the loop has taken what it needs from it (wait recommendations,
  // desyncs, disconnects). Default: ignore.
  virtual void on_event(const SessionEvent& event) { (void)event; }
};

struct MatchLoopConfig {
  // The match's length: the loop stops feeding inputs at this tick and is finished once every
  // peer confirmed and acknowledged it. 0 = open-ended (the game decides when to stop).
  std::uint64_t end_tick = 0;
  // After the end is confirmed and acknowledged, keep answering this long (late acks of peers).
  std::uint64_t linger_us = 300000;
  // A spectator (a peer without players; SessionConfig::max_prediction 0) follows the players
  // this many ticks behind the furthest of them, and simulates `catchup_speed` ticks per frame
  // while it is more than 2·catchup_speed ticks behind that target.
  bool spectator = false;
  std::uint32_t spectator_delay_ticks = 0;
  std::uint32_t catchup_speed = 4;
  // With a StateExchange attached: how long the loop stays (after the end) for the remote's
  // state of the desync tick.
  std::uint64_t exchange_wait_us = 3000000;
};

struct MatchLoopStats {
  std::uint64_t frames = 0;         // frame() calls
  std::uint64_t waited_frames = 0;  // frames skipped on the session's wait recommendations
  std::int32_t max_frame_advantage_seen = 0;
  std::uint64_t desyncs = 0;      // Desync events
  std::uint64_t disconnects = 0;  // Disconnected events naming another peer
};

// What the loop can put into desync bundles once the match is over (the first: this peer's
// state and the remote's when the exchange brought it; the next kept desyncs: hashes only).
struct DesyncBundles {
  std::vector<inspect::Bundle> bundles;
  bool remote_state = false;  // bundles[0] holds the remote's state
  std::string note;           // how bundles[0] was completed, e.g. "with peer 1's state"
};

class MatchLoop {
 public:
  MatchLoop(RollbackSession& session, const MatchLoopConfig& config);

  // Serves this peer's kept states on `exchange` and, on a desync, requests the remote's state
  // of the desync tick. Call before the first frame; `exchange` must outlive the loop.
  void attach_state_exchange(StateExchange& exchange);

  // One frame at `now_us` (microseconds on the game's steady clock, the session's time base).
  // A failed status ends the match: the session stopped (rejected handshake, sync timeout...).
  Status frame(std::uint64_t now_us, MatchHost& host);

  // The end tick is confirmed and acknowledged by every peer, the linger is over, and no
  // remote state is still on its way. Always false for an open-ended match.
  bool finished() const noexcept;
  // The end tick is confirmed (with end_tick 0: never).
  bool confirmed_to_end() const noexcept;

  const MatchLoopStats& stats() const noexcept { return stats_; }
  // "tick 304 vs peer 0: ours 92ff… theirs 92ff…: total equal; components: Pos" for the first
  // desync: the differing parts are named even when the totals agree. Empty before one.
  const std::string& first_desync() const noexcept { return first_desync_; }

  // Diagnostic path, after the loop: waits (at most exchange_wait_us from the request) for the
  // remote's state of the desync tick, then builds every kept desync's bundle, `source` naming
  // this side (e.g. "peer0"). Empty when the session saw no desync.
  DesyncBundles desync_bundles(std::string_view source);

 private:
  void frame_as_player(MatchHost& host, Status& st);
  void frame_as_spectator(Status& st);
  void take_events(MatchHost& host);

  RollbackSession& session_;
  MatchLoopConfig config_;
  StateExchange* exchange_ = nullptr;
  MatchLoopStats stats_;
  std::vector<std::byte> input_;
  std::uint64_t skip_ = 0;
  std::uint64_t now_us_ = 0;
  std::uint64_t done_at_us_ = 0;
  bool done_ = false;
  bool requested_ = false;
  std::uint64_t requested_at_us_ = 0;
  std::string first_desync_;
};

// Fixed-rate frame pacing on the steady clock: wait_next_frame() sleeps until the next frame's
// time; after a stall (a frame far late) it restarts from now instead of bursting frames.
class FramePacer {
 public:
  explicit FramePacer(std::uint32_t frames_per_second);
  std::uint64_t now_us() const;  // since construction
  void wait_next_frame();

 private:
  // lockstep: allow(time) frame pacing and a bounded diagnostic wait of the game loop, never simulated
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
  Clock::time_point next_;
  Clock::duration period_;
};

// "local", "syncing", "running", "interrupted", "disconnected" (status lines, JSON).
const char* peer_state_name(PeerState state) noexcept;

}  // namespace lockstep::rollback
