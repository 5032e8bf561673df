#!/usr/bin/env bash
# End-to-end tests of `lockstep dump` / `lockstep diff` and desync bundles (exit codes 0/1/2,
# exact report text, JSON checked with python3's json module).
# usage: cli_inspect.sh CASE LOCKSTEP SOURCE_DIR WORKDIR
set -u
case_name=$1
bin=$2
src=$3
work=$4/$case_name
quirk=${5:-}
rm -rf "$work"
mkdir -p "$work"
replay=$src/fixtures/skirmish/skirmish.replay

expect() {  # expect RC command...
  local want=$1
  shift
  "$@" >"$work/out.txt" 2>"$work/err.txt"
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL: expected exit $want, got $got: $*"
    echo "--- stdout"; head -50 "$work/out.txt"; echo "--- stderr"; cat "$work/err.txt"
    exit 1
  fi
}
contains() {  # contains FILE FIXED-TEXT
  if ! grep -qF -- "$2" "$work/$1"; then
    echo "FAIL: $1 lacks '$2'"; head -50 "$work/$1"; exit 1
  fi
}
same() {  # same FILE EXPECTED-TEXT
  if [[ "$(cat "$work/$1")" != "$2" ]]; then
    echo "FAIL: $1 differs from the expected text"; diff <(echo "$2") "$work/$1"; exit 1
  fi
}

case $case_name in
  dump_skirmish)
    # Every live unit is listed with all of its named fields.
    expect 0 "$bin" dump "$replay" --tick 300
    contains out.txt "tick 300"
    live=$(sed -n 's/^entities \([0-9]*\) live.*/\1/p' "$work/out.txt")
    [[ -n "$live" && "$live" -gt 0 ]] || { echo "FAIL: no live count"; exit 1; }
    for f in "  Position.p = [" "  Team.owner = " "  Order.target = [" "  Weapon.target = " "  Weapon.cooldown = " "  Health.hp = "; do
      n=$(grep -cF -- "$f" "$work/out.txt")
      [[ $n -eq $live ]] || { echo "FAIL: '$f' on $n lines, $live live units"; exit 1; }
    done
    n=$(grep -c '^entity [0-9]*:[0-9]* archetype ' "$work/out.txt")
    [[ $n -eq $live ]] || { echo "FAIL: $n entity headers, $live live units"; exit 1; }
    contains out.txt "resource Economy"
    contains out.txt "  Economy.gold = ["
    ;;
  dump_json)
    expect 0 "$bin" dump "$replay" --tick 300 --json
    cp "$work/out.txt" "$work/dump.json"
    expect 0 "$bin" dump "$replay" --tick 300
    python3 - "$work/dump.json" "$work/out.txt" <<'PY' || exit 1
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
live = int(re.search(r"^entities (\d+) live", text, re.M).group(1))
assert d["tick"] == 300 and d["live"] == live and len(d["entities"]) == live, (d["tick"], d["live"], live)
# Every entity's position in JSON equals the text dump's exact decimals.
pos = dict(re.findall(r"^entity (\d+:\d+) archetype \d+\n  Position\.p = \[([^\]]*)\]", text, re.M))
assert len(pos) == live
for e in d["entities"]:
    assert ", ".join(e["components"]["Position"]["p"]) == pos[e["entity"]], e["entity"]
assert set(d["resources"]) >= {"Economy", "Rng"}, d["resources"].keys()
PY
    ;;
  dump_filter)
    expect 0 "$bin" dump "$replay" --tick 300
    gen=$(sed -n 's/^entity 95:\([0-9]*\) .*/\1/p' "$work/out.txt")
    cd95=$(awk '/^entity 95:/{f=1;next} /^entity /{f=0} f && /Weapon\.cooldown/' "$work/out.txt")
    expect 0 "$bin" dump "$replay" --tick 300 --entity 95 --field Weapon.cooldown
    # The header (tick, entity table, 7 archetypes), the entity line, the one field.
    [[ $(wc -l < "$work/out.txt") -eq 11 ]] || { echo "FAIL: expected 11 lines"; cat "$work/out.txt"; exit 1; }
    contains out.txt "entity 95:$gen archetype 6"
    [[ "$(tail -1 "$work/out.txt")" == "$cd95" ]] || { echo "FAIL: filtered field differs"; exit 1; }
    [[ $(grep -c '^  ' "$work/out.txt") -eq 1 ]] || { echo "FAIL: more than the one field"; exit 1; }
    expect 2 "$bin" dump "$replay" --entity x
    contains err.txt "--entity 'x': expected SLOT or SLOT:GEN"
    ;;
  diff_replays)
    expect 0 "$bin" diff "$replay" "$replay" --tick 300
    contains out.txt "equal: no field differs"
    expect 1 "$bin" diff "$replay" "$replay" --tick 300 --tick-b 301 --limit 3 --json
    python3 -c "
import json,sys
d=json.load(open('$work/out.txt'))['diff']
assert not d['equal'] and d['truncated'] and len(d['entries'])==3 and d['entries'][0]['where']=='tick'
assert sum(p['differences'] for p in d['parts'])==d['total']
" || exit 1
    expect 2 "$bin" diff "$replay" --tick 100000
    contains err.txt "expected a tick in 0..600 (the recording's last tick)"
    ;;
  synctest_bundle)
    # State outside the world: the per-system sync test names tick, system, entity and field.
    expect 1 "$bin" synctest --sim broken-static --ticks 50 --per-system --bundle-dir "$work"
    same out.txt "DESYNC tick 0, system broken, Counter[0:1].value 4 | 3 (+3 more)
first tick 0 | again tick 0
differs: Counter (4 differences, 4 entities)
  Counter[0:1].value: 4 | 3
  Counter[1:1].value: 5 | 4
  Counter[2:1].value: 6 | 5
  Counter[3:1].value: 7 | 6
(4 differences; all shown)"
    bundle=$work/desync-synctest-tick0.lsbundle
    [[ -f $bundle ]] || { echo "FAIL: no bundle"; ls "$work"; exit 1; }
    # The bundle reads back to the same answer.
    expect 1 "$bin" diff "$bundle"
    contains out.txt "desync bundle: synctest, sim broken-static v1, first divergent tick 0, system broken"
    contains out.txt "last agreeing state: tick 0; inputs 1 frames from tick 0"
    contains out.txt "compiler: "
    contains out.txt "state schema: "
    tail -7 "$work/out.txt" | sed 's/^tick 0 | tick 0$/first tick 0 | again tick 0/' > "$work/from_bundle.txt"
    same from_bundle.txt "first tick 0 | again tick 0
differs: Counter (4 differences, 4 entities)
  Counter[0:1].value: 4 | 3
  Counter[1:1].value: 5 | 4
  Counter[2:1].value: 6 | 5
  Counter[3:1].value: 7 | 6
(4 differences; all shown)"
    expect 1 "$bin" synctest --sim broken-static --ticks 50 --per-system --json
    cp "$work/out.txt" "$work/synctest.json"
    expect 1 "$bin" diff "$bundle" --json
    python3 - "$work/synctest.json" "$work/out.txt" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert s["tick"] == 0 and s["system"] == "broken" and b["system"] == "broken"
assert s["diff"]["entries"] == b["diff"]["entries"], (s["diff"]["entries"], b["diff"]["entries"])
assert s["diff"]["entries"][0] == {"kind": "component", "where": "Counter[0:1].value", "part": "Counter", "slot": 0,
                                   "generation": 1, "field": "value", "index": -1, "a": "4", "b": "3"}
PY
    expect 0 "$bin" dump "$bundle" --side 1
    contains out.txt "  Counter.value = 3"
    ;;
  verify_per_system)
    # State outside the world reproduces in a plain verify with the recording build (the
    # recording has the same counter values), but not when each tick runs twice.
    expect 0 "$bin" record --sim broken-static --bot 1 --ticks 20 -o "$work/broken.replay"
    expect 0 "$bin" verify "$work/broken.replay"
    contains out.txt "checked 21 recorded hashes"
    expect 1 "$bin" verify "$work/broken.replay" --per-system --bundle-dir "$work"
    same out.txt "DESYNC tick 0, system broken, Counter[0:1].value 4 | 3 (+3 more)
first tick 0 | again tick 0
differs: Counter (4 differences, 4 entities)
  Counter[0:1].value: 4 | 3
  Counter[1:1].value: 5 | 4
  Counter[2:1].value: 6 | 5
  Counter[3:1].value: 7 | 6
(4 differences; all shown)"
    contains err.txt "DESYNC $work/broken.replay: running tick 0 twice from the same state: tick 0, system broken"
    bundle=$work/desync-verify-tick0.lsbundle
    [[ -f $bundle ]] || { echo "FAIL: no bundle"; ls "$work"; exit 1; }
    expect 1 "$bin" diff "$bundle"
    contains out.txt "desync bundle: verify, sim broken-static v1, first divergent tick 0, system broken"
    contains out.txt "  Counter[3:1].value: 7 | 6"
    expect 1 "$bin" verify "$work/broken.replay" --per-system --json
    python3 - "$work/out.txt" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
assert j["exit"] == 1 and j["per_system"] is True and j["tick"] == 0 and j["system"] == "broken", j
assert j["diff"]["entries"][0]["where"] == "Counter[0:1].value" and j["diff"]["entries"][0]["a"] == "4", j
PY
    # A sound sim passes with every check of a plain verify, in a farm too (--jobs children).
    expect 0 "$bin" verify "$src/fixtures/duel/duel.replay" --per-system --trace "$src/fixtures/duel/duel.trace"
    same out.txt "OK $src/fixtures/duel/duel.replay: 1800 ticks, final hash 5bb795eab98d3065; checked 1801 recorded hashes, 1801 golden trace ticks, 3 checkpoints"
    cp "$src/fixtures/duel/duel.replay" "$work/duel.replay"
    expect 1 "$bin" verify "$work/duel.replay" "$work/broken.replay" --per-system --jobs 2
    contains out.txt "2 replays: 1 ok, 1 mismatched, 0 bad input"
    # The other checks still run in per-system mode: a golden trace whose tick 100 was tampered.
    awk 'NR == 102 { $2 = "0000000000000000" } { print }' "$src/fixtures/duel/duel.trace" > "$work/tampered.trace"
    expect 1 "$bin" verify "$work/duel.replay" --per-system --trace "$work/tampered.trace"
    contains out.txt "DESYNC at tick 100 (vs golden trace $work/tampered.trace line 102): total"
    expect 2 "$bin" verify "$work/broken.replay" --against "$work/broken.replay" --per-system
    contains err.txt "--per-system runs one recording's inputs"
    ;;
  bad_bundle)
    expect 1 "$bin" synctest --sim broken-static --ticks 5 --per-system --bundle-dir "$work"
    bundle=$work/desync-synctest-tick0.lsbundle
    size=$(stat -c %s "$bundle")
    head -c 200 "$bundle" > "$work/cut.lsbundle"
    expect 2 "$bin" diff "$work/cut.lsbundle"
    contains err.txt "cut.lsbundle: byte 192: expected checksum "
    python3 -c "
b=bytearray(open('$bundle','rb').read()); b[300]^=0x40; open('$work/flip.lsbundle','wb').write(b)"
    expect 2 "$bin" dump "$work/flip.lsbundle"
    contains err.txt "flip.lsbundle: byte $((size - 8)): expected checksum "
    expect 2 "$bin" dump "$work/flip.lsbundle" --json
    python3 -c "import json; d=json.load(open('$work/out.txt')); assert d['ok'] is False" || exit 1
    expect 2 "$bin" dump "$bundle" --side 2
    contains err.txt "--side 2: the bundle has 2 side(s)"
    printf 'garbage' > "$work/garbage.bin"
    expect 2 "$bin" dump "$work/garbage.bin"
    ;;
  usage)
    expect 2 "$bin" dump
    expect 2 "$bin" diff
    expect 2 "$bin" diff "$replay" --tick 5
    contains err.txt "give two states, or one desync bundle"
    expect 2 "$bin" dump /nonexistent/file
    contains err.txt "/nonexistent/file: cannot open for reading"
    ;;
  planted_platform)
    # The same inputs recorded by two builds (the second rounds friction differently): the
    # cross-build gate names tick, component, entity and field; the bundle says the same.
    expect 0 "$bin" record --sim broken-platform --bot 3 --ticks 100 --checkpoint-every 1 -o "$work/a.replay"
    expect 0 "$quirk" record --sim broken-platform --bot 3 --ticks 100 --checkpoint-every 1 -o "$work/b.replay"
    expect 0 "$bin" verify "$work/a.replay"
    expect 0 "$quirk" verify "$work/b.replay"
    diff_text="differs: Body (8 differences, 4 entities)
  Body[0:1].pos: -0.326263427734375 | -0.3262481689453125
  Body[0:1].vel: -0.2137603759765625 | -0.2137451171875
  Body[2:1].pos: 19.673736572265625 | 19.6737518310546875
  Body[2:1].vel: -0.2137603759765625 | -0.2137451171875
  Body[4:1].pos: 39.673736572265625 | 39.6737518310546875
  Body[4:1].vel: -0.2137603759765625 | -0.2137451171875
  Body[6:1].pos: 59.673736572265625 | 59.6737518310546875
  Body[6:1].vel: -0.2137603759765625 | -0.2137451171875
(8 differences; all shown)"
    expect 1 "$bin" verify "$work/a.replay" --against "$work/b.replay" --bundle-dir "$work"
    same out.txt "DESYNC at tick 2 (A $work/a.replay vs B $work/b.replay): total, Body
A tick 2 | B tick 2
$diff_text"
    bundle=$work/desync-verify-against-tick2.lsbundle
    expect 1 "$bin" diff "$bundle"
    tail -10 "$work/out.txt" > "$work/tail.txt"
    same tail.txt "$diff_text"
    contains out.txt "desync bundle: verify-against, sim broken-platform v1, first divergent tick 2"
    contains out.txt "last agreeing state: tick 1; inputs 1 frames from tick 1"
    # This build verifying the other build's recording: the recording's checkpoint of the
    # first divergent tick gives the field-level answer (recording | this build).
    expect 1 "$bin" verify "$work/b.replay" --bundle-dir "$work"
    contains out.txt "DESYNC at tick 2 (vs recorded hashes): total, Body; tick 2: Body[0:1].pos -0.3262481689453125 | -0.326263427734375 (+7 more)"
    contains out.txt "  Body[6:1].vel: -0.2137451171875 | -0.2137603759765625"
    expect 1 "$bin" diff "$work/desync-verify-tick2.lsbundle"
    contains out.txt "  Body[6:1].vel: -0.2137451171875 | -0.2137603759765625"
    contains out.txt "side this build: total "
    # Same inputs required.
    expect 0 "$bin" record --sim broken-platform --bot 4 --seed 3 --ticks 100 -o "$work/c.replay"
    expect 2 "$bin" verify "$work/a.replay" --against "$work/c.replay"
    contains err.txt "the input frame differs"
    ;;
  planted_stale)
    # A resource written through a pointer cached from another world: only a second peer
    # in the same process shows it — netsim catches it.
    expect 0 "$bin" synctest --sim broken-stale --ticks 100 --per-system
    expect 1 "$bin" netsim --sim broken-stale --ticks 100 --hash-interval 1 --bundle-dir "$work"
    # States of the first divergent confirmed tick (1) itself, peer 0 | peer 1.
    contains err.txt "first divergent confirmed tick 1 (peer 0 vs peer 1: confirmed state hashes differ); states of that tick kept"
    contains err.txt "differs: Score (3 differences)"
    contains err.txt "  Score.points[0]: 120 | 0"
    # The system: tick 0 run again on both peers, stage by stage (issue 39).
    contains err.txt "tick 0 run again on peer 0 and peer 1, stage by stage: DESYNC tick 0, system scoring, Score.points[0] 120 | 0 (+2 more)"
    expect 1 "$bin" diff "$work/desync-netsim-tick1.lsbundle"
    contains out.txt "desync bundle: netsim, sim broken-stale v1, first divergent tick 1, system scoring"
    contains out.txt "  Score.points[0]: 120 | 0"
    contains out.txt "  Score.points[1]: 160 | 0"
    contains out.txt "  Score.ticks: 1 | 0"
    ;;
  planted_peer)
    # Simulation that depends on the local player: every peer simulates differently.
    expect 0 "$bin" synctest --sim broken-peer --ticks 100 --per-system
    expect 1 "$bin" netsim --sim broken-peer --ticks 100 --hash-interval 1 --bundle-dir "$work"
    # The states of the first divergent confirmed tick itself (1), and the hash exchange names
    # that very tick: ticks 1 and 2 are confirmed together, and every report is sent (0.2 sent
    # only the newest, so the first event named tick 2).
    contains err.txt "first divergent confirmed tick 1 (peer 0 vs peer 1: confirmed state hashes differ); states of that tick kept"
    contains err.txt "peer 0 vs peer 1 at confirmed tick 1: tick 1: total differs; components: Body"
    contains err.txt "tick 0 run again on peer 0 and peer 1, stage by stage: DESYNC tick 0, system movement, Body[0:1].pos 0.0009765625 | 0 (+15 more)"
    contains err.txt "state diff at tick 1 (peer 0 | peer 1):"
    contains err.txt "peer 0 tick 1 | peer 1 tick 1"
    contains err.txt "differs: Body (16 differences, 8 entities)"
    contains err.txt "  Body[0:1].pos: 0.0009765625 | 0"
    contains err.txt "  Body[0:1].boost: 1 | 0"
    expect 1 "$bin" diff "$work/desync-netsim-tick1.lsbundle"
    contains out.txt "desync bundle: netsim, sim broken-peer v1, first divergent tick 1"
    contains out.txt "side peer 0: total 628da3fecb67c98a, state kept"
    contains out.txt "side peer 1: total 3bcea8038cf220b6, state kept"
    expect 1 "$bin" diff "$work/desync-netsim-tick1.lsbundle" --json
    python3 -c "
import json; d=json.load(open('$work/out.txt'))['diff']
assert (d['tick_a'], d['tick_b'])==(1, 1), d
e=[x for x in d['entries'] if x['where']=='Body[0:1].boost'][0]
assert (e['a'], e['b'])==('1','0'), e
assert d['parts']==[{'kind':'component','part':'Body','differences':16,'entities':8}], d['parts']
" || exit 1
    ;;
  svg)
    # Pictures: skirmish units at their marked Position.p; a bundle's diverged bodies in red
    # with their differing field as label. rsvg-convert (librsvg2-bin) must render both.
    expect 0 "$bin" dump "$replay" --tick 300 --no-resources --svg "$work/units.svg"
    live=$(sed -n 's/^entities \([0-9]*\) live.*/\1/p' "$work/out.txt")
    n=$(grep -c '<circle ' "$work/units.svg")
    [[ $n -eq $live ]] || { echo "FAIL: $n dots for $live units"; exit 1; }
    expect 1 "$bin" synctest --sim broken-static --ticks 5 --per-system --bundle-dir "$work"
    expect 2 "$bin" diff "$work/desync-synctest-tick0.lsbundle" --svg "$work/none.svg"
    contains err.txt "no component of this state has a marked position field"
    expect 1 "$bin" netsim --sim broken-peer --ticks 60 --hash-interval 1 --bundle-dir "$work"
    expect 1 "$bin" diff "$work/desync-netsim-tick1.lsbundle" --svg "$work/diff.svg"
    contains diff.svg "Body[0:1].pos: 0.0009765625 | 0</text>"
    contains diff.svg "differs: Body"
    [[ $(grep -c 'fill="#e15759"' "$work/diff.svg") -eq 8 ]] || { echo "FAIL: expected 8 highlighted bodies"; exit 1; }
    rsvg-convert "$work/units.svg" -o "$work/units.png" || { echo "FAIL: rsvg-convert units.svg"; exit 1; }
    rsvg-convert "$work/diff.svg" -o "$work/diff.png" || { echo "FAIL: rsvg-convert diff.svg"; exit 1; }
    [[ $(head -c 8 "$work/diff.png" | od -An -c | tr -d ' ') == "211PNG\r\n032\n" ]] || { echo "FAIL: not a PNG"; exit 1; }
    ;;
  *)
    echo "unknown case $case_name"; exit 2 ;;
esac
echo "ok $case_name"
