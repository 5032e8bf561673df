#pragma once
// Desync bundles of a RollbackSession (inspect/bundle.h): the hook a game calls when it sees
// a Desync event — session_desync_bundle(session) → write_bundle — and what netsim uses.
//
// The bundle holds this peer's state at the desync tick (the session keeps that snapshot),
// both hash breakdowns (ours with per-resource sub-hashes; the remote's as reported), the sim
// identity and this build's facts. `remote` adds the other peer's state of the same tick when
// the caller has it (netsim: the other in-process peer). Allocates (file layer; called once,
// at the first desync, never on the tick path).
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/rollback/session.h>
#include <lockstep/store/snapshot.h>

#include <string>
#include <string_view>

namespace lockstep::rollback {

// Empty bundle (no sides) when the session has no desync. `index` picks a kept desync
// (0: the earliest divergent tick; SessionConfig::kept_desyncs keeps more).
inspect::Bundle session_desync_bundle(RollbackSession& session, const Snapshot* remote = nullptr,
                                      std::string_view source = "session", std::uint32_t index = 0);
// session_desync_bundle + inspect::write_bundle into `dir`; `path` receives the file name.
FileStatus write_session_desync_bundle(RollbackSession& session, const std::string& dir, std::string& path,
                                       const Snapshot* remote = nullptr);

}  // namespace lockstep::rollback
