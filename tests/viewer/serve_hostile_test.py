#!/usr/bin/env python3
"""`lockstep view FILE --serve` against hostile clients (docs/viewer.md, "Limits"): this script
is the hostile client; it needs nothing but the tool.

usage: serve_hostile_test.py LOCKSTEP SOURCE_DIR
Against fixtures/skirmish/skirmish.replay:
  - head size: a head of exactly 32768 bytes is answered (200), one byte more is refused with
    431; 100 header lines are answered, 101 refused (431); 64 MiB of header lines are refused
    with 431 after the first 32 KiB, the connection is closed, and the server's peak resident
    memory grows by less than 16 MiB (before: the whole header was kept, 2x its size);
  - slow clients: 8 connections trickling their head one byte a second do not stop a normal
    client (the seek's hash = `lockstep trace`); with 32 connections held the next one is
    answered 503 at once; each slow client gets 408 when its head has not arrived within
    10 s of its first byte (one still in its request line: closed without an answer); then a
    normal client is served again;
  - ranges: a Range of 2,700 ranges is ignored (200, the whole answer once, byte for byte), and
    so is one range;
  - SIGINT with slow clients connected: exit 0, "stopped".
Times are bounds of waiting for an answer (a server that never answers fails), never a
measure of speed.
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

MAX_HEAD = 32768
MAX_LINES = 100
HEAD_SECONDS = 10
MAX_CONNECTIONS = 32


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def start(tool, path):
    p = subprocess.Popen([tool, "view", path, "--serve", "--port", "0"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.fullmatch(r"serving (.*) at http://127\.0\.0\.1:(\d+)/ \(Ctrl-C stops\)\n", line)
    if not m:
        p.kill()
        fail(f"unexpected first line {line!r}; stderr: {p.stderr.read()}")
    return p, int(m.group(2))


def peak_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    fail("no VmHWM in /proc/PID/status")


def read_answer(s, timeout=20):
    """Status code, headers (lower-case names) and body of one answer; (None, {}, b"") when the
    server closed without answering."""
    s.settimeout(timeout)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        pass
    except socket.timeout:
        fail(f"no answer within {timeout} s (got {data[:100]!r})")
    if b"\r\n\r\n" not in data:
        if data:
            fail(f"a partial answer {data[:200]!r}")
        return None, {}, b""
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v for k, v in (x.split(": ", 1) for x in lines[1:])}
    want = int(headers.get("content-length", "0"))
    try:
        while len(body) < want:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    return status, headers, body


def expect_refusal(label, answer, status, message):
    got, headers, body = answer
    if got != status:
        fail(f"{label}: status {got}, expected {status}: {body[:200]!r}")
    error = json.loads(body)
    if error != {"ok": False, "error": message}:
        fail(f"{label}: {error}, expected the error {message!r}")
    print(f"{label}: {status} {message!r}")


def send_head(port, head):
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(head)
    answer = read_answer(s)
    s.close()
    return answer


def seek(port, tick, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    c.request("GET", f"/api/seek?tick={tick}", headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), body


def served_normally(port, trace, tick, label):
    status, _, body = seek(port, tick)
    got = json.loads(body)["sides"][0]["hash"]["total"] if status == 200 else None
    if status != 200 or got != trace[tick]:
        fail(f"{label}: a normal client got {status}, hash {got} (lockstep trace: {trace[tick]})")
    print(f"{label}: a normal client is served, seek {tick} = {got} == lockstep trace")


class Trickler:
    """Connections that send `first` at once, then one byte of `rest` a second on each."""

    def __init__(self, port, count, first, rest):
        self.socks = []
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port), timeout=20)
            if first:
                s.sendall(first)
            self.socks.append(s)
        self.rest = rest
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        i = 0
        while not self.done.wait(1.0):
            for s in self.socks:
                try:
                    s.send(self.rest[i % len(self.rest):i % len(self.rest) + 1])
                except OSError:
                    pass  # refused and closed: the answer is read later
            i += 1

    def answers(self):
        out = [read_answer(s, timeout=HEAD_SECONDS + 20) for s in self.socks]
        self.done.set()
        for s in self.socks:
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
    p, port = start(tool, replay)
    host = b"Host: 127.0.0.1:%d\r\n" % port
    too_large = f"request head too large: at most {MAX_HEAD} bytes and {MAX_LINES} header lines"
    try:
        # Head size, to the byte: request line + Host + filler lines + the blank line.
        def head_of(total):
            start_ = b"GET /api/info HTTP/1.1\r\n" + host
            left = total - len(start_) - 2
            fill = b""
            while left > 0:
                # Lines of at most 8000 bytes (cpp-httplib's own line limit is 8192), the last
                # one at least 10.
                size = min(left, 8000)
                if 0 < left - size < 10:
                    size = left - 10
                name = b"X-%d: " % (len(fill) % 10)
                fill += name + b"a" * (size - len(name) - 2) + b"\r\n"
                left -= size
            head = start_ + fill + b"\r\n"
            assert len(head) == total, (len(head), total)
            return head
        status, _, _ = send_head(port, head_of(MAX_HEAD))
        if status != 200:
            fail(f"a head of exactly {MAX_HEAD} bytes: status {status}, expected 200")
        print(f"a head of {MAX_HEAD} bytes: 200")
        expect_refusal(f"a head of {MAX_HEAD + 1} bytes", send_head(port, head_of(MAX_HEAD + 1)), 431, too_large)
        lines = lambda n: b"GET /api/info HTTP/1.1\r\n" + host + b"".join(b"X-%d: 1\r\n" % i for i in range(n - 1)) + b"\r\n"
        status, _, _ = send_head(port, lines(MAX_LINES))
        if status != 200:
            fail(f"{MAX_LINES} header lines: status {status}, expected 200")
        print(f"{MAX_LINES} header lines: 200")
        expect_refusal(f"{MAX_LINES + 1} header lines", send_head(port, lines(MAX_LINES + 1)), 431, too_large)

        # 64 MiB of header lines, as fast as the socket takes them.
        before = peak_rss_kib(p.pid)
        s = socket.create_connection(("127.0.0.1", port), timeout=20)
        s.sendall(b"GET /api/info HTTP/1.1\r\n" + host)
        chunk = b"".join(b"X-Fill-%06d: %s\r\n" % (i, b"b" * 100) for i in range(512))
        sent = 0
        try:
            while sent < 64 << 20:
                s.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        if sent >= 64 << 20:
            fail("64 MiB of header lines were all taken")
        expect_refusal(f"header lines without end ({sent >> 20} MiB sent before the server closed)", read_answer(s),
                       431, too_large)
        s.close()
        grown = peak_rss_kib(p.pid) - before
        if grown > 16 << 10:
            fail(f"the server's peak RSS grew by {grown} KiB")
        print(f"peak RSS grew by {grown} KiB")
        served_normally(port, trace, 300, "after the huge head")

        # Slow clients: 8 trickle their heads; a normal client is served meanwhile.
        slow_head = b"X-Slow: " + b"s" * 200 + b"\r\n"
        slow = Trickler(port, 8, b"GET /api/info HTTP/1.1\r\n" + host, slow_head)
        in_line = Trickler(port, 1, b"G", b"ET /api/info HTTP/1.1\r\n")  # still in its request line
        time.sleep(1.5)
        served_normally(port, trace, 300, "8 slow clients connected")
        # All workers held: the next connection is refused at once, not queued.
        time.sleep(0.5)  # the normal client's worker sees its close
        more = Trickler(port, MAX_CONNECTIONS - 9, b"GET /api/info HTTP/1.1\r\n" + host, slow_head)
        time.sleep(0.5)
        probe = socket.create_connection(("127.0.0.1", port), timeout=20)
        expect_refusal(f"connection {MAX_CONNECTIONS + 1}", read_answer(probe), 503,
                       f"too many connections ({MAX_CONNECTIONS} open); retry when one closes")
        probe.close()
        timeout = f"request head not received in time (all of it within {HEAD_SECONDS} s, no pause over 5 s)"
        for i, answer in enumerate(slow.answers() + more.answers()):
            got, headers, body = answer
            if got != 408 or json.loads(body) != {"ok": False, "error": timeout} or headers.get("connection") != "close":
                fail(f"slow client {i}: {got} {headers} {body[:200]!r}, expected 408 {timeout!r}, Connection: close")
        print(f"{MAX_CONNECTIONS - 1} slow clients: 408 {timeout!r}")
        answer = in_line.answers()[0]
        if answer != (None, {}, b""):
            fail(f"a client still in its request line: {answer}, expected the connection closed")
        print("a client still in its request line: closed without an answer")
        served_normally(port, trace, 600, "after the slow clients")

        # Ranges.
        status, headers, whole = seek(port, 300)
        status, headers, body = seek(port, 300, {"Range": "bytes=" + ",".join(["0-"] * 2700)})
        if status != 200 or body != whole or "content-range" in headers:
            fail(f"2,700 ranges: {status}, {len(body)} bytes ({len(whole)} unranged), {headers}")
        print(f"2,700 ranges: 200, the whole answer once ({len(body)} bytes)")
        status, headers, body = seek(port, 300, {"Range": "bytes=0-9"})
        if status != 200 or body != whole or "content-range" in headers:
            fail(f"one range: {status}, {len(body)} bytes, {headers}")
        print("one range: 200, the whole answer")

        # Ctrl-C while slow clients are connected: they do not hold the exit.
        last = Trickler(port, 4, b"GET /api/info HTTP/1.1\r\n" + host, slow_head)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=HEAD_SECONDS)
        last.done.set()
        if p.returncode != 0 or out.strip() != "stopped":
            fail(f"SIGINT: exit {p.returncode}, stdout {out!r}, stderr {err!r}")
        print("SIGINT with 4 slow clients connected: exit 0")
    finally:
        if p.poll() is None:
            p.kill()
    print("ok")


if __name__ == "__main__":
    main()
