// Desync bundles of a RollbackSession (desync_bundle.h).
#include <lockstep/rollback/desync_bundle.h>

namespace lockstep::rollback {

inspect::Bundle session_desync_bundle(RollbackSession& session, const Snapshot* remote, std::string_view source,
                                      std::uint32_t index) {
  inspect::Bundle b;
  const DesyncRecord* r = session.desync_record(index);
  if (r == nullptr) return b;
  const replay::Runner& runner = session.runner();
  b.source = std::string(source);
  inspect::set_sim(b, runner.sim(), runner.config());
  b.tick = r->tick;
  const std::string them = r->peer == kSyncTestPeer ? std::string("resimulation") : "peer " + std::to_string(r->peer);
  const Snapshot* mine = session.desync_snapshot(index);
  inspect::BundleSide local{"peer " + std::to_string(session.config().local_peer), mine != nullptr,
                            mine != nullptr ? inspect::capture(mine->view()) : inspect::State{},
                            inspect::breakdown(r->local)};
  inspect::BundleSide other{them, remote != nullptr && !remote->empty(),
                            remote != nullptr && !remote->empty() ? inspect::capture(remote->view()) : inspect::State{},
                            inspect::breakdown(r->remote)};
  b.report = "desync at confirmed tick " + std::to_string(b.tick) + ": " + local.label + " vs " + them + ": " +
             describe_hash_diff(r->local, r->remote, runner.world().storage());
  b.facts = inspect::build_facts(&runner.sim(), local.has_state ? &local.state : nullptr);
  b.sides.push_back(std::move(local));
  b.sides.push_back(std::move(other));
  return b;
}

FileStatus write_session_desync_bundle(RollbackSession& session, const std::string& dir, std::string& path,
                                       const Snapshot* remote) {
  if (!session.has_desync()) {
    FileStatus st;
    st.code = ErrorCode::InvalidArgument;
    st.message = "write_session_desync_bundle: the session has no desync";
    return st;
  }
  return inspect::write_bundle(dir, session_desync_bundle(session, remote), path);
}

}  // namespace lockstep::rollback
