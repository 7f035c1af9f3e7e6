#!/usr/bin/env bash
# gpuscope diff on the zoo pairs recorded on the H200 (tests/fixtures/zoo):
# the fixed program of each pair must come out faster, for the reason the
# pair was built around, and --fail-on-regression must gate the right way.
# usage: diff_pairs.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
zoo=$src/tests/fixtures/zoo

# pair BASE NEW WHY: diff BASE -> NEW must be < 0.5x the span, name WHY as
# the category that changed most, and the launch/transfer/kernel cause
pair() {
	local base=$1 new=$2 why=$3
	if ! "$bin" diff --format json "$zoo/$base.db" "$zoo/$new.db" >"$tmp/d.json" 2>"$tmp/err"; then
		bad "diff $base $new: $(cat "$tmp/err")"
		return
	fi
	if python3 - "$tmp/d.json" "$why" <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
why = sys.argv[2]
assert d["schema"] == "gpuscope.diff.v1"
assert d["span"]["ratio"] < 0.5, d["span"]
assert d["why"]["category"] == why, d["why"]
assert d["why"]["delta_ns"] < 0, d["why"]
EOF
		ok "$base -> $new faster, why $why"
	else
		bad "$base -> $new"
	fi
	"$bin" diff "$zoo/$base.db" "$zoo/$new.db" --fail-on-regression 5 >/dev/null 2>&1
	[ $? -eq 0 ] || bad "$base -> $new gated as a regression"
	"$bin" diff "$zoo/$new.db" "$zoo/$base.db" --fail-on-regression 5 >/dev/null 2>&1
	[ $? -eq 3 ] || bad "$new -> $base not gated (want exit 3)"
	"$bin" diff "$zoo/$base.db" "$zoo/$new.db" >"$tmp/d.txt" 2>&1
	grep -q "^  why " "$tmp/d.txt" || bad "no why line in the text diff"
}

if [ ! -f "$zoo/tiny_kernel_storm.db" ]; then
	echo "skip: no zoo fixtures"
	exit 0
fi
pair tiny_kernel_storm graph_storm idle_launch
pair pageable_copies pinned_copies HtoD
pair uncoalesced coalesced kernels
exit $fail
