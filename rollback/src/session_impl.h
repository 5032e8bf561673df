#pragma once
// RollbackSession's state and the members every part of it shares (rollback/session.h). The
// member functions live by concern: session.cpp (construction, simulation, rollback,
// confirmation, the frame), session_send.cpp (outgoing messages, incoming inputs),
// session_receive.cpp (authentication, validation and dispatch of incoming messages),
// session_peers.cpp (handshake, disconnects, time sync), session_hash.cpp (hash reports,
// desync detection). Private to the rollback module; nothing here allocates after init().
#include <lockstep/rollback/session.h>

#include "session_wire.h"
#include "wire_auth.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

namespace lockstep::rollback {

using namespace session_wire;

constexpr std::uint64_t kNoTick = ~std::uint64_t{0};
constexpr std::uint32_t kEventCapacity = 64;
constexpr std::uint32_t kMaxReceivePerPoll = 4096;
constexpr std::uint32_t kMaxChunksPerSend = 4;
constexpr std::uint32_t kMaxReportSlots = 256;  // kept report slots (checked by init())

struct RollbackSession::Impl {
  struct Pending {
    bool valid = false;
    std::uint32_t peer = 0;
    StateHash hash{};
  };

  replay::Runner& runner;
  World& world;
  SessionConfig cfg;
  Transport* transport;
  Status status;
  const TypeDescriptor* input_type = nullptr;

  std::uint32_t players = 0, input_size = 0, frame_bytes = 0;
  std::uint32_t window = 0;      // W: max predicted ticks
  std::uint32_t delay = 0;       // D
  std::uint32_t interval = 0;    // K
  std::uint32_t kept = 0;        // M
  std::uint32_t ring_ticks = 0;  // Q
  std::uint32_t hash_slots = 0;  // H
  std::uint32_t all_mask = 0, local_mask = 0;
  std::uint32_t max_chunk = 0;   // inputs per message

  // Input ring: slot = tick % Q.
  std::vector<std::uint64_t> slot_tick;
  std::vector<std::uint32_t> known;
  std::vector<std::byte> input;  // real inputs (host order), Q × frame_bytes
  std::vector<std::byte> used;   // the frame each simulated tick used
  std::vector<std::byte> last_confirmed;  // per player: input at frontier − 1 (the prediction)
  std::array<std::uint64_t, kMaxSessionPlayers> frontier{};
  std::array<std::array<std::uint64_t, kMaxSessionPlayers>, kMaxSessionPeers> acked{};
  std::array<std::uint64_t, kMaxSessionPeers> remote_tick{};

  std::uint64_t emitted = 0;  // confirmed_tick()
  std::uint64_t first_incorrect = kNoTick;

  std::unique_ptr<SnapshotRing> ring;
  std::vector<StateHash> hash_ring;
  std::vector<std::uint64_t> hash_tick;

  // Confirmed-tick checkpoints and our hash reports, slot = (tick / K) % M.
  std::vector<Snapshot> ckpt;
  std::vector<std::uint64_t> ckpt_tick;
  std::vector<StateHash> report;
  std::vector<std::uint64_t> report_tick;
  std::vector<std::uint32_t> report_sends;  // frames each report is still to be sent
  std::vector<Pending> pending;
  // Per peer: the report ticks (as tick / K + 1) already compared or queued, so a repeated
  // report is compared once and an older one arriving late is still compared.
  std::array<wire::ReplayWindow, kMaxSessionPeers> seen_reports{};

  std::array<SessionEvent, kEventCapacity> events{};
  std::uint32_t event_head = 0, event_count = 0;
  SessionStats stats{};
  ConfirmedSink* sink = nullptr;

  // Kept desyncs, ascending tick; desync_snaps[i] belongs to desyncs[i] when snap_valid[i].
  std::vector<DesyncRecord> desyncs;        // capacity kept_desyncs, reserved
  std::vector<Snapshot> desync_snaps;       // kept_desyncs snapshots, reserved
  std::vector<std::uint8_t> desync_snap_valid;

  // ---- life cycle and time sync (per remote peer) ----
  struct Link {
    bool ready = false;  // handshake done
    bool gone = false;   // declared disconnected (by us or by another peer)
    bool interrupted = false;
    bool incarnation_known = false;
    std::uint32_t incarnation = 0;
    std::uint32_t sync_done = 0;
    std::uint64_t nonce = 0;         // our outstanding handshake nonce to that peer
    std::uint64_t send_seq = 0;      // last sequence number we sent it
    wire::ReplayWindow window;       // its sequence numbers (of its known incarnation)
    std::uint32_t received = 0;      // messages from it in this poll (receive budget)
    std::uint64_t last_heard = 0;
    bool echo_valid = false;
    std::uint32_t echo = 0;  // its clock in its last message
    std::uint64_t echo_at = 0;
    std::uint32_t rtt = 0;
    std::int64_t adv_sum = 0;
    std::uint32_t adv_n = 0;
    std::int32_t advantage = 0;
    std::uint32_t their_gone = 0;  // peers it declared disconnected
    // Messages of this incarnation numbered below this are from before a rejoin: ignored (an
    // old "you are disconnected" must not expel the rejoined peer).
    std::uint64_t min_seq = 0;
    // Survivor side of a rejoin: the return tick and the rejoiner's start tick we answered
    // with (a repeated request gets the same answer). kNoTick: none.
    std::uint64_t rejoin_return = ~std::uint64_t{0};
    std::uint64_t rejoin_start = 0;
    // The take-back count in its newest header (session_wire.h): while it is behind ours, the
    // peer has not applied our latest REJOIN_NOTICE yet.
    std::uint8_t takebacks = 0;
    // Rejoiner side: the freshness cookie the survivor sent for our outstanding nonce
    // (kRejectProveFresh); the next requests carry it. Dropped with the nonce.
    bool has_cookie = false;
    std::array<std::byte, wire::kCookieBytes> cookie{};
  };
  std::array<Link, kMaxSessionPeers> link{};
  // MAC keys per link (kept apart from Link, which a rejoin resets): with a MatchIdentity each
  // direction of each pair has its own, else both are the match key.
  std::array<MatchKey, kMaxSessionPeers> send_key{}, receive_key{};
  // seen[q][p]: the highest frontier of player p that peer q reported (what it has of p).
  std::array<std::array<std::uint64_t, kMaxSessionPlayers>, kMaxSessionPeers> seen{};
  std::uint32_t gone_mask = 0;     // peers declared disconnected
  std::uint32_t dropped_mask = 0;  // players whose disconnect tick is agreed
  std::array<std::uint64_t, kMaxSessionPlayers> drop_tick{};
  // A dropped player that rejoined plays again from return_tick (kNoTick: still absent): its
  // input is the default on [drop_tick, return_tick) only.
  std::array<std::uint64_t, kMaxSessionPlayers> return_tick{};
  // Rejoins applied (REJOIN_NOTICE), mod 256, and the latest one, repeated to every surviving
  // peer still behind it.
  std::uint8_t takebacks = 0;
  struct TakeBack {
    std::uint32_t rejoiner = 0, incarnation = 0;
    std::uint64_t r = 0, history_start = 0;
    std::array<std::uint64_t, kMaxSessionPlayers> drop{};
  };
  TakeBack last_takeback{};
  bool rejoin_accepted = false;  // rejoiner: a survivor's acceptance set the match's state
  bool is_running = false;
  bool expelled = false;
  bool clock_started = false;
  std::uint64_t now = 0, start = 0;
  std::uint32_t wait_cooldown = 0;
  std::uint64_t frames = 0;  // advance()/poll() calls
  bool authenticated = false;
  std::uint32_t budget = kDefaultReceiveBudget;

  std::vector<StateHash> sync_expected;
  std::array<std::byte, kMaxMessageBytes> msg{};
  std::vector<std::byte> canon;    // one frame, canonical
  std::vector<std::byte> scratch;  // one input struct

  Impl(replay::Runner& r, const SessionConfig& c, Transport* t) : runner(r), world(r.world()), cfg(c), transport(t) {}

  // ---- helpers --------------------------------------------------------------------------
  std::uint32_t slot(std::uint64_t t) const noexcept { return static_cast<std::uint32_t>(t % ring_ticks); }
  bool has(std::uint64_t t) const noexcept { return slot_tick[slot(t)] == t; }
  std::byte* input_at(std::uint64_t t, std::uint32_t p) noexcept {
    return input.data() + std::size_t{slot(t)} * frame_bytes + std::size_t{p} * input_size;
  }
  std::byte* used_at(std::uint64_t t) noexcept { return used.data() + std::size_t{slot(t)} * frame_bytes; }
  bool is_local(std::uint32_t p) const noexcept { return p < players && ((local_mask >> p) & 1u) != 0; }
  std::uint64_t current() const noexcept { return world.tick(); }
  bool dropped(std::uint32_t p) const noexcept { return ((dropped_mask >> p) & 1u) != 0; }
  // Dropped and not (yet) back: no inputs of it are taken or waited for.
  bool absent(std::uint32_t p) const noexcept { return dropped(p) && return_tick[p] == kNoTick; }
  // Tick t of player p uses the default input (all zero bytes), known to every peer.
  bool default_at(std::uint32_t p, std::uint64_t t) const noexcept {
    return dropped(p) && t >= drop_tick[p] && t < return_tick[p];
  }
  // A rejoiner's own player before its return tick: its inputs are history (sent by the
  // survivor) or the default, never given locally.
  bool not_ours_yet(std::uint32_t p, std::uint64_t t) const noexcept {
    return cfg.rejoin && is_local(p) && (return_tick[p] == kNoTick || t < return_tick[p]);
  }
  bool live(std::uint32_t q) const noexcept { return q != cfg.local_peer && !link[q].gone; }
  // Peer q has not applied the newest take-back we applied (its count is behind ours, mod 256).
  bool behind(std::uint32_t q) const noexcept {
    const std::uint8_t d = static_cast<std::uint8_t>(takebacks - link[q].takebacks);
    return d != 0 && d < 128;
  }
  // Time sync only paces us against peers that play: a spectator may run as far behind as
  // it likes, nobody waits for it.
  bool plays(std::uint32_t q) const noexcept {
    for (std::uint32_t p = 0; p < players; ++p)
      if (cfg.owner[p] == q) return true;
    return false;
  }
  // A player whose owner is gone but whose disconnect tick is not agreed yet: its inputs are
  // relayed between the remaining peers until they all hold the same ones.
  bool relaying(std::uint32_t p) const noexcept {
    return !absent(p) && !is_local(p) && ((gone_mask >> cfg.owner[p]) & 1u) != 0;
  }
  // A dropped player's inputs are known (the default) for every tick from its drop tick on.
  std::uint64_t min_frontier() const noexcept {
    std::uint64_t c = kNoTick;
    for (std::uint32_t p = 0; p < players; ++p)
      if (!absent(p)) c = std::min(c, frontier[p]);
    return c;
  }
  // The frontier of `p` as reported to other peers.
  std::uint64_t reported_frontier(std::uint32_t p) const noexcept {
    return absent(p) ? std::min(frontier[p], drop_tick[p]) : frontier[p];
  }
  // Oldest input some connected peer may still need from us: its acknowledgement of our
  // players, and what it reported of the other players.
  std::uint64_t min_ack() const noexcept {
    std::uint64_t m = kNoTick;
    for (std::uint32_t q = 0; q < cfg.peers; ++q) {
      if (!live(q)) continue;
      for (std::uint32_t p = 0; p < players; ++p) {
        if (is_local(p)) {
          m = std::min(m, acked[q][p]);
        } else if (!absent(p)) {
          // Kept until every connected peer has them too: if p's owner disconnects, the
          // others relay them (see check_agreement).
          m = std::min(m, std::min(seen[q][p], frontier[p]));
        }
      }
    }
    return m;
  }
  // True when tick t has (or may take) its ring slot without losing anything still needed:
  // the slot's old tick must be confirmed and acknowledged by every peer.
  bool can_claim(std::uint64_t t) const noexcept {
    const std::uint64_t old = slot_tick[slot(t)];
    if (old == t || old == kNoTick) return true;
    if (old > t) return false;  // t is older than the ring
    return old < emitted && old < min_ack();
  }
  void claim(std::uint64_t t) noexcept {
    const std::uint32_t s = slot(t);
    if (slot_tick[s] == t) return;
    slot_tick[s] = t;
    known[s] = 0;
    std::memset(input.data() + std::size_t{s} * frame_bytes, 0, frame_bytes);
    std::memset(used.data() + std::size_t{s} * frame_bytes, 0, frame_bytes);
    if (dropped_mask == 0) return;
    for (std::uint32_t p = 0; p < players; ++p) {
      if (!default_at(p, t)) continue;
      known[s] |= 1u << p;  // the default input: all zero bytes, already in place
      advance_frontier(p);
    }
  }
  void advance_frontier(std::uint32_t p) noexcept {
    while (has(frontier[p]) && ((known[slot(frontier[p])] >> p) & 1u) != 0) {
      std::memcpy(last_confirmed.data() + std::size_t{p} * input_size, input_at(frontier[p], p), input_size);
      ++frontier[p];
    }
  }
  void push_event(const SessionEvent& e) noexcept {
    if (event_count == kEventCapacity) {
      event_head = (event_head + 1) % kEventCapacity;
      --event_count;
      ++stats.events_dropped;
    }
    events[(event_head + event_count) % kEventCapacity] = e;
    ++event_count;
  }
  Status fail(Status s) noexcept {
    if (status.ok()) status = s;
    return s;
  }

  // ---- construction -----------------------------------------------------------------------
  Status init();

  // ---- simulation -----------------------------------------------------------------------
  void save_checkpoint(std::uint64_t t) noexcept;

  // Simulates tick `t` (== current()) with known inputs and predictions for the rest.
  // `saved`: the ring already holds this state (the first tick after a load).
  Status simulate(std::uint64_t t, bool saved = false) noexcept;

  Status rollback() noexcept;

  // Hands newly final frames to the sink and makes hash reports.
  Status confirm() noexcept;

  void make_report(std::uint64_t t) noexcept;

  // Raises the Desync event and keeps the evidence when the tick is among the earliest
  // kept_desyncs seen; `state` (may be null) is this peer's snapshot of that tick, swapped in
  // (no copy, no allocation) — it receives the evicted record's snapshot or an empty one.
  void record_desync(std::uint32_t peer, std::uint64_t tick, const StateHash& mine, const StateHash& theirs,
                     const HashDiff& d, Snapshot* state = nullptr) noexcept;

  void compare(std::uint32_t peer, const StateHash& theirs, std::uint32_t m) noexcept;

  // Sync test: roll back `distance` ticks, resimulate, compare with the first simulation.
  void sync_check() noexcept;

  StallReason can_step() const noexcept;

  // ---- network ----------------------------------------------------------------------------
  std::int32_t local_advantage(std::uint32_t q) const noexcept;
  void write_header(std::uint8_t type, std::uint32_t dest) noexcept;
  // Appends the trailer (sequence number, MAC) to the `size` bytes built in msg and sends.
  void transmit(std::uint32_t peer, std::uint32_t size) noexcept;
  // `cookie` (kCookieBytes, or null: zero): a SYNC_REQUEST's or a kRejectProveFresh's.
  void send_sync(std::uint32_t peer, std::uint8_t type, std::uint64_t nonce, std::uint32_t round,
                 std::uint64_t reason = 0, const std::byte* cookie = nullptr) noexcept;
  void send_rejoin_accept(std::uint32_t peer, std::uint64_t nonce) noexcept;
  void send_inputs(std::uint32_t peer, std::uint32_t player, std::uint64_t first, std::uint32_t count) noexcept;
  void send_report(std::uint32_t peer, std::uint32_t m) noexcept;
  // Every report still to be sent, oldest tick first.
  void send_reports(std::uint32_t peer) noexcept;
  // Sends player p's inputs [from, to) to `peer` in at most kMaxChunksPerSend messages.
  bool send_range(std::uint32_t q, std::uint32_t p, std::uint64_t from, std::uint64_t to) noexcept;
  void send() noexcept;

  void on_input(std::uint32_t from, const std::byte* b, std::uint32_t size) noexcept;

  // ---- life cycle ---------------------------------------------------------------------------
  void push_peer_event(SessionEventKind kind, std::uint32_t peer) noexcept;
  void declare_gone(std::uint32_t q) noexcept;
  // The disconnect tick of a gone peer's player p is agreed when every connected peer has
  // declared the owner gone and reports the same frontier of p as ours: from then on no peer
  // can learn more of p's inputs (direct messages from a gone peer are ignored, relays only
  // spread what connected peers hold), so every peer settles on the same tick — the highest
  // frontier any connected peer had — and uses the default input from there on.
  void check_agreement() noexcept;
  void drop_player(std::uint32_t p, std::uint64_t d) noexcept;
  void expel() noexcept;

  // True when a handshake reply or rejection answers the request we have outstanding to
  // `from`: we are still synchronizing with it and it echoes that request's nonce. Anything
  // else (late, duplicated, replayed, or forged by someone who never saw our request) is
  // counted and ignored: a running session never aborts on an unsolicited rejection.
  bool solicited(std::uint32_t from, std::uint64_t nonce) noexcept;

  void on_sync(std::uint32_t from, std::uint8_t type, const std::byte* b, std::uint32_t size) noexcept;

  // ---- rejoin (docs/rollback.md, "Rejoin") ---------------------------------------------------
  // Survivor: a restarted process of peer `from` (incarnation `incarnation`, history up to
  // `history_end`) asks to play again; `body` is its SYNC_REQUEST's. Accepts (REJOIN_ACCEPT)
  // only when the request carries the cookie made for it, else answers with one
  // (kRejectProveFresh) or refuses with a reason.
  void on_rejoin_request(std::uint32_t from, std::uint32_t incarnation, std::uint64_t history_end,
                         const std::byte* body) noexcept;
  // The cookie for a rejoin request in cookie epoch `epoch` (session_wire.h): the secret is
  // drawn lazily, one per session.
  void rejoin_cookie(std::uint32_t from, std::uint32_t incarnation, std::uint64_t drop, std::uint64_t history_end,
                     std::uint64_t nonce, std::uint64_t epoch, std::byte out[wire::kCookieBytes]) noexcept;
  bool cookie_secret_drawn = false;
  wire::CookieSecret cookie_secret{};
  // Rejoiner: the survivor's answer; `seq` is its sequence number (older messages are ignored).
  void on_rejoin_accept(std::uint32_t from, const std::byte* b, std::uint64_t seq) noexcept;
  void push_rejoined(std::uint32_t peer, std::uint64_t tick) noexcept;
  // The survivor that chooses `rejoiner`'s return tick: the lowest-numbered peer other than
  // the rejoiner that plays and is connected in our view (possibly us); peers if none.
  std::uint32_t sponsor_of(std::uint32_t rejoiner) const noexcept;
  // We still hold every input of ours the rejoiner we took back needs: from its start tick S
  // up to its return tick R.
  bool serves_history(std::uint32_t rejoiner) const noexcept;
  // Takes `rejoiner` (a new process, `incarnation`, history up to `start`) back: its players
  // were dropped at drop[p] and play again from `r` (every survivor applies the same one,
  // counted in `takebacks`).
  void take_back(std::uint32_t rejoiner, std::uint32_t incarnation, std::uint64_t r, std::uint64_t history_start,
                 const std::array<std::uint64_t, kMaxSessionPlayers>& drop) noexcept;
  void send_rejoin_notice(std::uint32_t peer) noexcept;
  void on_rejoin_notice(std::uint32_t from, const std::byte* b, std::uint32_t size) noexcept;

  void on_hash(std::uint32_t from, const std::byte* b, std::uint32_t size) noexcept;

  void receive() noexcept;

  // Handshake timeout, interruption / disconnect detection, time sync: once per frame.
  void check_peers() noexcept;

  Status frame(bool step, bool* advanced) noexcept;
};

}  // namespace lockstep::rollback
