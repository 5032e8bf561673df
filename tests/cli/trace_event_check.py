#!/usr/bin/env python3
"""Timing traces of `lockstep bench/run/netsim --trace-out` (docs/timing-traces.md), checked
against the Chrome trace-event format and against what the command did.

usage: trace_event_check.py CASE LOCKSTEP WORKDIR
  bench   `bench --sim duel --ticks 40 --warmup 5 --json --trace-out`: a valid trace; every
          measured tick has exactly one slice per system (names from the JSON "slices" of the
          same run), one inputs, one flush, one hash; the JSON table covers the same names.
  run     `run fixtures/duel/duel.replay --trace-out`: one system slice per system per tick of
          the recording (ticks 0..N-1).
  netsim  `netsim --sim skirmish --ticks 120 --trace-out`: one thread per peer, rollback and
          resimulate slices, resimulated system slices nested inside their resimulate slice.
"""
import collections
import json
import os
import subprocess
import sys

PHASES = set("BEXIiCbnesftPNODMVvRc(),")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def validate(path):
    """The trace-event format (JSON object form) as Perfetto and chrome://tracing read it."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("top level must be an object with a traceEvents array")
    if doc.get("displayTimeUnit") not in (None, "ms", "ns"):
        fail("displayTimeUnit must be ms or ns")
    slices = []
    threads = {}
    for i, e in enumerate(doc["traceEvents"]):
        where = f"event {i} {e}"
        if not isinstance(e, dict) or not isinstance(e.get("name"), str) or e.get("ph") not in PHASES:
            fail(where + ": needs a string name and a known ph")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail(where + ": pid and tid must be integers")
        if e["ph"] == "M":
            if e["name"] not in ("process_name", "thread_name", "thread_sort_index", "process_sort_index", "process_labels"):
                fail(where + ": unknown metadata event")
            if not isinstance(e.get("args"), dict):
                fail(where + ": metadata needs args")
            if e["name"] == "thread_name":
                threads[e["tid"]] = e["args"]["name"]
            continue
        if e["ph"] != "X":
            fail(where + ": lockstep writes only X and M events")
        for k in ("ts", "dur"):
            if not isinstance(e.get(k), (int, float)) or e[k] < 0:
                fail(where + f": {k} must be a non-negative number")
        if not isinstance(e.get("cat"), str) or not isinstance(e.get("args", {}).get("tick"), int):
            fail(where + ": needs cat and args.tick")
        slices.append(e)
    # Complete events on one thread must nest (Perfetto draws them as a stack): sorted by start
    # (longest first on ties), each starts after its parent's end or ends inside it. Times are
    # exact decimal nanoseconds, compared as integers.
    ns = lambda v: round(v * 1000)
    by_tid = collections.defaultdict(list)
    for e in slices:
        if e["tid"] not in threads:
            fail(f"slice on tid {e['tid']} without a thread_name")
        by_tid[e["tid"]].append(e)
    parent = {}
    for tid, evs in by_tid.items():
        evs.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        stack = []
        for e in evs:
            s, t = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            while stack and ns(stack[-1]["ts"]) + ns(stack[-1]["dur"]) <= s:
                stack.pop()
            if stack and t > ns(stack[-1]["ts"]) + ns(stack[-1]["dur"]):
                fail(f"tid {tid}: slice {e} overlaps {stack[-1]} without nesting")
            parent[id(e)] = stack[-1] if stack else None
            stack.append(e)
    return doc, slices, threads, parent


def run(cmd, expect=0):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != expect:
        fail(f"{' '.join(cmd)} exited {p.returncode} (expected {expect})\n{p.stdout}\n{p.stderr}")
    return p


def per_tick(slices, kind):
    out = collections.defaultdict(collections.Counter)
    for e in slices:
        if e["cat"] == kind:
            out[e["args"]["tick"]][e["name"]] += 1
    return out


def main():
    case, tool, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, f"{case}.trace.json")
    if case == "bench":
        ticks, warmup = 40, 5
        p = run([tool, "bench", "--sim", "duel", "--ticks", str(ticks), "--warmup", str(warmup), "--snapshot-iters", "3",
                 "--json", "--trace-out", out])
        report = json.loads(p.stdout)
        if report["heap_allocations_during_ticks"] != 0:
            fail(f"the probe allocated during ticks: {report['heap_allocations_during_ticks']}")
        doc, slices, threads, _ = validate(out)
        systems = [s["name"] for s in report["slices"] if s["kind"] == "system"]
        if not systems:
            fail("no system rows in the bench table")
        sys_ticks = per_tick(slices, "system")
        want = list(range(warmup, warmup + ticks))
        if sorted(sys_ticks) != want:
            fail(f"system slices for ticks {sorted(sys_ticks)[:5]}.. expected {warmup}..{warmup + ticks - 1}")
        for t, names in sys_ticks.items():
            if names != collections.Counter(systems):
                fail(f"tick {t}: system slices {dict(names)}, expected each of {systems} once")
        for kind in ("inputs", "flush"):
            got = per_tick(slices, kind)
            if sorted(got) != want or any(sum(c.values()) != 1 for c in got.values()):
                fail(f"{kind}: expected one slice per tick {warmup}..{warmup + ticks - 1}")
        hashes = per_tick(slices, "hash")  # hashed after the tick advanced
        if sorted(hashes) != [t + 1 for t in want]:
            fail(f"hash slices at ticks {sorted(hashes)[:5]}.., expected {warmup + 1}..{warmup + ticks}")
        for kind, n in (("snapshot", 3), ("restore", 3)):
            if sum(1 for e in slices if e["cat"] == kind) != n:
                fail(f"expected {n} {kind} slices")
        rows = {(s["kind"], s["name"]): s["count"] for s in report["slices"]}
        for name in systems:
            if rows[("system", name)] != ticks:
                fail(f"table row {name}: count {rows[('system', name)]}, expected {ticks}")
        if doc["otherData"]["dropped"] != 0:
            fail("dropped events")
        print(f"ok: {len(slices)} slices, systems {systems}, {ticks} ticks")
    elif case == "run":
        replay = sys.argv[4]
        probed = json.loads(run([tool, "run", replay, "--json", "--trace-out", out]).stdout)
        info = json.loads(run([tool, "run", replay, "--json"]).stdout)
        # A probe observes only: the recorded hashes are checked with it attached and the final
        # state is the one without it.
        if probed["final_hash"] != info["final_hash"] or probed["hashes_checked"] != info["hashes_checked"]:
            fail(f"with a probe: final {probed['final_hash']} checked {probed['hashes_checked']}, "
                 f"without: {info['final_hash']} {info['hashes_checked']}")
        if info["hashes_checked"] == 0:
            fail("the replay has no recorded hashes to check")
        _, slices, _, _ = validate(out)
        sys_ticks = per_tick(slices, "system")
        if sorted(sys_ticks) != list(range(info["ticks"])):
            fail(f"system slices cover ticks {min(sys_ticks)}..{max(sys_ticks)}, expected 0..{info['ticks'] - 1}")
        first = sys_ticks[0]
        if any(c != first for c in sys_ticks.values()) or any(v != 1 for v in first.values()):
            fail("every tick must have the same systems, once each")
        print(f"ok: {info['ticks']} ticks x systems {sorted(first)}")
    elif case == "netsim":
        p = run([tool, "netsim", "--sim", "skirmish", "--units", "200", "--ticks", "120", "--latency-ms", "80",
                 "--jitter-ms", "30", "--loss", "0.1", "--json", "--trace-out", out])
        report = json.loads(p.stdout)
        _, slices, threads, parent = validate(out)
        if sorted(threads.values()) != ["peer 0", "peer 1"]:
            fail(f"threads {threads}, expected peer 0 and peer 1")
        rollbacks = [e for e in slices if e["cat"] == "rollback"]
        resims = [e for e in slices if e["cat"] == "resimulate"]
        total = report["rollbacks"]
        if not rollbacks or len(rollbacks) != len(resims):
            fail(f"{len(rollbacks)} rollback and {len(resims)} resimulate slices")
        if len(rollbacks) != total:
            fail(f"{len(rollbacks)} rollback slices, netsim reports {total} rollbacks")
        nested = [e for e in slices if e["cat"] == "system" and parent[id(e)] is not None and parent[id(e)]["cat"] == "resimulate"]
        if not nested:
            fail("no system slice nested inside a resimulate slice")
        if not any(e["cat"] == "snapshot" for e in slices):
            fail("no snapshot slices")
        print(f"ok: {len(rollbacks)} rollbacks, {len(nested)} resimulated system slices")
    else:
        fail("unknown case " + case)


if __name__ == "__main__":
    main()
