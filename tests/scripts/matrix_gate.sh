#!/usr/bin/env bash
# matrix_gate.sh SOURCE_DIR WORK_DIR
# scripts/determinism-matrix must not pass having compared nothing: a requested target whose
# toolchain is missing fails the run (exit 1, "0 of 1 requested targets compared") unless
# --allow-unavailable, and the summary states the count. The toolchain is hidden by running
# the script with a PATH that holds everything but the s390x compiler.
set -uo pipefail
src=$1 work=$2/matrix_gate
rm -rf "$work" && mkdir -p "$work/bin" || exit 1
fail() { echo "FAIL: $*" >&2; echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; exit 1; }
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  [[ -d $d && $d == /* ]] && cp -sn "$d"/* "$work/bin/" 2>/dev/null
done
rm -f "$work"/bin/s390x-linux-gnu-g++*
run() { OUT=$work/matrix PATH=$work/bin "$src/scripts/determinism-matrix" "$@" > "$work/out" 2> "$work/err"; }
run --targets s390x
rc=$?
((rc == 1)) || fail "an unavailable target exited $rc, not 1"
grep -qxF "summary: 0 of 1 requested targets compared; unavailable: s390x" "$work/out" || fail "no count in the summary"
grep -qF "determinism-matrix: FAILED: requested target(s) unavailable: s390x" "$work/err" || fail "no reason on stderr"
run --targets s390x --allow-unavailable
rc=$?
# Allowed, but a run that compared nothing still is no pass.
((rc == 1)) || fail "--allow-unavailable with nothing compared exited $rc, not 1"
grep -qF "determinism-matrix: FAILED: no target was compared" "$work/err" || fail "no 'nothing compared' reason"
grep -qF "requested target(s) unavailable" "$work/err" && fail "--allow-unavailable still reported the unavailable target as the failure"
echo ok
