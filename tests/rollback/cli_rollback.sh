#!/usr/bin/env bash
# End-to-end tests of `lockstep synctest` and `lockstep netsim` (exit codes 0/1/2, netsim 3).
# usage: cli_rollback.sh CASE LOCKSTEP WORKDIR
set -u
case_name=$1
bin=$2
work=$3/$case_name
mkdir -p "$work"

expect() {  # expect RC command...
  local want=$1
  shift
  "$@" >"$work/out.txt" 2>"$work/err.txt"
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL: expected exit $want, got $got: $*"
    echo "--- stdout"; cat "$work/out.txt"; echo "--- stderr"; cat "$work/err.txt"
    exit 1
  fi
}
contains() {  # contains FILE TEXT
  if ! grep -q -- "$2" "$work/$1"; then
    echo "FAIL: $1 lacks '$2'"; cat "$work/$1"; exit 1
  fi
}
has_line() {  # has_line FILE LINE : LINE is a whole line of FILE, exactly
  if ! grep -qxF -- "$2" "$work/$1"; then
    echo "FAIL: $1 lacks the line '$2'"; cat "$work/$1"; exit 1
  fi
}
has_match() {  # has_match FILE REGEX : a whole line of FILE matches the extended REGEX
  if ! grep -qxE -- "$2" "$work/$1"; then
    echo "FAIL: $1 has no line matching '$2'"; cat "$work/$1"; exit 1
  fi
}

case $case_name in
  synctest_duel)
    expect 0 "$bin" synctest --sim duel --bot 7 --ticks 600 --check-distance 8
    contains out.txt "every hash reproduced"
    ;;
  synctest_skirmish)
    expect 0 "$bin" synctest --sim skirmish --bot 3 --players 3 --units 300 --ticks 200 --check-distance 8
    ;;
  synctest_replay)
    expect 0 "$bin" record --sim duel --bot 5 --ticks 300 -o "$work/duel.replay"
    for d in 1 4 8; do expect 0 "$bin" synctest "$work/duel.replay" --check-distance $d; done
    expect 0 "$bin" synctest "$work/duel.replay" --json
    contains out.txt '"ok":true'
    ;;
  synctest_broken)
    expect 1 "$bin" synctest --sim broken-static --ticks 50 --check-distance 3
    contains out.txt "DESYNC at tick"
    contains out.txt "Counter"
    # The plain gate points to the one that names system, entity and field (issue 39).
    has_line err.txt "lockstep: hint: run it again with --per-system to name the system, entity and field that differ, and --bundle-dir DIR to keep both states for 'lockstep diff'"
    expect 1 "$bin" synctest --sim broken-static --ticks 50 --json
    contains out.txt '"ok":false'
    ;;
  synctest_usage)
    expect 2 "$bin" synctest
    expect 2 "$bin" synctest --sim duel --check-distance 0
    expect 2 "$bin" synctest --sim duel --check-distance 65
    expect 2 "$bin" synctest --sim nope
    contains err.txt "^lockstep: error: unknown sim 'nope' (known: "
    expect 2 "$bin" synctest --sim duel --param 1,2,3,4,5
    has_line err.txt "lockstep: error: --param takes at most 4 values"
    expect 2 "$bin" record --sim duel --bot 1 --ticks 10 --param 1,2,3,4,5 -o "$work/p.replay"
    has_line err.txt "lockstep: error: --param takes at most 4 values"
    expect 2 "$bin" synctest "$work/missing.replay"
    expect 2 "$bin" synctest "$work/missing.replay" --sim duel
    ;;
  netsim_duel4)
    expect 0 "$bin" netsim --sim duel --peers 4 --latency-ms 150 --jitter-ms 50 --loss 0.2 --ticks 3600 --seed 1 \
      --record "$work/match.replay"
    contains out.txt "OK: every peer confirmed all 3600 ticks"
    # The report, line by line (cli/src/netsim_report.cpp).
    has_line out.txt "netsim duel: 4 peers (2 players), 3600 ticks at 60 Hz; one-way latency 150 ms ± 50 ms, loss 20.0%, duplicate 0.0%, reorder 0.0%; input delay 2, prediction window 8, hash every 16 ticks, seed 1"
    has_match out.txt 'network: [0-9]+ sent, [0-9]+ lost, 0 duplicated, 0 reordered, [0-9]+ delivered'
    has_match out.txt 'frames: [0-9]+ \([0-9]+\.[0-9] s of simulated time for 60\.0 s of ticks; [0-9]+\.[0-9]{2} s wall\)'
    has_match out.txt 'OK: every peer confirmed all 3600 ticks with identical inputs and hashes; an offline replay of the confirmed inputs matches \(final hash [0-9a-f]{16}\)'
    has_line out.txt "recorded the confirmed inputs and hashes to $work/match.replay (re-check: lockstep verify $work/match.replay)"
    expect 0 "$bin" verify "$work/match.replay"
    expect 0 "$bin" synctest "$work/match.replay" --check-distance 8
    ;;
  netsim_deterministic)
    expect 0 "$bin" netsim --sim duel --peers 3 --latency-ms 80 --jitter-ms 30 --loss 0.1 --duplicate 0.05 \
      --reorder 0.05 --ticks 900 --seed 4 --json
    sed -e 's/"seconds":[^,}]*//' "$work/out.txt" >"$work/a.json"
    expect 0 "$bin" netsim --sim duel --peers 3 --latency-ms 80 --jitter-ms 30 --loss 0.1 --duplicate 0.05 \
      --reorder 0.05 --ticks 900 --seed 4 --json
    sed -e 's/"seconds":[^,}]*//' "$work/out.txt" >"$work/b.json"
    cmp "$work/a.json" "$work/b.json" || { echo "FAIL: same seed, different run"; exit 1; }
    grep -q '"ok":true' "$work/a.json" || { echo "FAIL: not ok"; cat "$work/a.json"; exit 1; }
    contains a.json '^{"ok":true,"exit":0,"sim":"duel","peers":3,"players":2,"ticks":900,"latency_ms":80,"jitter_ms":30,"loss":0.1,"duplicate":0.05,"reorder":0.05,"seed":4,"input_delay":2,"max_prediction":8,"hash_interval":16,"threads":0,"finished":true,'
    # The conditions reach the network rounded to whole microseconds and parts per million: a
    # request that rounds to the same units plays the same match.
    expect 0 "$bin" netsim --sim duel --peers 3 --latency-ms 80.0004 --jitter-ms 29.9996 --loss 0.1000004 \
      --duplicate 0.05 --reorder 0.05 --ticks 900 --seed 4 --json
    sed -e 's/"seconds":[^,}]*//' -e 's/"latency_ms":[^,}]*//' -e 's/"jitter_ms":[^,}]*//' -e 's/"loss":[^,}]*//' \
      "$work/out.txt" >"$work/c.json"
    sed -e 's/"latency_ms":[^,}]*//' -e 's/"jitter_ms":[^,}]*//' -e 's/"loss":[^,}]*//' "$work/a.json" >"$work/a2.json"
    cmp "$work/a2.json" "$work/c.json" || { echo "FAIL: the same units played a different match"; exit 1; }
    ;;
  netsim_skirmish)
    expect 0 "$bin" netsim --sim skirmish --peers 4 --units 400 --ticks 300 --latency-ms 60 --jitter-ms 20 --loss 0.1
    ;;
  netsim_broken)
    expect 1 "$bin" netsim --sim broken-static --peers 2 --ticks 200 --latency-ms 30
    contains err.txt "DESYNC"
    contains err.txt "Counter.0:1..value: "
    has_line out.txt "DESYNC: the peers' confirmed state hashes differ (details on stderr)"
    contains err.txt '^lockstep: DESYNC detected [0-9]* times by the hash exchange; first: '
    if grep -q "^OK:" "$work/out.txt"; then echo "FAIL: a desync reported OK"; exit 1; fi
    expect 1 "$bin" netsim --sim broken-static --peers 2 --ticks 200 --latency-ms 30 --json
    contains out.txt '^{"ok":false,"exit":1,"sim":"broken-static",'
    contains out.txt ',"desync":"first divergent confirmed tick '
    contains err.txt '^lockstep: DESYNC detected [0-9]* times by the hash exchange; first: '
    ;;
  netsim_unfinished)
    # 99.9 % loss with a hash report every tick: the peers starve and the frame budget
    # (40 x ticks + 3600 = 6000 frames) runs out at the same frame every time (seeded network).
    expect 3 "$bin" netsim --sim duel --ticks 60 --loss 0.999 --hash-interval 1
    contains out.txt "UNFINISHED: the match did not finish"
    contains out.txt "frames: 6000 "
    contains err.txt "netsim did not finish: not every peer confirmed 60 ticks within 6000 frames"
    expect 3 "$bin" netsim --sim duel --ticks 60 --loss 0.999 --hash-interval 1 --json
    contains out.txt '"ok":false,"exit":3,'
    contains out.txt '"finished":false,"frames":6000,"desyncs":0,"peers_agree":true,"offline_agrees":true'
    # The same network finishes with fewer hash reports (exit 0): the budget, not the loss, ends it.
    expect 0 "$bin" netsim --sim duel --ticks 60 --loss 0.999 --hash-interval 16
    ;;
  netsim_usage)
    # Each refusal names the flags (cli/src/netsim_report.cpp).
    expect 2 "$bin" netsim
    expect 2 "$bin" netsim --sim nope
    contains err.txt "^lockstep: error: unknown sim 'nope' (known: "
    expect 2 "$bin" netsim --sim duel --loss 2
    has_line err.txt "lockstep: error: --loss, --duplicate and --reorder are probabilities in 0..1"
    expect 2 "$bin" netsim --sim duel --reorder 1.5
    has_line err.txt "lockstep: error: --loss, --duplicate and --reorder are probabilities in 0..1"
    expect 2 "$bin" netsim --sim duel --latency-ms -5
    has_line err.txt "lockstep: error: --latency-ms and --jitter-ms must be 0..10000"
    expect 2 "$bin" netsim --sim duel --jitter-ms 10000.5
    has_line err.txt "lockstep: error: --latency-ms and --jitter-ms must be 0..10000"
    expect 2 "$bin" netsim --sim duel --loss 1
    has_line err.txt "lockstep: error: --loss 1 would never deliver anything"
    # A single peer sends nothing: --loss 1 is accepted (the duel then refuses one player).
    expect 2 "$bin" netsim --sim duel --peers 1 --loss 1 --ticks 30
    has_line err.txt "lockstep: error: netsim: cannot set up the match: duel: players must be 2"
    expect 2 "$bin" netsim --sim duel --peers 0
    has_line err.txt "lockstep: error: --peers must be 1..16"
    expect 2 "$bin" netsim --sim duel --peers 17
    has_line err.txt "lockstep: error: --peers must be 1..16"
    expect 2 "$bin" netsim --sim duel --param 1,2,3,4,5
    has_line err.txt "lockstep: error: --param takes at most 4 values"
    expect 2 "$bin" netsim --sim duel --peers 4 --players 5
    has_line err.txt "lockstep: error: --players must be <= --peers"
    expect 2 "$bin" netsim --sim duel --ticks 10 --record /nonexistent-dir/x.replay
    ;;
  *)
    echo "unknown case $case_name"
    exit 2
    ;;
esac
echo "ok $case_name"
