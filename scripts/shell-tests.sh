#!/usr/bin/env bash
# shell-tests.sh TESTS_DIR: the shell tests (TESTS_DIR/*/*.sh at any depth,
# each run by ctest as `bash TEST.sh BUILD/gpuscope SOURCE_DIR`:
# CMakeLists.txt) share TESTS_DIR/lib.sh (git's test-lib.sh in small). Prints each breach as
# "FILE:LINE: RULE: text" and exits 1 when there is one.
#   lib   a test that sources neither ../lib.sh nor a library of its
#         directory (DIR/NAME.bash) that sources it, unless listed below
#         with its reason
#   own   a test or a directory's library that defines a function lib.sh
#         defines (ok, bad, check, ...: the names are read from lib.sh) or
#         fail() (lib.sh's failure flag)
#   trap  a test or a library that sets an EXIT trap: lib.sh's removes $tmp
#         and runs $cleanup (a server to stop goes there)
set -u
dir=${1:?usage: shell-tests.sh TESTS_DIR}
# scripts under TESTS_DIR/*/ that do not source lib.sh, with the reason
lib_ok="
fuzz/run.sh
"
# fuzz/run.sh builds and runs the libFuzzer harnesses: fuzz_smoke.sh (the
# ctest entry of tests/fuzz) and people call it as `run.sh [SECONDS]
# [BUILD_DIR]`; in ctest's form (BUILD/gpuscope SOURCE_DIR) it exits 0 at once.

# the functions lib.sh gives, and fail
names=$(sed -nE 's/^([a-z_][a-z_0-9]*)\(\).*/\1/p' "$dir/lib.sh" | sort -u | tr '\n' '|')fail
own_re="^[[:space:]]*(function[[:space:]]+($names)([[:space:]]|\(|\{|$)|($names)[[:space:]]*\(\))"
trap_re="^[[:space:]]*trap[[:space:]].*[[:space:]](EXIT|0)([[:space:]]|;|$)"
src_re="^[[:space:]]*(\.|source)[[:space:]]+"

# the file a source line names (its last path component), one per line
sourced() {
	grep -E "$src_re" "$1" | sed -E 's#.*/([^/"]+)"?[[:space:]]*$#\1#'
}

# CMakeLists.txt's GLOB_RECURSE takes tests/*/*.sh at any depth
breaches=$(find "$dir" -mindepth 2 -type f \( -name '*.sh' -o -name '*.bash' \) | LC_ALL=C sort | while IFS= read -r f; do
	rel=${f#"$dir"/}
	case "$lib_ok" in *"
$rel
"*) continue ;; esac
	grep -nE "$own_re" "$f" | sed -E "s#^([0-9]+):[[:space:]]*#$rel:\1: own: #; s#\$# (tests/lib.sh gives it)#"
	grep -nE "$trap_re" "$f" | sed -E "s#^([0-9]+):[[:space:]]*#$rel:\1: trap: #; s#\$# (lib.sh's trap removes \$tmp: put it in cleanup=)#"
	case "$f" in *.bash) continue ;; esac
	ok=
	for s in $(sourced "$f"); do
		case "$s" in
		lib.sh) ok=1 ;;
		*.bash) [ -f "$(dirname "$f")/$s" ] && sourced "$(dirname "$f")/$s" | grep -qx lib.sh && ok=1 ;;
		esac
	done
	[ -n "$ok" ] || echo "$rel:1: lib: does not source tests/lib.sh (. \"\$(dirname \"\$0\")/../lib.sh\")"
done)
[ -z "$breaches" ] && exit 0
echo "$breaches"
exit 1
