#!/usr/bin/env bash
# The hostile-network suite (docs/rollback.md, "Threat model"): two `lockstep peer` processes
# on 127.0.0.1 talk only through hostile_proxy (tests/rollback/hostile_proxy_tool.cpp), which
# forwards their traffic and attacks peer 0 as if it were peer 1. Every run must end with both
# honest peers finishing the match (exit 0, nobody expelled), byte-identical replays that
# verify offline, and the attack counted by reason in peer 0's --json result.
# usage: hostile_match.sh CASE LOCKSTEP PROXY WORKDIR [RUNS]
set -u
case_name=$1
bin=$2
proxy=$3
work=$4/hostile_$case_name
runs=${5:-10}
rm -rf "$work"
mkdir -p "$work"
# A session id of its own per case: ctest runs cases side by side, and a datagram of one case
# must never be accepted by another's peers or proxy (same reason for the proxy's address pinning).
session=$(( $(printf '%s' "$case_name" | cksum | cut -d' ' -f1) % 1000000 + 1000 ))

fail() { echo "FAIL ($case_name, run ${run:-?}): $*"; for f in "$work"/*.err "$work"/*.json "$work"/proxy.out; do [[ -f $f ]] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }
jget() { grep -o "\"$2\":[^,}]*" "$1" | head -1 | cut -d: -f2- | tr -d '"'; }

# match ATTACK AUTH_ARGS... : one match through the proxy; results in $work/p{0,1}.{json,err,replay}
match() {
  local attack=$1
  shift
  rm -f "$work"/p?.* "$work/ports" "$work/proxy.out"
  local extra=()
  [[ $attack == replay-handshake ]] && extra=(--replay "$work/earlier.sync")
  [[ $attack == capture ]] && { attack=none; extra=(--capture "$work/earlier.sync"); }
  timeout -k 20 60 "$proxy" --peers 2 --session "$session" --ports-file "$work/ports" --attack "$attack" "${extra[@]}" \
    --seconds 50 >"$work/proxy.out" 2>&1 &
  local proxy_pid=$!
  for _ in $(seq 1 200); do [[ -f $work/ports ]] && break; sleep 0.01; done
  [[ -f $work/ports ]] || fail "the proxy did not start"
  local ports
  ports=$(cat "$work/ports")
  local common=(--sim duel --players 2 --ticks 240 --tick-hz 240 --input-delay 3 --max-prediction 16 --hash-interval 8
                --session-id "$session" --peers "$ports" --bind 127.0.0.1:0 --json --max-seconds 30 --disconnect-ms 1500 "$@")
  timeout -s KILL 40 "$bin" peer --id 0 "${common[@]}" --record "$work/p0.replay" >"$work/p0.json" 2>"$work/p0.err" &
  local p0=$!
  sleep 0.3  # peer 0 alone first: the off-path attacks reach it before peer 1 exists
  timeout -s KILL 40 "$bin" peer --id 1 "${common[@]}" --record "$work/p1.replay" >"$work/p1.json" 2>"$work/p1.err" &
  local p1=$!
  wait $p0; local rc0=$?
  wait $p1; local rc1=$?
  kill -TERM $proxy_pid 2>/dev/null
  wait $proxy_pid 2>/dev/null
  if [[ ${expect_desync:-0} == 1 ]]; then
    [[ $rc0 -eq 1 ]] || fail "peer 0 exited $rc0, expected 1 (desync): $(tail -2 "$work/p0.err")"
    [[ $rc1 -eq 0 ]] || fail "peer 1 exited $rc1: $(tail -2 "$work/p1.err")"
    return
  fi
  [[ $rc0 -eq 0 ]] || fail "peer 0 exited $rc0: $(tail -2 "$work/p0.err")"
  [[ $rc1 -eq 0 ]] || fail "peer 1 exited $rc1: $(tail -2 "$work/p1.err")"
  for i in 0 1; do
    [[ $(jget "$work/p$i.json" confirmed_tick) == 240 ]] || fail "peer $i did not confirm the match"
    [[ $(jget "$work/p$i.json" disconnects) == 0 ]] || fail "peer $i saw a disconnect"
    [[ $(jget "$work/p$i.json" desyncs) == 0 ]] || fail "peer $i desynced"
  done
  cmp -s "$work/p0.replay" "$work/p1.replay" || fail "the replays differ"
  "$bin" verify "$work/p0.replay" >"$work/verify.out" 2>&1 || fail "verify: $(cat "$work/verify.out")"
  grep -q "^injected [1-9]" "$work/proxy.out" || [[ $attack == none ]] || fail "the proxy injected nothing: $(cat "$work/proxy.out")"
}

case $case_name in
  offpath_sync)
    # The issue's repro, without authentication (the 0.2 wire): spoofed SYNC_REQUESTs with
    # invented incarnations before peer 1 starts and during the match, plus unsolicited
    # SYNC_REJECTs. Before the handshake fix they pinned a fake incarnation or made peer 0
    # reject peer 1 for real.
    for run in $(seq 1 "$runs"); do
      match offpath-sync --no-auth
      (( $(jget "$work/p0.json" stale) > 0 )) || fail "peer 0 never saw the spoofed requests"
      (( $(jget "$work/p0.json" unsolicited_sync) > 0 )) || fail "peer 0 counted no unsolicited rejection"
    done
    # Authenticated, the same datagrams never get past the MAC.
    run=auth
    match offpath-sync
    (( $(jget "$work/p0.json" dropped_auth) > 0 )) || fail "no dropped_auth with authentication on"
    [[ $(jget "$work/p0.json" stale) == 0 ]] || fail "an unauthenticated message reached the handshake"
    ;;
  replay_handshake)
    # SYNC_REQUESTs captured in an earlier match on the same ports, replayed into new ones.
    run=capture
    match capture --no-auth
    [[ -s $work/earlier.sync ]] || fail "nothing captured"
    for run in $(seq 1 "$runs"); do match replay-handshake --no-auth; done
    ;;
  forge)
    # On-path forgeries without the key: SYNC_REJECT, disconnect masks naming peer 0, altered
    # INPUT and HASH reports. Authenticated (the default): all dropped as dropped_auth.
    for run in $(seq 1 "$runs"); do
      match forge
      (( $(jget "$work/p0.json" dropped_auth) > 10 )) || fail "too few dropped_auth"
      [[ $(jget "$work/p0.json" malformed) == 0 ]] || fail "forged bytes reached the parser"
      [[ $(jget "$work/p0.json" security) == authenticated ]] || fail "not authenticated"
    done
    ;;
  resend)
    run=1
    match resend
    (( $(jget "$work/p0.json" dropped_replay) > 10 )) || fail "too few dropped_replay"
    [[ $(jget "$work/p0.json" dropped_auth) == 0 ]] || fail "valid copies counted as forgeries"
    ;;
  flood)
    run=1
    match flood
    (( $(jget "$work/p0.json" dropped_auth) + $(jget "$work/p0.json" dropped_budget) + $(jget "$work/p0.json" udp_dropped) > 1000 )) ||
      fail "the flood was not counted"
    ;;
  forged_hash_noauth)
    # Without authentication a forged HASH report that differs in one component hash only is
    # believed: the report must name the component, not print "X != X".
    run=1
    expect_desync=1
    match forge-hash --no-auth
    err=$(jget "$work/p0.json" error)
    [[ $err =~ ^DESYNC:\ tick\ [0-9]+\ vs\ peer\ 1:\ ours\ ([0-9a-f]{16})\ theirs\ ([0-9a-f]{16}):\ total\ equal\;\ components:\ [A-Za-z]+ ]] ||
      fail "desync message: $err"
    [[ ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] || fail "the totals should be equal: $err"
    ;;
  key_file)
    # --key-file on both peers (a real key); a mismatched key is a handshake that never completes.
    run=1
    head -c 32 /dev/urandom > "$work/match.key"
    match none --key-file "$work/match.key"
    [[ $(jget "$work/p0.json" key) == file ]] || fail "the key file was not used"
    # Different keys: nothing gets through; both sides time out naming the likely cause.
    head -c 32 /dev/urandom > "$work/other.key"
    ports=127.0.0.1:$((20000 + RANDOM % 20000)),127.0.0.1:$((20000 + RANDOM % 20000))
    for i in 0 1; do
      key=$work/match.key; [[ $i == 1 ]] && key=$work/other.key
      timeout -s KILL 30 "$bin" peer --id $i --sim duel --players 2 --ticks 60 --peers "$ports" --key-file "$key" \
        --sync-timeout-s 2 >"$work/mismatch$i.out" 2>&1 &
    done
    wait
    grep -q "dropped as unauthentic (does every peer use the same match key" "$work/mismatch0.out" ||
      fail "no clear message for mismatched keys: $(cat "$work/mismatch0.out")"
    "$bin" peer --id 0 --sim duel --players 2 --ticks 60 --peers 127.0.0.1:1,127.0.0.1:2 --key-file "$work/short.key" \
      >"$work/nokey.out" 2>&1; rc=$?
    [[ $rc -eq 2 ]] || fail "a missing key file exited $rc"
    grep -q "short.key: cannot open" "$work/nokey.out" || fail "no clear message: $(cat "$work/nokey.out")"
    ;;
  forge_as_peer)
    # A cheating player (docs/rollback.md, "Threat model", per-peer authentication): four
    # skirmish peers with their own identities (lockstep keygen); the proxy holds peer 3's valid
    # identity and forges, to peers 0 and 2, INPUTs, disconnect masks naming the receiver, HASH
    # reports and rejoin requests that claim peer 1 as sender, signed with its own link keys.
    # Every forgery fails the claimed sender's key: all four finish, nobody is expelled, the
    # four replays are byte-identical and verify, the drops are counted (dropped_auth).
    runs=1  # 4 processes per run, each forgery sent ~50 times per receiver: one match says it
    for i in 0 1 2 3; do "$bin" keygen --identity "$work/p$i.id" >>"$work/match.keys" 2>/dev/null || fail "keygen"; done
    [[ $(grep -c '^[0-9a-f]\{64\}$' "$work/match.keys") == 4 ]] || fail "keygen printed no public keys: $(cat "$work/match.keys")"
    for run in $(seq 1 "$runs"); do
      rm -f "$work"/q?.* "$work/ports" "$work/proxy.out"
      timeout -k 20 60 "$proxy" --peers 4 --session "$session" --ports-file "$work/ports" --attack forge-as-peer \
        --identity "$work/p3.id" --peer-keys "$work/match.keys" --as 3 --seconds 50 >"$work/proxy.out" 2>&1 &
      proxy_pid=$!
      for _ in $(seq 1 200); do [[ -f $work/ports ]] && break; sleep 0.01; done
      [[ -f $work/ports ]] || fail "the proxy did not start: $(cat "$work/proxy.out")"
      pids=()
      for i in 0 1 2 3; do
        timeout -s KILL 40 "$bin" peer --id $i --sim skirmish --players 4 --units 100 --ticks 240 --tick-hz 240 \
          --input-delay 3 --max-prediction 16 --hash-interval 8 --session-id "$session" --peers "$(cat "$work/ports")" \
          --bind 127.0.0.1:0 --json --max-seconds 30 --disconnect-ms 1500 --identity-file "$work/p$i.id" \
          --peer-keys "$work/match.keys" --record "$work/q$i.replay" >"$work/q$i.json" 2>"$work/q$i.err" &
        pids+=($!)
      done
      for i in 0 1 2 3; do wait "${pids[$i]}" || fail "peer $i exited $?: $(tail -2 "$work/q$i.err")"; done
      kill -TERM $proxy_pid 2>/dev/null
      wait $proxy_pid 2>/dev/null
      for i in 0 1 2 3; do
        [[ $(jget "$work/q$i.json" confirmed_tick) == 240 ]] || fail "peer $i did not confirm the match"
        [[ $(jget "$work/q$i.json" disconnects) == 0 ]] || fail "peer $i saw a disconnect"
        [[ $(jget "$work/q$i.json" desyncs) == 0 ]] || fail "peer $i desynced"
        [[ $(jget "$work/q$i.json" key) == identity ]] || fail "peer $i did not use its identity"
        cmp -s "$work/q0.replay" "$work/q$i.replay" || fail "the replays of peers 0 and $i differ"
      done
      for i in 0 2; do
        (( $(jget "$work/q$i.json" dropped_auth) > 10 )) || fail "peer $i: too few dropped_auth ($(jget "$work/q$i.json" dropped_auth))"
        [[ $(jget "$work/q$i.json" malformed) == 0 ]] || fail "peer $i: forged bytes reached the parser"
        [[ $(jget "$work/q$i.json" sync_rejections_sent) == 0 ]] || fail "peer $i answered a forged rejoin request"
      done
      "$bin" verify "$work/q0.replay" >"$work/verify.out" 2>&1 || fail "verify: $(cat "$work/verify.out")"
      grep -q "^injected [1-9]" "$work/proxy.out" || fail "the proxy injected nothing: $(cat "$work/proxy.out")"
    done
    ;;
  identity_files)
    # The identity options' errors (exit 2, naming the file and what was expected), keygen's
    # refusal to overwrite, and peers whose public key lists differ: nothing verifies, the
    # handshake times out naming the likely cause.
    run=1
    "$bin" keygen --identity "$work/a.id" >"$work/a.pub" 2>/dev/null || fail "keygen"
    "$bin" keygen --identity "$work/b.id" >"$work/b.pub" 2>/dev/null || fail "keygen"
    "$bin" keygen --identity "$work/c.id" >"$work/c.pub" 2>/dev/null || fail "keygen"
    "$bin" keygen --identity "$work/a.id" >"$work/again.out" 2>&1; rc=$?
    [[ $rc -eq 2 ]] || fail "keygen over an existing identity exited $rc"
    grep -qF "lockstep: error: identity file $work/a.id: exists (never overwritten)" "$work/again.out" || fail "keygen: $(cat "$work/again.out")"
    [[ $("$bin" keygen --public-of "$work/a.id") == "$(cat "$work/a.pub")" ]] || fail "--public-of differs from keygen's output"
    cat "$work/a.pub" "$work/b.pub" >"$work/ab.keys"
    cat "$work/a.pub" "$work/c.pub" >"$work/ac.keys"
    peers=127.0.0.1:1,127.0.0.1:2
    expect_error() {  # expect_error TEXT ARGS...: exit 2 and TEXT on stderr
      local text=$1; shift
      "$bin" peer --sim duel --players 2 --ticks 60 --peers "$peers" "$@" >"$work/err.out" 2>&1; local rc=$?
      [[ $rc -eq 2 ]] || fail "'$*' exited $rc: $(cat "$work/err.out")"
      grep -qF "$text" "$work/err.out" || fail "'$*': expected '$text', got: $(cat "$work/err.out")"
    }
    expect_error "lockstep: error: --identity-file and --peer-keys go together (this peer's secret key and every peer's public key)" \
      --id 0 --identity-file "$work/a.id"
    expect_error "lockstep: error: --no-auth and --identity-file/--peer-keys exclude each other" \
      --id 0 --identity-file "$work/a.id" --peer-keys "$work/ab.keys" --no-auth
    expect_error "lockstep: error: identity file $work/a.id: its public key is peer 0's (line 1 of peer keys file $work/ab.keys), not this peer's (peer 1)" \
      --id 1 --identity-file "$work/a.id" --peer-keys "$work/ab.keys"
    expect_error "lockstep: error: peer keys file $work/a.pub: 1 public key, expected 2 (one per peer, in peer-id order)" \
      --id 0 --identity-file "$work/a.id" --peer-keys "$work/a.pub"
    expect_error "lockstep: error: identity file $work/none.id: cannot open: No such file or directory" \
      --id 0 --identity-file "$work/none.id" --peer-keys "$work/ab.keys"
    # Peer 1 lists c where peer 0 lists b (and holds c's identity): no message verifies.
    ports=127.0.0.1:$((20000 + RANDOM % 20000)),127.0.0.1:$((20000 + RANDOM % 20000))
    "$bin" peer --id 0 --sim duel --players 2 --ticks 60 --peers "$ports" --identity-file "$work/a.id" --peer-keys "$work/ab.keys" \
      --sync-timeout-s 2 >"$work/mismatch0.out" 2>&1 &
    "$bin" peer --id 1 --sim duel --players 2 --ticks 60 --peers "$ports" --identity-file "$work/c.id" --peer-keys "$work/ac.keys" \
      --sync-timeout-s 2 >"$work/mismatch1.out" 2>&1 &
    wait
    grep -q "dropped as unauthentic (does every peer use the same session id and the same public keys in peer-id order, each its own identity?)" \
      "$work/mismatch0.out" || fail "no clear message for mismatched peer keys: $(cat "$work/mismatch0.out")"
    ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
echo "ok: $case_name"
