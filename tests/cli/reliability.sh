#!/usr/bin/env bash
# reliability.sh CASE[.STEM] LOCKSTEP SOURCE_DIR WORK_DIR [REPLAY TRACE]
# End-to-end reliability cases of the `lockstep` CLI (docs/cli.md, "Exit codes"): output
# destinations, bounded reads, stdout errors, damaged-but-complete replays. Exit 77 = skipped.
set -uo pipefail
case_name=$1 L=$2 src=$3 work=$4 replay=${5:-} trace=${6:-}
kind=${case_name%%.*}
dir="$work/$case_name"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1

fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
expect() {
  local want=$1
  shift
  "$@" >out 2>err
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "--- stdout" >&2; head -20 out >&2; echo "--- stderr" >&2; head -20 err >&2
    fail "expected exit $want, got $got: $*"
  fi
}
contains() { grep -q -- "$2" "$1" || { echo "--- $1:" >&2; head -20 "$1" >&2; fail "'$2' not found in $1"; }; }
# within SECONDS MAX_KB CODE cmd...: exit CODE, at most SECONDS wall time and MAX_KB peak RSS.
within() {
  local secs=$1 max_kb=$2 want=$3
  shift 3
  /usr/bin/time -f "%e %M" -o usage "$@" >out 2>err
  local got=$?
  [[ $got -eq $want ]] || { head -5 err >&2; fail "expected exit $want, got $got: $*"; }
  read -r elapsed kb < <(tail -1 usage)
  awk -v e="$elapsed" -v s="$secs" 'BEGIN { exit !(e <= s) }' || fail "$* took ${elapsed}s (limit ${secs}s)"
  ((kb <= max_kb)) || fail "$* used ${kb} KB (limit ${max_kb} KB)"
}
# Sanitizer builds map large shadow regions; their RSS bound is looser.
rss_limit=$((64 * 1024))
[[ "${LOCKSTEP_SANITIZED:-OFF}" == ON ]] && rss_limit=$((256 * 1024))
# "Fails fast, reads nothing unbounded": 1 s, or 5 s for a Debug+ASan process (its start-up
# alone took 1.1-1.4 s on a loaded 2-core machine). A reader that does not stop never ends.
time_limit=1
[[ "${LOCKSTEP_SANITIZED:-OFF}" == ON ]] && time_limit=5

case $kind in
  bounded_reads)
    # D3: devices and streams are sniffed after the first chunk, sizes checked before reading.
    within "$time_limit" "$rss_limit" 2 "$L" info /dev/zero
    contains err "/dev/zero: byte 0: not a lockstep replay (bad magic)"
    within "$time_limit" "$rss_limit" 2 "$L" verify /dev/urandom
    within "$time_limit" "$rss_limit" 2 "$L" verify "$src/fixtures/duel/duel.replay" --trace /dev/zero
    contains err "/dev/zero: byte 0: not a text trace (NUL byte at offset 0)"
    within "$time_limit" "$rss_limit" 2 "$L" info <(yes)
    contains err "bad magic"
    within "$time_limit" "$rss_limit" 2 "$L" snapshot "$src/fixtures/duel/duel.replay" --tick 1 --check /dev/zero
    contains err "not a lockstep snapshot file"
    # A sparse 5 GiB file is refused by its size, unread.
    truncate -s 5G huge.replay
    within "$time_limit" "$rss_limit" 2 "$L" info huge.replay
    contains err "huge.replay: byte 0: file is 5368709120 bytes, more than the 4 GiB"
    expect 2 "$L" info .
    contains err "Is a directory"
    expect 2 "$L" info missing.replay
    contains err "cannot open for reading: No such file or directory" ;;
  stdout_full)
    # D4: a failed write to stdout is an error with strerror, never exit 0.
    [[ -w /dev/full ]] || { echo "no /dev/full: skipped"; exit 77; }
    "$L" trace "$src/fixtures/duel/duel.replay" > /dev/full 2> err
    rc=$?
    ((rc == 2)) || fail "trace >/dev/full exited $rc"
    contains err "No space left on device"
    "$L" info "$src/fixtures/duel/duel.replay" > /dev/full 2> err
    rc=$?
    ((rc == 2)) || fail "info >/dev/full exited $rc"
    contains err "cannot write standard output: No space left on device" ;;
  destinations)
    # D1: destinations are inspected before any work.
    F=$src/fixtures/duel/duel.replay
    mkdir adir
    within "$time_limit" "$rss_limit" 2 "$L" record --sim duel --bot 1 --ticks 100000000 -o adir
    contains err "adir: Is a directory"
    [[ ! -e adir.partial ]] || fail "record -o DIR left adir.partial"
    mkdir adir.json
    within "$time_limit" "$rss_limit" 2 "$L" record --sim duel --bot 1 --ticks 100000000 -o adir.json
    contains err "adir.json: Is a directory"
    expect 2 "$L" record --sim duel --bot 1 --ticks 10 -o ''
    contains err "empty output path"
    expect 2 "$L" record --sim duel --bot 1 --ticks 10 -o no-such-dir/x.replay
    contains err "No such file or directory"
    expect 2 "$L" trace "$F" -o adir
    expect 2 "$L" convert "$F" adir
    ls -A | grep -q partial && fail "a .partial was left behind"
    # A symlink keeps being a symlink; the data lands in its target (also when dangling).
    expect 0 "$L" record --sim duel --bot 3 --ticks 50 -o plain.replay
    ln -s target.replay link.replay
    expect 0 "$L" record --sim duel --bot 3 --ticks 50 -o link.replay
    [[ -L link.replay ]] || fail "record replaced the symlink"
    cmp -s plain.replay target.replay || fail "the symlink's target does not hold the recording"
    ln -s target.trace link.trace
    expect 0 "$L" trace "$F" -o link.trace
    [[ -L link.trace ]] || fail "trace replaced the symlink"
    cmp -s target.trace "$src/fixtures/duel/duel.trace" || fail "trace through a symlink differs"
    # A FIFO is written directly.
    mkfifo pipe
    cat pipe > from-pipe.trace &
    expect 0 "$L" trace "$F" -o pipe
    wait
    [[ -p pipe ]] || fail "trace replaced the FIFO"
    cmp -s from-pipe.trace "$src/fixtures/duel/duel.trace" || fail "trace through a FIFO differs"
    # A private character device (the /dev/null numbers) stays a character device.
    if [[ $(id -u) -ne 0 ]]; then echo "not root: device node part skipped"; exit 77; fi
    mknod null c 1 3 || { echo "mknod not permitted: skipped"; exit 77; }
    expect 0 "$L" record --sim duel --bot 1 --ticks 30 -o null
    [[ -c null ]] || fail "record -o DEVICE replaced the device node"
    expect 0 "$L" record --sim duel --bot 1 --ticks 30 -o null.json
    expect 0 "$L" record --sim duel --bot 1 --ticks 30 --checkpoint-every 10 -o null
    expect 0 "$L" trace "$F" -o null
    expect 0 "$L" convert "$F" null
    expect 0 "$L" snapshot "$F" --tick 5 -o null
    [[ -c null ]] || fail "a writer replaced the device node"
    ls -A | grep -q -E 'partial|\.tmp' && fail "a temp file was left behind"
    true ;;
  damaged_length)
    # D2: one flipped bit in a block length of a complete replay is corruption (exit 2), not
    # a truncation that verifies a prefix.
    cp "$replay" bad.replay
    len() { od -An -tu4 -j "$1" -N4 bad.replay | tr -d ' '; }
    head_len=$(len 20)
    second=$((16 + 16 + head_len + 8))
    # Bit 0 of the length's high byte: +16 MiB, past the end of the file but under the cap.
    byte=$((second + 7))
    old=$(od -An -tu1 -j "$byte" -N1 bad.replay | tr -d ' ')
    printf "$(printf '\\%03o' $((old ^ 1)))" | dd of=bad.replay bs=1 seek="$byte" conv=notrunc status=none
    cmp -s bad.replay "$replay" && fail "the flip did not change the file"
    expect 2 "$L" verify bad.replay
    contains err "bad.replay: byte $second"
    contains err "the length field is damaged"
    expect 2 "$L" verify bad.replay --allow-partial
    expect 2 "$L" info bad.replay ;;
  messages)
    # D6-D8: errors name what was wrong.
    expect 2 "$L" frobnicate
    contains err "not recognised: 'frobnicate'"
    expect 2 "$L" record --sim duel --bot 1 --tick 5 -o x.replay
    contains err "'--tick'"
    expect 2 "$L" record --sim duel --bot -1 --ticks 5 -o x.replay
    contains err "--bot: must not be negative: -1"
    [[ ! -e x.replay ]] || fail "a negative --bot recorded anyway"
    expect 2 "$L" bench --sim duel --ticks 1000000000000
    contains err "--ticks must be 1..100000000"
    : > empty.trace
    expect 2 "$L" verify "$src/fixtures/duel/duel.replay" --trace empty.trace
    contains err "empty.trace: byte 0: no trace lines"
    printf '{\n  "lockstep_replay": {\n    "sim": "duel",\n    "sim": "duel"\n  }\n}\n' > dup.json
    expect 2 "$L" info dup.json
    contains err 'JSON line 4:5: duplicate key "sim"'
    printf '{ "lockstep_replay": [1,, 2] }' > syntax.json
    expect 2 "$L" verify syntax.json
    contains err "JSON line 1:25: Invalid value." ;;
  *) fail "unknown case $kind" ;;
esac
echo "ok [$case_name]"
