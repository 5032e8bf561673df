#!/usr/bin/env bash
# End-to-end tests of `lockstep dump` / `lockstep diff` and desync bundles (exit codes 0/1/2,
# exact report text, JSON checked with python3's json module).
# usage: cli_inspect.sh CASE LOCKSTEP SOURCE_DIR WORKDIR
set -u
case_name=$1
bin=$2
src=$3
work=$4/$case_name
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
  *)
    echo "unknown case $case_name"; exit 2 ;;
esac
echo "ok $case_name"
