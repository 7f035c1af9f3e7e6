#!/usr/bin/env bash
# run-on-gpu.sh: the vram proof on the H200 (repo root, $OUT set).
# measure.py (each configuration in a forked child, priority order, within
# BUDGET_S, default 150 s) and, when a gpuscope binary was carried,
# compare.py's estimate-vs-measured table. Carry .gpu/build/gpuscope (or
# build/gpuscope) and .whl (fetch-bnb.sh: bitsandbytes for the QLoRA rows).
# Writes $OUT/vram.tar.gz (vram-measured.json/.csv, vram-measure.log,
# compare.txt, nvidia-smi.csv) and prints the tables last.
set -u
: "${OUT:?set OUT}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
budget=${BUDGET_S:-150}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$tmp/nvidia-smi.csv" 2>&1
python3 workloads/vram/measure.py --out "$tmp" --budget "$((budget - 5))" >"$tmp/measure.txt" 2>&1
rc=$?
bin=
for b in .gpu/build/gpuscope build/gpuscope; do [ -x "$b" ] && bin=$b && break; done
if [ -n "$bin" ]; then
	python3 workloads/vram/compare.py --bin "$bin" "$tmp/vram-measured.json" >"$tmp/compare.txt" 2>&1
fi
cat "$tmp/measure.txt" >>"$tmp/vram-measure.log"
tar czf "$OUT/vram.tar.gz" -C "$tmp" . 2>/dev/null
sed -n '/^configuration/,$p' "$tmp/measure.txt"
[ -f "$tmp/compare.txt" ] && cat "$tmp/compare.txt"
exit "$rc"
