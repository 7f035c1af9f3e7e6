#!/usr/bin/env bash
# A process that loaded CUDA and did no GPU work beside one that did is a
# helper (Open MPI's orted in a Lightning run on the H200), not a failed
# recording: record drops its "no CUDA activity" status, so neither record
# nor report warns about it. Alone, the same empty process keeps the
# status (the user's program never used the GPU). tests/record/fake_spool.c
# writes both spools.
# usage: helper_cli.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
fake=$(dirname "$bin")/fake_spool
[ -x "$fake" ] || die "$fake not built"
"$bin" record --no-progress --metrics none --host-sampling off -o "$tmp/h.db" -- "$fake" helper \
	2>"$tmp/h.err" || die "record helper: $(cat "$tmp/h.err")"
if grep -q "no CUDA activity" "$tmp/h.err"; then
	bad "record warned about the helper"
fi
"$bin" report --format json "$tmp/h.db" >"$tmp/h.json" || die "report helper"
python3 - "$tmp/h.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
procs = r["processes"]
assert len(procs) == 2, procs
assert all(p.get("status", "") == "" for p in procs), procs
assert not any("no CUDA activity" in json.dumps(w) for w in r.get("warnings", [])), r.get("warnings")
print("ok: helper without a warning;", len(procs), "processes")
PY
"$bin" record --no-progress --metrics none --host-sampling off -o "$tmp/e.db" -- "$fake" empty \
	2>"$tmp/e.err" || true
"$bin" report --format json "$tmp/e.db" >"$tmp/e.json" 2>/dev/null
python3 - "$tmp/e.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
st = [p.get("status", "") for p in r["processes"]]
assert any("no CUDA activity" in s for s in st), st
print("ok: a lone empty process keeps its status")
PY
exit $fail
