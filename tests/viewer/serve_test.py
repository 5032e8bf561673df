#!/usr/bin/env python3
"""`lockstep view FILE --serve` over plain HTTP (no browser): the answers, the bounds an
attacker meets, a closed connection, Ctrl-C (docs/viewer.md).

usage: serve_test.py LOCKSTEP SOURCE_DIR
Checks, against fixtures/skirmish/skirmish.replay:
  - the URL is printed; / is the page (HTML, CSP allowing only 'self'); /api/info names the file;
  - /api/seek at ticks 0, 300 and the last answers the hash `lockstep trace` prints, and a
    seek back to 0 again (the runner restarts);
  - refused: bad numbers (sign, hex, spaces, 2^64, beyond the last tick), repeated or unknown
    parameters, unknown paths (incl. traversal), other methods and bodies, a foreign Host
    header (DNS rebinding), a URI or query string beyond the limits, an oversized header;
  - a client that hangs up mid-request or mid-answer does not disturb the next one;
  - SIGINT: exit 0 with "stopped"; a second server on a port in use: exit 2, the reason;
  - --host 0.0.0.0 / :: without --allow-remote: exit 2, the reason; with it: listens, answers.
The hostile clients (huge heads, slow connections, many ranges) are serve_hostile_test.py.
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def start(tool, path, *extra):
    p = subprocess.Popen([tool, "view", path, "--serve", "--port", "0", *extra], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.fullmatch(r"serving (.*) at http://127\.0\.0\.1:(\d+)/ \(Ctrl-C stops\)\n", line)
    if not m:
        p.kill()
        fail(f"unexpected first line {line!r}; stderr: {p.stderr.read()}")
    return p, int(m.group(2))


def request(port, method, target, headers=None, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, target, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, dict(r.getheaders()), data


def get_json(port, target, want_status=200):
    status, _, data = request(port, "GET", target)
    if status != want_status:
        fail(f"GET {target}: status {status}, expected {want_status}: {data[:300]!r}")
    return json.loads(data)


def raw(port, payload, read=True):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(payload)
    out = b""
    if read:
        try:
            # The status line and headers are the answer; the server keeps the connection
            # alive afterwards (5 s), so stop reading there.
            while b"\r\n\r\n" not in out:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    s.close()
    return out


def main():
    tool, source = sys.argv[1:3]
    replay = os.path.join(source, "fixtures", "skirmish", "skirmish.replay")
    trace = {}
    for line in subprocess.run([tool, "trace", replay], capture_output=True, text=True, check=True).stdout.splitlines():
        if line and not line.startswith("#"):
            t, total = line.split()[:2]
            trace[int(t)] = total
    last = max(trace)
    p, port = start(tool, replay)
    try:
        status, headers, page = request(port, "GET", "/")
        if status != 200 or b'"mode":"http"' not in page or b"<title>lockstep viewer</title>" not in page:
            fail(f"GET /: {status} {page[:200]!r}")
        if "connect-src 'self'" not in headers.get("Content-Security-Policy", ""):
            fail(f"GET /: CSP {headers.get('Content-Security-Policy')!r}")
        info = get_json(port, "/api/info")
        if not info["ok"] or info["kind"] != "replay" or info["sim"] != "skirmish" or info["last_tick"] != last:
            fail(f"/api/info {info}")
        if info["draw"] != {"position": "Position.p", "team": "Team.owner", "label": "Health.hp", "from": "sim"}:
            fail(f"/api/info draw {info['draw']}")
        for t in (0, 300, last, 0):
            f = get_json(port, f"/api/seek?tick={t}")
            got = f["sides"][0]["hash"]["total"]
            if f["tick"] != t or got != trace[t]:
                fail(f"seek {t}: tick {f['tick']} hash {got}, lockstep trace says {trace[t]}")
            print(f"seek {t}: {got} == lockstep trace")
        e = get_json(port, "/api/entity?side=0&slot=0&tick=0")
        if [c["name"] for c in e["components"]] != ["Position", "Team", "Selected", "Order", "Weapon", "Health"]:
            fail(f"entity 0: {e}")

        bad = {
            "/api/seek?tick=-1": (400, "tick: expected a decimal number"),
            "/api/seek?tick=%2B1": (400, "tick: expected a decimal number"),
            "/api/seek?tick=0x10": (400, "tick: expected a decimal number"),
            "/api/seek?tick=%201": (400, "tick: expected a decimal number"),
            "/api/seek?tick=": (400, "tick: expected a decimal number"),
            "/api/seek?tick=18446744073709551616": (400, "tick: expected a decimal number"),
            f"/api/seek?tick={last + 1}": (400, f"skirmish.replay: tick {last + 1}: expected 0..{last}"),
            "/api/seek?tick=1&tick=2": (400, "expected exactly one 'tick' parameter"),
            "/api/seek": (400, "expected exactly one 'tick' parameter"),
            "/api/seek?tick=1&file=/etc/passwd": (400, "unexpected query parameters"),
            "/api/info?file=x": (400, "unexpected query parameters"),
            "/?x=1": (400, "unexpected query parameters"),
            "/api/entity?side=0&slot=4294967296&tick=0": (400, "side, slot, tick: expected decimal numbers (side, slot below 2^32)"),
            "/api/entity?side=0&slot=0": (400, "expected exactly one 'tick' parameter"),
            f"/api/entity?side=0&slot=0&tick={last + 1}": (400, f"skirmish.replay: tick {last + 1}: expected 0..{last}"),
            "/api/entity?side=1&slot=0&tick=0": (200, "no side 1"),
            "/api/entity?side=0&slot=4294967295&tick=7": (200, "slot 4294967295 is not a live entity at tick 7"),
            "/../../etc/passwd": (404, "HTTP 404"),
            "/api/seek/../../../etc/passwd": (404, "HTTP 404"),
            "/fixtures/skirmish/skirmish.replay": (404, "HTTP 404"),
            "/api/seek?tick=" + "1" * 300: (414, "query string too long"),
        }
        for target, (want, message) in bad.items():
            status, _, data = request(port, "GET", target)
            answer = json.loads(data)
            if status != want or answer["ok"] or not answer["error"].endswith(message):
                fail(f"GET {target[:80]}: {status} {data[:200]!r}, expected {want} ...{message}")
        print(f"{len(bad)} bad requests refused with their reason")
        for method in ("POST", "PUT", "DELETE"):
            status, _, _ = request(port, method, "/api/seek?tick=0", body=b"x")
            if status != 405:
                fail(f"{method}: status {status}")
        status, _, _ = request(port, "POST", "/", body=b"x" * 100000)
        if status not in (405, 413):
            fail(f"POST with a 100 kB body: status {status}")
        for host in ("evil.example:%d" % port, "127.0.0.1", "127.0.0.1:1", "localhost.evil.example:%d" % port):
            status, _, _ = request(port, "GET", "/api/info", headers={"Host": host})
            if status != 403:
                fail(f"Host {host}: status {status}, expected 403")
        status, _, _ = request(port, "GET", "/api/info", headers={"Host": f"localhost:{port}"})
        if status != 200:
            fail(f"Host localhost: status {status}")
        # Beyond cpp-httplib's request-line and header limits (8192 bytes): refused, not parsed.
        answer = raw(port, b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
        if not answer.startswith((b"HTTP/1.1 414", b"HTTP/1.1 400")) and answer != b"":
            fail(f"20 kB URI: {answer[:100]!r}")
        answer = raw(port, b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX: " % port + b"a" * 20000 + b"\r\n\r\n")
        if answer.startswith(b"HTTP/1.1 200"):
            fail("a 20 kB header was answered")
        # Hang-ups: mid-request, and right after asking for a large answer.
        raw(port, b"GET /api/seek?tick=5 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port, read=False)
        raw(port, b"GET /api/seek?tick=600 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port, read=False)
        f = get_json(port, "/api/seek?tick=300")
        if f["sides"][0]["hash"]["total"] != trace[300]:
            fail("after hang-ups: wrong answer")
        print("hang-ups: next answer correct")
        # A second server on the same port: exit 2 with the reason.
        q = subprocess.run([tool, "view", replay, "--serve", "--port", str(port)], capture_output=True, text=True,
                           timeout=30)
        if q.returncode != 2 or f"cannot listen on 127.0.0.1:{port}" not in q.stderr:
            fail(f"port in use: exit {q.returncode}: {q.stderr}")
        t0 = time.time()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        if p.returncode != 0 or out.strip() != "stopped":
            fail(f"SIGINT: exit {p.returncode}, stdout {out!r}, stderr {err!r}")
        print(f"SIGINT: exit 0 in {time.time() - t0:.2f} s")
    finally:
        if p.poll() is None:
            p.kill()
    # Usage errors.
    for args, message in ((["--serve", "-o", "x.html"], "give exactly one of -o FILE (write a page) and --serve"),
                          ([], "give exactly one of -o FILE (write a page) and --serve"),
                          (["--serve", "--wasm"], "--serve serves the native page")):
        q = subprocess.run([tool, "view", replay, *args], capture_output=True, text=True)
        if q.returncode != 2 or message not in q.stderr:
            fail(f"view {args}: exit {q.returncode}: {q.stderr}")
    # Beyond loopback only with --allow-remote, as `peer` and the relays.
    for host in ("0.0.0.0", "::"):
        q = subprocess.run([tool, "view", replay, "--serve", "--host", host], capture_output=True, text=True,
                           timeout=30)
        want = f"view: --host {host}: not a loopback address (pass --allow-remote to serve beyond this machine)"
        if q.returncode != 2 or q.stdout != "" or q.stderr != f"lockstep: error: {want}\n":
            fail(f"--host {host} without --allow-remote: exit {q.returncode}, stdout {q.stdout!r}, stderr {q.stderr!r}")
    print("--host 0.0.0.0 / :: without --allow-remote: exit 2 with the reason")
    p = subprocess.Popen([tool, "view", replay, "--serve", "--host", "0.0.0.0", "--allow-remote"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        m = re.fullmatch(r"serving .* at http://0\.0\.0\.0:(\d+)/ \(Ctrl-C stops\)\n", line)
        if not m:
            fail(f"--host 0.0.0.0 --allow-remote: {line!r} {p.stderr.read() if p.poll() is not None else ''}")
        port = int(m.group(1))
        status, _, _ = request(port, "GET", "/api/info", headers={"Host": f"0.0.0.0:{port}"})
        if status != 200:
            fail(f"--host 0.0.0.0 --allow-remote: GET /api/info {status}")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        if p.returncode != 0:
            fail(f"--allow-remote server: exit {p.returncode}: {err}")
    finally:
        if p.poll() is None:
            p.kill()
    print("--host 0.0.0.0 --allow-remote: listening, answered")
    print("ok")


if __name__ == "__main__":
    main()
