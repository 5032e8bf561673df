#!/usr/bin/env python3
"""The viewer WITHOUT emscripten, in a real browser (headless Chromium over the DevTools pipe,
as browser_test.py): the page `lockstep view -o` writes with the frames embedded, and the page
`lockstep view --serve` serves (docs/viewer.md). Runs in the default build (scripts/test).

usage: native_browser_test.py CASE TOOL SOURCE_DIR ARTIFACT_DIR [PLANT]
  native  TOOL = lockstep. skirmish.replay as a page: the hash shown at ticks 0, a mid keyframe
          and the last equals `lockstep trace`; a unit's fields are listed; nothing fetched. A
          planted desync bundle (netsim --sim broken-peer) as a page: the ringed entities are
          exactly the slots `lockstep diff --json` names, their differing fields are the diff's.
  serve   TOOL = lockstep. The same two files through `view --serve` (every tick: 0, 301, last),
          then Ctrl-C: exit 0.
  arena   TOOL = examples/arena's own tool (lockstep_add_tool, no emscripten), PLANT = the
          program that writes a planted arena bundle. An arena replay it records: page and
          --serve show `trace`'s hash at 0 / mid / last, fighters drawn by arena's DrawHint;
          the arena bundle: page shows the diverged entities `diff --json` names.
Exit 77 (skipped) without chromium (a failure under LOCKSTEP_REQUIRE_BROWSER).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_test import Browser, check_fits, fail, no_network, run, skip  # noqa: E402


def trace_of(tool, replay):
    out = {}
    for line in run([tool, "trace", replay]).stdout.splitlines():
        if line and not line.startswith("#"):
            t, total = line.split()[:2]
            out[int(t)] = total
    return out


def diff_slots(tool, bundle):
    d = json.loads(run([tool, "diff", bundle, "--json", "--limit", "100000"], expect=1).stdout)["diff"]
    want = sorted({e["slot"] for e in d["entries"] if e["kind"] in ("component", "entity", "archetype")})
    if not want:
        fail("lockstep diff names no diverged entity")
    return d, want


def write_page(tool, src, out):
    p = run([tool, "view", src, "-o", out, "--json"])
    return json.loads(p.stdout)


class Server:
    def __init__(self, tool, path):
        self.proc = subprocess.Popen([tool, "view", path, "--serve", "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r" at (http://127\.0\.0\.1:\d+/) ", line)
        if not m:
            self.proc.kill()
            fail(f"view --serve printed {line!r}: {self.proc.stderr.read()}")
        self.url = m.group(1)

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=10)
        if self.proc.returncode != 0:
            fail(f"view --serve after SIGINT: exit {self.proc.returncode}: {err}")


def check_replay(browser, trace, ticks, label, select_components=None):
    st = browser.evaluate("window.lockstepTest.state()")
    stride = st["stride"]
    for t in ticks:
        want_tick = t - t % stride if t != max(trace) else t
        st = browser.evaluate(f"window.lockstepTest.seek({t})")
        shown = browser.evaluate("document.getElementById('hash-total0').textContent")
        if st["tick"] != want_tick or st["hash"] != trace[want_tick] or shown != trace[want_tick]:
            fail(f"{label} tick {t}: page shows tick {st['tick']} hash {st['hash']} (DOM {shown}); "
                 f"lockstep trace says tick {want_tick}: {trace.get(want_tick)}")
        if st["drawn"][0] == 0 or st["drawn"][0] != st["entities"][0]:
            fail(f"{label} tick {t}: {st['drawn'][0]} of {st['entities'][0]} entities drawn")
        print(f"{label} tick {st['tick']}: {shown} == trace ({st['drawn'][0]} drawn, backend {st['backend']})")
    if select_components:
        sel = browser.evaluate("window.lockstepTest.select(0)")
        names = [c["name"] for c in sel[0]["components"]]
        if names != select_components:
            fail(f"{label}: entity 0 lists {names}, expected {select_components}")


def check_bundle(browser, d, want, label):
    st = browser.evaluate("window.lockstepTest.state()")
    if sorted(st["diverged"]) != want:
        fail(f"{label}: page diverged ids {st['diverged']}, lockstep diff says {want}")
    if len(st["entities"]) != 2 or min(st["drawn"]) == 0:
        fail(f"{label}: expected both sides drawn, got {st['drawn']} of {st['entities']}")
    shown = browser.evaluate("document.getElementById('diverged').textContent")
    if [int(x) for x in shown.split(", ")] != want:
        fail(f"{label}: DOM lists diverged {shown!r}")
    sel = browser.evaluate(f"window.lockstepTest.select({want[0]})")
    differing = sorted(c["name"] + "." + f["name"] for c in sel[0]["components"] for f in c["fields"] if f["differs"])
    want_fields = sorted({e["part"] + "." + e["field"] for e in d["entries"]
                          if e["kind"] == "component" and e["slot"] == want[0]})
    if differing != want_fields:
        fail(f"{label}: entity {want[0]} marks {differing}, lockstep diff says {want_fields}")
    check_fits(browser, label)
    print(f"{label}: diverged {want} == lockstep diff; entity {want[0]} differs in {want_fields}")


def main():
    case, tool, source, artifacts = sys.argv[1:5]
    plant = sys.argv[5] if len(sys.argv) > 5 else ""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        skip("chromium is not installed (scripts/bootstrap installs it)")
    os.makedirs(artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="lockstep-native-viewer-")
    browser = None
    try:
        if case in ("native", "serve"):
            replay = os.path.join(source, "fixtures", "skirmish", "skirmish.replay")
            trace = trace_of(tool, replay)
            bdir = os.path.join(work, "bundle")
            os.makedirs(bdir)
            run([tool, "netsim", "--sim", "broken-peer", "--ticks", "100", "--hash-interval", "1", "--bundle-dir", bdir],
                expect=1)
            bundle = os.path.join(bdir, os.listdir(bdir)[0])
            d, want = diff_slots(tool, bundle)
            skirmish_components = ["Position", "Team", "Selected", "Order", "Weapon", "Health"]
            browser = Browser(chromium, work)
            browser.attach()
            if case == "native":
                page = os.path.join(artifacts, "native-skirmish.html")
                r = write_page(tool, replay, page)
                print(f"page: {r['frames']} frames, stride {r['stride']}, {r['bytes']} bytes")
                browser.open(page)
                mid = (max(trace) // 2) - (max(trace) // 2) % r["stride"]
                check_replay(browser, trace, (0, mid, max(trace)), "native skirmish", skirmish_components)
                note = browser.evaluate("window.lockstepTest.state().note")
                if (r["stride"] > 1) != bool(note):
                    fail(f"stride {r['stride']} but note {note!r}")
                no_network(browser)
                browser.screenshot(os.path.join(artifacts, "viewer-native-skirmish.png"))
                page = os.path.join(artifacts, "native-desync.html")
                write_page(tool, bundle, page)
                browser.open(page)
                check_bundle(browser, d, want, "native bundle")
                no_network(browser)
                browser.screenshot(os.path.join(artifacts, "viewer-native-desync.png"))
            else:
                s = Server(tool, replay)
                try:
                    browser.open_url(s.url)
                    check_replay(browser, trace, (0, 301, max(trace)), "served skirmish", skirmish_components)
                    browser.screenshot(os.path.join(artifacts, "viewer-serve-skirmish.png"))
                finally:
                    s.stop()
                s = Server(tool, bundle)
                try:
                    browser.open_url(s.url)
                    check_bundle(browser, d, want, "served bundle")
                    browser.screenshot(os.path.join(artifacts, "viewer-serve-desync.png"))
                finally:
                    s.stop()
        elif case == "arena":
            replay = os.path.join(work, "arena.replay")
            run([tool, "record", "--sim", "arena", "--bot", "7", "--ticks", "240", "--players", "4", "--units", "40",
                 "-o", replay])
            trace = trace_of(tool, replay)
            bundle = os.path.join(work, "arena.lsbundle")
            run([plant, bundle])
            d, want = diff_slots(tool, bundle)
            fighter = ["Position", "Velocity", "Fighter"]
            browser = Browser(chromium, work)
            browser.attach()
            page = os.path.join(artifacts, "arena.html")
            r = write_page(tool, replay, page)
            browser.open(page)
            mid = 120 - 120 % r["stride"]
            check_replay(browser, trace, (0, mid, 240), "arena page", fighter)
            no_network(browser)
            browser.screenshot(os.path.join(artifacts, "viewer-arena.png"))
            s = Server(tool, replay)
            try:
                browser.open_url(s.url)
                check_replay(browser, trace, (0, 121, 240), "arena served", fighter)
            finally:
                s.stop()
            page = os.path.join(artifacts, "arena-desync.html")
            write_page(tool, bundle, page)
            browser.open(page)
            check_bundle(browser, d, want, "arena bundle page")
            no_network(browser)
            browser.screenshot(os.path.join(artifacts, "viewer-arena-desync.png"))
        else:
            fail("unknown case " + case)
    finally:
        if browser is not None:
            browser.close()
        shutil.rmtree(work, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
