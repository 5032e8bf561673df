#!/usr/bin/env bash
# bench_peers with --benchmark_enable_random_interleaving (ctest bench.peers_random_interleaving):
# the repetitions of four benchmarks that hold three fixture types run in random order, each with
# the smallest size and a minimal time. Every repetition must report. (The fixture cache used to
# hand a benchmark the object another one had built, cast to its own type: an abort or a
# segfault. Google Benchmark reports a benchmark's repetitions together after its last one, so
# the order of the runs is not visible in the output; built with ASan, the old cache failed this
# test in each of three runs: a use-after-free, a null dereference, a heap overflow.)
# usage: bench_peers_interleaving.sh BENCH_PEERS WORK_DIR PYTHON3
set -euo pipefail
exe=$1 work=$2 python=$3
mkdir -p "$work"
out=$work/interleaving.json
names='each/raw/10000 each/lockstep/10000 addrm/raw/10000 addrm/lockstep/10000'
set +e
"$exe" --benchmark_filter='^(each|addrm)/(raw|lockstep)/10000$' --benchmark_enable_random_interleaving=true \
  --benchmark_repetitions=6 --benchmark_min_time=0.001 --benchmark_out="$out" --benchmark_out_format=json \
  > "$work/interleaving.log" 2>&1
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  tail -20 "$work/interleaving.log"
  echo "FAIL: bench_peers exited $rc with random interleaving" >&2
  exit 1
fi
"$python" - "$out" $names <<'PY'
import json, sys
runs = [b["run_name"] for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("run_type") == "iteration"]
want = sys.argv[2:]
counts = {n: runs.count(n) for n in set(runs) | set(want)}
if counts != {n: 6 for n in want}:
    sys.exit(f"FAIL: repetitions per benchmark {counts}, expected 6 of each of {want}")
print(f"ok: {len(runs)} runs of {len(want)} benchmarks with random interleaving")
PY
