// A simulated-network match as one call, with its desync evidence (netsim_match.h).
#include <lockstep/rollback/netsim_match.h>

#include <lockstep/inspect/diff.h>
#include <lockstep/rollback/desync_bundle.h>

namespace lockstep::rollback {

std::uint32_t netsim_default_players(const replay::Sim& sim, const replay::SimConfig& config, std::uint32_t peers) {
  for (std::uint32_t p = peers; p >= 1; --p) {
    replay::SimConfig c = config;
    c.players = p;
    if (sim.check_config(c).ok()) return p;
  }
  return 1;
}

namespace {

std::string peer_name(std::uint32_t p) { return "peer " + std::to_string(p); }

// The diff of the kept states: those of the first divergent confirmed tick when the match
// captured them (NetsimDivergence), else the snapshots of the hash-report tick.
std::string state_diff_text(Netsim& net, bool exact, const Snapshot* ours, const Snapshot* theirs) {
  const NetsimDesync& d = net.report().desyncs.front();
  const NetsimDivergence& fd = net.first_divergence();
  inspect::DiffOptions dopt;
  dopt.limit = 12;
  if (exact) {
    const std::string la = peer_name(fd.peer_a), lb = peer_name(fd.peer_b);
    return "state diff at tick " + std::to_string(fd.tick) + " (" + la + " | " + lb + "):\n" +
           inspect::format_text(inspect::diff(fd.a, fd.b, dopt), la, lb);
  }
  if (ours != nullptr && theirs != nullptr) {
    const inspect::StateDiff sd = inspect::diff(inspect::capture(ours->view()), inspect::capture(theirs->view()), dopt);
    return "state diff (" + peer_name(d.peer) + " | " + peer_name(d.event.peer) + "):\n" +
           inspect::format_text(sd, peer_name(d.peer), peer_name(d.event.peer));
  }
  return "(the snapshots of that tick are no longer kept on both peers)\n";
}

inspect::Bundle evidence_bundle(Netsim& net, bool exact, const Snapshot* theirs) {
  const NetsimReport& r = net.report();
  const NetsimDesync& d = r.desyncs.front();
  const NetsimDivergence& fd = net.first_divergence();
  inspect::Bundle b;
  if (exact) {
    b.source = "netsim";
    inspect::set_sim(b, *net.options().sim, net.options().config);
    b.tick = fd.tick;
    b.facts = inspect::build_facts(net.options().sim, &fd.a);
    b.sides.push_back({peer_name(fd.peer_a), true, fd.a, inspect::breakdown(fd.hash_a)});
    b.sides.push_back({peer_name(fd.peer_b), true, fd.b, inspect::breakdown(fd.hash_b)});
  } else {
    b = session_desync_bundle(net.session(d.peer), theirs, "netsim");
    b.tick = !r.peers_agree && r.disagreement_tick < d.event.tick ? r.disagreement_tick : d.event.tick;
  }
  // The confirmed inputs from the initial state to the kept states.
  const replay::Replay& log = net.confirmed(0);
  b.inputs_from = 0;
  b.frame_bytes = log.header.frame_bytes();
  const std::uint64_t states_at = exact ? fd.tick : d.event.tick;
  for (std::uint64_t t = 0; t < states_at && t < log.frame_count(); ++t) {
    const auto f = log.frame(t);
    b.inputs.insert(b.inputs.end(), f.begin(), f.end());
  }
  return b;
}

}  // namespace

NetsimEvidence netsim_desync_evidence(Netsim& net, bool with_bundle) {
  NetsimEvidence out;
  const NetsimReport& r = net.report();
  if (r.desyncs.empty()) return out;
  const NetsimDesync& d = r.desyncs.front();
  RollbackSession& mine = net.session(d.peer);
  const StorageView schema = net.runner(d.peer).world().storage();
  std::string& text = out.text;
  text = peer_name(d.peer) + " vs " + peer_name(d.event.peer) + " at confirmed tick " + std::to_string(d.event.tick) +
         ": " + describe_hash_diff(mine.desync_local_hash(), mine.desync_remote_hash(), schema) + "\n";
  const Snapshot* ours = mine.desync_snapshot();
  const Snapshot* theirs = nullptr;
  if (d.event.peer < net.peers()) {
    RollbackSession& other = net.session(d.event.peer);
    theirs = other.checkpoint(d.event.tick);
    if (theirs == nullptr && other.has_desync() && other.desync_tick() == d.event.tick) theirs = other.desync_snapshot();
  }
  const NetsimDivergence& fd = net.first_divergence();
  const bool exact = fd.found && fd.states_kept && fd.tick <= d.event.tick;
  if (exact)
    text = "first divergent confirmed tick " + std::to_string(fd.tick) + " (" + peer_name(fd.peer_a) + " vs " +
           peer_name(fd.peer_b) + ": confirmed state hashes differ); states of that tick kept\n" + text;
  else if (!r.peers_agree && r.disagreement_tick < d.event.tick)
    text = "first divergent confirmed tick " + std::to_string(r.disagreement_tick) + " (" + r.disagreement +
           "); states kept at the hash-report tick " + std::to_string(d.event.tick) +
           " (use --hash-interval 1 for states at the first divergent tick)\n" + text;
  text += state_diff_text(net, exact, ours, theirs);
  if (with_bundle) {
    out.bundle = evidence_bundle(net, exact, theirs);
    out.bundle->report = text;
  }
  return out;
}

NetsimMatch run_netsim_match(const NetsimOptions& options, bool with_bundle, inspect::TimingTrace* trace) {
  NetsimMatch m;
  Netsim net(options);
  if (!net.status().ok()) {
    m.error = "cannot set up the match: " + std::string(net.status().message());
    return m;
  }
  if (trace != nullptr)
    for (std::uint32_t p = 0; p < net.peers(); ++p) net.runner(p).set_probe(&trace->lane(p, peer_name(p)));
  const NetsimReport& r = net.run();
  if (!net.status().ok()) {
    m.error = "a peer failed: " + std::string(net.status().message());
    return m;
  }
  m.report = r;
  m.confirmed = net.confirmed(0);
  m.unfinished_only = !r.finished && r.desync_count == 0 && r.peers_agree && r.offline_agrees;
  if (r.desync_count != 0) m.evidence = netsim_desync_evidence(net, with_bundle);
  return m;
}

}  // namespace lockstep::rollback
