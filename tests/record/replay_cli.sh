#!/usr/bin/env bash
# record's finishing step on a `--metrics kernels` spool (tests/record/
# fake_spool.c writes one as the injected library would): the kernel replay
# must come out of the timeline, the profiled kernel must be placed with its
# measured duration, and report must say how much was taken out.
# usage: replay_cli.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
fake=$(dirname "$bin")/fake_spool
[ -x "$fake" ] || die "$fake not built"
"$bin" record --no-progress -o "$tmp/r.db" -- "$fake" 2>"$tmp/err" || {
	die "record: $(cat "$tmp/err")"
}
"$bin" report --format json "$tmp/r.db" >"$tmp/r.json" || die "report"
python3 - "$tmp/r.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
removed = r.get("kernel_replay_removed_ns")
# the profiler's begin/end stamps travel as doubles: epoch nanoseconds are
# exact to 256 ns only (src/trace/replay.c)
assert abs(removed - (250_000_000 - 100_000)) <= 512, removed
assert r["summary"]["kernels"] == 3, r["summary"]
# three 1 ms / 100 us kernels and 5 us launches: the span is the program's
# 300 ms less the 250 ms of replay
assert r["span_ns"] < 60_000_000, r["span_ns"]
print("ok: replay removed", removed, "ns, span", r["span_ns"])
PY
grep -q "kernel replay taken out" "$tmp/err" || die "record did not say so"
