"""count_rows.py DB: print the row counts of a gpuscope trace database as
`kernels=N copies=N memsets=N api_calls=N syncs=N ranges=N dropped=N`
(NA for a table that is missing). Used by run-on-gpu.sh where the sqlite3
command is not installed; only the standard library."""
import sqlite3
import sys

TABLES = ["kernels", "copies", "memsets", "api_calls", "syncs", "ranges"]


def main():
    con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    out = []
    for t in TABLES:
        try:
            n = con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        except sqlite3.Error:
            n = "NA"
        out.append(f"{t}={n}")
    try:
        d = con.execute("SELECT coalesce(sum(dropped_records), 0) FROM processes").fetchone()[0]
    except sqlite3.Error:
        d = "NA"
    out.append(f"dropped={d}")
    print(" ".join(out))


if __name__ == "__main__":
    main()
