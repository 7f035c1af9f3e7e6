#!/usr/bin/env bash
# workloads/real (issue 16's proof programs), checked without any framework
# installed, so that the single H200 run does not fail on a typo:
#  - every Python file compiles (py_compile, into a scratch folder);
#  - every program answers --help before it imports its framework (CI has
#    no torch, JAX or CuPy: a program importing one before parsing fails);
#  - the JAX and CuPy programs and common.py never import torch (report
#    tells the kind of program from what the process loaded);
#  - README.md's table, the run script's RUNS and the programs agree: each
#    program has a README row and a run, each run names a program that exists;
#  - the run script parses (bash -n).
# usage: real_programs.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
src=$(cd "$2" && pwd)
dir=$src/workloads/real
py=${PYTHON:-python3}

for f in "$dir"/*.py; do
	"$py" -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
		"$f" "$tmp/x.pyc" 2>"$tmp/err" || { bad "py_compile $(basename "$f")"; cat "$tmp/err"; }
done
# programs: the files that print a WORKLOAD line (the rest are shared modules)
progs=$(grep -l 'workload(\|td.run(\|jc.run(' "$dir"/*.py | grep -v -e common.py -e torch_driver.py |
	xargs -n1 basename | sed 's/\.py$//' | sort)
[ "$(echo "$progs" | wc -w)" -ge 12 ] || bad "only $(echo "$progs" | wc -w) programs found"
for p in $progs; do
	(cd "$tmp" && "$py" "$dir/$p.py" --help >"$tmp/help" 2>"$tmp/err") ||
		{ bad "$p --help exited non-zero"; head -5 "$tmp/err"; continue; }
	grep -q "^usage: $p " "$tmp/help" || bad "$p --help: no 'usage: $p' line"
	grep -q -- '--device' "$tmp/help" || bad "$p --help: no --device (CPU smoke test)"
done
for f in "$dir"/jax_*.py "$dir"/cupy_*.py "$dir"/common.py; do
	grep -nE '^\s*(import|from) torch' "$f" && bad "$(basename "$f") imports torch"
done
readme=$dir/README.md
runner=$dir/run-on-gpu-real.sh
for p in $progs cublas_gemm; do
	grep -q "^| \`$p" "$readme" || bad "README.md has no row for $p"
	grep -qE "\"[a-z0-9_]+\|[a-z]+\|[a-z_]+\|[0-9]+\|(\\\$W/)?$p(\.py)?[ |]" "$runner" || bad "run-on-gpu-real.sh never runs $p"
done
grep -oE '^\s*"[a-z0-9_]+\|[a-z]+\|[a-z_]+\|[0-9]+\|[^|]*' "$runner" | sed 's/.*|//' | awk '{print $1}' |
	while read -r p; do
		case $p in
		cublas_gemm) [ -f "$dir/cublas_gemm.cu" ] || echo "missing cublas_gemm.cu" ;;
		*) [ -f "$src/${p/\$W/workloads/real}" ] || echo "missing $p" ;;
		esac
	done >"$tmp/missing"
[ -s "$tmp/missing" ] && bad "run-on-gpu-real.sh runs programs that do not exist: $(cat "$tmp/missing")"
bash -n "$runner" || bad "run-on-gpu-real.sh does not parse"
[ $fail -eq 0 ] && ok "workloads/real: $(echo "$progs" | wc -w) programs"
exit $fail
