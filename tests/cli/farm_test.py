#!/usr/bin/env python3
"""End-to-end test of replay farms (cli/src/farm.cpp): verify/trace over directories,
--shard I/N, --jobs N, --junit. Usage: farm_test.py TOOL SOURCE_DIR WORK_DIR

Asserts exact answers: which replay lands in which shard (sorted position k -> shard k%N+1),
that the shards cover every replay exactly once whatever order the files were created in,
the JUnit report's structure and counts, the exit codes, and the traces written by a trace farm.
"""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

tool, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
duel = os.path.join(src, "fixtures", "duel", "duel.replay")
duel_trace = os.path.join(src, "fixtures", "duel", "duel.trace")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


# Relative names; "bad" is not a replay, "tampered" has a wrong golden trace.
names = ["m/zeta.replay", "a/alpha.replay", "a/b/beta.replay", "gamma.replay", "m/delta.replay",
         "a/tampered.replay", "z/bad.replay"]


def make_farm(root, order):
    shutil.rmtree(root, ignore_errors=True)
    for n in order:
        path = os.path.join(root, n)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if n.endswith("bad.replay"):
            with open(path, "wb") as f:
                f.write(b"not a replay")
            continue
        shutil.copyfile(duel, path)
        lines = open(duel_trace).read().splitlines(True)
        if n.endswith("tampered.replay"):
            parts = lines[101].split(" ")  # tick 100 (line 0 is the header comment)
            parts[1] = "0000000000000000"
            lines[101] = " ".join(parts)
        with open(path[: -len(".replay")] + ".trace", "w") as f:
            f.writelines(lines)
    # Not replays: must be ignored by the directory walk.
    with open(os.path.join(root, "notes.txt"), "w") as f:
        f.write("x")


def parse_junit(path, expected_suite):
    tree = ET.parse(path)  # raises on malformed XML
    root = tree.getroot()
    check(root.tag == "testsuites", f"{path}: root is <testsuites>")
    suites = root.findall("testsuite")
    check(len(suites) == 1, f"{path}: one <testsuite>")
    suite = suites[0]
    cases = suite.findall("testcase")
    fails = [c for c in cases if c.find("failure") is not None]
    errors = [c for c in cases if c.find("error") is not None]
    for el in (root, suite):
        check(el.get("name") == expected_suite, f"{path}: suite name {el.get('name')!r}")
        check(int(el.get("tests")) == len(cases), f"{path}: tests= matches testcases")
        check(int(el.get("failures")) == len(fails), f"{path}: failures= matches")
        check(int(el.get("errors")) == len(errors), f"{path}: errors= matches")
        float(el.get("time"))
    for c in cases:
        check(c.get("classname") == expected_suite.replace(" ", "."), f"{path}: classname")
        check(c.get("name", "") != "", f"{path}: testcase name")
        float(c.get("time"))
        check(c.find("failure") is None or c.find("error") is None, f"{path}: failure and error at once")
    return {c.get("name"): ("failure" if c.find("failure") is not None else
                            "error" if c.find("error") is not None else "ok") for c in cases}, \
        {c.get("name"): (c.find("failure").get("message") if c.find("failure") is not None else "") for c in cases}


farm1 = os.path.join(work, "farm1")
farm2 = os.path.join(work, "farm2")
make_farm(farm1, names)
make_farm(farm2, list(reversed(names)))  # other creation order, other directory order
sorted_rel = sorted(names, key=lambda s: s.encode())

N = 3
for farm in (farm1, farm2):
    seen = {}
    for i in range(1, N + 1):
        junit = os.path.join(work, f"{os.path.basename(farm)}-shard{i}.xml")
        rc, out, err = run("verify", farm, "--traces-beside", "--shard", f"{i}/{N}", "--junit", junit)
        cases, messages = parse_junit(junit, "lockstep verify")
        rel = {os.path.relpath(k, farm): v for k, v in cases.items()}
        expected = [n for k, n in enumerate(sorted_rel) if k % N == i - 1]
        check(sorted(rel) == sorted(expected), f"{farm} shard {i}: {sorted(rel)} != {sorted(expected)}")
        for n in rel:
            check(n not in seen, f"{n} in two shards ({seen.get(n)} and {i})")
            seen[n] = i
        want_status = {n: ("error" if n.endswith("bad.replay") else "failure" if n.endswith("tampered.replay") else "ok")
                       for n in expected}
        check(rel == want_status, f"{farm} shard {i}: statuses {rel} != {want_status}")
        for k, m in messages.items():
            if k.endswith("tampered.replay"):
                check("tick 100" in m, f"tampered message names tick 100: {m!r}")
        want_rc = 2 if "error" in want_status.values() else 1 if "failure" in want_status.values() else 0
        check(rc == want_rc, f"{farm} shard {i}: exit {rc}, want {want_rc}\n{out}\n{err}")
        check(f"(shard {i}/{N} of {len(names)})" in out, f"{farm} shard {i}: summary names the shard: {out}")
    check(sorted(seen) == sorted(names), f"shards cover {sorted(seen)}, want {sorted(names)}")

# --jobs: same results, same output order as a serial run (only the timing summary differs).
rc1, out1, _ = run("verify", farm1, "--traces-beside", "--jobs", "1")
rc4, out4, _ = run("verify", farm1, "--traces-beside", "--jobs", "4")
check(rc1 == 2 and rc4 == 2, f"jobs exit codes {rc1} {rc4}")
strip = lambda s: [l for l in s.splitlines() if not l.startswith("lockstep verify:")]
check(strip(out1) == strip(out4), "--jobs 4 output differs from --jobs 1")
check("7 replays: 5 ok, 1 mismatched, 1 bad input" in out4, f"summary: {out4}")

# A trace farm reproduces every golden trace.
good = os.path.join(work, "good")
shutil.rmtree(good, ignore_errors=True)
for n in ("x/one.replay", "two.replay"):
    os.makedirs(os.path.dirname(os.path.join(good, n)), exist_ok=True)
    shutil.copyfile(duel, os.path.join(good, n))
outdir = os.path.join(work, "traces")
shutil.rmtree(outdir, ignore_errors=True)
rc, out, err = run("trace", good, "--out-dir", outdir, "--jobs", "2")
check(rc == 0, f"trace farm exit {rc}: {out} {err}")
for stem in ("one", "two"):
    p = os.path.join(outdir, stem + ".trace")
    check(os.path.exists(p) and open(p).read() == open(duel_trace).read(), f"trace farm wrote {p} equal to golden")
# Same name in two folders would overwrite: refused.
os.makedirs(os.path.join(good, "y"), exist_ok=True)
shutil.copyfile(duel, os.path.join(good, "y", "two.replay"))
rc, out, err = run("trace", good, "--out-dir", outdir)
check(rc == 2 and "would both write" in err, f"trace name clash: exit {rc}: {err}")
rc, out, err = run("trace", good)
check(rc == 2 and "--out-dir" in err, f"trace farm without --out-dir: exit {rc}: {err}")

# The incomplete-replay rule per replay of a farm: a cut recording (no END block) is bad input
# unless --allow-partial (passed on to --jobs children too) or its name ends in .partial.
partial = os.path.join(work, "partial")
shutil.rmtree(partial, ignore_errors=True)
os.makedirs(partial)
shutil.copyfile(duel, os.path.join(partial, "full.replay"))
with open(duel, "rb") as f:
    cut_bytes = f.read()[:50000]  # ends inside a HASH block: ticks 0..960 complete
with open(os.path.join(partial, "cut.replay"), "wb") as f:
    f.write(cut_bytes)
with open(os.path.join(partial, "interrupted.replay.partial"), "wb") as f:
    f.write(cut_bytes)  # not listed by the directory walk (*.replay only)
for jobs in ("1", "2"):
    junit = os.path.join(work, f"partial-{jobs}.xml")
    rc, out, err = run("verify", partial, "--jobs", jobs, "--junit", junit)
    cases, _ = parse_junit(junit, "lockstep verify")
    rel = {os.path.relpath(k, partial): v for k, v in cases.items()}
    check(rc == 2 and rel == {"cut.replay": "error", "full.replay": "ok"}, f"partial farm --jobs {jobs}: exit {rc}, {rel}")
    check("cut.replay: incomplete replay (no END block" in out + err, f"partial farm names the rule: {out} {err}")
    check("2 replays: 1 ok, 0 mismatched, 1 bad input" in out, f"partial farm summary: {out}")
    rc, out, err = run("verify", partial, "--jobs", jobs, "--allow-partial")
    check(rc == 0 and "2 replays: 2 ok, 0 mismatched, 0 bad input" in out, f"--allow-partial farm --jobs {jobs}: exit {rc}: {out} {err}")
    check("cut.replay: 960 ticks" in out, f"--allow-partial farm checks ticks 0..960: {out}")
rc, out, err = run("verify", os.path.join(partial, "full.replay"), os.path.join(partial, "interrupted.replay.partial"))
check(rc == 0 and "interrupted.replay.partial: 960 ticks" in out, f"explicit .partial in a farm: exit {rc}: {out} {err}")
rc, out, err = run("verify", os.path.join(partial, "full.replay"), os.path.join(partial, "cut.replay"))
check(rc == 2, f"explicit incomplete replay in a farm: exit {rc}: {out} {err}")

# Bad farm arguments.
for shard in ("0/3", "4/3", "x", "1/0", "2"):
    rc, out, err = run("verify", farm1, "--shard", shard)
    check(rc == 2 and f"lockstep: error: --shard '{shard}': expected I/N with 1 <= I <= N <= 100000\n" in err,
          f"--shard {shard}: exit {rc}: {err}")
blocker = os.path.join(work, "blocker")
with open(blocker, "w") as f:
    f.write("x")
rc, out, err = run("trace", duel, "--out-dir", os.path.join(blocker, "out"))
check(rc == 2 and f"lockstep: error: --out-dir {os.path.join(blocker, 'out')}: " in err, f"--out-dir under a file: exit {rc}: {err}")
empty = os.path.join(work, "empty")
os.makedirs(empty, exist_ok=True)
rc, out, err = run("verify", empty)
check(rc == 2 and "no *.replay files" in err, f"empty directory: exit {rc}: {err}")
rc, out, err = run("verify", os.path.join(work, "missing"), duel)
check(rc == 2 and "no such file or directory" in err, f"missing input: exit {rc}: {err}")

print("farm test:", "FAILED" if failures else "passed", f"({len(failures)} failures)")
sys.exit(1 if failures else 0)
