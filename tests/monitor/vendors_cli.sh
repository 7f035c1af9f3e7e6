#!/usr/bin/env bash
# AMD and Intel GPUs end to end on the kernel-file fixture trees
# (tests/fixtures/sysfs): a monitor log made from each tree with --root, then
# monitor --replay (table, CSV) and serve --replay (/metrics, promtool) show
# their values with the vendor label, and nothing NVIDIA-specific (CUDA,
# compute capability, GPM, GPU-Util, nvidia-smi, XIDs) is printed for them.
# usage: vendors_cli.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
trees=$src/tests/fixtures/sysfs
t=$tmp
pid=
cleanup='[ -n "$pid" ] && kill "$pid" 2>/dev/null'
has() { grep -qF -- "$2" "$1" && ok "$3" || bad "$3: no '$2' in $(basename "$1")"; }
lacks() { grep -qiE -- "$2" "$1" && bad "$3: '$(grep -oiE -- "$2" "$1" | head -1)' in $(basename "$1")" || ok "$3"; }
NV='cuda|nvidia|nvml|gpm|gpu-util|\bcc [0-9?]|sm activity| SMs|xid|MIG'

for tree in amd-mi250x intel-arc-i915 intel-xe; do
	"$bin" monitor --root "$trees/$tree" --count 2 --interval 0.1 --log "$t/$tree.log" \
		--format table >"$t/$tree.live" 2>"$t/$tree.err" && ok "$tree: live monitor" ||
		bad "$tree: live monitor: $(cat "$t/$tree.err")"
	"$bin" monitor --replay "$t/$tree.log" --format table >"$t/$tree.table" 2>&1 &&
		ok "$tree: replay" || bad "$tree: replay: $(cat "$t/$tree.table")"
	cmp -s <(grep -v '^[0-9][0-9]:' "$t/$tree.live") <(grep -v '^[0-9][0-9]:' "$t/$tree.table") &&
		ok "$tree: the replay's table is the live one" || bad "$tree: replay differs from live"
	lacks "$t/$tree.table" "$NV" "$tree: nothing NVIDIA-specific in the table"
	"$bin" monitor --replay "$t/$tree.log" --format csv >"$t/$tree.csv" 2>&1
	has "$t/$tree.csv" ",engine_render_busy," "$tree: CSV has the vendor columns"
done

# AMD: what the MI250X tree says, as the replay shows it
a=$t/amd-mi250x.table
has "$a" "gpu 0: amd AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2, 0000:c9:00.0" "amd: static line"
has "$a" "gfx90a, 110 CUs, 64.0 GiB, PCIe max gen4 x16" "amd: gfx target, CUs, VRAM, link"
has "$a" "edge/hot/mem C" "amd: its own header"
grep -E '^[0-9:]+ +0 +100% +12% ' "$a" | grep -qF "57.0/64.0   0.0/503.8   1700/1700 1600/1600   128/560       64/64/69 g4/4 x16/16     3/0     4/0     2" &&
	ok "amd: gpu 0 row (busy, umc, VRAM, GTT, clocks, power, temperatures, link, ECC, RAS, procs)" ||
	bad "amd: gpu 0 row: $(grep -E '^[0-9:]+ +0 ' "$a" | head -1)"
grep -E '^[0-9:]+ +1 ' "$a" | head -1 | grep -qF "  ?/?  " &&
	ok "amd: gpu 1's power unknown (?), not 0" || bad "amd: gpu 1 power"
has "$a" "busy 100% is amdgpu's gpu_busy_percent" "amd: the busy hint"
has "$a" "rocprofv3" "amd: points to ROCm's profiler"
has "$a" "process 3301 torchrun: memory 59392 MiB, engine busy" "amd: fdinfo process"
# the second round has the engine shares of two fdinfo scans (nothing ran: 0%)
grep -E '^[0-9:]+ +0 ' "$a" | tail -1 | grep -qE ' 100% +12% +0% +0% ' &&
	ok "amd: engine shares after two scans" || bad "amd: engine shares: $(grep -E '^[0-9:]+ +0 ' "$a" | tail -1)"

i=$t/intel-arc-i915.table
has "$i" "gpu 0: intel Intel GPU 8086:56a0 (i915), 0000:03:00.0" "intel: static line"
has "$i" "throttled by" "intel: its own header"
grep -E '^[0-9:]+ +0 ' "$i" | head -1 | grep -qF "2000/2400     ?/190" && ok "intel: GT MHz, power unknown on the first round" || bad "intel row: $(grep -E '^[0-9:]+ +0 ' "$i" | head -1)"
grep -E '^[0-9:]+ +0 ' "$i" | head -1 | grep -qE ' pl1 +1$' && ok "intel: PL1 throttle decoded" || bad "intel throttle"
has "$i" "GT frequency held down for power (PL1)" "intel: the throttle hint"
has "$t/intel-xe.table" "12.0 GiB, PCIe max gen4 x8" "xe: VRAM from tile0"

# serve --replay: the same values as Prometheus series, labelled with the vendor
start() {
	"$bin" serve --listen 127.0.0.1:0 "$@" 2>"$t/serve.err" &
	pid=$!
	for _ in $(seq 50); do
		url=$(sed -n 's/^gpuscope: serving //p' "$t/serve.err")
		[ -n "$url" ] && return 0
		sleep 0.1
	done
	bad "serve did not start: $(cat "$t/serve.err")"
	return 1
}
for tree in amd-mi250x intel-arc-i915; do
	start --replay "$t/$tree.log" --replay-speed 100 || continue
	sleep 0.5
	curl -sf "$url" >"$t/$tree.prom" && ok "$tree: GET /metrics" || bad "$tree: GET /metrics"
	kill -TERM "$pid"
	wait "$pid"
	pid=
	if command -v promtool >/dev/null; then
		promtool check metrics <"$t/$tree.prom" >"$t/lint" 2>&1 && ok "$tree: promtool clean" ||
			bad "$tree: promtool: $(cat "$t/lint")"
	fi
	lacks "$t/$tree.prom" 'gpuscope_(gpu_utilization_ratio|sm_active_ratio|clock_event_reason_active)' \
		"$tree: no NVIDIA-only series"
done
m=$t/amd-mi250x.prom
g0='gpu="0",UUID="0x87fc3ea34b2236f3",pci_bus_id="0000:c9:00.0",device="gpu0",model_name="AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2"'
has "$m" "gpuscope_gfx_busy_ratio{$g0" "amd: gfx_busy series"
grep -qF "gpuscope_gfx_busy_ratio{$g0" "$m" && grep "gpuscope_gfx_busy_ratio{$g0" "$m" | grep -q '} 1$' &&
	ok "amd: busy 100% as ratio 1" || bad "amd: busy ratio"
has "$m" 'vendor="amd",compute_capability="",cuda_driver_version="",sm_count="",arch="gfx90a",compute_units="110"} 1' "amd: gpu_info vendor and arch"
has "$m" "gpuscope_temperature_hotspot_celsius{$g0" "amd: hotspot"
has "$m" "gpuscope_ras_corrected_errors_total{$g0" "amd: RAS counter"
grep "gpuscope_power_usage_watts{" "$m" | grep -q 'gpu="1"' && bad "amd: gpu 1's unknown power exported" || ok "amd: unknown power left out"
has "$t/intel-arc-i915.prom" 'gpuscope_gt_throttle_reason_active{gpu="0"' "intel: throttle reasons as series"
grep -F 'gpuscope_gt_throttle_reason_active{gpu="0"' "$t/intel-arc-i915.prom" | grep -qF 'reason="pl1"} 1' &&
	ok "intel: pl1 active" || bad "intel: pl1"

# doctor walks each vendor's chain on the trees, in that vendor's terms
d=$t/doctor
GPUSCOPE_DOCTOR_NO_PYTHON=1 "$bin" doctor --root "$trees/amd-mi250x" >"$d.amd" 2>&1
rc=$?
[ $rc = 0 ] && ok "doctor amd: rc 0 on a healthy tree" || bad "doctor amd rc $rc: $(cat "$d.amd")"
for want in "amdgpu loaded, version 6.3.6" "/dev/kfd can be opened read-write" \
	"/dev/dri/renderD129 can be opened" "ROCm 6.1.3-122 in /opt/rocm" \
	"torch.version.hip=6.1.40093-bd86f1708" "gpu0_gfx_target" "gfx90a is among torch's targets" \
	"RAS errors corrected 4, uncorrected 0 (memory ECC: 3/0)"; do
	has "$d.amd" "$want" "doctor amd: $want"
done
lacks "$d.amd" 'nvidia|nvml|cuda_runtime|libcudart|xid|sm_[0-9]' "doctor amd: no NVIDIA chain"
"$bin" doctor --root "$trees/amd-mi250x" --format json | python3 -c 'import json,sys; json.load(sys.stdin)' &&
	ok "doctor amd: JSON" || bad "doctor amd: JSON"
# broken links of the chain, one at a time, on a copy of the tree
cp -r "$trees/amd-mi250x" "$t/amd"
rm "$t/amd/dev/kfd"
"$bin" doctor --root "$t/amd" >"$d.nokfd" 2>&1
rc=$?
[ $rc = 3 ] && ok "doctor amd without /dev/kfd: rc 3" || bad "doctor no kfd rc $rc"
has "$d.nokfd" "rocm_no_kfd" "doctor amd: no /dev/kfd is a finding"
has "$d.nokfd" "gpuscope explain rocm_no_kfd" "doctor amd: points to explain"
printf '2.4.1+rocm6.1 None 6.1.40093 True False gfx900,gfx906,gfx908,gfx1030,gfx1100,gfx942\n' \
	>"$t/amd/.gpuscope-framework-probe"
"$bin" doctor --root "$t/amd" >"$d.arch" 2>&1
has "$d.arch" "PyTorch carries no code for GPU 0's gfx90a" "doctor amd: gfx target missing from torch"
lacks "$d.arch" "HSA_OVERRIDE" "doctor amd: no override advice for a gfx9 data-center GPU"
# an RX 6700 XT (gfx1031) gets the RDNA2 sibling's override
sed -i 's/^gfx_target_version 90010$/gfx_target_version 100301/' \
	"$t/amd/sys/class/kfd/kfd/topology/nodes/1/properties"
"$bin" doctor --root "$t/amd" >"$d.rdna" 2>&1
has "$d.rdna" "PyTorch carries no code for GPU 0's gfx1031" "doctor amd: gfx1031 read from KFD"
grep -A6 "GPU 0's gfx1031" "$d.rdna" | tr -d '\n' | tr -s ' ' | grep -qF "HSA_OVERRIDE_GFX_VERSION=10.3.0 for RDNA2" &&
	ok "doctor amd: the override advice for RDNA2" || bad "doctor amd: override advice"
HSA_OVERRIDE_GFX_VERSION=9.0.8 "$bin" doctor --root "$t/amd" >"$d.ovr" 2>&1
has "$d.ovr" "HSA_OVERRIDE_GFX_VERSION=9.0.8: ROCm treats every GPU as gfx908" "doctor amd: override read"
has "$d.ovr" "gfx90a as gfx908 is among torch's targets" "doctor amd: override target compared"
printf '2.4.1+cu121 12.1 None False False -\n' >"$t/amd/.gpuscope-framework-probe"
"$bin" doctor --root "$t/amd" >"$d.cuda" 2>&1
has "$d.cuda" "framework_not_rocm" "doctor amd: a CUDA wheel on an AMD GPU"
has "$d.cuda" "whl/rocm6.2" "doctor amd: the ROCm wheel index"
"$bin" doctor --root "$trees/intel-arc-i915" >"$d.intel" 2>&1
rc=$?
[ $rc = 3 ] && ok "doctor intel: rc 3 (PL1 throttling, no compute runtime)" || bad "doctor intel rc $rc"
for want in "i915 drives gpu 0 (module loaded)" "/dev/dri/renderD129 can be opened" \
	"no Intel compute runtime (libze_intel_gpu.so.1)" "torch.xpu.is_available()=True" \
	"GT throttle reasons: pl1" "power_throttle: GPU 0 is slowing its clocks for power (pl1)"; do
	has "$d.intel" "$want" "doctor intel: $want"
done
lacks "$d.intel" 'nvidia|nvml|cuda|xid' "doctor intel: no NVIDIA chain"
# a machine with both (an NVIDIA driver in the tree): NVIDIA's chain, then AMD's after it
cp -r "$trees/amd-mi250x" "$t/both"
mkdir -p "$t/both/proc/driver/nvidia"
echo "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06" >"$t/both/proc/driver/nvidia/version"
GPUSCOPE_DOCTOR_NO_PYTHON=1 "$bin" doctor --root "$t/both" >"$d.both" 2>&1
has "$d.both" "nvml" "doctor both: the NVIDIA chain runs"
has "$d.both" "amd_devices" "doctor both: then the AMD chain"
grep -q "rocm_kfd" "$d.both" && ok "doctor both: /dev/kfd checked" || bad "doctor both: kfd"

# explain reads pasted rocm-smi, amd-smi, xpu-smi and intel_gpu_top output (real pastes)
fx=$src/tests/fixtures/vendor-smi
while read -r f key id; do
	"$bin" explain --format json - <"$fx/$f" >"$t/x.json" 2>/dev/null
	python3 - "$t/x.json" "$key" "$id" <<'PY' && ok "explain $f: $key, $id" || bad "explain $f"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["matches"][0]["id"] == sys.argv[3], d["matches"][0]["id"]
assert d[sys.argv[2]]["gpus"], d.keys()
PY
	"$bin" explain - <"$fx/$f" >"$t/x.txt" 2>&1
	lacks "$t/x.txt" 'nvidia-smi|cuda|gpuscope record|GPU-Util [0-9]|sm activity' "explain $f: no NVIDIA advice"
done <<'LIST'
rocm-smi-mi250x.txt rocm_smi amd_smi_reading
rocm-smi-3.3.txt rocm_smi amd_smi_reading
rocm-smi-6-partitions.txt rocm_smi amd_smi_reading
amd-smi-metric.txt amd_smi amd_smi_reading
xpu-smi-dump-max1550.txt xpu_smi intel_smi_reading
xpu-smi-dump-a310.txt xpu_smi intel_smi_reading
intel_gpu_top-dg2.json intel_gpu_top intel_smi_reading
LIST
"$bin" explain - <"$fx/rocm-smi-mi250x.txt" >"$t/x.txt" 2>&1
has "$t/x.txt" "rocm-smi GPU 0: busy 0% (gpu_busy_percent); VRAM 0% allocated; 91 W of 560 W; 47 C; 800 MHz" "explain rocm-smi: gpu 0 read"
has "$t/x.txt" "on a two-die module (MI250X)" "explain rocm-smi: the power N/A of the second die"
"$bin" explain - <"$fx/xpu-smi-dump-max1550.txt" >"$t/x.txt" 2>&1
has "$t/x.txt" "xpu-smi GPU 0: memory controller 20% busy; 410 W; 40 C; memory 34 C; 1600 MHz" "explain xpu-smi: device 0's last row"
exit $fail
