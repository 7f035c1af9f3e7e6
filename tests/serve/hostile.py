#!/usr/bin/env python3
"""Hostile HTTP against a running `gpuscope serve` (serve_cli.sh starts it): each case must be
refused cleanly within the server's limits, and /metrics must keep answering after each.
usage: hostile.py HOST PORT TIMEOUT_S MAX_CONN"""
import socket
import sys
import time

host, port, timeout_s, max_conn = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
fails = 0


def check(desc, ok):
    global fails
    print(("ok: " if ok else "FAIL: ") + desc)
    if not ok:
        fails += 1


def request(raw, wait=5.0):
    s = socket.create_connection((host, port), timeout=wait)
    try:
        s.sendall(raw)
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            data += chunk
        return data
    finally:
        s.close()


def status(raw):
    d = request(raw)
    return int(d.split(b" ", 2)[1]) if d.startswith(b"HTTP/1.") else 0


def metrics_ok(within=5.0):
    """A scrape answers within `within` s (the server may still be closing a flood)."""
    end = time.time() + within
    while True:
        try:
            d = request(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            if d.startswith(b"HTTP/1.1 200") and b"gpuscope_gpu_info{" in d:
                return True
        except OSError:
            pass
        if time.time() > end:
            return False
        time.sleep(0.2)


check("GET /metrics", metrics_ok())
for m in (b"POST", b"PUT", b"DELETE", b"PATCH", b"OPTIONS", b"TRACE", b"CONNECT"):
    check(m.decode() + " refused with 405", status(m + b" /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n") == 405)
check("POST with a body refused", status(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello") == 405)
check("GET with a body refused", status(b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello") == 400)
for p in (b"/../../etc/passwd", b"/metrics/../../../etc/shadow", b"/%2e%2e/%2e%2e/etc/passwd",
          b"//etc/passwd", b"/metrics?x=../../etc"):
    st = status(b"GET " + p + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    # a query string is not part of the path: /metrics?x= is /metrics
    check("path " + p.decode() + " -> %d" % st, st == (200 if p.startswith(b"/metrics?") else 404))
d = request(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n")
check("100 KB header refused (%r)" % d[:12], not d.startswith(b"HTTP/1.1 200"))
d = request(b"GET /metrics HTTP/1.1\r\n" + b"".join(b"X-%d: v\r\n" % i for i in range(5000)) + b"\r\n")
check("5000 headers refused", not d.startswith(b"HTTP/1.1 200"))
check("garbage request line refused", status(b"\x00\xff\xfe garbage\r\n\r\n") in (0, 400))
check("HTTP/0.9-style line refused", status(b"GET /metrics\r\n\r\n") in (0, 400, 505))
check("/metrics after the bad requests", metrics_ok())

# slowloris: a byte at a time, never finishing the headers
s = socket.create_connection((host, port))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
t0, closed = time.time(), False
while time.time() - t0 < timeout_s + 5:
    try:
        s.sendall(b"X")
        s.settimeout(0.5)
        if s.recv(1024) == b"":
            closed = True
            break
    except socket.timeout:
        continue
    except (BrokenPipeError, ConnectionResetError, OSError):
        closed = True
        break
took = time.time() - t0
s.close()
check("slowloris closed after %.1f s (timeout %.0f s)" % (took, timeout_s), closed and took < timeout_s + 3)

# many connections: hold twice the limit open, idle; the server refuses or drops the rest
held = []
for i in range(max_conn * 2 + 200):
    try:
        held.append(socket.create_connection((host, port), timeout=2))
    except OSError:
        pass
check("held %d connections without the server dying" % len(held), True)
for c in held:
    c.close()
time.sleep(0.5)
check("/metrics once the flood is gone", metrics_ok())
# a flood that stays open: idle ones are closed by the timeout, then scrapes work again
held = []
for i in range(max_conn + 50):
    try:
        held.append(socket.create_connection((host, port), timeout=2))
    except OSError:
        pass
time.sleep(timeout_s + 2)
check("/metrics while idle connections are held past the timeout", metrics_ok())
for c in held:
    c.close()
sys.exit(1 if fails else 0)
