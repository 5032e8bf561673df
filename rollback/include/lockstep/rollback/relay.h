#pragma once
// Host-fed spectators (docs/rollback.md, "Spectators at scale"): one process relays a match's
// live recording to up to 32 watchers over UDP, and a watcher can relay it again (a tree of
// any depth). The relayed bytes are the recording's own (replay/replay_follow.h: block file,
// checkpoints), so a watcher is a ReplayFollower reading a RelaySource: it starts at the newest
// checkpoint (a late joiner never replays from tick 0), keeps its delay, checks every tick's
// hash, and can keep a copy that verifies. The players' session traffic does not change with
// the number of watchers: the relay has a socket of its own and serves what the recorder wrote.
//
// Wire "LSR2" (little-endian), one datagram per message, on the relay's own port:
//   header    "LSR2" · u8 kind · u8 flags · u16 0 · u32 session id · u64 nonce · u64 offset · u32 length
//   REQUEST   watcher → relay: the bytes [offset, offset + length) (length ≤ kRelayWindowBytes),
//             then the relay's 16-byte cookie (all zero before it sent one)
//   CHALLENGE relay → watcher: prove you receive at your address: a 16-byte cookie to send back
//   DATA      relay → watcher: `length` bytes at `offset`, then u64 bytes the relay has in all
//   FULL      relay → watcher: every subscriber slot is taken (or this host's share of them)
// followed, when authenticated, by a 16-byte keyed BLAKE2b tag (rollback/match_key.h) over the
// message, bound to its direction, under the WATCH key (derive_watch_key of the match key: a
// watcher cannot forge a player's message). The nonce is the watcher's, 64 random bits per relay
// it talks to, echoed in every answer: a message without it is dropped, so a watcher that holds
// the watch key but is not on the path cannot end another's watch (a forged FULL) or feed it.
// A source is admitted to a slot (and sent DATA) only once it proved it receives at its address:
// its first REQUEST gets a CHALLENGE of the REQUEST's own size (64 bytes authenticated; nothing
// is amplified before proof, nothing is kept per unproven source), carrying keyed BLAKE2b of
// (address, port, session id, nonce, 2-second epoch) under a secret the relay draws at open; a
// REQUEST returning a cookie of this epoch or the previous one is admitted. An admitted
// subscriber keeps its slot while its requests carry the nonce it proved (no proof per request;
// another nonce from its address re-proves). The stream is append-only, so a replayed DATA
// message says nothing new and a replayed REQUEST costs one answer (bounded per poll): no
// sequence numbers. "LSR1" (0.2) watchers and relays drop these messages and vice versa.
// Diagnostic and broadcast path: allocates (never on a game's tick path).
#include <lockstep/replay/replay_follow.h>
#include <lockstep/rollback/match_key.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace lockstep::rollback {

inline constexpr std::uint32_t kRelayHeaderBytes = 32;
inline constexpr std::uint32_t kRelayCookieBytes = 16;  // in REQUEST and CHALLENGE
inline constexpr std::uint32_t kRelayChunkBytes = 1024;            // DATA payload per datagram
inline constexpr std::uint32_t kRelayWindowBytes = 32 * kRelayChunkBytes;  // per REQUEST
inline constexpr std::uint64_t kRelayMaxBytes = 256ull << 20;      // largest stream relayed
inline constexpr std::uint32_t kRelayMaxSubscribers = 32;

struct RelayConfig {
  std::string bind = "127.0.0.1:0";  // HOST:PORT or [HOST]:PORT; port 0: any free port
  bool loopback_only = true;         // refuse a non-loopback bind (and subscribers) unless false
  std::uint32_t session_id = 0;      // tags every message; others are dropped (no secret)
  WireSecurity security = WireSecurity::Authenticated;
  // With Authenticated: the watch key (derive_watch_key of the match key, or a watch key file's;
  // all zero: refused). Never the match key itself: every watcher holds this one.
  MatchKey key{};
  std::uint32_t max_subscribers = kRelayMaxSubscribers;  // 1..32
  // Slots one host (address, any port) may take, for non-loopback sources (1..32): a proven
  // host cannot take every slot from its many ports. Loopback sources are exempt.
  std::uint32_t max_per_host = 8;
  std::uint32_t idle_timeout_ms = 10000;  // a subscriber silent this long frees its slot
  std::uint32_t requests_per_poll = 512;  // datagrams read per poll() at most (flood bound)
  // A watcher (RelaySource) with further relays switches to the next one when the current one
  // sent nothing for this long (a relay answers every request, even with no new bytes).
  std::uint32_t failover_ms = 2000;
};

struct RelayStats {
  std::uint64_t requests = 0;      // valid REQUESTs answered
  std::uint64_t data_sent = 0;     // DATA datagrams
  std::uint64_t bytes_sent = 0;    // DATA payload bytes
  std::uint64_t refused_full = 0;  // FULL answers
  std::uint64_t challenges = 0;    // CHALLENGE answers (requests from a source not proven yet)
  std::uint64_t dropped = 0;       // malformed, other session, failed tag, or over the budget
  std::uint32_t subscribers = 0;   // slots in use now
  std::uint32_t max_subscribers_seen = 0;
};

// Serves a growing byte stream (a recording being written, or what a RelaySource fetched) to
// watchers. Call poll() regularly (every frame of the host's loop).
class RelayServer {
 public:
  RelayServer();
  ~RelayServer();
  RelayServer(const RelayServer&) = delete;
  RelayServer& operator=(const RelayServer&) = delete;

  bool open(const RelayConfig& config, std::string& error);
  std::string local_address() const;
  // Reads what `source` has appended since the last call (bounded), then answers waiting
  // requests. An error of the source is returned (and the relay keeps serving what it has).
  replay::ReplayStatus poll(replay::ByteSource& source);
  const RelayStats& stats() const noexcept;
  // Every subscriber heard from in the last second asked for bytes past the end of what the
  // relay has (it fetched everything): a host that closed its recording may stop then.
  bool subscribers_have_everything() const noexcept;
  // At a match's end, after the host closed its recording: keeps polling `source` every 10 ms
  // until every watcher fetched the end (half a second of polls with everything fetched), a
  // poll fails, or `linger_us` passed. Returns the number of polls made.
  std::uint32_t finish(replay::ByteSource& source, std::uint64_t linger_us);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct RelaySourceStats {
  std::uint64_t requests_sent = 0;
  std::uint64_t data_received = 0;  // DATA datagrams accepted
  std::uint64_t challenges = 0;     // CHALLENGEs answered (a cookie round trip each)
  std::uint64_t dropped = 0;        // malformed, other session, failed tag, out of the window, unbound
  std::uint64_t unbound = 0;        // of those: authentic but without this watcher's nonce
};

// A watcher left one relay for the next one it was given (RelaySource::add_fallback).
struct RelaySwitch {
  std::string from;       // "HOST:PORT" left
  std::string to;         // "HOST:PORT" now watched
  std::uint64_t byte = 0;  // the bytes held then (the new relay serves from there, once it agrees)
  bool full = false;      // the relay refused (all of its slots taken), else it went silent
  std::uint64_t silent_us = 0;  // how long it had been silent
};

// A watcher's view of a relay: a ByteSource that fetches the stream from a RelayServer,
// keeps every byte it fetched (so a RelayServer can serve it onward), and re-asks on loss.
class RelaySource final : public replay::ByteSource {
 public:
  RelaySource();
  ~RelaySource() override;
  // `relay`: the relay's HOST:PORT; `config.bind` is this watcher's socket (port 0: any).
  bool open(const std::string& relay, const RelayConfig& config, std::string& error);
  // Another relay serving the same recording (after open), taken in the order given when the
  // current one goes silent for config.failover_ms or refuses (full). The new relay's stream is
  // fetched again from byte 0 and compared with the bytes held: only once they agree does it
  // bring new bytes; a relay whose bytes differ is refused (read fails, naming the byte), never
  // spliced. Without fallbacks nothing changes (silence is watch_recording's idle timeout).
  bool add_fallback(const std::string& relay, std::string& error);
  const std::vector<RelaySwitch>& switches() const noexcept;
  replay::ReplayStatus read(std::uint64_t offset, std::span<std::byte> out, std::size_t& got) override;
  std::string describe() const override;
  std::uint64_t fetched_bytes() const noexcept;
  // Everything the relay had when it first answered has arrived.
  bool caught_up() const noexcept;
  // A message of the relay's (CHALLENGE, DATA or FULL) for this watcher arrived and
  // authenticated. A relay drops requests it cannot authenticate without a word, so one that
  // never answered has another match key or session id than this watcher, speaks another relay
  // wire (an "LSR1" relay of 0.2), or is not at that address.
  bool answered() const noexcept;
  const RelaySourceStats& stats() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The recording so far (its complete blocks), fetched through `source` until it caught up with
// the relay (a rejoining peer's history: replay/resume.h). Errors: the source's, the
// recording's (offset, tick), or nothing usable within `timeout_ms` (when the relay never
// answered: relay_never_answered's text).
replay::ReplayStatus fetch_recording(RelaySource& source, std::uint32_t timeout_ms, replay::Replay& out);

// Why `source` got nothing in `waited_us`, when its relay never answered: "relay H:P never
// answered (N requests in S s): its match key or session id differs from this one, or no relay
// listens at that address".
std::string relay_never_answered(const RelaySource& source, std::uint64_t waited_us);

struct WatchOptions {
  std::uint64_t delay_ticks = 0;          // the follower's delay (FollowOptions::delay_ticks)
  std::uint64_t poll_us = 20000;          // pause between polls when caught up
  std::uint64_t max_us = 3600000000;      // give up after this long (WatchResult::timed_out)
  std::uint64_t idle_timeout_us = 30000000;  // give up when the recording does not grow this long
  // Called when a RelaySource switched relays, with the tick the follower was at.
  std::function<void(const RelaySwitch&, std::uint64_t tick)> on_relay_switch;
};

struct WatchResult {
  replay::ReplayStatus status = replay::ReplayStatus::Ok();  // the follower's error, if any
  bool timed_out = false;   // max_us passed before the follower finished
  bool idle = false;        // the recording stopped growing without an END block (status says so)
  bool relay_silent = false;  // idle, and the source is a relay that never answered (status says so)
  std::uint64_t lag_max = 0;  // ticks behind the newest recorded tick, at most (once caught up, while live)
};

// A watcher's loop: polls `follower` on `source` (and `onward`, when not null, serves what was
// fetched to its own watchers) until the recording is finished, the follower fails, max_us
// passes or the recording stops growing for idle_timeout_us (a Mismatch status naming
// the source, the whole seconds and the tick; relay_never_answered's text when the source is
// a RelaySource that never answered); then lets `onward`'s watchers fetch the end (at most
// 1000 polls of 10 ms). Sleeps poll_us whenever a poll brought the follower no further. Not on
// a game's tick path.
WatchResult watch_recording(replay::ReplayFollower& follower, replay::ByteSource& source, RelayServer* onward,
                            const WatchOptions& options);

// What the caller decided about a finished watch, for watch_report.
struct WatchOutcome {
  int exit_code = 0;        // the tool's: 0 ok, 1 the state differs or timed out, 2 bad input
  std::string failure;      // "" or why
  std::string record;       // the copy written ("" none)
  std::uint64_t delay_ticks = 0;
  std::uint64_t lag_max = 0;  // WatchResult::lag_max
};

// The stdout text of `lockstep spectate --follow/--host` after watch_recording, ending in '\n':
// "followed SOURCE from tick A to B: N ticks checked against the recording[ (FAILED)], final
// hash H", or with `json` one object: ok, exit, source, sim, start_tick, tick, recorded_ticks,
// checked_ticks, complete, checkpoints, delay_ticks, lag_max_ticks, final_hash, record,
// relay_requests + relay_dropped (with `relayed`), relay + relay_watchers_max (with `onward`),
// error.
std::string watch_report(const replay::ReplayFollower& follower, const replay::ByteSource& source,
                         const RelaySource* relayed, const RelayServer* onward, const WatchOutcome& outcome, bool json);

}  // namespace lockstep::rollback
