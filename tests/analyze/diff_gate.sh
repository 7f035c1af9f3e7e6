#!/usr/bin/env bash
# The regression gate over a run with no GPU work (#21 item 4): a recording
# of a program that never used CUDA must not pass `--fail-on-regression`
# (it used to say "-100.0% faster" and exit 0), and an empty BASE must not
# print "nanx". Exit 4 is the gate's "nothing to compare" (docs/diff.md).
# usage: diff_gate.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
base=$src/tests/fixtures/zoo/healthy_pipeline.db

# the empty side: what `record -- /bin/true` writes on a machine without CUDA
"$bin" record -o "$tmp/empty.db" --metrics none -- true 2>/dev/null || { bad "record true"; exit 1; }

"$bin" diff "$base" "$tmp/empty.db" --fail-on-regression 5 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 4 ] && ok "gate over an empty NEW exits 4" || bad "gate over an empty NEW exits $rc, want 4"
grep -q "cannot gate: '$tmp/empty.db' has no GPU work" "$tmp/err" && ok "says which side is empty" || { bad "stderr"; cat "$tmp/err"; }
grep -q "faster\|slower" "$tmp/out" && { bad "an empty NEW is called faster or slower"; grep span "$tmp/out"; }
grep -q "the new run has no GPU work: nothing to compare" "$tmp/out" && ok "text says the new run has no GPU work" || { bad "text"; head -4 "$tmp/out"; }

"$bin" diff "$tmp/empty.db" "$base" --fail-on-regression 5 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 4 ] && ok "gate over an empty BASE exits 4" || bad "gate over an empty BASE exits $rc, want 4"
grep -qi "nan" "$tmp/out" && { bad "an empty BASE prints nan"; grep -i nan "$tmp/out"; }
grep -q "the base run has no GPU work" "$tmp/out" && ok "text says the base run has no GPU work" || bad "text (base)"

"$bin" diff "$tmp/empty.db" "$tmp/empty.db" --fail-on-regression 5 >"$tmp/out" 2>/dev/null
[ $? = 4 ] && grep -q "neither run has no GPU work\|neither run" "$tmp/out" && ok "both empty: exit 4" || bad "both empty"

# without a gate the comparison is printed and exits 0
"$bin" diff "$base" "$tmp/empty.db" >/dev/null 2>&1
[ $? = 0 ] && ok "no gate: exit 0" || bad "no gate: exit $?"

# JSON: no ratio or percentage, which side is empty, not regressed
"$bin" diff --format=json "$base" "$tmp/empty.db" --fail-on-regression 5 >"$tmp/d.json" 2>/dev/null
python3 - "$tmp/d.json" <<'PY' && ok "json: null ratio and delta_pct, no_gpu_work [new]" || bad "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["span"]["ratio"] is None and d["span"]["delta_pct"] is None, d["span"]
assert d["regression"] == {"threshold_pct": 5, "regressed": False, "no_gpu_work": ["new"]}, d["regression"]
PY
# a pair with work on both sides keeps its old keys only
"$bin" diff --format json "$base" "$base" --fail-on-regression 5 >"$tmp/d.json" 2>/dev/null
[ $? = 0 ] && python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["regression"]; assert r == {"threshold_pct": 5, "regressed": False}, r' "$tmp/d.json" && ok "same run: gate passes, no extra keys" || bad "same run"
exit $fail
