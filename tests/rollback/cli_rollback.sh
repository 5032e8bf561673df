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
    expect 1 "$bin" synctest --sim broken-static --ticks 50 --json
    contains out.txt '"ok":false'
    ;;
  synctest_usage)
    expect 2 "$bin" synctest
    expect 2 "$bin" synctest --sim duel --check-distance 0
    expect 2 "$bin" synctest --sim duel --check-distance 65
    expect 2 "$bin" synctest --sim nope
    expect 2 "$bin" synctest "$work/missing.replay"
    expect 2 "$bin" synctest "$work/missing.replay" --sim duel
    ;;
  netsim_duel4)
    expect 0 "$bin" netsim --sim duel --peers 4 --latency-ms 150 --jitter-ms 50 --loss 0.2 --ticks 3600 --seed 1 \
      --record "$work/match.replay"
    contains out.txt "OK: every peer confirmed all 3600 ticks"
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
    ;;
  netsim_skirmish)
    expect 0 "$bin" netsim --sim skirmish --peers 4 --units 400 --ticks 300 --latency-ms 60 --jitter-ms 20 --loss 0.1
    ;;
  netsim_broken)
    expect 1 "$bin" netsim --sim broken-static --peers 2 --ticks 200 --latency-ms 30
    contains err.txt "DESYNC"
    contains err.txt "Counter.0:1..value: "
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
    expect 2 "$bin" netsim
    expect 2 "$bin" netsim --sim nope
    expect 2 "$bin" netsim --sim duel --loss 2
    expect 2 "$bin" netsim --sim duel --latency-ms -5
    expect 2 "$bin" netsim --sim duel --peers 0
    expect 2 "$bin" netsim --sim duel --peers 4 --players 5
    expect 2 "$bin" netsim --sim duel --ticks 10 --record /nonexistent-dir/x.replay
    ;;
  *)
    echo "unknown case $case_name"
    exit 2
    ;;
esac
echo "ok $case_name"
