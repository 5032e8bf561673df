// A simulated-network match as one call, with its desync evidence (netsim_match.h).
#include <lockstep/rollback/netsim_match.h>

#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/systems.h>
#include <lockstep/rollback/desync_bundle.h>

#include <cstdio>

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

// The system: the tick that produced the first divergent state run again on both peers,
// stage by stage (Netsim::rerun_by_system), in the per-system sync test's words ("DESYNC
// tick 0, system movement, Body[0:1].pos 0.0009765625 | 0 (+15 more)"). `system` receives
// its name when one was found.
std::string system_line(Netsim& net, std::string& system) {
  const NetsimDivergence& fd = net.first_divergence();
  if (fd.tick == 0) return "(the initial states differ: no tick ran yet, so no system is to blame)\n";
  const std::string run = "tick " + std::to_string(fd.tick - 1) + " run again on " + peer_name(fd.peer_a) + " and " +
                          peer_name(fd.peer_b) + ", stage by stage: ";
  if (!fd.previous_kept)
    return "(the states of tick " + std::to_string(fd.tick - 1) +
           " are no longer kept: a hash interval of 1 keeps them, and the system is named)\n";
  inspect::DiffOptions dopt;
  dopt.limit = 12;
  const inspect::SystemSyncResult r = net.rerun_by_system(dopt);
  if (!r.status.ok()) return run + "cannot run it: " + std::string(r.status.message()) + "\n";
  if (r.ok) return run + "every stage agrees (the difference needs more of the match than this tick)\n";
  system = r.system;
  return run + "DESYNC " + inspect::describe(r) + "\n";
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
           " (a hash interval of 1 keeps the states of the first divergent tick)\n" + text;
  // The system needs only the agreeing states before the first divergent tick, kept or not
  // the states of that tick itself.
  std::string system;
  if (fd.found && fd.tick <= d.event.tick) text += system_line(net, system);
  text += state_diff_text(net, exact, ours, theirs);
  if (with_bundle) {
    out.bundle = evidence_bundle(net, exact, theirs);
    out.bundle->system = system;
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

std::string netsim_role(const NetsimReport& r, std::uint32_t i) {
  return r.peers[i].spectator ? std::string("spectator") : "player " + std::to_string(i);
}

std::string netsim_peer_table(const NetsimReport& r) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-5s %-10s %10s %12s %9s %8s %11s %10s %10s\n", "peer", "role", "rollbacks",
                "resimulated", "max-depth", "stalls", "hash-checks", "msgs-sent", "msgs-recv");
  out += line;
  for (std::uint32_t i = 0; i < r.peers.size(); ++i) {
    const NetsimPeerReport& p = r.peers[i];
    std::snprintf(line, sizeof line, "%-5u %-10s %10llu %12llu %9u %8llu %11llu %10llu %10llu\n", i,
                  netsim_role(r, i).c_str(), static_cast<unsigned long long>(p.stats.rollbacks),
                  static_cast<unsigned long long>(p.stats.resimulated_ticks), p.stats.max_rollback_depth,
                  static_cast<unsigned long long>(p.stats.stalls), static_cast<unsigned long long>(p.stats.hash_checks),
                  static_cast<unsigned long long>(p.stats.messages_sent),
                  static_cast<unsigned long long>(p.stats.messages_received));
    out += line;
  }
  std::snprintf(line, sizeof line, "%-16s %10llu %12llu %9u %8llu\n", "total", static_cast<unsigned long long>(r.rollbacks),
                static_cast<unsigned long long>(r.resimulated_ticks), r.max_rollback_depth,
                static_cast<unsigned long long>(r.stalls));
  out += line;
  return out;
}

void append_netsim_figures(inspect::JsonWriter& j, const NetsimReport& r) {
  j.field("finished", r.finished).field("frames", r.frames).field("desyncs", r.desync_count)
      .field("peers_agree", r.peers_agree).field("offline_agrees", r.offline_agrees)
      .field("final_hash", to_hex(r.offline_final_hash)).field("rollbacks", r.rollbacks)
      .field("resimulated_ticks", r.resimulated_ticks).field("max_rollback_depth", r.max_rollback_depth)
      .field("stalls", r.stalls);
}

void append_netsim_network_and_peers(inspect::JsonWriter& j, const NetsimReport& r) {
  j.begin("network").field("sent", r.network.sent).field("delivered", r.network.delivered).field("lost", r.network.lost)
      .field("duplicated", r.network.duplicated).field("reordered", r.network.reordered)
      .field("overflowed", r.network.overflowed).end();
  j.begin_array("per_peer");
  for (std::uint32_t i = 0; i < r.peers.size(); ++i) {
    const NetsimPeerReport& p = r.peers[i];
    j.begin().field("peer", i).field("role", netsim_role(r, i)).field("rollbacks", p.stats.rollbacks)
        .field("resimulated_ticks", p.stats.resimulated_ticks).field("max_rollback_depth", p.stats.max_rollback_depth)
        .field("stalls", p.stats.stalls).field("hash_checks", p.stats.hash_checks)
        .field("confirmed_tick", p.confirmed_tick).field("messages_sent", p.stats.messages_sent)
        .field("messages_received", p.stats.messages_received).end();
  }
  j.end_array();
}

}  // namespace lockstep::rollback
