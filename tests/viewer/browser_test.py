#!/usr/bin/env python3
"""The viewer page in a real browser: headless Chromium, driven over the DevTools protocol on a
pipe (--remote-debugging-pipe: no port, no websocket library), opens pages written by
`lockstep view` from disk (file://) and reads what they display through window.lockstepTest.

usage: browser_test.py CASE LOCKSTEP SOURCE_DIR ARTIFACT_DIR [PAGE_TEMPLATE]
  skirmish  fixtures/skirmish/skirmish.replay: the displayed tick hash at ticks 0, 300 and 600
            equals `lockstep trace`'s; every resource the page loaded is inline (no network);
            screenshot ARTIFACT_DIR/viewer-skirmish.png.
  bundle    a planted desync (netsim --sim broken-peer) bundle: the page's diverged entity ids
            equal `lockstep diff --json`'s, both sides are drawn; screenshot
            ARTIFACT_DIR/viewer-desync.png. In a 1200 px window the page is no wider than the
            window and the selected entity's values are inside it.
Exit 77 (ctest: skipped) when chromium or the page template is missing, with the reason
(a failure instead when LOCKSTEP_REQUIRE_BROWSER is set, as in CI).
"""
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def skip(msg):
    # CI installs both and sets LOCKSTEP_REQUIRE_BROWSER: there a missing piece is a failure.
    if os.environ.get("LOCKSTEP_REQUIRE_BROWSER"):
        fail("required but unavailable: " + msg)
    print("SKIPPED:", msg)
    sys.exit(SKIP)


class Browser:
    """Chromium with the DevTools protocol on fds 3 (commands in) and 4 (answers out), each
    message NUL-terminated JSON."""

    def __init__(self, binary, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # The child needs them as fds 3 and 4: moved above 10 first (either may be 3 or 4
        # already), then into place. close_fds=False: Popen would close 3 and 4 after this.
        def setup():
            r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)
        args = [binary, "--headless", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
                "--disable-gpu", "--disable-quic", "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--no-proxy-server", "--user-data-dir=" + profile,
                "--window-size=1400,900", "--hide-scrollbars", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # chromium refuses to run as root with its sandbox
        self.proc = subprocess.Popen(args, preexec_fn=setup, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile, "chromium.log"), "w"))
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            while b"\0" not in self.buf:
                if time.time() > deadline:
                    fail(f"no answer to {method} within {timeout}s")
                chunk = os.read(self.from_child, 1 << 20)
                if not chunk:
                    fail(f"chromium closed the pipe during {method}")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    fail(f"{method}: {answer['error']}")
                return answer["result"]

    def attach(self):
        for _ in range(100):
            pages = [t for t in self.send("Target.getTargets", session=False)["targetInfos"] if t["type"] == "page"]
            if pages:
                break
            time.sleep(0.1)
        else:
            fail("chromium opened no page")
        self.session = self.send("Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")

    def evaluate(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            fail(f"page exception in {expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def open(self, path, timeout=60):
        self.open_url("file://" + os.path.abspath(path), timeout)

    def open_url(self, url, timeout=60):
        self.send("Page.navigate", {"url": url})
        deadline = time.time() + timeout
        while time.time() < deadline:
            # location.href first: right after navigate, evaluate may still reach the previous page.
            if self.evaluate(f"location.href === {json.dumps(url)} && !!(window.lockstepTest && window.lockstepTest.ready)"):
                err = self.evaluate("window.lockstepTest.error")
                if err:
                    fail(f"the page reports an error: {err}")
                return
            time.sleep(0.1)
        fail(f"the page did not become ready within {timeout}s")

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except SystemExit:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def run(cmd, expect=0):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != expect:
        fail(f"{' '.join(cmd)} exited {p.returncode} (expected {expect})\n{p.stdout}\n{p.stderr}")
    return p


def view(tool, page_template, src, out):
    # The wasm page: --wasm (searched beside the tool) or --viewer (native_browser_test.py
    # covers the page without emscripten, `view -o`'s default since 0.3).
    cmd = [tool, "view", src, "-o", out] + (["--viewer", page_template] if page_template else ["--wasm"])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 2 and "viewer page template" in p.stderr:
        skip("no viewer page template (build with -DLOCKSTEP_VIEWER=ON; needs emscripten, scripts/bootstrap --browser): "
             + p.stderr.strip().splitlines()[0])
    if p.returncode != 0:
        fail(f"lockstep view exited {p.returncode}: {p.stderr}")


def check_fits(browser, label, width=1200, height=900):
    """The page in a `width` px window (the last entity selected): nothing wider than the
    window, every cell of the selected entity inside it (a bundle's page was 1,274 px wide at
    1,200, the values off screen)."""
    browser.send("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    try:
        got = browser.evaluate("(() => { const r = [...document.querySelectorAll('#entity td')]"
                               ".map((td) => td.getBoundingClientRect().right); return {inner: window.innerWidth, "
                               "scroll: document.documentElement.scrollWidth, cells: r.length, right: Math.max(0, ...r)}; })()")
    finally:
        browser.send("Emulation.clearDeviceMetricsOverride")
    if got["inner"] != width or got["scroll"] > width or got["cells"] == 0 or got["right"] > width:
        fail(f"{label} at {width} px: window {got['inner']}, page {got['scroll']} px wide, "
             f"{got['cells']} cells of the selected entity, the rightmost ending at {got['right']:.0f} px")
    print(f"{label} at {width} px: page {got['scroll']} px wide, the selected entity's {got['cells']} cells "
          f"end by {got['right']:.0f} px")


def no_network(browser):
    # Everything the page used came from the file itself (data:/file:/blob:), nothing fetched.
    urls = browser.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
    remote = [u for u in urls if not u.startswith(("data:", "file:", "blob:"))]
    if remote:
        fail(f"the page fetched {remote}")


def main():
    case, tool, source, artifacts = sys.argv[1:5]
    page_template = sys.argv[5] if len(sys.argv) > 5 else ""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        skip("chromium is not installed (scripts/bootstrap --browser)")
    os.makedirs(artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="lockstep-viewer-")
    try:
        if case == "skirmish":
            replay = os.path.join(source, "fixtures", "skirmish", "skirmish.replay")
            page = os.path.join(artifacts, "skirmish.html")
            view(tool, page_template, replay, page)
            trace = {}
            for line in run([tool, "trace", replay]).stdout.splitlines():
                if line and not line.startswith("#"):
                    tick, total = line.split()[:2]
                    trace[int(tick)] = total
            browser = Browser(chromium, work)
            try:
                browser.attach()
                browser.open(page)
                info = browser.evaluate("window.lockstepTest.info")
                if info["kind"] != "replay" or info["sim"] != "skirmish":
                    fail(f"page info {info}")
                for t in (0, 300, 600):
                    st = browser.evaluate(f"window.lockstepTest.seek({t})")
                    shown = browser.evaluate("document.getElementById('hash-total0').textContent")
                    if st["tick"] != t or st["hash"] != trace[t] or shown != trace[t]:
                        fail(f"tick {t}: page shows tick {st['tick']} hash {st['hash']} (DOM {shown}); "
                             f"lockstep trace says {trace[t]}")
                    if st["entities"][0] == 0:
                        fail(f"tick {t}: no entities drawn")
                    print(f"tick {t}: {shown} == lockstep trace ({st['entities'][0]} units drawn)")
                # Select a unit: its fields are listed by name.
                sel = browser.evaluate("window.lockstepTest.select(0)")
                names = [c["name"] for c in sel[0]["components"]]
                if "Position" not in names or "Team" not in names:
                    fail(f"selected entity components {names}")
                no_network(browser)
                shot = os.path.join(artifacts, "viewer-skirmish.png")
                browser.screenshot(shot)
                print("screenshot:", shot)
            finally:
                browser.close()
        elif case == "bundle":
            bdir = os.path.join(work, "bundle")
            os.makedirs(bdir)
            run([tool, "netsim", "--sim", "broken-peer", "--ticks", "100", "--hash-interval", "1", "--bundle-dir", bdir],
                expect=1)
            bundles = [f for f in os.listdir(bdir) if f.endswith(".lsbundle")]
            if len(bundles) != 1:
                fail(f"expected one bundle, got {bundles}")
            bundle = os.path.join(bdir, bundles[0])
            shutil.copy(bundle, os.path.join(artifacts, bundles[0]))
            d = json.loads(run([tool, "diff", bundle, "--json", "--limit", "100000"], expect=1).stdout)["diff"]
            want = sorted({e["slot"] for e in d["entries"] if e["kind"] in ("component", "entity", "archetype")})
            if not want:
                fail("lockstep diff names no diverged entity")
            page = os.path.join(artifacts, "desync.html")
            view(tool, page_template, bundle, page)
            browser = Browser(chromium, work)
            try:
                browser.attach()
                browser.open(page)
                st = browser.evaluate("window.lockstepTest.state()")
                if sorted(st["diverged"]) != want:
                    fail(f"page diverged ids {st['diverged']}, lockstep diff says {want}")
                if len(st["entities"]) != 2 or min(st["entities"]) == 0:
                    fail(f"expected both sides drawn, got entity counts {st['entities']}")
                shown = browser.evaluate("document.getElementById('diverged').textContent")
                if [int(x) for x in shown.split(", ")] != want:
                    fail(f"DOM lists diverged {shown!r}")
                sel = browser.evaluate(f"window.lockstepTest.select({want[0]})")
                differing = [c["name"] + "." + f["name"] for c in sel[0]["components"] for f in c["fields"] if f["differs"]]
                want_fields = sorted({e["part"] + "." + e["field"] for e in d["entries"]
                                      if e["kind"] == "component" and e["slot"] == want[0]})
                if sorted(differing) != want_fields:
                    fail(f"entity {want[0]}: page marks {differing}, lockstep diff says {want_fields}")
                check_fits(browser, "bundle page")
                no_network(browser)
                shot = os.path.join(artifacts, "viewer-desync.png")
                browser.screenshot(shot)
                print(f"diverged {want} == lockstep diff; entity {want[0]} differs in {want_fields}; screenshot: {shot}")
            finally:
                browser.close()
        else:
            fail("unknown case " + case)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
