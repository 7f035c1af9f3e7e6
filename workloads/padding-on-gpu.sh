#!/usr/bin/env bash
# padding-on-gpu.sh - issue 36, docs/causes.md row 33, in one device call (repo root; carry .gpu:
# scripts/gpu-stage.sh):
#   bash workloads/padding-on-gpu.sh
# workloads/real/hf_bert_padded.py (texts of 16-96 tokens padded to max_length 256) and its
# --fixed variant (padded per batch, grouped by length), each recorded and under torch.profiler
# (run-on-gpu-real.sh ONLY=..., REAL_S seconds, default 150); then which of the four get the
# `padding` finding, and the two timed loops.
# PAD_ONLY picks the programs (default the two above; e.g. "hf_bert_padded hf_bert_padded_fixed
# hf_bert_padded_m64 torch_small_copies_fixed": the rounded padding and the host's torch.stack),
# PAD_PLAIN=1 adds one untraced run of each hf_bert_padded and torch_deterministic variant's
# timed loop.
# Then (issue 38; SPEED_S=0 leaves it out) bench/speed-ab-on-gpu.sh on the 1.09 GB trace alone (CASES=json, AB_PREV: an
# older binary, default .gpu/prev/gpuscope), SPEED_S seconds (default 110): whether the 2-CPU time
# measured at 19:08 (2.52 s, against 1.56 s on 2026-12-06) is the host's or the code's. Carry
# tests/fixtures/pytorch/transformer_step.json.gz too (make-big-kineto.py's source; device-slim
# leaves it out of the tree).
# Output: $OUT/real.tar.gz (fixtures/, logs/, table.txt), $OUT/speed.txt, $OUT/ab.txt; short
# tables last on stdout.
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
G=$PWD/.gpu/build/gpuscope
OUT=$OUT RES=/tmp/pad-real BUDGET_S=${REAL_S:-150} ONLY="${PAD_ONLY:-hf_bert_padded hf_bert_padded_fixed}" \
	bash workloads/real/run-on-gpu-real.sh >/tmp/pad-real.txt 2>&1
echo "== run-on-gpu-real.sh: rc=$?"
tail -6 /tmp/pad-real.txt
echo "== padding finding (source: file)"
for f in /tmp/pad-real/fixtures/*.db /tmp/pad-real/fixtures/*.json.gz; do
	[ -f "$f" ] || continue
	j=$("$G" report --format json "$f" 2>/dev/null)
	p=$(printf '%s' "$j" | python3 -c 'import json,sys
d=json.load(sys.stdin); f=[x for x in d["findings"] if x["id"]=="padding"]
print(d["primary"], "padding:", (f[0]["title"][:70] if f else "none"))' 2>&1)
	echo "$(basename "$f"): $p"
done
echo "== timed loops and text share (record runs)"
grep -H "^TIME\|^WORKLOAD" /tmp/pad-real/logs/*.record.out 2>/dev/null | sed 's#.*/##'
if [ "${PAD_PLAIN:-0}" = 1 ]; then
	echo "== timed loops untraced"
	for v in "hf_bert_padded" "hf_bert_padded --fixed" "hf_bert_padded --fixed --pad-multiple 64" \
		"torch_deterministic" "torch_deterministic --fixed"; do
		# shellcheck disable=SC2086
		echo "$v: $(set -- $v; timeout 120 python3 "workloads/real/$1.py" "${@:2}" 2>&1 |
			grep "^TIME" | tail -1)"
	done
fi
[ "${SPEED_S:-110}" = 0 ] && exit 0
echo "== speed A/B ($(basename "$(dirname "${AB_PREV:-.gpu/prev/gpuscope}")")/gpuscope against .gpu/build/gpuscope)"
OUT=$OUT SPEED_S=${SPEED_S:-110} CASES=json CASES2=json HTA_REPS=1 REPS=5 AB_N=${AB_N:-5} \
	bash bench/speed-ab-on-gpu.sh "${AB_PREV:-.gpu/prev/gpuscope}" 2>&1 | grep -v "^ *gpuscope timing" | tail -16
