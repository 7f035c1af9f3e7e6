"""check_procs.py DB OUT [OUT...] - compare a recorded database with the
`PROC pid=P ppid=Q kernels=K memcpy=C [memset=S] [sync=Y]` lines that the
programs of workloads/procs/ print (one per process that used CUDA).

For each PROC line: the database must hold a `processes` row for P with
parent Q and an empty status (traced, nothing lost), and exactly K kernel,
C copy (S memset, Y sync) rows of pid P. Other processes in the database
(a launcher that never used CUDA, say) must hold no GPU rows. Prints a table
and, last, `PROCS name=N processes=P expected=E match=yes|NO`; exit 0 on a
match, 1 otherwise. Only the standard library (the GPU machine has no sqlite3
command).
"""
import re
import sqlite3
import sys

TABLES = {"kernels": "kernels", "memcpy": "copies", "memset": "memsets", "sync": "syncs"}


def expected(paths):
    procs = {}
    for p in paths:
        with open(p, errors="replace") as f:
            for line in f:
                if not line.startswith("PROC "):
                    continue
                kv = dict(re.findall(r"(\w+)=(\d+)", line))
                procs[int(kv.pop("pid"))] = {k: int(v) for k, v in kv.items()}
    return procs


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    db, outs = sys.argv[1], sys.argv[2:]
    name = re.sub(r"\.db$", "", db.rsplit("/", 1)[-1])
    want = expected(outs)
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = {}
    for key, table in TABLES.items():
        for pid, n in con.execute(f"SELECT pid, count(*) FROM {table} GROUP BY pid"):
            rows.setdefault(pid, {})[key] = n
    prow = {}
    for pid, ppid, status in con.execute(
            "SELECT p.pid, p.parent_pid, s.value FROM processes p "
            "LEFT JOIN strings s ON s.id = p.status_id"):
        prow[pid] = (ppid, status or "")
    ok = bool(want)
    print(f"{'pid':>8} {'ppid':>8}  {'kernels':>15} {'memcpy':>11} {'memset':>9} {'sync':>9}  ok  status")
    for pid in sorted(set(want) | set(prow) | set(rows)):
        w, got = want.get(pid), rows.get(pid, {})
        ppid, status = prow.get(pid, (None, "(no process row)"))
        cells, good = [], True
        for key in TABLES:
            g = got.get(key, 0)
            if w is not None and key in w:
                cells.append(f"{g}/{w[key]}")
                good &= g == w[key]
            else:
                cells.append(str(g))
        if w is None:
            # not a CUDA process of the program: it must hold no GPU work
            good = got.get("kernels", 0) == 0 and got.get("memcpy", 0) == 0
        else:
            good &= pid in prow and ppid == w.get("ppid") and status == ""
        ok &= good
        print(f"{pid:>8} {ppid if ppid is not None else '-':>8}  {cells[0]:>15} {cells[1]:>11} "
              f"{cells[2]:>9} {cells[3]:>9}  {'ok' if good else 'NO'}  {status[:90]}")
    print(f"PROCS name={name} processes={len(prow)} expected={len(want)} "
          f"match={'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
