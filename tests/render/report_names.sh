#!/usr/bin/env bash
# Kernel names in report output on real H200 recordings: JSON keeps the
# recorded (mangled) name and adds the demangled one; the text report shows
# no mangled C++ name. usage: report_names.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
fx=$2/tests/fixtures
# without libstdc++ names stay as recorded (demangle.h); gcc brings it
have_cxx=0
ldconfig -p 2>/dev/null | grep -q 'libstdc++\.so\.6' && have_cxx=1

for db in zoo/tiny_kernel_storm.db pytorch/transformer_step.db; do
	if ! "$bin" report --format json "$fx/$db" >"$tmp/r.json" 2>"$tmp/err"; then
		bad "report $db: $(cat "$tmp/err")"
		continue
	fi
	if ! python3 - "$tmp/r.json" "$db" "$have_cxx" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
db, cxx = sys.argv[2], sys.argv[3] == "1"
ks = r["top_kernels"]
assert ks, "no top_kernels"
for k in ks:
    assert "demangled" in k, k
    if k["name"].startswith("_Z") and cxx:
        assert not k["demangled"].startswith("_Z"), k
    if not k["name"].startswith("_Z"):
        assert k["demangled"] == k["name"], k
if db.startswith("zoo/tiny") and cxx:
    assert ks[0]["name"] == "_Z8tiny_addPf", ks[0]["name"]
    assert ks[0]["demangled"] == "tiny_add(float*)", ks[0]["demangled"]
PY
		bad "JSON kernel names of $db"
	fi
	"$bin" report "$fx/$db" >"$tmp/r.txt" 2>&1
	if [ "$have_cxx" = 1 ] && grep -n '_Z[0-9N]' "$tmp/r.txt" | grep -v 'kernel-name-base mangled' | head -3 | grep .; then
		bad "the text report of $db shows mangled names"
	fi
done
[ $fail -eq 0 ] && echo "report_names: ok"
exit $fail
