#!/usr/bin/env bash
# A gpuscope binary moved away from its libraries (issue 41 item 2): record
# stops before running the program, in one line that says where it looked
# and how to fix it; --allow-untraced runs it anyway and the reason is in the
# database (meta "untraced", the process status) and in report's warnings.
# Moved with its tree (bin/ + lib/gpuscope/), it finds them again.
# usage: relocate.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
T=$tmp
[ -f "$build/libgpuscope-inject.so" ] || { ok "skipped (built without CUPTI)"; exit 0; }

mkdir -p "$T/alone" "$T/tree/bin" "$T/tree/lib/gpuscope"
cp "$bin" "$T/alone/gpuscope"
"$T/alone/gpuscope" record -o "$T/a.db" -- touch "$T/ran" 2>"$T/err"
rc=$?
[ $rc = 1 ] && ok "alone: record exits 1" || bad "alone: record exit $rc"
[ ! -e "$T/ran" ] && ok "alone: the program was not started" || bad "alone: the program ran"
[ ! -e "$T/a.db" ] && ok "alone: no database" || bad "alone: a database was written"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "libgpuscope-inject.so not found (looked in $T/alone, " "$T/err" &&
	grep -q -- "--allow-untraced" "$T/err" && ok "alone: one line: $(cat "$T/err")" ||
	bad "alone: stderr: $(cat "$T/err")"
# --lang zh from the copied binary: Chinese from the install prefix's catalogue,
# or English with one warning naming where it looked
"$T/alone/gpuscope" explain --lang zh 79 >"$T/out" 2>"$T/err"
if grep -q "stay in English" "$T/err"; then
	grep -q "looked in $T/alone/locale, $T/alone/../share/locale" "$T/err" && ok "alone --lang zh: $(cat "$T/err")" ||
		bad "alone --lang zh: $(cat "$T/err")"
else
	LC_ALL=C grep -q $'[\xe4-\xe9]' "$T/out" && ok "alone --lang zh: the prefix's catalogue" || bad "alone --lang zh: neither"
fi
ls "$T"/a.db.spool-* >/dev/null 2>&1 && bad "alone: spool left behind" || ok "alone: no spool left"

"$T/alone/gpuscope" record --allow-untraced --metrics none -o "$T/u.db" -- touch "$T/ran" 2>"$T/err"
rc=$?
[ $rc = 0 ] && [ -e "$T/ran" ] && ok "--allow-untraced: the program ran" || bad "--allow-untraced: exit $rc $(cat "$T/err")"
grep -q "warning: libgpuscope-inject.so not found" "$T/err" && ok "--allow-untraced: warned" || bad "--allow-untraced: $(cat "$T/err")"
m=$(sqlite3 "$T/u.db" "select value from meta where key = 'untraced'" 2>&1)
case "$m" in "libgpuscope-inject.so not found (looked in $T/alone,"*) ok "meta untraced: $m" ;; *) bad "meta untraced: '$m'" ;; esac
"$bin" report "$T/u.db" >"$T/rep" 2>&1
grep -q "CUDA not traced: libgpuscope-inject.so not found" "$T/rep" && ok "report says why" || bad "report: $(cat "$T/rep")"
grep -q "never initialised CUDA" "$T/rep" && bad "report still guesses" || ok "report does not guess"
"$bin" report --lang zh "$T/u.db" >"$T/rep" 2>&1
grep -q "CUDA not traced: libgpuscope-inject.so not found" "$T/rep" && ok "report --lang zh shows the reason" || bad "report zh: $(cat "$T/rep")"

# an installed tree, moved: bin/gpuscope finds ../lib/gpuscope
cp "$bin" "$T/tree/bin/gpuscope"
cp "$build/libgpuscope-inject.so" "$build/libgpuscope-preload.so" "$T/tree/lib/gpuscope/"
rm -f "$T/ran"
"$T/tree/bin/gpuscope" record --metrics none -o "$T/t.db" -- touch "$T/ran" 2>"$T/err"
rc=$?
[ $rc = 0 ] && [ -e "$T/ran" ] && ! grep -q "not found" "$T/err" && ok "moved tree: libraries found" ||
	bad "moved tree: exit $rc $(cat "$T/err")"
[ -z "$(sqlite3 "$T/t.db" "select value from meta where key = 'untraced'")" ] && ok "moved tree: traced" || bad "moved tree: untraced"
[ $fail = 0 ] && echo "relocate: all passed"
exit $fail
