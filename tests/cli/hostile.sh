#!/usr/bin/env bash
# hostile.sh CASE LOCKSTEP SOURCE_DIR WORK_DIR
# Hostile paths and text against the `lockstep` CLI (docs/cli.md, "Output files"): planted
# temp-name symlinks, outputs naming an input, FIFOs without a reader, missing --bundle-dir,
# deeply nested or escape-laden query text, and the file kinds `info` describes. Every case is
# a reported repro; the assertions are its exact outcome. Exit 77 = skipped.
set -uo pipefail
case_name=$1 L=$2 src=$3 work=$4
dir="$work/$case_name"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
F=$src/fixtures/duel/duel.replay
S=$src/fixtures/skirmish/skirmish.replay

fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
expect() {
  local want=$1
  shift
  "$@" >out 2>err
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "--- stdout" >&2; head -c 2000 out >&2; echo "--- stderr" >&2; head -c 2000 err >&2
    fail "expected exit $want, got $got: $*"
  fi
}
contains() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; head -c 2000 "$1" >&2; fail "'$2' not found in $1"; }; }
# quick SECONDS WANT cmd...: exit WANT within SECONDS (a hang is a failure, not a stuck ctest).
quick() {
  local secs=$1 want=$2
  shift 2
  timeout -s KILL "$secs" "$@" >out 2>err
  local got=$?
  [[ $got -eq 137 ]] && fail "$* hung (killed after ${secs}s)"
  [[ $got -eq $want ]] || { head -5 err >&2; fail "expected exit $want, got $got: $*"; }
}

# plant NAME: NAME and NAME's predictable temp names become symlinks to a victim file.
plant() {
  local out=$1
  echo precious > "victim-$out"
  for t in "$out.tmp" "$out.partial"; do ln -sf "victim-$out" "$t"; done
}
# untouched NAME: the victim still says "precious" and the planted links are still links to it.
untouched() {
  local out=$1
  [[ "$(cat "victim-$out")" == precious ]] || fail "a writer of $out wrote through a planted symlink"
  for t in "$out.tmp" "$out.partial"; do
    [[ -L $t && "$(readlink "$t")" == "victim-$out" ]] || fail "the planted $t was replaced or removed"
  done
  [[ -f $out && ! -L $out ]] || fail "$out was not written as a regular file"
}

case $case_name in
  temp_symlinks)
    # The reported repro first: a symlink at OUT.tmp used to receive the trace.
    echo precious > victim.txt
    ln -s victim.txt p.out.tmp
    expect 0 "$L" trace "$F" -o p.out
    [[ "$(cat victim.txt)" == precious ]] || fail "trace wrote through p.out.tmp"
    cmp -s p.out "$src/fixtures/duel/duel.trace" || fail "p.out is not the trace"
    # Every writer, each with symlinks planted at OUT.tmp and OUT.partial.
    plant t.trace; expect 0 "$L" trace "$F" -o t.trace; untouched t.trace
    plant c.json; expect 0 "$L" convert "$F" c.json; untouched c.json
    plant c.replay; expect 0 "$L" convert c.json c.replay; untouched c.replay
    cmp -s c.replay "$F" || fail "convert round trip through planted names changed the bytes"
    plant s.snap; expect 0 "$L" snapshot "$F" --tick 40 -o s.snap; untouched s.snap
    plant r.replay; expect 0 "$L" record --sim duel --bot 3 --ticks 50 -o r.replay; untouched r.replay
    plant r.json; expect 0 "$L" record --sim duel --bot 3 --ticks 50 -o r.json; untouched r.json
    plant run.json; expect 0 "$L" run --no-progress "$F" --trace-out run.json; untouched run.json
    plant bench.json; expect 0 "$L" bench --sim duel --ticks 50 --trace-out bench.json; untouched bench.json
    plant v.xml; expect 0 "$L" verify "$F" --junit v.xml; untouched v.xml
    contains v.xml "<testsuites"
    plant d.svg; expect 0 "$L" dump "$S" --tick 10 --svg d.svg; untouched d.svg
    plant df.svg; expect 0 "$L" diff "$S" "$S" --tick 10 --svg df.svg; untouched df.svg
    plant n.replay; expect 0 "$L" netsim --sim duel --peers 2 --ticks 60 --record n.replay; untouched n.replay
    printf '<html>@LOCKSTEP_DATA@</html>\n' > page.html
    plant v.html; expect 0 "$L" view "$F" --viewer page.html -o v.html; untouched v.html
    # Directory writers: NAME.trace in --out-dir, desync-*.lsbundle in --bundle-dir.
    mkdir -p in traces bundles
    cp "$F" in/duel.replay
    echo precious > traces/victim
    ln -sf victim traces/duel.trace.tmp
    expect 0 "$L" trace in --out-dir traces --jobs 1
    [[ "$(cat traces/victim)" == precious && -L traces/duel.trace.tmp ]] || fail "trace --out-dir wrote through a planted link"
    cmp -s traces/duel.trace "$src/fixtures/duel/duel.trace" || fail "trace --out-dir wrote a different trace"
    echo precious > bundles/victim
    ln -s victim bundles/desync-synctest-tick0.lsbundle.tmp
    expect 1 "$L" synctest --sim broken-static --ticks 50 --per-system --bundle-dir bundles
    [[ "$(cat bundles/victim)" == precious ]] || fail "synctest --bundle-dir wrote through a planted link"
    [[ -f bundles/desync-synctest-tick0.lsbundle && ! -L bundles/desync-synctest-tick0.lsbundle ]] || fail "no bundle was written"
    [[ -L bundles/desync-synctest-tick0.lsbundle.tmp ]] || fail "the planted bundle temp link was replaced"
    # A killed recording's FILE.partial (here: a planted link) is left alone; the recorder
    # uses FILE.XXXXXX.partial and still renames it into place.
    left=$(find . -type f -regextype egrep -regex '.*\.[A-Za-z0-9]{6}\.(tmp|partial)')
    [[ -z $left ]] || fail "temp files left behind: $left"
    true ;;
  peer_record)
    # peer --record and spectate share the recorder: a planted p0.replay.partial is left alone.
    mkdir rv
    for id in 0 1; do plant p$id.replay; done
    for id in 0 1; do
      timeout -s KILL 60 "$L" peer --sim duel --id $id --rendezvous rv --count 2 --ticks 120 --session-id 5 \
        --max-seconds 50 --record p$id.replay >p$id.out 2>p$id.err &
      pids[$id]=$!
    done
    for id in 0 1; do
      wait "${pids[$id]}" || { cat p$id.err >&2; fail "peer $id failed"; }
    done
    for id in 0 1; do untouched p$id.replay; done
    cmp -s p0.replay p1.replay || fail "the two peers recorded different matches"
    expect 0 "$L" verify p0.replay ;;
  same_file)
    # -o naming an input is refused before anything is written; the recording survives.
    cp "$F" in.replay
    cp "$F" keep.replay
    expect 2 "$L" trace in.replay -o in.replay
    contains err "lockstep: error: in.replay: is the input; refusing to overwrite what is being read (write to another path)"
    expect 2 "$L" snapshot in.replay --tick 5 -o in.replay
    contains err "in.replay: is the input"
    expect 2 "$L" run --no-progress in.replay --trace-out in.replay
    contains err "in.replay: is the input"
    printf '<html>@LOCKSTEP_DATA@</html>\n' > page.html
    expect 2 "$L" view in.replay --viewer page.html -o in.replay
    contains err "in.replay: is the input"
    expect 2 "$L" verify in.replay --junit in.replay
    contains err "in.replay: is the input"
    expect 2 "$L" convert in.replay in.replay
    contains err "in.replay: is the input"
    # The same file under another name (hard link, symlink) is the same file.
    ln in.replay hard.replay
    ln -s in.replay soft.replay
    expect 2 "$L" trace in.replay -o hard.replay
    contains err "hard.replay: is the same file as the input in.replay; refusing to overwrite"
    expect 2 "$L" convert in.replay soft.replay
    contains err "soft.replay: is the same file as the input in.replay; refusing to overwrite"
    cmp -s in.replay keep.replay || fail "a refused writer changed the input"
    [[ -L soft.replay ]] || fail "the symlink was replaced"
    # A different file of the same content is fine.
    expect 0 "$L" trace in.replay -o keep.trace ;;
  fifo_no_reader)
    mkfifo pipe
    quick 5 2 "$L" trace "$F" -o pipe
    contains err "lockstep: error: pipe: FIFO has no reader (start the reading process first); not waiting for one"
    quick 5 2 "$L" record --sim duel --bot 1 --ticks 100 -o pipe
    contains err "pipe: byte 0: FIFO has no reader"
    quick 5 2 "$L" snapshot "$F" --tick 5 -o pipe
    contains err "FIFO has no reader"
    [[ -p pipe ]] || fail "the FIFO was replaced"
    # With a reader it is still written directly.
    cat pipe > got.trace &
    quick 20 0 "$L" trace "$F" -o pipe
    wait
    cmp -s got.trace "$src/fixtures/duel/duel.trace" || fail "trace through a FIFO with a reader differs" ;;
  bundle_dir)
    # The docs' own example with a missing directory: created, the report kept (exit 1: the
    # planted sim desyncs), the bundle written.
    expect 1 "$L" synctest --sim broken-static --ticks 50 --per-system --bundle-dir bdir/deeper
    ls bdir/deeper/desync-*.lsbundle >/dev/null 2>&1 || fail "no bundle in the created --bundle-dir"
    contains out "DESYNC tick 0, system broken, Counter[0:1].value 4 | 3 (+3 more)"
    # Not a directory: refused at once, before the sync test runs.
    : > afile
    expect 2 "$L" synctest --sim broken-static --ticks 50 --per-system --bundle-dir afile
    contains err "lockstep: error: --bundle-dir afile: "
    [[ ! -s out ]] || fail "synctest ran although --bundle-dir was unusable"
    expect 2 "$L" verify "$F" --bundle-dir afile/sub
    contains err "--bundle-dir afile/sub: "
    expect 2 "$L" netsim --sim duel --peers 2 --ticks 10 --bundle-dir afile
    contains err "--bundle-dir afile: " ;;
  query_depth)
    # 1000 nested parentheses and 10,000 `not`s overflowed the stack; now exit 2 naming the
    # column of the first level past 64.
    deep=$(printf '(%.0s' $(seq 1000))Team.owner==1$(printf ')%.0s' $(seq 1000))
    quick 10 2 "$L" query "$S" --tick 10 "Team where $deep"
    contains err "lockstep: error: query: column 76: nested deeper than 64 levels of 'not' and parentheses"
    nots=$(printf 'not %.0s' $(seq 10000))
    quick 10 2 "$L" dump "$S" --tick 10 --where "${nots}Team.owner == 1"
    contains err "lockstep: error: query: column 257: nested deeper than 64 levels of 'not' and parentheses"
    # 64 levels are fine.
    ok=$(printf '(%.0s' $(seq 64))Team.owner==1$(printf ')%.0s' $(seq 64))
    quick 10 0 "$L" query "$S" --tick 10 "count Team where $ok"
    ok=$(printf 'not %.0s' $(seq 64))
    quick 10 0 "$L" query "$S" --tick 10 "count Team where ${ok}Team.owner == 1" ;;
  query_echo)
    # ESC sequences in query text never reach the terminal; long echoes are cut.
    expect 2 "$L" query "$S" --tick 10 $'Team where Team.\e[31mowner == 1'
    grep -q $'\e' err && fail "a raw ESC byte reached stderr"
    contains err 'Team where Team.\x1b[31mowner == 1'
    long=$(head -c 122880 /dev/zero | tr '\0' a)
    expect 2 "$L" query "$S" --tick 10 "$long"
    contains err "no component named 'aaaaaaaa"
    contains err "...(122816 more bytes)"
    (($(wc -c < err) < 2048)) || fail "a 120 KiB identifier was echoed ($(wc -c < err) bytes of stderr)"
    expect 2 "$L" info $'no\e]0;pwned\asuch.replay'
    grep -q $'\e' err && fail "a raw ESC byte in a path reached stderr"
    contains err 'no\x1b]0;pwned\x07such.replay'
    # Words CLI11 echoes (unknown subcommands and options) too.
    expect 2 "$L" $'\e[2Jfrob'
    grep -q $'\e' err && fail "a raw ESC byte in an argument reached stderr"
    contains err "not recognised: '\x1b[2Jfrob'"
    expect 2 "$L" info --$'\e[2J'
    grep -q $'\e' err && fail "a raw ESC byte in an option reached stderr" ;;
  leftovers)
    # info describes snapshot files (dump, query, diff and view read them).
    expect 0 "$L" snapshot "$F" --tick 40 -o d.snap
    expect 0 "$L" info d.snap
    contains out "snapshot      d.snap (format v1)"
    contains out "tick          40"
    expect 0 "$L" info --json d.snap
    contains out '"snapshot":"d.snap","format_version":1,"tick":40'
    # trace --json needs -o (the trace itself is stdout otherwise).
    expect 2 "$L" trace "$F" --json
    contains err "lockstep: error: trace: --json summarises a written trace file: give -o FILE"
    # info --sims takes no file.
    expect 2 "$L" info --sims "$F"
    contains err "info --sims lists the sims of this build and takes no file (got '$F'); drop --sims to describe the file"
    # A UTF-8 byte order mark before JSON is skipped.
    expect 0 "$L" convert "$F" plain.json
    printf '\xef\xbb\xbf' > bom.json
    cat plain.json >> bom.json
    expect 0 "$L" verify bom.json
    expect 0 "$L" info bom.json
    contains out "sim           duel"
    # A value of the wrong type names the key, line and column.
    sed 's/"players": 2/"players": "2"/' plain.json > wrong.json
    cmp -s wrong.json plain.json && fail "the edit did not apply"
    expect 2 "$L" verify wrong.json
    line=$(grep -n '"players": "2"' wrong.json | cut -d: -f1)
    contains err "wrong.json: byte "
    contains err "JSON line $line:"
    contains err '"lockstep_replay.config.players" must be an integer 0..4294967295, found a string'
    sed 's/"complete": true/"complete": 1/' plain.json > wrong2.json
    expect 2 "$L" info wrong2.json
    contains err '"lockstep_replay.complete" must be true or false, found 1'
    sed 's/"players": 2/"players": -2/' plain.json > wrong3.json
    expect 2 "$L" info wrong3.json
    contains err '"lockstep_replay.config.players" must be an integer 0..4294967295, found -2'
    grep -rq "rapidjson internal assertion" err && fail "cereal's assertion text leaked"
    # --where "" is an empty condition, as "   " is.
    expect 2 "$L" dump "$S" --tick 10 --where ""
    contains err "lockstep: error: query: column 1: expected a condition (Component.field OP value)"
    expect 2 "$L" dump "$S" --tick 10 --where "   "
    contains err "query: column 4: expected a condition (Component.field OP value)" ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok [$case_name]"
