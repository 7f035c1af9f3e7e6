#!/usr/bin/env bash
# #16 item 9: diff confirms a fix. On the H200 fixtures: pageable -> pinned
# (the zoo's and the real PyTorch program's) shows transfer reduced with
# pageable_pct 100 -> 0 and the copy rate up; a file diffed with itself is
# "identical" with every finding unchanged, and exits 0; a recording and a
# profiler trace of one program match their kernels by demangled name.
# usage: diff_confirms.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
fx=$2/tests/fixtures
[ -f "$fx/zoo/pageable_copies.db" ] || { echo "skip: no fixtures"; exit 0; }

fix() {
	"$bin" diff --format json "$1" "$2" >"$tmp/d.json" || { bad "diff $1 $2"; return; }
	python3 - "$tmp/d.json" <<'PY' || { bad "$1 -> $2 does not confirm the fix"; return; }
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert "transfer" in f["reduced"], f
t = [c for c in f["changed"] if c["id"] == "transfer"][0]
assert t["status"] == "reduced", t
ev = {e["key"]: e for e in t["evidence"]}
assert ev["pageable_pct"]["base"] > 99 and ev["pageable_pct"]["new"] < 1, ev
assert ev["htod_gbps"]["new"] > ev["htod_gbps"]["base"], ev
assert d["identical"] is False
PY
	"$bin" diff "$1" "$2" | grep -q "pageable_pct 100 -> 0" || bad "text diff lacks pageable_pct 100 -> 0"
	ok "$(basename "$1") -> $(basename "$2"): transfer reduced, pageable 100 -> 0"
}
fix "$fx/zoo/pageable_copies.db" "$fx/zoo/pinned_copies.db"
[ -f "$fx/real/torch_h2d_pageable.db" ] && fix "$fx/real/torch_h2d_pageable.db" "$fx/real/torch_h2d_pinned.db"

# the CuPy step fused into one kernel (cupy.fuse): fewer launches, launch
# overhead reduced, the run faster
if [ -f "$fx/real/cupy_small_ops_fused.db" ]; then
	"$bin" diff --format json "$fx/real/cupy_small_ops.db" "$fx/real/cupy_small_ops_fused.db" \
		>"$tmp/f.json" || bad "diff cupy_small_ops -> fused"
	python3 - "$tmp/f.json" <<'PY' || bad "cupy_small_ops -> fused does not confirm the fix"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
t = [c for c in f["changed"] if c["id"] == "launch_overhead"][0]
assert t["status"] in ("reduced", "resolved"), t
ev = {e["key"]: e for e in t["evidence"]}
assert ev["kernels"]["base"] > 10 * ev["kernels"]["new"], ev
assert d["identical"] is False
PY
	"$bin" diff "$fx/real/cupy_small_ops.db" "$fx/real/cupy_small_ops_fused.db" |
		grep -q "faster" || bad "the fused CuPy run is not called faster"
	ok "cupy_small_ops -> cupy_small_ops_fused: launch_overhead reduced, kernels 10x fewer"
fi

# a finding whose evidence moved in more keys than diff keeps (the list
# filled up): every kept pair is shown (this pair crashed diff's text)
if [ -f "$fx/procs/py_fork.db" ]; then
	"$bin" diff "$fx/procs/multi_process.db" "$fx/procs/py_fork.db" >"$tmp/m.txt" 2>&1
	rc=$?
	[ $rc -le 3 ] && grep -q "evidence:" "$tmp/m.txt" && ok "a long list of moved evidence" ||
		bad "diff multi_process -> py_fork (rc $rc)"
fi

for f in "$fx/zoo/pinned_copies.db" "$fx/pytorch/item_every_step.json.gz"; do
	"$bin" diff --format json "$f" "$f" >"$tmp/s.json"
	rc=$?
	python3 - "$tmp/s.json" <<'PY' || bad "$f diffed with itself is not identical"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert d["identical"] is True
assert not f["resolved"] and not f["reduced"] and not f["increased"] and not f["new"], f
assert all(c["status"] == "unchanged" and not c["evidence"] for c in f["changed"]), f["changed"]
PY
	[ $rc -eq 0 ] || bad "$f vs itself exits $rc"
	"$bin" diff "$f" "$f" | grep -q "no changes" || bad "text does not say no changes"
done
ok "a file diffed with itself: identical, exit 0"

# recording vs profiler trace of one program: the kernels match by name
"$bin" diff --format json "$fx/pytorch/item_every_step.db" "$fx/pytorch/item_every_step.json.gz" >"$tmp/x.json"
python3 - "$tmp/x.json" <<'PY' || bad "kernels of a recording and its trace do not match"
import json, sys
d = json.load(open(sys.argv[1]))
k = d["kernels"]
both = [r for r in k if r["base"] and r["new"]]
assert len(both) >= 10 and len(both) >= 0.8 * len(k), (len(both), len(k))
assert not any(r["name"].startswith("_Z") for r in k), [r["name"] for r in k if r["name"].startswith("_Z")][:3]
PY
ok "recording and trace kernels matched by demangled name"
exit $fail
