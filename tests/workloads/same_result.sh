#!/usr/bin/env bash
# workloads/same-result-on-gpu.sh's CUDA C programs and
# workloads/real/same_result.py, checked without a GPU (issue 35 item 1:
# record must never change what a program computes):
#  - every CUDA C program the script runs (kind c) has its source and prints
#    a RESULT line (the source or a header of its own directory that it
#    includes: copies.h, access.h, fma.h); without one same_result.py
#    compares exit codes and WORKLOAD counts only, "same (0 result values)";
#  - same_result.py: integers (the zoo's exact sums) equal or differ by one,
#    floats (cublas_gemm's %.9e c_sum) within --rtol, keys ending in _s left
#    out, a key on one side only, a WORKLOAD count, no WORKLOAD line (exit 2,
#    naming that file); the values it counts do not include name=.
# usage: same_result.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
src=$(cd "$2" && pwd)
command -v python3 >/dev/null || {
	echo "skip: no python3"
	exit 0
}
script=$src/workloads/same-result-on-gpu.sh
sr=$src/workloads/real/same_result.py

# "name|c|$BIN/prog args" entries: the program's file name
progs=$(grep -oE '"[a-z0-9_]+\|c\|\$BIN/[a-z0-9_]+' "$script" | sed 's#.*/##' | sort -u)
[ "$(echo "$progs" | wc -w)" -ge 16 ] ||
	bad "only $(echo "$progs" | wc -w) CUDA C programs found in same-result-on-gpu.sh"
n=0
for p in $progs; do
	f=$(ls "$src"/workloads/cuda/"$p".cu "$src"/workloads/real/"$p".cu \
		"$src"/workloads/robust/"$p".cu 2>/dev/null | head -1)
	[ -n "$f" ] || {
		bad "$p: no workloads/{cuda,real,robust}/$p.cu"
		continue
	}
	files=("$f")
	for h in $(sed -nE 's/^#include "([a-z_]+\.h)"$/\1/p' "$f"); do
		files+=("$(dirname "$f")/$h")
	done
	if grep -q 'printf("RESULT name=' "${files[@]}"; then
		n=$((n + 1))
	else
		bad "$p prints no RESULT line (${files[*]#"$src"/})"
	fi
done
[ "$n" -ge 16 ] && ok "same-result-on-gpu.sh: $n CUDA C programs print a RESULT line"

# same_result.py A B: A is a zoo program's output, B the same with one change
a=$tmp/a
b=$tmp/b
zoo() { # zoo X_SUM C_SUM KERNELS LOOP_S [EXTRA RESULT FIELD]
	printf 'RESULT name=z x_sum=%s c_sum=%s%s\nTIME name=z loop_s=%s\n' "$1" "$2" "${5:+ $5}" "$4"
	printf 'WORKLOAD name=z kernels=%s memcpy=2 memset=0 sync=1\n' "$3"
}
zoo 655464 1.234567890e+01 20000 0.512 >"$a"
zoo 655464 1.234567890e+01 20000 0.997 >"$b"
exits 0 "same_result: the same values, another loop_s" python3 "$sr" "$a" "$b" &&
	check "same_result: 'same (2 result values)', name= not counted" grep -qx 'same (2 result values)' "$tmp/out"
zoo 655465 1.234567890e+01 20000 0.512 >"$b"
exits 1 "same_result: an integer sum off by one differs" python3 "$sr" "$a" "$b" &&
	check "same_result: names RESULT.x_sum" grep -q 'RESULT.x_sum: 655464 vs 655465' "$tmp/out"
zoo 655464 1.234600000e+01 20000 0.512 >"$b"
exits 0 "same_result: a float 2.6e-5 apart is the same (rtol 1e-3)" python3 "$sr" "$a" "$b"
zoo 655464 1.240000000e+01 20000 0.512 >"$b"
exits 1 "same_result: a float 4.4e-3 apart differs" python3 "$sr" "$a" "$b" &&
	check "same_result: names RESULT.c_sum" grep -q 'RESULT.c_sum' "$tmp/out"
zoo 655464 1.234567890e+01 20000 0.512 wait_s=3.5 >"$b"
exits 0 "same_result: a RESULT key ending in _s is left out" python3 "$sr" "$a" "$b"
zoo 655464 1.234567890e+01 20000 0.512 rounds=3 >"$b"
exits 1 "same_result: a key on one side only differs" python3 "$sr" "$a" "$b" &&
	check "same_result: says RESULT.rounds only in B" grep -q 'RESULT.rounds only in B' "$tmp/out"
zoo 655464 1.234567890e+01 19999 0.512 >"$b"
exits 1 "same_result: a WORKLOAD count differs" python3 "$sr" "$a" "$b"
zoo 655464 1.234567890e+01 20000 0.512 | head -2 >"$b"
exits 2 "same_result: no WORKLOAD line (the program did not finish)" python3 "$sr" "$b" "$a" &&
	check "same_result: names the file without it (A)" grep -q "no WORKLOAD line in $b:" "$tmp/out"
exit $fail
