#!/usr/bin/env bash
# The explain engineer's H200 check (#22, #21 item 10), read-only, ~20 s: doctor in English
# and Chinese (text and JSON) on a real driver and GPU, doctor --binary on PyTorch's
# libtorch_cuda.so (about 1 GB of fatbinaries: the bounded, stricter fatbinary reader must
# still list its architectures and say it runs on sm_90, quickly) and on CUDA's own
# libraries, and explain on the machine's own kernel log. Prints a short table last; full
# outputs go to $OUT/explain-h200.tar.gz (one file).
# usage: BUDGET_S=60 OUT=/tmp/out scripts/explain-on-gpu.sh [BUILD/gpuscope]
set -u
bin=${1:-.gpu/build/gpuscope}
out=${OUT:-/tmp/explain-out}
budget=${BUDGET_S:-60}
work=$(mktemp -d)
mkdir -p "$out"
start=$(date +%s)
rows=()
step() { # step NAME TIMEOUT CMD... : runs CMD, output to $work/NAME.out, records rc and seconds
	local name=$1 t=$2
	shift 2
	local left=$((budget - ($(date +%s) - start)))
	[ "$left" -le 2 ] && { rows+=("$name|skipped (budget)|-"); return; }
	[ "$t" -gt "$left" ] && t=$left
	local t0 t1 rc
	t0=$(date +%s.%N)
	timeout "$t" "$@" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	t1=$(date +%s.%N)
	rows+=("$name|rc=$rc|$(python3 -c "print(f'{$t1-$t0:.2f}s')")")
}
torchlib=$(timeout 30 python3 -c 'import os, torch; print(os.path.dirname(torch.__file__) + "/lib/libtorch_cuda.so")' 2>/dev/null)
step doctor_en 60 "$bin" doctor --lang en
step doctor_zh 60 "$bin" doctor --lang zh
step doctor_json_zh 60 "$bin" doctor --lang zh --format json
if [ -n "$torchlib" ] && [ -f "$torchlib" ]; then
	ls -l "$torchlib" >"$work/torchlib.ls"
	step binary_torch 60 env GPUSCOPE_DOCTOR_NO_PYTHON=1 "$bin" doctor --binary "$torchlib"
fi
for lib in /usr/local/cuda/lib64/libcublasLt.so /usr/local/cuda/lib64/libcusparse.so; do
	[ -e "$lib" ] && step "binary_$(basename "$lib" .so)" 30 env GPUSCOPE_DOCTOR_NO_PYTHON=1 "$bin" doctor --binary "$lib"
done
dmesg 2>/dev/null | tail -n 20000 >"$work/dmesg.txt"
step explain_dmesg 20 "$bin" explain --format json - <"$work/dmesg.txt"
step explain_zh 10 "$bin" explain --lang zh "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus"
tar -C "$work" -czf "$out/explain-h200.tar.gz" .
echo "== explain/doctor on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
printf '%-28s %-18s %s\n' step status wall
for r in "${rows[@]}"; do IFS='|' read -r a b c <<<"$r"; printf '%-28s %-18s %s\n' "$a" "$b" "$c"; done
for f in binary_torch binary_libcublasLt binary_libcusparse; do
	[ -f "$work/$f.out" ] && echo "$f: $(grep -A1 binary_arch "$work/$f.out" | tr -s ' \n' ' ' | cut -c1-150)"
done
grep -E '^\s+(ok|warning|fail|skipped)' "$work/doctor_en.out" | awk '{print $1}' | sort | uniq -c | tr '\n' ' '
echo "(doctor_en check statuses)"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["matches"]; print("explain of dmesg:", [x["id"] for x in m])' "$work/explain_dmesg.out" 2>/dev/null
rm -rf "$work"
