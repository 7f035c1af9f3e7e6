#!/usr/bin/env python3
"""speed-measure.py - run one command pinned to some CPUs and measure it.

usage: speed-measure.py CPUS TIMEOUT_S OUT_FILE ERR_FILE -- CMD ARG...

CPUS is a taskset-style list ("2,3", "4-15"; "-" leaves the affinity alone).
The child's stdout goes to OUT_FILE (or /dev/null for "-"), its stderr to
ERR_FILE. Prints one line on stdout:

    rc=N wall_s=W cpu_s=C rss_mib=R

wall from fork to exit, cpu = user + sys of the child and everything it
waited for, rss = the child's peak resident set (ru_maxrss of os.wait4).
A command past TIMEOUT_S is killed (SIGKILL to its process group) and
reported with rc=124. Used by bench/speed-on-gpu.sh, where GNU time may be
missing (Python 3.12 is on the H200 machine).
"""
import os
import signal
import sys
import time


def parse_cpus(spec):
    cpus = set()
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            cpus.update(range(int(a), int(b) + 1))
        elif part:
            cpus.add(int(part))
    return cpus


def main(argv):
    if len(argv) < 6 or argv[4] != "--":
        sys.stderr.write(__doc__)
        return 2
    cpus, timeout, out, err, cmd = argv[0], float(argv[1]), argv[2], argv[3], argv[5:]
    want = None if cpus == "-" else parse_cpus(cpus)
    if want:  # the measuring loop keeps off the measured CPUs where it can
        rest = os.sched_getaffinity(0) - want
        if rest:
            os.sched_setaffinity(0, rest)
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            if want:
                os.sched_setaffinity(0, want)
            fd = os.open(os.devnull if out == "-" else out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            fd = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)
            os.execvp(cmd[0], cmd)
        except OSError as e:
            os.write(2, ("speed-measure: %s: %s\n" % (cmd[0], e)).encode())
        os._exit(127)
    killed = False
    while True:
        wpid, status, ru = os.wait4(pid, os.WNOHANG)
        if wpid == pid:
            break
        if time.monotonic() - t0 > timeout and not killed:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            killed = True
        time.sleep(0.005)
    wall = time.monotonic() - t0
    rc = 124 if killed else (os.waitstatus_to_exitcode(status))
    print("rc=%d wall_s=%.3f cpu_s=%.3f rss_mib=%.0f" %
          (rc, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
