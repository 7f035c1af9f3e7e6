#!/usr/bin/env bash
# report on a torch.profiler trace of PyTorch on ROCm (tests/fixtures/rocm, constructed:
# an MI250X, HIP runtime calls, rocBLAS's Tensile and MIOpen kernels): its advice in
# ROCm's terms (HIP graphs and events, rocBLAS/MIOpen, rocprofv3), never CUDA's tools
# or nvidia-smi, in text, JSON and Chinese.
# usage: rocm_report.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
f=$src/tests/fixtures/rocm/mi250x_small_steps.json
t=$tmp
"$bin" report "$f" >"$t/r.txt" 2>&1 && ok "report" || bad "report failed: $(tail -3 "$t/r.txt")"
"$bin" report --format json "$f" >"$t/r.json" 2>&1 && ok "report json" || bad "report json"
"$bin" report --lang zh "$f" >"$t/r.zh" 2>&1 && ok "report zh" || bad "report zh"
for want in "PyTorch program on ROCm" "libraries: rocBLAS/hipBLASLt, MIOpen; HIP runtime API" \
	"GPU 0: AMD Instinct MI250X / MI250, 110 compute units" "launched from HIP graphs" \
	"no HIP graph can capture it yet" "wait on a HIP event" "rocprofv3" \
	"GEMM/convolution"; do
	tr -s ' \n' '  ' <"$t/r.txt" | grep -qF -- "$want" && ok "has: $want" || bad "lacks: $want"
done
# no CUDA anywhere in the text (PyTorch's torch.cuda.* API names are lowercase)
grep -q "CUDA" "$t/r.txt" && bad "CUDA in a ROCm report: $(grep -m1 CUDA "$t/r.txt")" || ok "no CUDA"
has_idle() { tr -s ' \n' '  ' <"$t/r.txt" | grep -qF -- "$1"; }
has_idle "other HIP calls" && has_idle "host work outside HIP" && ok "idle causes in HIP terms" ||
	bad "idle causes"
# the advice: actions, fixes and warnings
grep -E '^\s*(->|fix first|WARNING)|^  [a-z]' "$t/r.txt" >"$t/advice"
for no in "CUDA graph" "CUDA event" "cuBLAS" "cuDNN" "nvidia-smi" "ncu " "Nsight" \
	"gpuscope record" "compute capability" "GPM" "PYTORCH_CUDA_ALLOC_CONF"; do
	grep -qF -- "$no" "$t/advice" && bad "NVIDIA advice: $no" || ok "no $no"
done
python3 - "$t/r.json" <<'PY' && ok "json: ROCm library names, no CUDA in actions" || bad "json"
import json, sys
r = json.load(open(sys.argv[1]))
s = json.dumps(r)
assert "rocBLAS/hipBLASLt" in s and "MIOpen" in s
for f in r.get("findings", []):
    for a in f.get("actions", []):
        assert "CUDA" not in a and "cuBLAS" not in a, a
PY
grep -q "HIP" "$t/r.zh" && ! grep -E "^\s*->|^  首先修复" "$t/r.zh" | grep -q "CUDA" && ok "zh: HIP terms" || bad "zh"
# ROCm 6.x's rocprofiler-sdk traces name the runtime category hip_runtime: the same calls
sed 's/"cuda_runtime"/"hip_runtime"/g' "$f" >"$t/hip.json"
"$bin" report --format json "$t/hip.json" >"$t/hip.out" 2>&1
python3 - "$t/r.json" "$t/hip.out" <<'PY' && ok "hip_runtime read as runtime calls" || bad "hip_runtime"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["summary"]["api_calls"] == b["summary"]["api_calls"] == 5800, (a["summary"], b["summary"])
PY
# an NVIDIA trace keeps its CUDA advice (no ROCm terms leak the other way)
"$bin" report "$src/tests/fixtures/kineto-synthetic/small.json" >"$t/nv.txt" 2>&1
grep -q "ROCm\|HIP graph\|rocBLAS\|rocprofv3" "$t/nv.txt" && bad "ROCm terms in an NVIDIA report" || ok "NVIDIA report untouched"
exit $fail
