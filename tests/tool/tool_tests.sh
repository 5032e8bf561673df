#!/usr/bin/env bash
# tool_tests.sh CASE WORKDIR ARGS... — one case of tests/tool/tool_tests.cmake.
set -uo pipefail
case_name=$1 work=$2/$1
shift 2
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
case $case_name in
  whole_archive)
    selfreg=$1
    "$selfreg" record --sim duel --bot 7 --ticks 30 -o "$work/d.replay" > "$work/out" 2>&1
    rc=$?; cat "$work/out"
    [ $rc -eq 0 ] || fail "self-registering sim linked whole-archive: record exited $rc"
    "$selfreg" verify "$work/d.replay" || fail "verify of the recording failed" ;;
  dropped_without_whole_archive)
    dropped=$2
    "$dropped" record --sim duel --bot 7 --ticks 30 -o "$work/d.replay" > "$work/out" 2>&1
    rc=$?; cat "$work/out"
    [ $rc -eq 2 ] || fail "expected exit 2 (the linker dropped the sim), got $rc"
    grep -q "unknown sim 'duel'" "$work/out" || fail "expected \"unknown sim 'duel'\"" ;;
  no_default_replay)
    selfreg=$1
    "$selfreg" run > "$work/out" 2>&1
    rc=$?; cat "$work/out"
    [ $rc -eq 2 ] || fail "run without a replay and without DEFAULT_REPLAY: expected exit 2, got $rc"
    grep -q "lockstep-selfreg has no default replay: give a replay file" "$work/out" || fail "no usage message" ;;
  legacy_record_verify|legacy_synctest|legacy_netsim_bench)
    # Issue 22: orbit.move declares Thrust as Read and reads it through the mutable accessor.
    # Every command works, and the one warning per world names system, resource and access.
    orbit=$1
    warning="lockstep access warn: access_mutable_resource_declared_read system=orbit.move resource=Thrust declared=read"
    run() { "$@" > "$work/out" 2> "$work/err"; rc=$?; cat "$work/out" "$work/err"; }
    check_warned() {
      grep -qF "$warning" "$work/err" || fail "$1: no warning naming system, resource and access"
      ! grep -q "access_undeclared" "$work/err" || fail "$1: reported as undeclared"
    }
    case $case_name in
      legacy_record_verify)
        run "$orbit" record --sim orbit --bot 7 --ticks 120 -o "$work/o.replay"
        [ $rc -eq 0 ] || fail "record exited $rc"
        check_warned record
        [ "$(grep -cF "$warning" "$work/err")" -eq 1 ] || fail "record: the warning is not one line"
        run "$orbit" verify "$work/o.replay"
        [ $rc -eq 0 ] || fail "verify exited $rc"
        check_warned verify ;;
      legacy_synctest)
        run "$orbit" synctest --sim orbit --bot 7 --ticks 120 --check-distance 8
        [ $rc -eq 0 ] || fail "synctest exited $rc"
        check_warned synctest ;;
      legacy_netsim_bench)
        run "$orbit" netsim --sim orbit --peers 2 --ticks 300 --seed 3
        [ $rc -eq 0 ] || fail "netsim exited $rc"
        check_warned netsim
        run "$orbit" bench --sim orbit --units 0 --ticks 200
        [ $rc -eq 0 ] || fail "bench exited $rc"
        check_warned bench ;;
    esac ;;
  own_name)
    # Issue 39: a game's tool names itself, never `lockstep`, in every command it prints: the
    # bundle line's "read it with:", netsim's "re-check:", the examples of every --help.
    orbit=$1
    "$orbit" record --sim orbit --bot 7 --ticks 60 -o "$work/o.json" > "$work/out" 2>&1 || { cat "$work/out"; fail "record"; }
    python3 - "$work/o.json" <<'PY' || fail "could not tamper the recording"
import json, sys
d = json.load(open(sys.argv[1]))
d["lockstep_replay"]["tick_hashes"][30]["total"] = "0123456789abcdef"
json.dump(d, open(sys.argv[1], "w"))
PY
    "$orbit" verify "$work/o.json" --bundle-dir "$work/b" > "$work/verify.out" 2> "$work/verify.err"
    rc=$?; cat "$work/verify.out" "$work/verify.err"
    [ $rc -eq 1 ] || fail "verify of a tampered recording: expected exit 1, got $rc"
    bundle=$work/b/desync-verify-tick30.lsbundle
    grep -qxF "orbit-tool: desync bundle written: $bundle (read it with: orbit-tool diff $bundle)" "$work/verify.err" \
      || fail "the bundle line does not name orbit-tool"
    "$orbit" netsim --sim orbit --peers 2 --ticks 60 --record "$work/n.replay" > "$work/out" 2> "$work/err" || fail "netsim"
    grep -qxF "recorded the confirmed inputs and hashes to $work/n.replay (re-check: orbit-tool verify $work/n.replay)" \
      "$work/out" || { cat "$work/out"; fail "netsim's re-check does not name orbit-tool"; }
    : > "$work/help"
    # keygen's message names the tool too (a match key: no libsodium needed).
    "$orbit" keygen --match-key "$work/m.key" > "$work/keygen.out" 2> "$work/keygen.err" || { cat "$work/keygen.err"; fail "keygen"; }
    grep -qxF "orbit-tool keygen: wrote the match key $work/m.key (give the same file to every peer: --key-file)" "$work/keygen.err" \
      || { cat "$work/keygen.err"; fail "keygen's message does not name orbit-tool"; }
    for c in "" run record verify trace info convert bench synctest netsim dump diff peer spectate snapshot view query keygen; do
      "$orbit" $c --help >> "$work/help" 2>&1 || fail "$c --help"
    done
    grep -qxF "  orbit-tool diff desync-synctest-tick4.lsbundle" "$work/help" || fail "diff --help's example does not name orbit-tool"
    grep -qxF "  for i in 0 1 2 3; do orbit-tool keygen --identity p\$i.id >> match.keys; done" "$work/help" \
      || fail "keygen --help's example does not name orbit-tool"
    cat "$work/verify.out" "$work/verify.err" "$work/out" "$work/err" "$work/keygen.err" >> "$work/help"
    if grep -nE "(^|[^a-z_-])lockstep (run|record|verify|trace|info|convert|bench|synctest|netsim|dump|diff|peer|spectate|snapshot|view|query|keygen)( |$)" "$work/help"; then
      fail "a printed command names lockstep instead of orbit-tool"
    fi
    ! grep -q "lockstep diff" "$work/help" || fail "'lockstep diff' printed" ;;
  determinism_flags_plain_target)
    project=$1 source=$2 cmake=$3 cxx=$4
    "$cmake" -S "$project" -B "$work/b" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DLOCKSTEP_SOURCE_DIR="$source" \
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DLOCKSTEP_CCACHE=OFF > "$work/out" 2>&1 || { cat "$work/out"; fail "configure failed"; }
    python3 - "$work/b/compile_commands.json" <<'PY' || fail "determinism flags on plain targets"
import json, sys
cmds = {e["file"].rsplit("/", 1)[-1]: e["command"] for e in json.load(open(sys.argv[1]))}
sim, render = cmds["plain_sim.cpp"], cmds["plain_render.cpp"]
print("plain_sim:", sim)
print("plain_render:", render)
assert "-ffp-contract=off" in sim and "-fno-fast-math" in sim, "plain_sim lacks the determinism flags"
assert "-ffp-contract=off" not in render and "-fno-fast-math" not in render, "the opt-out did not remove them"
PY
    ;;
  fast_math_configure|fast_math_build)
    project=$1 source=$2 cmake=$3 cxx=$4
    if [ "$case_name" = fast_math_configure ]; then
      "$cmake" -S "$project" -B "$work/b" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DLOCKSTEP_SOURCE_DIR="$source" \
        -DCMAKE_CXX_FLAGS="-O2 -ffast-math" > "$work/out" 2>&1
      rc=$?; cat "$work/out"
      [ $rc -ne 0 ] || fail "configure accepted -ffast-math on a sim target"
      grep -q "lockstep: sim target 'game_sim' would be compiled with '-ffast-math'" "$work/out" || fail "no clear message"
    else
      "$cmake" -S "$project" -B "$work/b" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DLOCKSTEP_SOURCE_DIR="$source" \
        -DVIA_LINKED_TARGET=ON > "$work/configure.out" 2>&1 || { cat "$work/configure.out"; fail "configure failed"; }
      "$cmake" --build "$work/b" --target game_sim > "$work/out" 2>&1
      rc=$?; cat "$work/out"
      [ $rc -ne 0 ] || fail "build accepted -ffast-math arriving through a linked target"
      grep -q "lockstep: sim target 'game_sim' is compiled with -ffast-math or -Ofast" "$work/out" || fail "no clear message"
    fi ;;
  *) fail "unknown case $case_name" ;;
esac
echo "PASS: $case_name"
