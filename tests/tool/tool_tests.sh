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
