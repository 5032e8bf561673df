#include <lockstep/rollback/desync_bundle.h>
#include <lockstep/rollback/match_loop.h>

#include <algorithm>
#include <cstdio>
#include <thread>

namespace lockstep::rollback {

namespace {

std::string hex16(std::uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

// The differing part is named even when the totals agree: a report can differ in a component
// hash only (a forged or damaged one), and "X != X" tells nobody anything.
std::string describe_desync(RollbackSession& session, const SessionEvent& e) {
  std::string parts =
      describe_hash_diff(session.desync_local_hash(), session.desync_remote_hash(), session.runner().world().storage());
  const std::size_t colon = parts.find(": ");
  if (colon != std::string::npos) parts = parts.substr(colon + 2);
  return "tick " + std::to_string(e.tick) + " vs peer " + std::to_string(e.peer) + ": ours " + hex16(e.local_total) +
         " theirs " + hex16(e.remote_total) + ": " + parts;
}

}  // namespace

MatchLoop::MatchLoop(RollbackSession& session, const MatchLoopConfig& config)
    : session_(session), config_(config), input_(session.runner().sim().input_type().size) {
  config_.catchup_speed = std::max<std::uint32_t>(config_.catchup_speed, 1);
}

void MatchLoop::attach_state_exchange(StateExchange& exchange) {
  exchange_ = &exchange;
  // The remote asks for the tick of its own Desync event: the kept desync state when it is that
  // tick, else the kept checkpoint.
  RollbackSession& session = session_;
  exchange.serve([&session](std::uint64_t t) -> const Snapshot* {
    if (session.has_desync() && session.desync_tick() == t && session.desync_snapshot() != nullptr)
      return session.desync_snapshot();
    return session.checkpoint(t);
  });
}

void MatchLoop::frame_as_spectator(Status& st) {
  // Only confirmed ticks are simulated (max_prediction 0); once the players reached the end,
  // everything is confirmed: play it out.
  std::uint64_t lead = 0;
  for (std::uint32_t p = 0; p < session_.runner().config().players; ++p)
    lead = std::max(lead, session_.peer_status(session_.config().owner[p]).remote_tick);
  const std::uint64_t end = config_.end_tick;
  std::uint64_t target = lead > config_.spectator_delay_ticks ? lead - config_.spectator_delay_ticks : 0;
  if (end != 0 && lead >= end) target = end;
  const std::uint64_t behind = target > session_.current_tick() ? target - session_.current_tick() : 0;
  const std::uint32_t steps = behind > std::uint64_t{2} * config_.catchup_speed ? config_.catchup_speed : 1;
  bool advanced = true;
  for (std::uint32_t k = 0; k < steps && st.ok() && advanced && session_.current_tick() < target; ++k)
    st = session_.advance(&advanced);
  if (st.ok() && (!advanced || session_.current_tick() >= target)) st = session_.poll();
}

void MatchLoop::frame_as_player(MatchHost& host, Status& st) {
  const std::uint64_t end = config_.end_tick;
  for (std::uint32_t p = 0; p < session_.runner().config().players && st.ok(); ++p) {
    if (!session_.is_local(p) || !session_.wants_local_input(p)) continue;
    const std::uint64_t tick = session_.local_input_tick(p);
    if (end != 0 && tick >= end) continue;
    std::fill(input_.begin(), input_.end(), std::byte{0});
    host.local_input(p, tick, input_);
    st = session_.add_local_input(p, input_);
  }
  if (st.ok()) st = session_.advance();
}

void MatchLoop::take_events(MatchHost& host) {
  SessionEvent e;
  while (session_.poll_event(e)) {
    switch (e.kind) {
      case SessionEventKind::WaitRecommendation: skip_ += e.frames; break;
      case SessionEventKind::Disconnected:
        if (e.peer != session_.config().local_peer) ++stats_.disconnects;
        break;
      case SessionEventKind::Desync:
        if (stats_.desyncs++ == 0) first_desync_ = describe_desync(session_, e);
        break;
      default: break;
    }
    host.on_event(e);
  }
}

Status MatchLoop::frame(std::uint64_t now_us, MatchHost& host) {
  now_us_ = now_us;
  session_.set_time(now_us);
  Status st;
  const bool feeding = config_.end_tick == 0 || session_.current_tick() < config_.end_tick;
  if (config_.spectator && session_.running()) {
    frame_as_spectator(st);
  } else if (session_.running() && feeding && skip_ == 0) {
    frame_as_player(host, st);
  } else {
    if (skip_ > 0) {
      --skip_;
      ++stats_.waited_frames;
    }
    st = session_.poll();
  }
  ++stats_.frames;
  take_events(host);
  if (exchange_ != nullptr) {
    if (!requested_ && session_.has_desync()) {
      exchange_->request(session_.desync_peer(), session_.desync_tick());
      requested_ = true;
      requested_at_us_ = now_us;
    }
    exchange_->poll();
  }
  if (session_.running()) stats_.max_frame_advantage_seen = std::max(stats_.max_frame_advantage_seen, session_.frame_advantage());
  if (!done_ && confirmed_to_end() && session_.inputs_acknowledged(config_.end_tick)) {
    done_ = true;
    done_at_us_ = now_us;
  }
  return st;
}

bool MatchLoop::confirmed_to_end() const noexcept {
  return config_.end_tick != 0 && session_.confirmed_tick() >= config_.end_tick;
}

bool MatchLoop::finished() const noexcept {
  if (!done_ || now_us_ - done_at_us_ < config_.linger_us) return false;
  // The remote's state of the desync tick is still on its way: stay (bounded).
  const bool fetching = requested_ && exchange_->result() == StateExchange::Result::Pending &&
                        now_us_ - requested_at_us_ < config_.exchange_wait_us;
  return !fetching;
}

DesyncBundles MatchLoop::desync_bundles(std::string_view source) {
  DesyncBundles out;
  if (!session_.has_desync()) return out;
  const std::string remote = "peer " + std::to_string(session_.desync_peer());
  if (exchange_ != nullptr) {
    // The desync may have surfaced on the last frame: ask now; either way wait, bounded.
    // lockstep: allow(time) frame pacing and a bounded diagnostic wait of the game loop, never simulated
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t waited_us = requested_ ? (now_us_ - requested_at_us_) : 0;
    if (!requested_) {
      exchange_->request(session_.desync_peer(), session_.desync_tick());
      requested_ = true;
    }
    while (exchange_->result() == StateExchange::Result::Pending && waited_us < config_.exchange_wait_us) {
      exchange_->poll();
      // lockstep: allow(time) frame pacing and a bounded diagnostic wait of the game loop, never simulated
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      waited_us = (requested_ ? now_us_ - requested_at_us_ : 0) +
                  static_cast<std::uint64_t>(
                      // lockstep: allow(time) frame pacing and a bounded diagnostic wait of the game loop, never simulated
                      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
    }
  }
  inspect::Bundle first = session_desync_bundle(session_, nullptr, source);
  const StateExchange::Result result = exchange_ != nullptr ? exchange_->result() : StateExchange::Result::Idle;
  switch (result) {
    case StateExchange::Result::Received:
      if (exchange_->state().tick != first.tick) {  // an earlier divergent tick was reported after the request
        out.note = remote + " sent tick " + std::to_string(exchange_->state().tick) +
                   ", not the earliest divergent tick: its hashes only";
        break;
      }
      first.sides[1].has_state = true;
      first.sides[1].state = exchange_->state();
      out.remote_state = true;
      out.note = "with " + remote + "'s state";
      break;
    case StateExchange::Result::Unavailable:
      out.note = remote + " no longer keeps tick " + std::to_string(session_.desync_tick()) + ": its hashes only";
      break;
    case StateExchange::Result::Failed:
      out.note = remote + "'s state could not be read (" + exchange_->error() + "): its hashes only";
      break;
    case StateExchange::Result::Idle: out.note = "no state exchange: its hashes only"; break;
    default:
      out.note = "no answer from " + remote + " within " + std::to_string(config_.exchange_wait_us / 1000) +
                 " ms: its hashes only";
      break;
  }
  out.bundles.push_back(std::move(first));
  // The next kept desyncs: this peer's state and the remote's hashes (how the divergence grew).
  for (std::uint32_t i = 1; i < session_.desync_count(); ++i)
    out.bundles.push_back(session_desync_bundle(session_, nullptr, source, i));
  return out;
}

FramePacer::FramePacer(std::uint32_t frames_per_second)
    : start_(Clock::now()),
      next_(start_),
      // lockstep: allow(time) frame pacing and a bounded diagnostic wait of the game loop, never simulated
      period_(std::chrono::duration_cast<Clock::duration>(
          // lockstep: allow(time) frame pacing and a bounded diagnostic wait of the game loop, never simulated
          std::chrono::nanoseconds(1000000000LL / std::max<std::uint32_t>(frames_per_second, 1)))) {}

std::uint64_t FramePacer::now_us() const {
  // lockstep: allow(time) frame pacing and a bounded diagnostic wait of the game loop, never simulated
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_).count());
}

void FramePacer::wait_next_frame() {
  next_ += period_;
  const auto after = Clock::now();
  if (next_ < after - period_ * 4) next_ = after;  // fell far behind (stalled): do not burst
  std::this_thread::sleep_until(next_);
}

const char* peer_state_name(PeerState s) noexcept {
  switch (s) {
    case PeerState::Local: return "local";
    case PeerState::Synchronizing: return "syncing";
    case PeerState::Running: return "running";
    case PeerState::Interrupted: return "interrupted";
    case PeerState::Disconnected: return "disconnected";
  }
  return "?";
}

}  // namespace lockstep::rollback
