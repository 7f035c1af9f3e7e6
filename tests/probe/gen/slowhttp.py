#!/usr/bin/env python3
"""slowhttp.py - the slow-client families of the reliability probe against a
running `gpuscope serve` (issue 35 item 3, probe H2 H6 W12).

usage: slowhttp.py slowloris PORT CONNS SECONDS
           keeps CONNS connections trickling headers (re-opened as the server
           cuts them) and scrapes /metrics every 0.5 s meanwhile; prints
           "answered A of N, worst S s"; exit 1 unless every scrape was
           answered within 5 s
       slowhttp.py readers PORT CONNS PID
           CONNS clients ask for /metrics and never read; prints serve's RSS
           before, with them, and after they closed (kB): "rss B W A"
       slowhttp.py smuggle PORT
           the request-parsing cases; prints one status line per case
"""
import socket
import sys
import threading
import time


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS"):
            return int(line.split()[1])
    return -1


def slowloris(port, n, dur):
    stop = [False]

    def attacker():
        ss = []
        while not stop[0]:
            while len(ss) < n and not stop[0]:
                try:
                    s = socket.create_connection(("127.0.0.1", port), timeout=2)
                    s.sendall(b"GET /metrics HTTP/1.1\r\n")
                    s.setblocking(False)
                    ss.append(s)
                except OSError:
                    break
            keep = []
            for s in ss:
                try:
                    s.send(b"X: a\r\n")
                    try:
                        if s.recv(100) == b"":
                            s.close()
                            continue
                    except BlockingIOError:
                        pass
                    keep.append(s)
                except OSError:
                    s.close()
            ss = keep
            time.sleep(0.2)
        for s in ss:
            s.close()

    t = threading.Thread(target=attacker)
    t.start()
    time.sleep(1.0)
    ok = tries = 0
    worst = 0.0
    end = time.time() + dur
    while time.time() < end:
        t0 = time.time()
        tries += 1
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.settimeout(5)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            ok += s.recv(20).startswith(b"HTTP/1.1 200")
            s.close()
        except OSError:
            pass
        worst = max(worst, time.time() - t0)
        time.sleep(max(0, 0.5 - (time.time() - t0)))
    stop[0] = True
    t.join()
    print("answered %d of %d, worst %.1f s" % (ok, tries, worst))
    return 0 if ok == tries and worst < 5 else 1


def readers(port, n, pid):
    before = rss_kb(pid)
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(s)
    time.sleep(2)
    during = rss_kb(pid)
    for s in socks:
        s.close()
    time.sleep(2)
    print("rss %d %d %d" % (before, during, rss_kb(pid)))
    return 0


def smuggle(port):
    def req(b):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b)
        r = s.recv(40)
        s.close()
        return r.split(b"\r\n")[0].decode()

    print("two-content-length", req(b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                                    b"Content-Length: 5\r\nConnection: close\r\n\r\nhello"))
    print("one-content-length", req(b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                                    b"Connection: close\r\n\r\nhello"))
    print("no-host-1.1", req(b"GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n"))
    print("no-host-1.0", req(b"GET /metrics HTTP/1.0\r\n\r\n"))
    return 0


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "slowloris":
        return slowloris(port, int(sys.argv[3]), float(sys.argv[4]))
    if mode == "readers":
        return readers(port, int(sys.argv[3]), int(sys.argv[4]))
    return smuggle(port)


if __name__ == "__main__":
    sys.exit(main())
