#!/usr/bin/env bash
# The pip wheel from `make wheel`, installed as a user would, into a fresh
# virtual environment with no package index (nothing is downloaded), and
# run: the gpuscope command and python -m gpuscope, doctor, report of the
# bundled trace in English and Chinese, explain in Chinese, and record of a
# program without CUDA, whose reason must be in the database.
# usage: scripts/ci-wheel-check.sh BUILD
set -u
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
whl=$(ls "$build"/wheel/gpuscope-*.whl 2>/dev/null | head -1)
[ -n "$whl" ] || { echo "FAIL: no wheel in $build/wheel (make wheel)"; exit 1; }
t=$(mktemp -d /tmp/gs-wheel.XXXXXX)
trap 'rm -rf "$t"' EXIT
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
/usr/bin/python3 -m venv "$t/venv"
"$t/venv/bin/pip" install -q --disable-pip-version-check --no-index "$whl" >"$t/pip" 2>&1 &&
	ok "pip install $(basename "$whl") ($(du -k "$whl" | cut -f1) KiB), no index" || { bad "pip install: $(cat "$t/pip")"; exit 1; }
g=$t/venv/bin/gpuscope
cd "$t" || exit 1
"$g" --version | grep -q '^gpuscope [0-9]' && ok "gpuscope --version: $("$g" --version)" || bad "gpuscope --version"
"$t/venv/bin/python" -m gpuscope --version | grep -q '^gpuscope [0-9]' && ok "python -m gpuscope --version" || bad "python -m gpuscope"
"$g" doctor >"$t/out" 2>&1
rc=$?
[ $rc -le 3 ] && grep -qi "driver" "$t/out" && ok "doctor runs (exit $rc)" || bad "doctor: exit $rc $(head -5 "$t/out")"
"$g" report "$root/examples/tiny-kernel-storm.db" >"$t/out" 2>&1
grep -q "^VERDICT" "$t/out" && grep -q launch_overhead "$t/out" && ok "report" || bad "report: $(head -3 "$t/out")"
"$g" report --lang zh "$root/examples/tiny-kernel-storm.db" >"$t/out" 2>&1
grep -q "^结论" "$t/out" && ! grep -q "stay in English" "$t/out" && ok "report --lang zh: the catalogue found in the wheel" ||
	bad "report --lang zh: $(head -3 "$t/out")"
"$g" explain --lang zh 79 >"$t/out" 2>&1
grep -q "XID 79" "$t/out" && LC_ALL=C grep -q $'[\xe4-\xe9]' "$t/out" && ok "explain --lang zh 79" || bad "explain zh: $(head -3 "$t/out")"
"$g" record --metrics none -o "$t/r.db" -- true 2>"$t/err"
rc=$?
if unzip -l "$whl" | grep -q libgpuscope-inject.so; then
	[ $rc = 0 ] && ! grep -q "not found" "$t/err" && ok "record finds the wheel's injection library" || bad "record: exit $rc $(cat "$t/err")"
	st=$(sqlite3 "$t/r.db" "select s.value from processes p join strings s on s.id = p.status_id" 2>&1)
	case "$st" in "no CUDA activity"*) ok "record of a program without CUDA: '$st'" ;; *) bad "record status: '$st'" ;; esac
else
	[ $rc = 1 ] && grep -q "built without CUPTI" "$t/err" && ok "record refuses: $(cat "$t/err")" || bad "record: exit $rc $(cat "$t/err")"
fi
[ $fail = 0 ] && echo "ci-wheel-check: all passed"
exit $fail
