#!/usr/bin/env bash
# The objects of src/ use no symbol a higher layer defines
# (scripts/link-graph.sh, docs/architecture.md): checked on the build's
# objects, then on small trees of two objects each, one using a symbol of
# the other, which the checker must report when the use points up.
# usage: link_graph.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
build=$(dirname "$1")
check=$src/scripts/link-graph.sh
T=$tmp
if bash "$check" "$build/CMakeFiles/gpuscope_core.dir/src" "$src/src" >"$T/out"; then
	ok "src/'s objects use nothing above their layer"
else
	bad "upward uses in src/'s objects:"; cat "$T/out"
fi
# tree FROM TO: FROM/x.c.o calls to_fn, defined in TO/y.c.o
tree() {
	rm -rf "$T/t" && mkdir -p "$T/t/$1" "$T/t/$2"
	printf 'void to_fn(void);\nvoid from_fn(void) { to_fn(); }\n' >"$T/x.c"
	printf 'void to_fn(void) {}\n' >"$T/y.c"
	cc -c -o "$T/t/$1/x.c.o" "$T/x.c" && cc -c -o "$T/t/$2/y.c.o" "$T/y.c"
}
expect_bad() {
	tree "$1" "$2" || { bad "cc"; return; }
	if bash "$check" "$T/t" >"$T/out"; then
		bad "$1/ -> $2/ not reported"
	elif grep -q "^$1/x.c: uses to_fn from $2/y.c" "$T/out"; then
		ok "$1/ -> $2/ reported"
	else
		bad "$1/ -> $2/: wrong report"; cat "$T/out"
	fi
}
expect_ok() {
	tree "$1" "$2" || { bad "cc"; return; }
	bash "$check" "$T/t" >"$T/out" && ok "$1/ -> $2/ allowed" || { bad "$1/ -> $2/ refused"; cat "$T/out"; }
}
expect_bad trace import # trace_load_any's declaration once sat in trace/
expect_bad analyze diagnose
expect_bad diagnose report # report.h's cell constructors are inline for this
expect_bad analyze render
expect_bad render diagnose # render reads the report model
expect_bad record inject
expect_bad util trace
expect_bad analyze vram # a core layer using a feature directory
expect_ok analyze import
expect_ok diagnose analyze
expect_ok render report
expect_ok vram analyze
exit $fail
