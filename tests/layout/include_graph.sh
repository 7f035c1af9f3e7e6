#!/usr/bin/env bash
# The include graph of src/ has no upward edge (scripts/include-graph.sh,
# docs/architecture.md): trace/ never includes cli/, analyze/ never
# includes render/ or cli/. The checker is run on the real tree, then on
# small trees that each hold one upward edge, which it must report.
# usage: include_graph.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
check=$src/scripts/include-graph.sh
T=$tmp
if bash "$check" "$src/src" >"$T/out"; then
	ok "src/ has no upward include"
else
	bad "upward includes in src/:"; cat "$T/out"
fi
# tree FROM TO: FROM/x.c includes "TO/y.h" (plus a legal include)
tree() {
	rm -rf "$T/t" && mkdir -p "$T/t/$1"
	printf '#include <stdio.h>\n#include "util/error.h"\n  #  include "%s/y.h"\n' "$2" >"$T/t/$1/x.c"
}
expect_bad() {
	tree "$1" "$2"
	if bash "$check" "$T/t" >"$T/out"; then
		bad "$1/ -> $2/ not reported"
	elif grep -q "^$1/x.c: includes $2/" "$T/out"; then
		ok "$1/ -> $2/ reported"
	else
		bad "$1/ -> $2/: wrong report"; cat "$T/out"
	fi
}
expect_ok() {
	tree "$1" "$2"
	bash "$check" "$T/t" >"$T/out" && ok "$1/ -> $2/ allowed" || { bad "$1/ -> $2/ refused"; cat "$T/out"; }
}
expect_bad trace cli
expect_bad trace analyze
expect_bad analyze render
expect_bad analyze cli
expect_bad util trace
expect_bad render cli
expect_bad gpu record
expect_bad analyze monitor # a core layer including a feature directory
expect_bad monitor cli     # a feature directory including a command
expect_bad analyze diagnose # the engine under the diagnosis (issue 37)
expect_bad analyze report
expect_bad diagnose report # but for report/report.h, a vocabulary header
expect_bad health analyze  # health reads findings from diagnose/
expect_bad render analyze  # render reads the report model
expect_bad render diagnose # not the findings, diff, rules or thresholds behind it
expect_ok diagnose analyze
expect_ok report diagnose
expect_ok render report
expect_ok health diagnose
# a vocabulary header (include-graph.sh's vocab) is allowed, no other file there
rm -rf "$T/t" && mkdir -p "$T/t/analyze"
printf '#include "report/finding.h"\n#include "diagnose/thresholds.h"\n' >"$T/t/analyze/x.c"
bash "$check" "$T/t" >"$T/out" && ok "analyze/ -> report/finding.h allowed" ||
	{ bad "analyze/ -> report/finding.h refused"; cat "$T/out"; }
printf '#include "diagnose/rules.h"\n' >"$T/t/analyze/x.c"
bash "$check" "$T/t" >"$T/out" && bad "analyze/ -> diagnose/rules.h not reported" ||
	ok "analyze/ -> diagnose/rules.h reported"
printf '#include "diagnose/finding.h"\n' >"$T/t/analyze/x.c"
bash "$check" "$T/t" >"$T/out" && bad "analyze/ -> diagnose/finding.h not reported" ||
	ok "analyze/ -> diagnose/finding.h reported (findings are made above the engine)"
expect_ok cli render
expect_ok monitor gpu
expect_ok cli monitor
exit $fail
