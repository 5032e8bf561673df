#!/usr/bin/env bash
# doctest_selftest.sh SOURCE_DIR LOCKSTEP WORK_DIR
# scripts/doctest must fail on a wrong document, naming each wrong claim: a flag that does not
# exist (the docs once said `record --checkpoint-interval`), a path that does not exist (they
# once said `cli/cmd_*.cpp`), a dead link, an unknown subcommand, shown output that the tool
# does not print, and a wrong exit code.
set -uo pipefail
src=$1 L=$2 work=$3/doctest_selftest
rm -rf "$work" && mkdir -p "$work" || exit 1
cat > "$work/bad.md" <<'DOC'
# A wrong doc

Record with `lockstep record --checkpoint-interval 10`. Source in `cli/cmd_trace.cpp`; see [missing](nowhere.md).

```sh doctest
$ lockstep info fixtures/duel/duel.replay
sim           duel v2 (matches this build)
$ lockstep verify fixtures/duel/duel.replay --trace fixtures/skirmish/skirmish.trace
$ lockstep frobnicate   # exit 2
$ lockstep info fixtures/duel/duel.replay   # exit 0
sim           duel v1 (matches this build)
...
complete      yes
```
DOC
python3 "$src/scripts/doctest" --tool "$L" --source "$src" "$work/bad.md" > "$work/out" 2>&1
rc=$?
fail() { echo "FAIL: $*"; cat "$work/out"; exit 1; }
((rc == 1)) || fail "exit $rc, not 1"
for want in \
  "bad.md:6: output line not found (in order): 'sim           duel v2 (matches this build)'" \
  "bad.md:8: exit 1, the doc says 0: lockstep verify fixtures/duel/duel.replay --trace fixtures/skirmish/skirmish.trace" \
  "bad.md:3: 'lockstep record --checkpoint-interval': record has no flag --checkpoint-interval" \
  "bad.md:3: path 'cli/cmd_trace.cpp' does not exist in the repository" \
  "bad.md:3: link target 'nowhere.md' does not exist" \
  "bad.md:9: 'lockstep frobnicate': no such subcommand" \
  "doctest: 1 documents, 4 runnable commands, 2 flags, 2 paths checked: 6 failure(s)"; do
  grep -qF -- "$want" "$work/out" || fail "missing: $want"
done
echo ok
