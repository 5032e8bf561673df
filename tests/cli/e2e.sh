#!/usr/bin/env bash
# e2e.sh CASE[.STEM] LOCKSTEP SOURCE_DIR WORK_DIR [REPLAY TRACE]
# One end-to-end case of the `lockstep` CLI; exits non-zero with a message on failure.
set -uo pipefail
case_name=$1 L=$2 src=$3 work=$4 replay=${5:-} trace=${6:-}
kind=${case_name%%.*}
dir="$work/$case_name"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1

fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# expect CODE cmd...: runs cmd, captures stdout/stderr into out/err, checks the exit code.
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
has_line() { grep -qxF -- "$2" "$1" || { echo "--- $1:" >&2; head -20 "$1" >&2; fail "no line '$2' in $1"; }; }

case $kind in
  version)
    # ARGS: compiler, target, build type (tests/cli/cli_tests.cmake). Exact, and exit 0 with no
    # subcommand (every other call needs one).
    want="lockstep 0.3.0"$'\n'"compiler: $5"$'\n'"target: $6"
    [ -n "${7:-}" ] && want+=$'\n'"build type: $7"
    expect 0 "$L" --version
    [ "$(cat out)" = "$want" ] || { printf -- '--- got:\n%s\n--- want:\n%s\n' "$(cat out)" "$want" >&2; fail "--version output"; }
    [ ! -s err ] || fail "--version wrote to stderr: $(cat err)"
    expect 0 "$L" --help
    contains out "--version" ;;
  help)
    expect 0 "$L" --help
    contains out "Exit codes"
    for c in run record verify trace info convert bench; do
      expect 0 "$L" "$c" --help
      contains out "Examples:"
      contains out "--json"
    done ;;
  usage)
    expect 2 "$L"
    expect 2 "$L" frobnicate
    expect 2 "$L" run --bogus
    expect 2 "$L" verify
    expect 2 "$L" record --sim skirmish
    expect 2 "$L" trace
    expect 2 "$L" convert only-one-arg
    expect 2 "$L" bench --ticks notanumber
    expect 2 "$L" bench --json --csv ;;
  garbage)
    head -c 3000 /dev/urandom > random.replay
    expect 2 "$L" verify random.replay
    contains err "random.replay: byte 0"
    : > empty.replay
    expect 2 "$L" verify empty.replay
    expect 2 "$L" info empty.replay
    echo "hello world" > text.replay
    expect 2 "$L" run text.replay
    echo "{ not json" > broken.json
    expect 2 "$L" verify broken.json
    expect 2 "$L" verify does-not-exist.replay
    contains err "cannot open"
    expect 2 "$L" verify --json random.replay
    contains out '"ok":false'
    contains out '"exit":2' ;;
  unknown_sim)
    expect 2 "$L" record --sim no-such-sim --bot 1 --ticks 10 -o x.replay
    contains err "unknown sim"
    expect 2 "$L" bench --sim no-such-sim ;;
  run_default)
    expect 0 "$L" run --no-progress
    contains out "final hash"
    contains out "ticks/s"
    contains out "p99"
    expect 0 "$L" run --json
    contains out '"ok":true'
    contains out '"final_hash"' ;;
  record_verify)
    expect 0 "$L" record --sim skirmish --bot 5 --ticks 100 --units 100 -o s.replay --checkpoint-every 50
    [[ -f s.replay && ! -f s.replay.partial ]] || fail "record left no s.replay (or a .partial)"
    expect 0 "$L" verify s.replay
    contains out "2 checkpoints"
    expect 0 "$L" record --sim skirmish --bot 5 --ticks 100 --units 100 -o s.json
    expect 0 "$L" verify s.json
    expect 0 "$L" trace s.replay -o a.trace
    expect 0 "$L" trace s.json -o b.trace
    cmp -s a.trace b.trace || fail "binary and JSON recordings of the same match trace differently"
    expect 0 "$L" record --sim skirmish --bot 5 --ticks 100 --units 100 -o n.replay --no-hashes
    expect 0 "$L" verify n.replay
    contains err "nothing was compared"
    expect 0 "$L" verify n.replay --trace a.trace ;;
  skirmish8)
    # The 8-player fixture (docs/fixtures.md): record -> verify -> trace round trip at 8 players,
    # the sync test and a lossy 8-peer netsim in sync, a bench without allocations, and the
    # refusals past its limits in the sim's words.
    expect 0 "$L" record --sim skirmish8 --bot 3 --players 8 --units 2000 --ticks 200 --checkpoint-every 100 -o s8.replay
    expect 0 "$L" verify s8.replay
    contains out "^OK s8.replay: 200 ticks"
    contains out "2 checkpoints"
    expect 0 "$L" trace s8.replay -o s8.trace
    has_line s8.trace "# lockstep trace v1 sim=skirmish8 version=1 players=8 units=2000 seed=3"
    expect 0 "$L" verify s8.replay --trace s8.trace
    expect 0 "$L" synctest --sim skirmish8 --players 8 --units 400 --ticks 40 --check-distance 4 --json
    contains out '"ok":true'
    expect 0 "$L" netsim --sim skirmish8 --players 8 --peers 8 --units 400 --ticks 100 --loss 0.05 --json
    contains out '"ok":true'
    expect 0 "$L" bench --sim skirmish8 --players 8 --units 800 --ticks 20 --snapshot-iters 2 --json
    contains out '"heap_allocations_during_ticks":0'
    contains out '"tick_p99_us":'
    contains out '"ticks_per_second":'
    expect 2 "$L" record --sim skirmish8 --bot 1 --players 9 --units 100 --ticks 10 -o x.replay
    has_line err "lockstep: error: cannot build sim 'skirmish8': skirmish8: players must be 2..8"
    expect 2 "$L" record --sim skirmish8 --bot 1 --players 8 --units 100001 --ticks 10 -o x.replay
    has_line err "lockstep: error: cannot build sim 'skirmish8': skirmish8: units (total at start) must be 0 (default 1000) or players..100000"
    [[ ! -e x.replay && ! -e x.replay.partial ]] || fail "a refused record left a file"
    # skirmish keeps its own limit of 4 players.
    expect 2 "$L" record --sim skirmish --bot 1 --players 5 --units 100 --ticks 10 -o x.replay
    has_line err "lockstep: error: cannot build sim 'skirmish': skirmish: players must be 2..4" ;;
  bench)
    expect 0 "$L" bench --sim skirmish --units 200 --ticks 30 --snapshot-iters 3 --json
    contains out '"heap_allocations_during_ticks":0'
    # synctest and netsim with threads on (every peer its own pool; resimulation on the pool).
    expect 0 "$L" synctest --sim skirmish --units 2000 --ticks 40 --check-distance 4 --threads 2 --json
    contains out '"ok":true'
    contains out '"rollbacks":'
    expect 0 "$L" netsim --sim skirmish --units 2000 --peers 2 --ticks 120 --loss 0.05 --threads 2 --json
    contains out '"ok":true'
    contains out '"threads":2'
    expect 0 "$L" bench --sim skirmish --units 200 --ticks 30 --snapshot-iters 3 --csv
    contains out "tick_p50_us"
    expect 0 "$L" bench --sim skirmish --units 200 --ticks 30 --snapshot-iters 3
    contains out "0 heap allocations during ticks"
    # --threads: zero allocations with threads on, the speedup line, hashes equal to 0 threads.
    expect 0 "$L" bench --sim skirmish --units 2000 --ticks 30 --snapshot-iters 3 --threads 2
    contains out "0 heap allocations during ticks"
    contains out "threads        2: tick p50"
    contains out "hashes equal"
    expect 0 "$L" bench --sim skirmish --units 2000 --ticks 30 --snapshot-iters 3 --threads 4 --json
    contains out '"threads":4'
    contains out '"hashes_equal":true'
    contains out '"heap_allocations_during_ticks":0'
    # --concurrent-stages: the run on the plan's stages (skirmish's plan is a chain: same hashes).
    expect 0 "$L" bench --sim duel --ticks 30 --snapshot-iters 3 --threads 2 --concurrent-stages --json
    contains out '"concurrent_stages":true'
    contains out '"hashes_equal":true'
    expect 2 "$L" bench --sim duel --ticks 5 --concurrent-stages
    expect 2 "$L" bench --sim skirmish --ticks 5 --threads 65 ;;
  verify_golden)
    expect 0 "$L" verify "$replay" --trace "$trace"
    contains out "OK"
    expect 0 "$L" verify "$replay" --trace "$trace" --json
    contains out '"ok":true' ;;
  tampered_trace)
    # Change tick 100's total hash: exit 1 naming tick 100.
    awk '!/^#/ && $1=="100" { $2 = ($2=="0000000000000000" ? "0000000000000001" : "0000000000000000") } { print }' "$trace" > t1.trace
    expect 1 "$L" verify "$replay" --trace t1.trace
    contains out "tick 100"
    contains out "total"
    # Change one component's hash at tick 37: exit 1 naming the tick and the component.
    awk '!/^#/ && $1=="37" { n=split($NF, kv, "="); $NF = kv[1] "=0123456789abcdef"; comp=kv[1] } { print } END { print comp > "comp.txt" }' "$trace" > t2.trace
    comp=$(cat comp.txt)
    expect 1 "$L" verify "$replay" --trace t2.trace
    contains out "tick 37"
    contains out "$comp"
    expect 1 "$L" verify "$replay" --trace t2.trace --json
    contains out '"tick":37'
    # A golden trace longer than the replay: mismatch at the first extra tick.
    last=$(grep -v '^#' "$trace" | tail -1 | cut -d' ' -f1)
    { cat "$trace"; echo "$((last + 1)) 0000000000000000"; } > t3.trace
    expect 1 "$L" verify "$replay" --trace t3.trace
    contains err "tick $((last + 1))"
    # A malformed trace is bad input.
    echo "zero 12" > t4.trace
    expect 2 "$L" verify "$replay" --trace t4.trace ;;
  trace_roundtrip)
    expect 0 "$L" trace "$replay" -o out.trace
    cmp -s out.trace "$trace" || fail "trace of $replay differs from the golden trace"
    # The sim's parallel loops on a pool: the same bytes on any thread count.
    for th in 1 2 8; do
      expect 0 "$L" trace "$replay" --threads "$th" -o threads.trace
      cmp -s threads.trace "$trace" || fail "trace --threads $th of $replay differs from the golden trace"
    done
    expect 0 "$L" trace "$replay" --recorded -o rec.trace
    cmp -s rec.trace "$trace" || fail "recorded hashes of $replay differ from the golden trace" ;;
  convert_roundtrip)
    expect 0 "$L" convert "$replay" x.json
    expect 0 "$L" convert x.json x.replay
    cmp -s x.replay "$replay" || fail "binary -> JSON -> binary is not byte-identical"
    expect 0 "$L" verify x.json --trace "$trace" ;;
  info)
    expect 0 "$L" info "$replay"
    contains out "matches this build"
    contains out "complete      yes"
    [ "$(tail -1 out)" = "read by       lockstep 0.3.0 (a replay file does not record the lockstep version that wrote it)" ] \
      || fail "info's last line: $(tail -1 out)"
    expect 0 "$L" info --json "$replay"
    contains out '"complete":true'
    contains out ',"reader_version":"0.3.0"}$' ;;
  truncated)
    size=$(stat -c %s "$replay")
    head -c 20 "$replay" > head.replay
    expect 2 "$L" verify head.replay
    contains err "HEAD"
    head -c $((size / 2)) "$replay" > half.replay
    # An incomplete replay fails verify/run unless asked for (or named *.partial).
    expect 2 "$L" verify half.replay
    contains err "incomplete replay"
    contains err "allow-partial"
    expect 2 "$L" run --no-progress half.replay
    contains err "incomplete replay"
    expect 0 "$L" verify half.replay --allow-partial
    contains err "warning"
    contains err "no END block"
    cp half.replay half.replay.partial
    expect 0 "$L" verify half.replay.partial
    expect 0 "$L" run --no-progress half.replay.partial
    expect 1 "$L" verify half.replay --allow-partial --trace "$trace"
    expect 0 "$L" info half.replay
    contains out "complete      NO" ;;
  mismatch)
    expect 0 "$L" convert "$replay" x.json
    sed 's/"sim": "[^"]*"/"sim": "no-such-sim"/' x.json > sim.json
    expect 2 "$L" verify sim.json
    contains err "no-such-sim"
    sed 's/"sim_version": [0-9]*/"sim_version": 999/' x.json > ver.json
    expect 2 "$L" verify ver.json
    contains err "version 999"
    sed 's/"input_schema": "[0-9a-f]*"/"input_schema": "0000000000000bad"/' x.json > schema.json
    expect 2 "$L" verify schema.json
    contains err "input schema"
    sed 's/"format_version": 1/"format_version": 2/' x.json > fmt.json
    expect 2 "$L" verify fmt.json ;;
  *) fail "unknown case $kind" ;;
esac
echo "ok [$case_name]"
