#!/usr/bin/env bash
# Multi-process rollback matches over real UDP on 127.0.0.1 (docs/rollback.md, "Tests").
# Every peer is a separate `lockstep peer` process; they bind port 0 and exchange the bound
# addresses through a rendezvous directory. Outgoing packets go through the seeded lossy
# wrapper (15 % loss, 80 ± 40 ms one way on average, asymmetric: each peer its own latency).
# Every process has a hard wall-clock limit (`timeout` and --max-seconds): nothing can hang.
# usage: udp_match.sh CASE LOCKSTEP WORKDIR [SCALE]
# SCALE (default 1) divides tick and unit counts for slow (Debug, sanitizer) builds.
set -u
case_name=$1
bin=$2
work=$3/$case_name
scale=${4:-1}
rm -rf "$work"
mkdir -p "$work/rv"

fail() { echo "FAIL: $*"; for f in "$work"/*.err "$work"/*.json; do [[ -f $f ]] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
jget() { grep -o "\"$2\":[^,}]*" "$1" | head -1 | cut -d: -f2- | tr -d '"'; }

# start ID ARGS... : one peer in the background; pid in pid[ID]
# Hard limit: --max-seconds inside, and a watchdog that SIGKILLs that very pid after 90 s.
declare -A pid
watchdogs=()
trap 'for w in "${watchdogs[@]}"; do kill "$w" 2>/dev/null; done' EXIT
start() {  # start ID ARGS... (ARGS may begin with --spectate)
  local id=$1 cmd=peer
  shift
  if [[ ${1:-} == --spectate ]]; then cmd=spectate; shift; fi
  "$bin" $cmd --id "$id" --rendezvous "$work/rv" --session-id 77 --json --max-seconds 80 \
    --record "$work/p$id.replay" "$@" >"$work/p$id.json" 2>"$work/p$id.err" &
  pid[$id]=$!
  local target=${pid[$id]}
  # The watchdog takes its sleep down with it when the script ends (so ctest does not wait
  # for a stray sleep holding its output pipe).
  (sleep 90 & s=$!; trap 'kill $s 2>/dev/null; exit 0' TERM; wait $s; kill -9 "$target" 2>/dev/null) >/dev/null 2>&1 &
  watchdogs+=($!)
}
wait_ok() {  # wait_ok ID EXPECTED_RC
  wait "${pid[$1]}"
  local rc=$?
  [[ $rc -eq $2 ]] || fail "peer $1 exited $rc, expected $2"
}
same_replays() {  # same_replays ID... : byte-identical files (inputs, hashes, header) + offline verify
  local first=$1
  shift
  for id in "$@"; do
    cmp -s "$work/p$first.replay" "$work/p$id.replay" || fail "p$id.replay differs from p$first.replay"
  done
  "$bin" verify "$work/p$first.replay" >"$work/verify.out" 2>&1 || fail "verify p$first.replay: $(cat "$work/verify.out")"
}
# Lossy, asymmetric links: peer i's outgoing latency is 60 + 20·i ms (so A→B and B→A differ).
link() { echo "--loss 0.15 --latency-ms $((60 + 20 * $1)) --jitter-ms 40"; }

case $case_name in
  duel2)
    # Two players and a spectator (peer 2) that stays 30 ticks behind and records the match.
    n=$((1800 / scale))
    common="--sim duel --count 3 --players 2 --ticks $n --tick-hz 240 --input-delay 6 --max-prediction 48 --hash-interval 16"
    for i in 0 1; do start $i $common $(link $i); done
    start 2 --spectate $common $(link 2) --delay-frames 30
    for i in 0 1 2; do wait_ok $i 0; done
    [[ $(jget "$work/p2.json" confirmed_tick) == "$n" ]] || fail "the spectator did not confirm $n ticks"
    [[ $(jget "$work/p2.json" rollbacks) == 0 ]] || fail "the spectator rolled back (it must only simulate confirmed ticks)"
    [[ $(jget "$work/p2.json" final_hash) == $(jget "$work/p0.json" final_hash) ]] || fail "the spectator's final state differs"
    for i in 0 1; do
      [[ $(jget "$work/p$i.json" confirmed_tick) == "$n" ]] || fail "peer $i did not confirm $n ticks"
      [[ $(jget "$work/p$i.json" desyncs) == 0 ]] || fail "peer $i desynced"
      (( $(jget "$work/p$i.json" hash_checks) > n / 40 )) || fail "peer $i checked too few hashes"
      (( $(jget "$work/p$i.json" lossy_lost) > 0 )) || fail "peer $i lost no packet: the wrapper is not in the path"
    done
    [[ $(jget "$work/p0.json" final_hash) == $(jget "$work/p1.json" final_hash) ]] || fail "final states differ"
    grep -qE '^\{"ok":true,"exit":0,"peer":0,"peers":3,"sim":"duel","ticks":'"$n"',"confirmed_tick":'"$n"',"finished":true,"final_hash":"[0-9a-f]{16}","frames":' \
      "$work/p0.json" || fail "peer 0's JSON report: $(cat "$work/p0.json")"
    grep -qE ',"record":"[^"]*p0\.replay"' "$work/p0.json" || fail "peer 0's JSON report lacks its record"
    same_replays 0 1 2
    ;;
  skirmish4)
    n=$((600 / scale))
    common="--sim skirmish --count 4 --players 4 --units $((2000 / scale)) --ticks $n --tick-hz 120 --input-delay 4 --max-prediction 32"
    for i in 0 1 2 3; do start $i $common $(link $i); done
    for i in 0 1 2 3; do wait_ok $i 0; done
    for i in 0 1 2 3; do [[ $(jget "$work/p$i.json" confirmed_tick) == "$n" ]] || fail "peer $i did not confirm $n ticks"; done
    same_replays 0 1 2 3
    ;;
  skirmish8_peers4|skirmish8_peers8)
    # N processes, one player each, on the 8-player RTS; every link 5 % loss and 30 ms one way
    # (each peer's outgoing wrapper, so A→B and B→A both), no jitter. 600 ticks at 60 Hz.
    # The 8-peer match runs only with LOCKSTEP_SLOW_TESTS=1 (docs/rollback.md, "Tests").
    np=${case_name##*peers}
    if [[ $np == 8 && ${LOCKSTEP_SLOW_TESTS:-0} != 1 ]]; then
      echo "SKIP $case_name: set LOCKSTEP_SLOW_TESTS=1 to run it"
      exit 77
    fi
    n=$((600 / scale))
    common="--sim skirmish8 --count $np --players $np --units $((400 / scale)) --ticks $n --tick-hz 60 --input-delay 3 --max-prediction 16 --loss 0.05 --latency-ms 30"
    ids=$(seq 0 $((np - 1)))
    for i in $ids; do start $i $common; done
    for i in $ids; do wait_ok $i 0; done
    for i in $ids; do
      [[ $(jget "$work/p$i.json" confirmed_tick) == "$n" ]] || fail "peer $i did not confirm $n ticks"
      [[ $(jget "$work/p$i.json" desyncs) == 0 ]] || fail "peer $i desynced"
      (( $(jget "$work/p$i.json" lossy_lost) > 0 )) || fail "peer $i lost no packet: the wrapper is not in the path"
      [[ $(jget "$work/p$i.json" final_hash) == $(jget "$work/p0.json" final_hash) ]] || fail "peer $i's final state differs"
    done
    grep -qE '^\{"ok":true,"exit":0,"peer":0,"peers":'"$np"',"sim":"skirmish8","ticks":'"$n"',"confirmed_tick":'"$n"',"finished":true,' \
      "$work/p0.json" || fail "peer 0's JSON report: $(cat "$work/p0.json")"
    same_replays $ids
    "$bin" info "$work/p0.replay" >"$work/info.out" 2>&1 || fail "info p0.replay: $(cat "$work/info.out")"
    grep -qE "^config +players $np " "$work/info.out" || fail "p0.replay is not a $np-player match: $(cat "$work/info.out")"
    ;;
  kill)
    # Peer 3 is killed mid-match: the others report Disconnected within --disconnect-ms, agree
    # on the tick from which its player uses the default input, and finish the match.
    common="--sim skirmish --count 4 --players 4 --units $((200 / scale)) --ticks 1200 --tick-hz 120 --input-delay 4 --max-prediction 32 --disconnect-ms 700"
    for i in 0 1 2 3; do start $i $common $(link $i); done
    for _ in $(seq 1 200); do grep -q "running" "$work/p3.err" 2>/dev/null && break; sleep 0.05; done
    sleep 2
    kill -9 "${pid[3]}"
    wait "${pid[3]}" 2>/dev/null
    for i in 0 1 2; do wait_ok $i 0; done
    d0=$(jget "$work/p0.json" disconnect_tick_peer3)
    [[ -n $d0 ]] || fail "peer 0 reports no disconnect tick for peer 3"
    for i in 0 1 2; do
      grep -q "Disconnected: peer 3" "$work/p$i.err" || fail "peer $i did not report Disconnected for peer 3"
      [[ $(jget "$work/p$i.json" disconnect_tick_peer3) == "$d0" ]] || fail "peer $i agreed on another disconnect tick"
      [[ $(jget "$work/p$i.json" confirmed_tick) == 1200 ]] || fail "peer $i did not finish"
    done
    (( d0 > 100 && d0 < 1200 )) || fail "implausible disconnect tick $d0"
    same_replays 0 1 2
    ;;
  follow)
    # A live broadcast without any traffic to the watchers: peer 0 records the match with a
    # checkpoint every 64 ticks; a watcher started mid-match follows the growing file from its
    # newest checkpoint, 60 ticks behind, checks every tick against the recorded hashes and
    # ends on the players' final hash. A second watcher starts at a chosen tick.
    n=$((1200 / scale))
    common="--sim duel --count 2 --ticks $n --tick-hz 240 --input-delay 4 --max-prediction 24 --hash-interval 16"
    start 0 $common --checkpoint-every 64
    start 1 $common --checkpoint-every 64
    for _ in $(seq 1 200); do grep -q "running" "$work/p0.err" 2>/dev/null && break; sleep 0.05; done
    sleep 2
    timeout -s KILL 60 "$bin" spectate --follow "$work/p0.replay" --delay-ticks 60 --json --max-seconds 50 \
      >"$work/w.json" 2>"$work/w.err" &
    w=$!
    timeout -s KILL 60 "$bin" spectate --follow "$work/p0.replay" --from $((n / 2)) --json --max-seconds 50 \
      >"$work/w2.json" 2>"$work/w2.err" &
    w2=$!
    for i in 0 1; do wait_ok $i 0; done
    wait $w || fail "the watcher exited $?: $(cat "$work/w.err")"
    wait $w2 || fail "the second watcher exited $?: $(cat "$work/w2.err")"
    same_replays 0 1
    [[ $(jget "$work/w.json" final_hash) == $(jget "$work/p0.json" final_hash) ]] || fail "the watcher's final state differs"
    [[ $(jget "$work/w.json" complete) == true && $(jget "$work/w.json" tick) == "$n" ]] || fail "the watcher did not reach the end"
    s=$(jget "$work/w.json" start_tick)
    (( s > 0 && s % 64 == 0 )) || fail "the watcher did not start at a checkpoint (start tick $s)"
    [[ $(jget "$work/w.json" checked_ticks) == $((n - s + 1)) ]] || fail "not every tick from $s on was checked"
    # Live, it stays within its delay plus one recorded block (64 ticks) of the newest tick.
    (( $(jget "$work/w.json" lag_max_ticks) <= 60 + 64 )) || fail "the watcher fell behind: $(cat "$work/w.json")"
    s2=$(jget "$work/w2.json" start_tick)
    (( s2 <= n / 2 && s2 % 64 == 0 && n / 2 - s2 < 64 )) || fail "--from $((n / 2)) started at $s2"
    [[ $(jget "$work/w2.json" final_hash) == $(jget "$work/p0.json" final_hash) ]] || fail "the second watcher's final state differs"
    # A finished recording is followed the same way (from tick 0 here).
    "$bin" spectate --follow "$work/p1.replay" --from begin --json >"$work/w3.json" 2>&1 || fail "following a finished file"
    ;;
  follow_growing)
    # A follower of a recording that grows in 512-byte pieces, with the default delay (0). A
    # HASH block lands after the INPT block of the same ticks, so the follower often has a
    # tick's inputs before its hash: it must wait for the hash, not step past it unchecked
    # (issue 39: "ok":true, checked_ticks 0, for a recording that verify rejects). A desync
    # recorded at tick 377 (one corrupted hash) is found at tick 377, exit 1; a good recording
    # ends with every recorded hash checked (as many as verify checks) and on its final hash.
    n=400
    "$bin" record --sim duel --bot 3 --ticks $n -o "$work/good.replay" --json >"$work/record.json" 2>&1 || fail "record"
    mkdir -p "$work/j"  # the JSON forms (not the reports fail() prints)
    "$bin" convert "$work/good.replay" "$work/j/good.json" >/dev/null 2>&1 || fail "convert to JSON"
    python3 - "$work/j/good.json" "$work/j/bad.json" <<'PY' || fail "corrupting the hash of tick 377"
import json, sys
d = json.load(open(sys.argv[1]))
for h in d["lockstep_replay"]["tick_hashes"]:
    if h["tick"] == 377:
        h["total"] = "%016x" % (int(h["total"], 16) ^ 1)
json.dump(d, open(sys.argv[2], "w"))
PY
    "$bin" convert "$work/j/bad.json" "$work/bad.replay" >/dev/null 2>&1 || fail "convert to binary"
    "$bin" verify "$work/bad.replay" >"$work/verify.out" 2>&1
    [[ $? -eq 1 ]] && grep -q "first divergent tick 377 " "$work/verify.out" || fail "verify: $(cat "$work/verify.out")"
    "$bin" verify "$work/good.replay" --json >"$work/verify.json" 2>&1 || fail "verify good.replay"
    grow() {  # grow SRC DST: DST.partial appended in 512-byte pieces, then renamed (the recorder's close)
      python3 - "$1" "$2" <<'PY'
import os, sys, time
data = open(sys.argv[1], "rb").read()
with open(sys.argv[2] + ".partial", "wb") as out:
    for at in range(0, len(data), 512):
        out.write(data[at:at + 512])
        out.flush()
        time.sleep(0.005)
os.rename(sys.argv[2] + ".partial", sys.argv[2])
PY
    }
    follow() {  # follow NAME: watches NAME-live.replay while NAME.replay is copied there piece by piece
      timeout -s KILL 60 "$bin" spectate --follow "$work/$1-live.replay" --poll-ms 1 --json --max-seconds 50 \
        >"$work/$1.out" 2>"$work/$1.err" &
      local w=$!
      grow "$work/$1.replay" "$work/$1-live.replay"
      wait $w
    }
    follow bad
    rc=$?
    [[ $rc -eq 1 ]] || fail "the watcher of a desynced recording exited $rc, expected 1: $(cat "$work/bad.out")"
    grep -q '^{"ok":false,"exit":1,' "$work/bad.out" || fail "report: $(cat "$work/bad.out")"
    [[ $(jget "$work/bad.out" tick) == 377 ]] || fail "the watcher stopped at tick $(jget "$work/bad.out" tick), not 377"
    grep -q '"error":"[^"]*(tick 377): state differs from the recording: hash ' "$work/bad.out" || fail "error: $(cat "$work/bad.out")"
    grep -q "^lockstep spectate --follow: error: .*(tick 377): state differs from the recording" "$work/bad.err" || fail "stderr: $(cat "$work/bad.err")"
    follow good
    rc=$?
    [[ $rc -eq 0 ]] || fail "the watcher of a good recording exited $rc: $(cat "$work/good.err")"
    hashed=$(jget "$work/verify.json" recorded_hashes_checked)
    [[ $hashed == $((n + 1)) ]] || fail "verify checked $hashed hashes"
    [[ $(jget "$work/good.out" checked_ticks) == "$hashed" ]] || fail "checked $(jget "$work/good.out" checked_ticks) of $hashed recorded hashes"
    [[ $(jget "$work/good.out" complete) == true && $(jget "$work/good.out" tick) == "$n" ]] || fail "did not reach the end"
    [[ $(jget "$work/good.out" final_hash) == $(jget "$work/record.json" final_hash) ]] || fail "final hash differs"
    ;;
  watch_messages)
    # What a watcher says when a relay never answers (another key, or none: issue 39), forged
    # relay data (the source named, the bytes escaped), the derived key's warning, the mode in
    # the error line, and a rejoin through a relay with another key. relay_serve is a relay of
    # any file's bytes, keyed as a peer's relay is (a key file, or from the session id).
    serve=${RELAY_SERVE:?set RELAY_SERVE to the relay_serve tool}
    "$bin" record --sim duel --bot 3 --ticks 200 -o "$work/r.replay" >/dev/null 2>&1 || fail "record"
    head -c 3000 "$work/r.replay" >"$work/live.replay.partial"  # a match in progress: no END block
    printf '%064d\n' 7 >"$work/k1"
    printf '%064d\n' 9 >"$work/k2"
    "$serve" "$work/live.replay" "$work/addr" 77 "$work/k1" 30 &
    relay_pid=$!
    for _ in $(seq 1 250); do [[ -s $work/addr ]] && break; sleep 0.02; done
    host=$(cat "$work/addr")
    [[ -n $host ]] || fail "relay_serve did not start"
    silent="never answered \([0-9]+ requests in 1\.0 s\): its match key or session id differs from ours, or no relay listens at that address"
    # No --key-file: the key derived from --session-id is not the relay's. Warned, and named.
    timeout -s KILL 20 "$bin" spectate --host "$host" --session-id 77 --idle-timeout-s 1 --json >"$work/w1.json" 2>"$work/w1.err"
    rc=$?
    [[ $rc -eq 1 ]] || fail "a watcher nobody answers exited $rc, expected 1"
    grep -qxF 'lockstep spectate: WARNING: no --key-file: the match key is derived from --session-id, which is no secret (INSECURE: for tests and demos; docs/rollback.md, "Threat model")' \
      "$work/w1.err" || fail "no derived-key warning: $(cat "$work/w1.err")"
    grep -qE "^lockstep spectate --host: error: relay $host $silent \(give the relay's --key-file and --session-id, or check the --host address\)$" \
      "$work/w1.err" || fail "no-key message: $(cat "$work/w1.err")"
    grep -q '^{"ok":false,"exit":1,.*"error":"relay [^"]* never answered' "$work/w1.json" || fail "no-key report: $(cat "$work/w1.json")"
    # Another key file: the same, without the warning.
    timeout -s KILL 20 "$bin" spectate --host "$host" --session-id 77 --key-file "$work/k2" --idle-timeout-s 1 >/dev/null 2>"$work/w2.err"
    rc=$?
    [[ $rc -eq 1 ]] || fail "a watcher with another key exited $rc, expected 1"
    ! grep -q WARNING "$work/w2.err" || fail "a warning with a key file: $(cat "$work/w2.err")"
    grep -qE "^lockstep spectate --host: error: relay $host $silent " "$work/w2.err" || fail "wrong-key message: $(cat "$work/w2.err")"
    # The relay's key: it answers, and a recording that stops growing is the recorder's silence.
    timeout -s KILL 20 "$bin" spectate --host "$host" --session-id 77 --key-file "$work/k1" --idle-timeout-s 1 >/dev/null 2>"$work/w3.err"
    rc=$?
    [[ $rc -eq 1 ]] || fail "a watcher of a stalled recording exited $rc, expected 1"
    grep -qE "^lockstep spectate --host: error: relay $host: nothing new for 1 s and no END block \(the recorder stopped\?\) at tick [0-9]+$" \
      "$work/w3.err" || fail "stalled-recording message: $(cat "$work/w3.err")"
    # The watch key instead of the match key (issue 39): keygen derives it (libsodium's
    # crypto_kdf, here recomputed with Python's BLAKE2b), the relay answers a watcher holding it
    # alone, the match key given as a watch key is not the relay's, and the flags' errors.
    "$bin" keygen --watch-key-of "$work/k1" --out "$work/k1.watch" 2>"$work/kg.err" || fail "keygen --watch-key-of: $(cat "$work/kg.err")"
    grep -qF "lockstep keygen: wrote the watch key of $work/k1 to $work/k1.watch (" "$work/kg.err" || fail "keygen said: $(cat "$work/kg.err")"
    expect=$(python3 -c 'import hashlib,struct,sys; k=bytes.fromhex(open(sys.argv[1]).read().strip()); print(hashlib.blake2b(b"",digest_size=32,key=k,salt=struct.pack("<Q",1)+bytes(8),person=b"LSwatch1"+bytes(8)).hexdigest())' "$work/k1")
    [[ $(cat "$work/k1.watch") == "$expect" ]] || fail "the watch key $(cat "$work/k1.watch") is not the KDF's $expect"
    "$bin" keygen --watch-key-of "$work/k1" --out "$work/k1.watch" >/dev/null 2>"$work/kg2.err"
    rc=$?
    [[ $rc -eq 2 ]] || fail "keygen over an existing watch key exited $rc"
    grep -qxF "lockstep: error: watch key file $work/k1.watch: exists (never overwritten)" "$work/kg2.err" || fail "keygen again: $(cat "$work/kg2.err")"
    timeout -s KILL 20 "$bin" spectate --host "$host" --session-id 77 --watch-key-file "$work/k1.watch" --idle-timeout-s 1 >/dev/null 2>"$work/w5.err"
    rc=$?
    [[ $rc -eq 1 ]] || fail "a watcher with the watch key exited $rc, expected 1"
    grep -qE "^lockstep spectate --host: error: relay $host: nothing new for 1 s and no END block" "$work/w5.err" || fail "watch-key watcher: $(cat "$work/w5.err")"
    ! grep -q WARNING "$work/w5.err" || fail "a warning with a watch key file: $(cat "$work/w5.err")"
    timeout -s KILL 20 "$bin" spectate --host "$host" --session-id 77 --watch-key-file "$work/k1" --idle-timeout-s 1 >/dev/null 2>"$work/w6.err"
    rc=$?
    [[ $rc -eq 1 ]] || fail "a watcher with the match key as its watch key exited $rc, expected 1"
    grep -qE "^lockstep spectate --host: error: relay $host $silent \(give the relay's --watch-key-file and --session-id, or check the --host address\)$" \
      "$work/w6.err" || fail "match key as watch key: $(cat "$work/w6.err")"
    "$bin" spectate --host "$host" --key-file "$work/k1" --watch-key-file "$work/k1.watch" >/dev/null 2>"$work/w7.err"
    rc=$?
    [[ $rc -eq 2 ]] && grep -qxF "lockstep: error: --watch-key-file and --key-file exclude each other" "$work/w7.err" \
      || fail "--watch-key-file with --key-file: exit $rc: $(cat "$work/w7.err")"
    # A rejoin through that relay with another key: said so within --sync-timeout-s.
    timeout -s KILL 20 "$bin" peer --sim duel --id 0 --peers 127.0.0.1:0,127.0.0.1:9 --session-id 77 --key-file "$work/k2" \
      --rejoin "$host" --sync-timeout-s 1 >/dev/null 2>"$work/rj.err"
    rc=$?
    [[ $rc -eq 2 ]] || fail "a rejoin nobody answers exited $rc, expected 2: $(cat "$work/rj.err")"
    grep -qE "^lockstep: error: --rejoin $host: relay $host $silent \(give the survivor's --key-file and --session-id, or check the --rejoin address\)$" \
      "$work/rj.err" || fail "rejoin message: $(cat "$work/rj.err")"
    # Forged relay data: a recording whose sim name is terminal escapes (any relay's data is
    # anyone's with a key derived from the session id). The error names the relay and escapes them.
    mkdir -p "$work/j"
    "$bin" convert "$work/r.replay" "$work/j/r.json" >/dev/null 2>&1 || fail "convert to JSON"
    python3 - "$work/j/r.json" "$work/j/forged.json" <<'PY' || fail "forging the sim name"
import json, sys
d = json.load(open(sys.argv[1]))
d["lockstep_replay"]["sim"] = "\u001b]0;pwned\u0007\u001b[2J"
json.dump(d, open(sys.argv[2], "w"))
PY
    "$bin" convert "$work/j/forged.json" "$work/forged.replay" >/dev/null 2>&1 || fail "convert the forgery"
    "$serve" "$work/forged.replay" "$work/addr2" 78 - 30 &
    forger_pid=$!
    for _ in $(seq 1 250); do [[ -s $work/addr2 ]] && break; sleep 0.02; done
    forger=$(cat "$work/addr2")
    timeout -s KILL 20 "$bin" spectate --host "$forger" --session-id 78 --idle-timeout-s 5 >/dev/null 2>"$work/w4.err"
    rc=$?
    [[ $rc -eq 1 ]] || fail "a watcher of forged data exited $rc, expected 1: $(cat "$work/w4.err")"
    grep -qxF "lockstep spectate --host: error: relay $forger: byte 0: recorded with sim '\x1b]0;pwned\x07\x1b[2J', which this tool does not have" \
      "$work/w4.err" || fail "forged-data message: $(cat -v "$work/w4.err")"
    ! grep -q $'\x1b' "$work/w4.err" || fail "raw escape bytes printed: $(cat -v "$work/w4.err")"
    # Relay failover (issue 38) onto a relay of another recording (another world seed): the
    # watcher compares the new relay's bytes with those held and refuses it at the first that
    # differs, naming both relays; nothing of it is spliced in.
    "$bin" record --sim duel --bot 3 --seed 9 --ticks 200 -o "$work/o.replay" >/dev/null 2>&1 || fail "record another"
    head -c 3000 "$work/o.replay" >"$work/other.replay.partial"
    first=$(cmp "$work/live.replay.partial" "$work/other.replay.partial" | sed -E 's/.* byte ([0-9]+),.*/\1/')
    (( first > 0 && first <= 3000 )) || fail "the two recordings do not differ in their first 3000 bytes"
    # Generous silences: under a loaded machine (CI runs this beside other tests) a relay that
    # is alive but not scheduled for 300 ms must not look gone before its bytes were read.
    "$serve" "$work/live.replay" "$work/addr3" 77 "$work/k1" 4 &
    short_pid=$!
    "$serve" "$work/other.replay" "$work/addr4" 77 "$work/k1" 30 &
    other_pid=$!
    for _ in $(seq 1 250); do [[ -s $work/addr3 && -s $work/addr4 ]] && break; sleep 0.02; done
    r1=$(cat "$work/addr3")
    r2=$(cat "$work/addr4")
    timeout -s KILL 30 "$bin" spectate --host "$r1" --host "$r2" --failover-ms 1500 --session-id 77 --key-file "$work/k1" \
      --idle-timeout-s 10 >/dev/null 2>"$work/w5.err"
    rc=$?
    [[ $rc -eq 2 ]] || fail "a watcher switched onto another recording exited $rc, expected 2: $(cat "$work/w5.err")"
    grep -qE "^lockstep spectate: relay $r1 stopped answering \(silent for [0-9]+ ms\) at tick [0-9]+ \(byte 3000\): switching to relay $r2$" \
      "$work/w5.err" || fail "switch message: $(cat "$work/w5.err")"
    grep -qxF "lockstep spectate --host: error: relay $r2: byte $((first - 1)): serves another recording than relay $r1 (this byte differs from the one already read from it): refused, not spliced" \
      "$work/w5.err" || fail "refused-relay message: $(cat "$work/w5.err")"
    kill "$relay_pid" "$forger_pid" "$other_pid" 2>/dev/null
    wait "$relay_pid" "$forger_pid" "$other_pid" "$short_pid" 2>/dev/null
    ;;
  follow_http)
    # The same broadcast through a web server: the recording's directory is served by a
    # Range-capable static server (any web server or CDN would do); the watcher follows the
    # URL (p0.replay.partial while the match runs, p0.replay after) from its newest checkpoint.
    n=$((1200 / scale))
    common="--sim duel --count 2 --ticks $n --tick-hz 240 --input-delay 4 --max-prediction 24 --hash-interval 16"
    "$RANGE_SERVER" "$work" "$work/port" &
    server=$!
    for _ in $(seq 1 200); do [[ -s $work/port ]] && break; sleep 0.02; done
    [[ -s $work/port ]] || fail "the range server did not start"
    url="http://127.0.0.1:$(cat "$work/port")/p0.replay"
    start 0 $common --checkpoint-every 64
    start 1 $common --checkpoint-every 64
    for _ in $(seq 1 200); do grep -q "running" "$work/p0.err" 2>/dev/null && break; sleep 0.05; done
    sleep 2
    timeout -s KILL 60 "$bin" spectate --follow "$url" --delay-ticks 60 --json --max-seconds 50 >"$work/w.json" 2>"$work/w.err" &
    w=$!
    for i in 0 1; do wait_ok $i 0; done
    wait $w; rc=$?
    kill $server 2>/dev/null
    [[ $rc -eq 0 ]] || fail "the HTTP watcher exited $rc: $(cat "$work/w.err") $(cat "$work/w.json")"
    [[ $(jget "$work/w.json" final_hash) == $(jget "$work/p0.json" final_hash) ]] || fail "the HTTP watcher's final state differs"
    s=$(jget "$work/w.json" start_tick)
    (( s > 0 && s % 64 == 0 )) || fail "the HTTP watcher did not start at a checkpoint (start tick $s)"
    (( $(jget "$work/w.json" lag_max_ticks) <= 60 + 64 )) || fail "the HTTP watcher fell behind: $(cat "$work/w.json")"
    # The recorder writes its end, makes it durable (fsync), then renames FILE.partial to FILE: a
    # watcher close behind may read the end through either name (on a loaded machine the fsync
    # leaves a wide window), so both are right; any other source is not.
    src=$(jget "$work/w.json" source)
    [[ $src == "$url" || $src == "$url.partial" ]] || fail "the watcher ended on an unexpected source: $src"
    [[ -f $work/p0.replay && ! -e $work/p0.replay.partial ]] || fail "the recording was not renamed to its final name"
    ;;
  relay)
    # Host-fed spectators (rollback/relay.h): peer 0 relays its live recording; 15 watchers
    # fetch it from peer 0's relay, one of them relays it again to 2 more (a second level), and
    # a late watcher joins ~2/3 into the match (from a checkpoint) and keeps a copy. The
    # players' session traffic does not grow with the watchers: peer 0 (relaying) and peer 1
    # (not) send about as many session datagrams.
    n=1800  # not scaled: 18 processes start while the match runs (slow under ASan), duel is cheap
    common="--sim duel --count 2 --ticks $n --tick-hz 240 --input-delay 4 --max-prediction 24 --hash-interval 16"
    start 0 $common --checkpoint-every 64 --relay 127.0.0.1:0
    start 1 $common
    for _ in $(seq 1 200); do grep -q "relaying the recording to watchers at" "$work/p0.err" 2>/dev/null && break; sleep 0.02; done
    host=$(grep -o "relaying the recording to watchers at [^ ]*" "$work/p0.err" | awk '{print $NF}')
    [[ -n $host ]] || fail "peer 0 did not say where it relays"
    watch() {  # watch NAME ARGS...
      local name=$1
      shift
      timeout -s KILL 80 "$bin" spectate --session-id 77 --json --max-seconds 70 --delay-ticks 60 "$@" \
        >"$work/$name.json" 2>"$work/$name.err" &
      wpid[$name]=$!
    }
    declare -A wpid
    watch mid --host "$host" --relay 127.0.0.1:0
    for _ in $(seq 1 200); do grep -q "relaying to watchers at" "$work/mid.err" 2>/dev/null && break; sleep 0.02; done
    mid=$(grep -o "relaying to watchers at [^ ]*" "$work/mid.err" | awk '{print $NF}')
    [[ -n $mid ]] || fail "the relaying watcher did not say where it relays"
    for k in $(seq 1 14); do watch "w$k" --host "$host"; done
    for k in 1 2; do watch "leaf$k" --host "$mid"; done
    sleep 5
    watch late --host "$host" --record "$work/late.replay"
    for i in 0 1; do wait_ok $i 0; done
    for name in "${!wpid[@]}"; do
      wait "${wpid[$name]}" || fail "watcher $name exited $?: $(cat "$work/$name.err")"
      [[ $(jget "$work/$name.json" final_hash) == $(jget "$work/p0.json" final_hash) ]] || fail "watcher $name's final state differs"
      [[ $(jget "$work/$name.json" tick) == "$n" ]] || fail "watcher $name did not reach the end"
    done
    (( $(jget "$work/p0.json" relay_watchers_max) == 16 )) || fail "peer 0's relay served $(jget "$work/p0.json" relay_watchers_max) watchers, expected 16"
    (( $(jget "$work/mid.json" relay_watchers_max) == 2 )) || fail "the second level served $(jget "$work/mid.json" relay_watchers_max), expected 2"
    s=$(jget "$work/late.json" start_tick)
    (( s > 0 && s % 64 == 0 )) || fail "the late watcher did not start at a checkpoint (start tick $s)"
    "$bin" verify "$work/late.replay" >"$work/verify_late.out" 2>&1 || fail "the late watcher's copy does not verify: $(cat "$work/verify_late.out")"
    cmp -s "$work/late.replay" "$work/p0.replay" || fail "the late watcher's copy differs from peer 0's recording"
    sent0=$(jget "$work/p0.json" udp_sent)
    sent1=$(jget "$work/p1.json" udp_sent)
    (( sent0 * 100 <= sent1 * 115 )) || fail "relaying changed peer 0's session traffic: $sent0 datagrams vs peer 1's $sent1"
    echo "relay: peer 0 sent $sent0 session datagrams (peer 1: $sent1); relay bytes $(jget "$work/p0.json" relay_bytes_sent) to 16 watchers; late watcher from tick $s"
    ;;
  relay_failover)
    # Relay failover (issue 38): both peers relay their own recordings (byte-identical); a
    # relaying watcher ("mid", a process of its own) relays peer 0's onward. The watcher under
    # test follows mid, with peer 1's relay as the second --host; mid is killed -9 mid-match
    # (the match goes on), and the watcher switches to peer 1's relay, says so, and ends with
    # a copy byte-identical to both peers' recordings.
    n=2400  # 10 s at 240 Hz: mid is killed ~3 s in
    common="--sim duel --count 2 --ticks $n --tick-hz 240 --input-delay 4 --max-prediction 24 --hash-interval 16"
    start 0 $common --checkpoint-every 64 --relay 127.0.0.1:0
    start 1 $common --checkpoint-every 64 --relay 127.0.0.1:0
    relay_of() {  # relay_of FILE TEXT
      for _ in $(seq 1 250); do grep -q "$2" "$1" 2>/dev/null && break; sleep 0.02; done
      grep -o "$2 [^ ]*" "$1" | awk '{print $NF}'
    }
    a=$(relay_of "$work/p0.err" "relaying the recording to watchers at")
    b=$(relay_of "$work/p1.err" "relaying the recording to watchers at")
    [[ -n $a && -n $b ]] || fail "the peers did not say where they relay"
    # No `timeout` wrapper: kill -9 must reach the relaying watcher itself (a watchdog bounds it).
    "$bin" spectate --session-id 77 --json --max-seconds 70 --host "$a" --relay 127.0.0.1:0 \
      >"$work/mid.json" 2>"$work/mid.err" &
    mid_pid=$!
    (sleep 90 & s=$!; trap 'kill $s 2>/dev/null; exit 0' TERM; wait $s; kill -9 "$mid_pid" 2>/dev/null) >/dev/null 2>&1 &
    watchdogs+=($!)
    mid=$(relay_of "$work/mid.err" "relaying to watchers at")
    [[ -n $mid ]] || fail "the relaying watcher did not say where it relays"
    timeout -s KILL 80 "$bin" spectate --session-id 77 --json --max-seconds 70 --delay-ticks 30 --host "$mid" --host "$b" \
      --failover-ms 500 --record "$work/w.replay" >"$work/w.json" 2>"$work/w.err" &
    w=$!
    sleep 3
    kill -9 $mid_pid
    wait $mid_pid 2>/dev/null
    [[ ! -s $work/mid.json ]] || fail "the relaying watcher ended before it was killed: $(cat "$work/mid.json")"
    for i in 0 1; do wait_ok $i 0; done
    wait $w; rc=$?
    [[ $rc -eq 0 ]] || fail "the watcher exited $rc: $(cat "$work/w.err")"
    line=$(grep -E "^lockstep spectate: relay $mid stopped answering \(silent for [0-9]+ ms\) at tick [0-9]+ \(byte [0-9]+\): switching to relay $b$" "$work/w.err")
    [[ -n $line ]] || fail "the watcher did not say it switched: $(cat "$work/w.err")"
    t=$(sed -E 's/.* at tick ([0-9]+) .*/\1/' <<<"$line")
    (( t > 0 && t < n )) || fail "the switch was not mid-match (tick $t of $n)"
    [[ $(jget "$work/w.json" relay_switches) == 1 ]] || fail "relay_switches: $(cat "$work/w.json")"
    [[ $(jget "$work/w.json" source) == "relay $b" ]] || fail "the watcher did not end on peer 1's relay: $(cat "$work/w.json")"
    [[ $(jget "$work/w.json" tick) == "$n" ]] || fail "the watcher did not reach the end"
    [[ $(jget "$work/w.json" final_hash) == $(jget "$work/p1.json" final_hash) ]] || fail "the watcher's final state differs"
    cmp -s "$work/p0.replay" "$work/p1.replay" || fail "the peers' recordings differ"
    cmp -s "$work/w.replay" "$work/p1.replay" || fail "the watcher's copy differs from peer 1's recording"
    "$bin" verify "$work/w.replay" >"$work/verify_w.out" 2>&1 || fail "the watcher's copy does not verify: $(cat "$work/verify_w.out")"
    echo "relay_failover: switched from $mid to $b at tick $t of $n"
    ;;
  rejoin)
    # Peer 1 is killed -9 mid-match and restarted with --rejoin: it fetches peer 0's confirmed
    # history from peer 0's relay, replays it (every hash checked), asks to play again, and both
    # agree on the tick its player returns. Lossy, asymmetric links. Every run: both exit 0,
    # byte-identical replays that verify, the same rejoin tick on both, rejoined within 5 s of
    # the restart. 10 runs (fewer in slow builds).
    runs=$(( scale > 1 ? 2 : 10 ))
    # The kill comes at ~1.5 s (tick ~180). The match must outlast the restart: under ASan on a
    # loaded 2-core machine the restarted process once took ~3.5 s to fetch, replay and ask, and
    # the survivor had reached tick 576 of 600 (CI, 2026-12-05). Slow builds play 1500 ticks.
    n=$(( scale > 1 ? 1500 : 600 ))
    common="--sim duel --count 2 --ticks $n --tick-hz 120 --input-delay 3 --max-prediction 24 --hash-interval 16 --disconnect-ms 600 --checkpoint-every 64"
    for run in $(seq 1 "$runs"); do
      rm -f "$work"/rv/* "$work"/p?.json "$work"/p?.err "$work"/p?.replay*
      start 0 $common $(link 0) --relay 127.0.0.1:0
      start 1 $common $(link 1)
      for _ in $(seq 1 200); do grep -q "running" "$work/p1.err" 2>/dev/null && break; sleep 0.05; done
      sleep 1.5
      kill -9 "${pid[1]}"
      wait "${pid[1]}" 2>/dev/null
      host=$(grep -o "relaying the recording to watchers at [^ ]*" "$work/p0.err" | awk '{print $NF}')
      [[ -n $host ]] || fail "run $run: peer 0 did not say where it relays"
      addr=$(cat "$work/rv/peer1.addr")
      rm -f "$work/rv/peer1.addr"
      mv "$work/p1.err" "$work/p1-killed.err"
      # Odd runs restart without --checkpoint-every: the rejoiner keeps the survivor's interval,
      # so its recording still comes out as the survivor's (issue 39: it wrote no checkpoints).
      again=$common
      (( run % 2 == 1 )) && again=${common/ --checkpoint-every 64/}
      timeout -s KILL 80 "$bin" peer --id 1 --rendezvous "$work/rv" --bind "$addr" --session-id 77 --json --max-seconds 70 \
        --record "$work/p1.replay" $again $(link 1) --rejoin "$host" --sync-timeout-s 20 >"$work/p1.json" 2>"$work/p1.err" &
      pid[1]=$!
      wait_ok 0 0
      wait_ok 1 0
      same_replays 0 1
      if (( run % 2 == 1 )); then
        grep -qxF "lockstep peer 1: this recording keeps a checkpoint every 64 ticks as the survivor's does (asked: none), so that both recordings come out the same" \
          "$work/p1.err" || fail "run $run: the rejoiner did not say it keeps the survivor's checkpoints: $(cat "$work/p1.err")"
      fi
      r0=$(jget "$work/p0.json" rejoin_tick_peer1)
      r1=$(jget "$work/p1.json" rejoin_tick)
      d0=$(jget "$work/p0.json" disconnect_tick_peer1)
      [[ -n $r0 && $r0 == "$r1" ]] || fail "run $run: the rejoin ticks differ: peer 0 says '$r0', peer 1 '$r1'"
      (( d0 < r0 && r0 < n )) || fail "run $run: implausible ticks: dropped at $d0, back at $r0"
      ms=$(jget "$work/p1.json" rejoined_after_ms)
      (( ms < 5000 )) || fail "run $run: rejoined $ms ms after the restart (limit 5000)"
      grep -q "plays again from tick $r0" "$work/p0.err" || fail "run $run: peer 0 did not report the rejoin"
      echo "run $run: dropped at $d0, back at $r0, rejoined $ms ms after the restart"
    done
    ;;
  rejoin_mesh4)
    # Issue 38: four players, one process each, every peer relaying its recording. Peer 2 is
    # killed -9 at ~1/3 and restarts with --rejoin through peer 3's relay (any survivor's will
    # do); then peer 3 is killed at ~2/3 and restarts through peer 1's relay. The survivors agree
    # on each return tick (the lowest surviving player chooses it), every process exits 0 and the
    # four recordings are byte-identical and verify. RUNS runs (default 3; the issue's 10:
    # REJOIN_MESH_RUNS=10), one in slow builds.
    runs=${REJOIN_MESH_RUNS:-$(( scale > 1 ? 1 : 3 ))}
    n=$(( scale > 1 ? 2400 : 1080 ))
    common="--sim skirmish --count 4 --players 4 --units 200 --ticks $n --tick-hz 120 --input-delay 4 --max-prediction 32 --hash-interval 16 --disconnect-ms 600 --checkpoint-every 64"
    restart_peer() {  # restart_peer ID VIA: kill -9 peer ID, restart it with --rejoin through VIA's relay
      local id=$1 via=$2
      kill -9 "${pid[$id]}"
      wait "${pid[$id]}" 2>/dev/null
      local host addr
      host=$(grep -o "relaying the recording to watchers at [^ ]*" "$work/p$via.err" | awk '{print $NF}')
      [[ -n $host ]] || fail "run $run: peer $via did not say where it relays"
      addr=$(cat "$work/rv/peer$id.addr")
      rm -f "$work/rv/peer$id.addr"
      mv "$work/p$id.err" "$work/p$id-killed.err"
      timeout -s KILL 100 "$bin" peer --id "$id" --rendezvous "$work/rv" --bind "$addr" --session-id 77 --json --max-seconds 90 \
        --record "$work/p$id.replay" $common $(link "$id") --relay 127.0.0.1:0 --rejoin "$host" --sync-timeout-s 30 \
        >"$work/p$id.json" 2>"$work/p$id.err" &
      pid[$id]=$!
      for _ in $(seq 1 400); do grep -q "plays again from tick" "$work/p$id.err" 2>/dev/null && break; sleep 0.05; done
    }
    for run in $(seq 1 "$runs"); do
      rm -f "$work"/rv/* "$work"/p*.json "$work"/p*.err "$work"/p*.replay*
      for i in 0 1 2 3; do start $i $common $(link $i) --relay 127.0.0.1:0; done
      for _ in $(seq 1 200); do grep -q "running" "$work/p3.err" 2>/dev/null && break; sleep 0.05; done
      sleep $(( n / 360 ))
      restart_peer 2 3
      sleep $(( n / 360 ))
      restart_peer 3 1
      for i in 0 1 2 3; do wait_ok $i 0; done
      same_replays 0 1 2 3
      for id in 2 3; do
        r=$(jget "$work/p$id.json" rejoin_tick)
        [[ -n $r ]] || fail "run $run: peer $id reports no rejoin tick"
        for i in 0 1 2 3; do
          [[ $i == "$id" ]] && continue
          # A peer restarted later has its own earlier rejoin only in its killed log.
          [[ $i == 3 && $id == 2 ]] && { grep -q "player 2 (peer 2) plays again from tick $r" "$work/p3-killed.err" || fail "run $run: peer 3 did not report peer 2 back at $r"; continue; }
          [[ $(jget "$work/p$i.json" rejoin_tick_peer$id) == "$r" ]] || fail "run $run: peer $i names another return tick for peer $id than its own $r: $(jget "$work/p$i.json" rejoin_tick_peer$id)"
        done
        (( r < n )) || fail "run $run: peer $id came back at $r, past the end $n"
      done
      echo "run $run: peer 2 back at $(jget "$work/p2.json" rejoin_tick), peer 3 back at $(jget "$work/p3.json" rejoin_tick)"
    done
    ;;
  rejoin_spectator)
    # Issue 38: two players and a spectator inside the mesh (three addresses). Peer 1 is killed
    # -9 and rejoins through peer 0's relay; the spectator does not stop it (it was refused with
    # exit 2, after the whole history was replayed). All three recordings are byte-identical.
    n=$(( scale > 1 ? 1500 : 720 ))
    common="--sim duel --count 3 --players 2 --ticks $n --tick-hz 120 --input-delay 3 --max-prediction 24 --hash-interval 16 --disconnect-ms 600 --checkpoint-every 64"
    start 0 $common $(link 0) --relay 127.0.0.1:0
    start 1 $common $(link 1)
    start 2 --spectate $common $(link 2)
    for _ in $(seq 1 200); do grep -q "running" "$work/p1.err" 2>/dev/null && break; sleep 0.05; done
    sleep 1.5
    kill -9 "${pid[1]}"
    wait "${pid[1]}" 2>/dev/null
    host=$(grep -o "relaying the recording to watchers at [^ ]*" "$work/p0.err" | awk '{print $NF}')
    [[ -n $host ]] || fail "peer 0 did not say where it relays"
    addr=$(cat "$work/rv/peer1.addr")
    rm -f "$work/rv/peer1.addr"
    mv "$work/p1.err" "$work/p1-killed.err"
    timeout -s KILL 80 "$bin" peer --id 1 --rendezvous "$work/rv" --bind "$addr" --session-id 77 --json --max-seconds 70 \
      --record "$work/p1.replay" $common $(link 1) --rejoin "$host" --sync-timeout-s 20 >"$work/p1.json" 2>"$work/p1.err" &
    pid[1]=$!
    for i in 0 1 2; do wait_ok $i 0; done
    same_replays 0 1 2
    r=$(jget "$work/p1.json" rejoin_tick)
    [[ -n $r && $(jget "$work/p0.json" rejoin_tick_peer1) == "$r" ]] || fail "peer 0 and peer 1 name other return ticks"
    echo "peer 1 back at $r"
    ;;
  restart)
    # Peer 1 is killed, then started again on the same address: the running peer rejects the
    # new incarnation, the restarted process fails with a clear error (exit 2), peer 0 finishes.
    common="--sim duel --count 2 --ticks 900 --tick-hz 120 --input-delay 3 --max-prediction 24 --disconnect-ms 600"
    for i in 0 1; do start $i $common $(link $i); done
    for _ in $(seq 1 200); do grep -q "running" "$work/p1.err" 2>/dev/null && break; sleep 0.05; done
    sleep 1
    kill -9 "${pid[1]}"
    wait "${pid[1]}" 2>/dev/null
    addr=$(cat "$work/rv/peer1.addr")
    rm -f "$work/rv/peer1.addr"
    timeout -s KILL 60 "$bin" peer --id 1 --rendezvous "$work/rv" --bind "$addr" --session-id 77 $common --sync-timeout-s 20 \
      >"$work/again.out" 2>"$work/again.err"
    rc=$?
    [[ $rc -eq 2 ]] || fail "the restarted peer exited $rc, expected 2: $(cat "$work/again.err")"
    grep -q "rejected the handshake" "$work/again.err" || fail "no clear rejection message: $(cat "$work/again.err")"
    wait_ok 0 0
    grep -q "Disconnected: peer 1" "$work/p0.err" || fail "peer 0 did not report Disconnected"
    "$bin" verify "$work/p0.replay" >/dev/null 2>&1 || fail "peer 0's replay does not verify"
    ;;
  desync_bundle)
    # A planted desync between two processes (broken-peer: each peer damps its own player's
    # bodies). Each peer fetches the other's state of its desync tick over the state-exchange
    # socket and writes a bundle with both states; the field diff names the planted field.
    mkdir -p "$work/b"
    common="--sim broken-peer --count 2 --ticks $((240 / scale)) --tick-hz 240 --hash-interval 1 --bundle-dir $work/b"
    for i in 0 1; do start $i $common; done
    for i in 0 1; do wait_ok $i 1; done
    for i in 0 1; do
      [[ $(jget "$work/p$i.json" bundle_remote_state) == true ]] || fail "peer $i's bundle lacks the remote state"
      grep -q "desync bundle .* (with peer $((1 - i))'s state)" "$work/p$i.err" || fail "peer $i did not report its bundle"
    done
    for i in 0 1; do
      b=$(jget "$work/p$i.json" bundle)
      t=$(jget "$work/p$i.json" error | sed -n 's/^DESYNC: tick \([0-9]*\) vs.*/\1/p')
      [[ -n $t && $b == "$work/b/desync-peer$i-tick$t.lsbundle" ]] || fail "peer $i: bundle $b for desync tick '$t'"
      "$bin" diff "$b" >"$work/diff$i.out" 2>&1
      [[ $? -eq 1 ]] || fail "diff of peer $i's bundle did not report a difference"
      o=$((1 - i)) mine=$(jget "$work/p$i.json" error | sed -n 's/.*: ours \([0-9a-f]*\) theirs \([0-9a-f]*\): .*/\1 \2/p')
      set -- $mine
      grep -qx "side peer $i: total $1, state kept" "$work/diff$i.out" || fail "diff $i: local side $1"
      grep -qx "side peer $o: total $2, state kept" "$work/diff$i.out" || fail "diff $i: remote side $2 (state fetched)"
      grep -qx "tick $t | tick $t" "$work/diff$i.out" || fail "diff $i: the two states are not both of tick $t"
      grep -q "^differs: Body (" "$work/diff$i.out" || fail "diff $i: Body not named"
      # The desync message names what differs (issue: equal totals printed as "X != X").
      jget "$work/p$i.json" error | grep -q ": total differs; .*components: Body" || fail "desync message does not name Body"
    done
    # The planted field: peer p's own bodies carry boost 1 in its world only.
    grep -qx "  Body\[0:1\].boost: 1 | 0" "$work/diff0.out" || fail "peer 0's diff lacks Body[0:1].boost: 1 | 0"
    grep -qx "  Body\[0:1\].boost: 0 | 1" "$work/diff1.out" || fail "peer 1's diff lacks Body[0:1].boost: 0 | 1"
    # A partner without --bundle-dir serves nothing: the bundle keeps its hashes only, in bounded time.
    rm -rf "$work/rv" "$work/b" && mkdir -p "$work/rv" "$work/b"
    common="--sim broken-peer --count 2 --ticks $((120 / scale)) --tick-hz 240 --hash-interval 1"
    start 0 $common --bundle-dir "$work/b" --exchange-wait-ms 400
    start 1 $common
    for i in 0 1; do wait_ok $i 1; done
    [[ $(jget "$work/p0.json" bundle_remote_state) == false ]] || fail "a remote state without a server"
    grep -q "desync bundle .* (no answer from peer 1 within 400 ms: its hashes only)" "$work/p0.err" || fail "no bounded-wait note"
    "$bin" diff "$(jget "$work/p0.json" bundle)" >"$work/diff.out" 2>&1
    grep -q "side 'peer 1' has hashes only, no state" "$work/diff.out" || fail "remote side: $(cat "$work/diff.out")"
    # `info` describes the bundle: the remote side by the hashes it reported (its total is the
    # one peer 0's desync message names), and the gate's report.
    "$bin" info "$(jget "$work/p0.json" bundle)" >"$work/info.out" 2>&1 || fail "info of the bundle: $(cat "$work/info.out")"
    remote=$(jget "$work/p0.json" error | sed -n 's/.* theirs \([0-9a-f]*\): .*/\1/p')
    grep -qx "side peer 1: total $remote, hashes only" "$work/info.out" || fail "info: remote side $remote: $(cat "$work/info.out")"
    grep -q "^report        desync at confirmed tick [0-9]*: peer 0 vs peer 1: .*components: Body$" "$work/info.out" || fail "info: report"
    ;;
  usage)
    "$bin" peer --sim duel --id 0 --peers 127.0.0.1:1 >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "one peer accepted"
    "$bin" peer --sim duel --id 2 --peers 127.0.0.1:1,127.0.0.1:2 >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "bad id accepted"
    "$bin" peer --sim duel --id 0 --peers 10.1.2.3:1,127.0.0.1:2 >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "non-loopback accepted"
    "$bin" peer --sim duel --id 0 --peers localhost:1,127.0.0.1:2 >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "hostname accepted"
    "$bin" peer --sim duel --id 0 --peers 127.0.0.1:99999,127.0.0.1:2 >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "bad port accepted"
    # No partner: the handshake times out with a clear error.
    timeout -s KILL 30 "$bin" peer --sim duel --id 0 --peers 127.0.0.1:0,127.0.0.1:9 --sync-timeout-s 0.5 >/dev/null 2>"$work/err.txt"
    [[ $? -eq 2 ]] || fail "a lone peer did not fail"
    grep -q "handshake did not complete" "$work/err.txt" || fail "no handshake timeout message"
    "$bin" peer --sim duel --id 0 --peers 127.0.0.1:65535,127.0.0.1:2 --bundle-dir "$work" >/dev/null 2>"$work/err.txt"
    [[ $? -eq 2 ]] && grep -qxF "lockstep: error: --bundle-dir: cannot derive an exchange port from '127.0.0.1:65535' (give --exchange-peers)" "$work/err.txt" || fail "port 65535 + 1 accepted: $(cat "$work/err.txt")"
    "$bin" peer --sim duel --id 0 --peers 127.0.0.1:1,127.0.0.1:2 --bundle-dir "$work" --exchange-peers 127.0.0.1:3 >/dev/null 2>"$work/err.txt"
    [[ $? -eq 2 ]] && grep -qxF "lockstep: error: --exchange-peers needs one address per peer, in peer-id order" "$work/err.txt" || fail "short --exchange-peers accepted: $(cat "$work/err.txt")"
    # The library words its conditions in its own terms; the tool names its flags (cmd_peer.cpp).
    refused() {  # refused MESSAGE ARGS... : exit 2 with exactly that error line
      local want=$1
      shift
      "$bin" "$@" >/dev/null 2>"$work/err.txt"
      local rc=$?
      [[ $rc -eq 2 ]] || fail "exit $rc, expected 2: $*"
      grep -qxF "lockstep: error: $want" "$work/err.txt" || fail "$*: expected '$want', got: $(cat "$work/err.txt")"
    }
    two=127.0.0.1:1,127.0.0.1:2
    refused "--peers needs 2..16 addresses (every peer, in peer-id order), or --rendezvous DIR --count N" \
      peer --sim duel --id 0 --peers 127.0.0.1:1
    refused "--id must be < the number of --peers" peer --sim duel --id 2 --peers $two
    refused "--no-auth and --key-file exclude each other" peer --sim duel --id 0 --peers $two --no-auth --key-file "$work/k"
    refused "--relay serves the recording: give --record FILE too" peer --sim duel --id 0 --peers $two --relay 127.0.0.1:0
    refused "--checkpoint-every must be a multiple of --hash-interval (4)" \
      peer --sim duel --id 0 --peers $two --record "$work/c.replay" --checkpoint-every 6 --hash-interval 4
    refused "--players must be <= the number of peers" peer --sim duel --id 0 --peers $two --players 3
    refused "a spectator's --id must be >= --players (peer p owns player p)" spectate --sim duel --id 1 --peers $two --players 2
    refused "--id owns no player: use 'lockstep spectate' for a spectator" \
      peer --sim duel --id 2 --peers $two,127.0.0.1:3 --players 2
    refused "--rendezvous publishes the exchange addresses: drop --exchange-peers" \
      peer --sim duel --id 0 --rendezvous "$work/rvx" --count 2 --bundle-dir "$work" --exchange-peers 127.0.0.1:3,127.0.0.1:4
    refused "--host and --follow exclude each other" spectate --follow "$work/x.replay" --host 127.0.0.1:1
    "$bin" spectate --follow ftp://x/p0.replay >/dev/null 2>"$work/err.txt"
    [[ $? -eq 2 ]] && grep -q "^lockstep: error: --follow ftp://x/p0.replay: " "$work/err.txt" || fail "ftp source: $(cat "$work/err.txt")"
    # A relay that cannot bind, after the unauthenticated warning (both named by their flags).
    "$bin" peer --sim duel --id 0 --peers 127.0.0.1:0,127.0.0.1:9 --no-auth --record "$work/r1.replay" --relay not-an-address \
      >/dev/null 2>"$work/err.txt"
    [[ $? -eq 2 ]] || fail "an unusable --relay accepted"
    grep -q "^lockstep: error: --relay not-an-address: ." "$work/err.txt" || fail "--relay error: $(cat "$work/err.txt")"
    grep -qxF 'lockstep peer 0: WARNING: --no-auth: messages are not authenticated; anyone who can send to this port can inject inputs or expel a peer (docs/rollback.md, "Threat model")' \
      "$work/err.txt" || fail "no --no-auth warning: $(cat "$work/err.txt")"
    "$bin" peer --sim duel --id 0 --peers 127.0.0.1:0,127.0.0.1:9 --record "$work/r2.replay" --relay not-an-address \
      >/dev/null 2>"$work/err.txt"
    if grep -q "WARNING" "$work/err.txt"; then  # a build with authentication: the key comes from --session-id
      grep -qxF 'lockstep peer 0: WARNING: no --key-file: the match key is derived from --session-id, which is no secret (INSECURE: for tests and demos; docs/rollback.md, "Threat model")' \
        "$work/err.txt" || fail "derived-key warning: $(cat "$work/err.txt")"
    fi
    # The wall-clock limit: exit 1, the report (text and JSON) says so.
    timeout -s KILL 30 "$bin" peer --sim duel --id 0 --peers 127.0.0.1:0,127.0.0.1:9 --no-auth --max-seconds 0.3 \
      --sync-timeout-s 20 >"$work/out.txt" 2>"$work/err.txt"
    [[ $? -eq 1 ]] || fail "a peer past --max-seconds did not exit 1: $(cat "$work/err.txt")"
    grep -qxE "peer 0: FAILED, confirmed 0/1800 ticks, [0-9]+ rollbacks \(max depth [0-9]+\), [0-9]+ stalls, [0-9]+ hash checks, [0-9]+ frames waited \(time sync\), final hash [0-9a-f]{16}" \
      "$work/out.txt" || fail "text report: $(cat "$work/out.txt")"
    grep -qxF "lockstep peer 0: error: the match did not finish within --max-seconds (confirmed 0 of 1800 ticks)" "$work/err.txt" \
      || fail "timeout message: $(cat "$work/err.txt")"
    timeout -s KILL 30 "$bin" peer --sim duel --id 0 --peers 127.0.0.1:0,127.0.0.1:9 --no-auth --max-seconds 0.3 \
      --sync-timeout-s 20 --json >"$work/out.txt" 2>"$work/err.txt"
    [[ $? -eq 1 ]] || fail "a peer past --max-seconds did not exit 1 (--json)"
    grep -qE '^\{"ok":false,"exit":1,"peer":0,"peers":2,"sim":"duel","ticks":1800,"confirmed_tick":0,"finished":false,"final_hash":"[0-9a-f]{16}","frames":' \
      "$work/out.txt" || fail "JSON report: $(cat "$work/out.txt")"
    grep -qF ',"key":"none",' "$work/out.txt" || fail "JSON report key: $(cat "$work/out.txt")"
    grep -qE ',"error":"the match did not finish within --max-seconds \(confirmed 0 of 1800 ticks\)"\}$' "$work/out.txt" \
      || fail "JSON report error: $(cat "$work/out.txt")"
    ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
echo "OK $case_name"
