#!/usr/bin/env bash
# run-on-gpu.sh: the vram proof on the H200 (repo root, $OUT set).
#  1. measure.py: every configuration in a forked child, in priority order,
#     none started that would end past the budget;
#  2. with a carried recorder (.gpu/build/gpuscope + libgpuscope-inject.so)
#     and 40 s left (45 are kept for it), one configuration again under
#     `gpuscope record` as one process (measure.py --one), to set a
#     recording's peak device memory beside the estimate (--recording);
#  3. with a carried gpuscope, compare.py: estimate / measured per row.
# BUDGET_S (default 150) bounds the whole run. Carry .gpu (binaries) and
# .whl (fetch-bnb.sh's bitsandbytes wheel, installed here when bitsandbytes
# is not importable: the QLoRA rows). Writes $OUT/vram.tar.gz
# (vram-measured.json/.csv, vram-measure.log, compare.txt, nvidia-smi.csv,
# the recording) and prints the tables last. VRAM_ONLY="name,..." measures
# just those configurations (measure.py --only); VRAM_REC=0 leaves the
# recording out; VRAM_SET=optim measures the optimizers' states and step
# temporaries instead (measure.py --set optim; run-optim-on-gpu.sh).
set -u
: "${OUT:?set OUT}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
t0=$(date +%s)
budget=${BUDGET_S:-150}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$tmp/nvidia-smi.csv" 2>&1
if ! python3 -c 'import bitsandbytes' >/dev/null 2>&1; then
	for w in .whl/bitsandbytes-*.whl; do
		[ -f "$w" ] || continue
		python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
			--target /tmp/vram-site "$w" >>"$tmp/vram-measure.log" 2>&1 &&
			export PYTHONPATH=/tmp/vram-site${PYTHONPATH:+:$PYTHONPATH}
	done
fi
bin=
for b in .gpu/build/gpuscope build/gpuscope; do [ -x "$b" ] && bin=$b && break; done
rec_row=llama1b-full-b2-s1024
reserve=5
[ -n "$bin" ] && [ -f "$(dirname "$bin")/libgpuscope-inject.so" ] && [ "${VRAM_REC:-1}" != 0 ] &&
	reserve=45
only=(--set "${VRAM_SET:-all}")
[ -n "${VRAM_ONLY:-}" ] && only+=(--only "$VRAM_ONLY")
python3 workloads/vram/measure.py --out "$tmp" --budget "$((budget - reserve))" "${only[@]}" \
	>"$tmp/measure.txt" 2>&1
rc=$?
left=$((budget - ($(date +%s) - t0)))
rec_args=()
# The recorded run is one process (measure.py --one: no fork, no second
# interpreter). On 2026-12-03 the forking form under record lost its child:
# the parent had touched CUDA, so measure.py spawned a new interpreter whose
# imports and run outlasted the 22 s left, and the recording kept only the
# parent's 3 API calls and no allocation.
if [ "$reserve" = 45 ] && [ "$left" -ge 40 ]; then
	mkdir -p "$tmp/rec"
	timeout $((left - 3)) "$bin" record -o "$tmp/$rec_row.db" -- python3 workloads/vram/measure.py \
		--one "$rec_row" >"$tmp/rec/one.out" 2>"$tmp/record.txt" &&
		python3 workloads/vram/measure.py --row-table "$tmp/rec/one.out" \
			"$tmp/rec/vram-measured.json" 2>>"$tmp/record.txt" &&
		rec_args=(--recording "$tmp/$rec_row.db=$tmp/rec/vram-measured.json")
fi
if [ -n "$bin" ]; then
	python3 workloads/vram/compare.py --bin "$bin" "${rec_args[@]}" "$tmp/vram-measured.json" \
		>"$tmp/compare.txt" 2>&1
fi
cat "$tmp/measure.txt" >>"$tmp/vram-measure.log"
tar czf "$OUT/vram.tar.gz" -C "$tmp" . 2>/dev/null
sed -n '/^configuration/,$p' "$tmp/measure.txt"
[ -f "$tmp/compare.txt" ] && cat "$tmp/compare.txt"
echo "vram: $(($(date +%s) - t0)) s of ${budget} s"
exit "$rc"
