#pragma once
// The verify gates' answers as the text `lockstep verify` prints on stdout, in its plain and
// --json forms (docs/cli.md, "verify"): a game's own verify step or CI job prints the same
// lines from the same library calls. Every report is the whole stdout text, each line ending
// in '\n'; "exit" in the JSON is the tool's exit code (1: a mismatch was found).
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/forensics.h>
#include <lockstep/inspect/systems.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/verify.h>

#include <optional>
#include <string>

namespace lockstep::inspect {

// A verify divergence beyond hashes: `parts` is v.differs with the field-level summary of the
// recording's checkpoint of v.tick against the runner appended ("Pos; 1 field differs: ...")
// when the recording has a checkpoint there (`fields`).
struct VerifyDesync {
  std::string parts;
  std::optional<StateDiff> fields;
};
VerifyDesync verify_desync(const replay::Replay& r, const std::string& name, const replay::Runner& runner,
                           const replay::VerifyResult& v);

// "OK NAME: T ticks, final hash H; checked R recorded hashes, G golden trace ticks, C checkpoints",
// or {"ok":true,"replay":...,"complete":...}.
std::string verify_ok_report(const std::string& name, const replay::VerifyResult& v, bool complete, bool json);
// "DESYNC at tick T (vs AGAINST): PARTS" and the field diff (recording vs this build), or the
// JSON object with "bundle" (when not empty) and "diff".
std::string verify_desync_report(const std::string& name, const replay::VerifyResult& v, const VerifyDesync& d,
                                 const std::string& bundle, bool json);
// The golden trace's length differs: nothing on stdout in text form (stderr says it), else the
// JSON object {"ok":false,"exit":1,...,"differs":...}.
std::string verify_length_report(const std::string& name, const replay::VerifyResult& v, bool json);

// verify A --against B: "OK A against B: N ticks, every recorded hash equal" or its JSON.
std::string against_ok_report(const std::string& a, const std::string& b, const replay::RecordingComparison& c, bool json);
// "DESYNC at tick T (A a vs B b): PARTS" and the field diff (or why there is none), or its JSON.
std::string against_desync_report(const std::string& a, const std::string& b, const replay::RecordingComparison& c,
                                  const AgainstForensics& f, const std::string& bundle, bool json);

// The per-system gate (synctest --per-system, verify --per-system): "DESYNC WHERE" and the
// diff (first vs again), or the JSON object with "per_system":true and "diff". `name` is the
// source (replay or sim).
std::string system_divergence_report(const std::string& name, const SystemSyncResult& r, const std::string& bundle,
                                     bool json);
// The per-system sync test found nothing: "OK per-system sync test NAME: T ticks, every stage
// of every tick reproduced", or {"ok":true,"source":NAME,"per_system":true,"ticks":T}.
std::string system_sync_ok_report(const std::string& name, const SystemSyncResult& r, bool json);

}  // namespace lockstep::inspect
