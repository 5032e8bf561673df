// Netsim (replay/netsim.h): every peer of a match in one process over a SimNetwork.
#include <lockstep/rollback/netsim.h>

#include <lockstep/hash/state_hash.h>
#include <lockstep/store/snapshot.h>

#include <algorithm>
#include <string>

namespace lockstep::rollback {

namespace {
constexpr std::size_t kMaxRecordedDesyncs = 64;
}

Netsim::Netsim(const NetsimOptions& options) : options_(options) {
  if (options_.sim == nullptr) {
    status_ = {ErrorCode::InvalidArgument, "netsim: no sim"};
    return;
  }
  if (options_.peers < 1 || options_.peers > kMaxSessionPeers) {
    status_ = {ErrorCode::InvalidArgument, "netsim: peers must be 1..16"};
    return;
  }
  if (options_.config.players == 0 || options_.config.players > options_.peers) {
    status_ = {ErrorCode::InvalidArgument, "netsim: players must be 1..peers (one player per peer)"};
    return;
  }
  if (options_.tick_hz == 0 || options_.tick_hz > 1000) {
    status_ = {ErrorCode::InvalidArgument, "netsim: tick rate must be 1..1000 Hz"};
    return;
  }
  SimNetworkConfig nc;
  nc.peers = options_.peers;
  nc.conditions = options_.network;
  nc.seed = options_.network_seed;
  network_ = std::make_unique<SimNetwork>(nc);
  const replay::Sim& sim = *options_.sim;
  for (std::uint32_t i = 0; i < options_.peers; ++i) {
    auto peer = std::make_unique<Peer>();
    peer->runner = std::make_unique<replay::Runner>(sim, options_.config);
    if (!peer->runner->status().ok()) {
      status_ = peer->runner->status();
      return;
    }
    if (options_.threads > 0) peer->runner->setThreads(options_.threads);
    SessionConfig sc = SessionConfig::one_player_per_peer(options_.peers, options_.config.players, i);
    sc.input_delay = options_.input_delay;
    sc.max_prediction = options_.max_prediction;
    sc.hash_interval = options_.hash_interval;
    sc.session_id = static_cast<std::uint32_t>(options_.network_seed);
    sc.security = options_.security;
    sc.match_key = insecure_test_key(sc.session_id);
    peer->session = std::make_unique<RollbackSession>(*peer->runner, sc, &network_->endpoint(i));
    if (!peer->session->status().ok()) {
      status_ = peer->session->status();
      return;
    }
    peer->log = std::make_unique<ReplayLogSink>(*peer->runner);
    peer->session->set_confirmed_sink(peer->log.get());
    peer->bots.resize(options_.config.players);
    for (std::uint32_t p = 0; p < options_.config.players; ++p)
      if (peer->session->is_local(p)) peer->bots[p] = sim.make_bot(options_.config, options_.bot_seed, p);
    peers_.push_back(std::move(peer));
  }
}

Netsim::~Netsim() = default;

const NetsimReport& Netsim::run() {
  if (!status_.ok()) return report_;
  const std::uint64_t ticks = options_.ticks;
  const std::uint64_t max_frames = options_.max_frames != 0 ? options_.max_frames : 40 * ticks + 3600;
  const std::uint32_t in = options_.sim->input_type().size;
  std::vector<std::byte> buf(in);
  std::uint64_t frame = 0;
  bool done = false;
  for (; frame < max_frames && !done; ++frame) {
    network_->advance_to(frame * 1000000 / options_.tick_hz);
    done = true;
    for (std::uint32_t i = 0; i < options_.peers; ++i) {
      Peer& peer = *peers_[i];
      RollbackSession& s = *peer.session;
      Status st;
      if (s.current_tick() < ticks) {
        for (std::uint32_t p = 0; p < options_.config.players; ++p) {
          if (peer.bots[p] == nullptr || !s.wants_local_input(p)) continue;
          peer.bots[p]->generate(s.local_input_tick(p), peer.runner->world(), buf);
          st = s.add_local_input(p, buf);
          if (!st.ok()) break;
        }
        if (st.ok()) st = s.advance();
      } else {
        st = s.poll();
      }
      if (!st.ok()) {
        status_ = st;
        return report_;
      }
      SessionEvent e;
      while (s.poll_event(e)) {
        if (e.kind != SessionEventKind::Desync) continue;
        ++report_.desync_count;
        if (report_.desyncs.size() < kMaxRecordedDesyncs) report_.desyncs.push_back({i, e});
      }
      if (s.confirmed_tick() < ticks) done = false;
    }
    watch_divergence();
  }
  report_.frames = frame;
  report_.finished = done;
  report_.network = network_->stats();
  for (std::uint32_t i = 0; i < options_.peers; ++i) {
    Peer& peer = *peers_[i];
    NetsimPeerReport pr;
    bool owns = false;
    for (std::uint32_t p = 0; p < options_.config.players; ++p) owns = owns || peer.session->is_local(p);
    pr.spectator = !owns;
    pr.stats = peer.session->stats();
    pr.current_tick = peer.session->current_tick();
    pr.confirmed_tick = peer.session->confirmed_tick();
    pr.final_hash = hash_world(peer.runner->world()).total;
    report_.rollbacks += pr.stats.rollbacks;
    report_.resimulated_ticks += pr.stats.resimulated_ticks;
    report_.stalls += pr.stats.stalls;
    report_.max_rollback_depth = std::max(report_.max_rollback_depth, pr.stats.max_rollback_depth);
    report_.peers.push_back(pr);
  }
  check_agreement();
  check_offline();
  return report_;
}

// Compares the newly confirmed ticks' hashes of every peer with peer 0's; at the first
// difference both peers' kept states of that tick are captured (allocates, once).
void Netsim::watch_divergence() {
  if (divergence_.found) return;
  divergence_checked_.resize(options_.peers, 0);
  const replay::Replay& ref = peers_[0]->log->replay();
  for (std::uint32_t i = 1; i < options_.peers; ++i) {
    const replay::Replay& r = peers_[i]->log->replay();
    const std::uint64_t n = std::min<std::uint64_t>(ref.hashes.size(), r.hashes.size());
    for (std::uint64_t t = divergence_checked_[i]; t < n; ++t) {
      if (ref.hashes[t] == r.hashes[t]) continue;
      divergence_.found = true;
      divergence_.tick = t;
      divergence_.peer_a = 0;
      divergence_.peer_b = i;
      const Snapshot* a = peers_[0]->session->checkpoint(t);
      const Snapshot* b = peers_[i]->session->checkpoint(t);
      if (a != nullptr && b != nullptr) {
        divergence_.states_kept = true;
        divergence_.a = inspect::capture(a->view());
        divergence_.b = inspect::capture(b->view());
        divergence_.hash_a = hash_storage(a->view());
        divergence_.hash_b = hash_storage(b->view());
      }
      keep_previous(t, i);
      return;
    }
    divergence_checked_[i] = n;
  }
}

// The peers' kept checkpoints of tick - 1 (the last agreeing tick), copied out of the
// sessions' rings before they are overwritten: each through its own world (the current state
// saved, the checkpoint loaded and saved, the current state loaded back — a rollback's round
// trip, so the match goes on unchanged), which keeps the snapshots trusted, views included.
void Netsim::keep_previous(std::uint64_t tick, std::uint32_t other) {
  if (tick == 0) return;
  Peer* const peers[2] = {peers_[0].get(), peers_[other].get()};
  const Snapshot* kept[2] = {peers[0]->session->checkpoint(tick - 1), peers[1]->session->checkpoint(tick - 1)};
  if (kept[0] == nullptr || kept[1] == nullptr) return;
  std::unique_ptr<Snapshot>* out[2] = {&previous_a_, &previous_b_};
  for (int k = 0; k < 2; ++k) {
    World& w = peers[k]->runner->world();
    Snapshot now(w);
    w.save(now);
    *out[k] = std::make_unique<Snapshot>(w);
    const bool copied = w.load(*kept[k]).ok();
    if (copied) w.save(**out[k]);
    if (!w.load(now).ok()) status_ = {ErrorCode::Internal, "netsim: a peer's state could not be restored"};
    if (!copied) return;
  }
  divergence_.previous_kept = true;
}

inspect::SystemSyncResult Netsim::rerun_by_system(const inspect::DiffOptions& options) {
  inspect::SystemSyncResult r;
  if (!divergence_.previous_kept || previous_a_ == nullptr || previous_b_ == nullptr) {
    r.status = {ErrorCode::InvalidArgument, "netsim: the states before the first divergent tick were not kept"};
    return r;
  }
  Peer& a = *peers_[divergence_.peer_a];
  Peer& b = *peers_[divergence_.peer_b];
  const std::uint64_t tick = divergence_.tick - 1;
  const replay::Replay& log = peers_[0]->log->replay();
  if (tick >= log.frame_count()) {
    r.status = {ErrorCode::InvalidArgument, "netsim: the confirmed inputs of that tick were not recorded"};
    return r;
  }
  std::vector<std::byte> frame(a.runner->frame_bytes());
  replay::Runner::copy_to_host(options_.sim->input_type(), log.frame(tick), frame);
  for (Peer* p : {&a, &b}) {
    const Status loaded = p->runner->world().load(p == &a ? *previous_a_ : *previous_b_);
    if (!loaded.ok()) {
      r.status = loaded;
      return r;
    }
  }
  std::vector<std::byte> unused(options_.sim->input_type().size);
  const auto input_layer = [&](std::uint32_t side) {
    Peer& p = side == 0 ? a : b;
    for (const std::unique_ptr<replay::Bot>& bot : p.bots)
      if (bot != nullptr) bot->generate(tick, p.runner->world(), unused);
  };
  return inspect::compare_tick_by_system(*a.runner, *b.runner, frame, options, input_layer);
}

// Every peer's confirmed history must equal peer 0's, frame by frame and hash by hash.
void Netsim::check_agreement() {
  const replay::Replay& ref = peers_[0]->log->replay();
  for (std::uint32_t i = 1; i < options_.peers && report_.peers_agree; ++i) {
    const replay::Replay& r = peers_[i]->log->replay();
    const std::uint64_t frames = std::min(ref.frame_count(), r.frame_count());
    const std::size_t ncomp = ref.header.components.size();
    for (std::uint64_t t = 0; t <= frames; ++t) {
      std::string what;
      if (t < frames && !std::equal(ref.frame(t).begin(), ref.frame(t).end(), r.frame(t).begin())) {
        what = "confirmed inputs differ";
      } else if (t < ref.hashes.size() && t < r.hashes.size() && !(ref.hashes[t] == r.hashes[t])) {
        what = "confirmed state hashes differ";
      } else if (ncomp != 0 && t < ref.hashes.size() && t < r.hashes.size()) {
        const auto a = ref.components_at(t);
        const auto b = r.components_at(t);
        for (std::size_t c = 0; c < ncomp && what.empty(); ++c)
          if (a[c] != b[c]) what = "component " + ref.header.components[c] + " differs";
      }
      if (!what.empty()) {
        report_.peers_agree = false;
        report_.disagreement_tick = t;
        report_.disagreement_peer = i;
        report_.disagreement = "peer " + std::to_string(i) + " vs peer 0 at tick " + std::to_string(t) + ": " + what;
        break;
      }
    }
  }
}

// A fresh world replaying peer 0's confirmed inputs must reproduce every recorded hash and
// every peer's final state.
void Netsim::check_offline() {
  const replay::Replay& ref = peers_[0]->log->replay();
  replay::Runner offline(*options_.sim, options_.config);
  if (!offline.status().ok()) {
    report_.offline_agrees = false;
    report_.offline_mismatch = std::string("cannot build the offline world: ") + offline.status().message();
    return;
  }
  const std::size_t ncomp = ref.header.components.size();
  auto check = [&](std::uint64_t t) {
    if (t >= ref.hashes.size()) return true;
    const StateHash& h = offline.hash();
    const replay::TickHash& th = ref.hashes[t];
    bool same = th.total == h.total && th.entities == h.entities && th.archetypes == h.archetypes &&
                th.resources == h.resources;
    const auto comps = ref.components_at(t);
    for (std::size_t c = 0; c < ncomp && same; ++c) same = comps[c] == h.components[c];
    if (!same) {
      report_.offline_agrees = false;
      report_.offline_tick = t;
      report_.offline_mismatch =
          "offline replay differs from the confirmed hash at tick " + std::to_string(t);
    }
    return same;
  };
  if (!check(0)) return;
  std::vector<std::byte> frame(ref.header.frame_bytes());
  for (std::uint64_t t = 0; t < ref.frame_count(); ++t) {
    replay::Runner::copy_to_host(options_.sim->input_type(), ref.frame(t), frame);
    const Status s = offline.step(frame);
    if (!s.ok()) {
      report_.offline_agrees = false;
      report_.offline_tick = t;
      report_.offline_mismatch = std::string("offline replay: the sim rejected tick ") + std::to_string(t) + ": " + s.message();
      return;
    }
    if (!check(t + 1)) return;
  }
  report_.offline_final_hash = offline.hash().total;
  for (std::uint32_t i = 0; i < options_.peers; ++i) {
    if (report_.peers[i].current_tick == offline.tick() && report_.peers[i].final_hash != offline.hash().total) {
      report_.offline_agrees = false;
      report_.offline_tick = offline.tick();
      report_.offline_mismatch = "peer " + std::to_string(i) + "'s final state differs from the offline replay";
      return;
    }
  }
}

}  // namespace lockstep::rollback
