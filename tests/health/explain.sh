#!/usr/bin/env bash
# explain CLI: XIDs by number, well-known error texts, JSON, unknown input -> exit 1.
# usage: explain.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
out=$tmp/out
case_() { # case_ WANT_RC PATTERN ARGS...
	local want=$1 pat=$2
	shift 2
	"$bin" explain "$@" >"$out" 2>&1
	local rc=$?
	if [ "$rc" != "$want" ] || ! grep -qiE -- "$pat" "$out"; then
		bad "explain $*: exit $rc (want $want), /$pat/:"; head -3 "$out"
	else
		ok "explain $*"
	fi
}
if "$bin" explain --help 2>&1 | grep -q "unknown command"; then
	die "$bin lacks the explain command (src/cli/cmd_explain.c not linked: link" \
		"gpuscope_core with --whole-archive)"
fi
case_ 0 "fallen off the bus" 79
case_ 0 "double bit ecc" xid 48
case_ 0 "no code for this GPU" "CUDA capability sm_120 is not compatible"
case_ 0 "CPU-only build" "torch.cuda.is_available() False"
case_ 0 "XID 79" "GPU has fallen off the bus"
case_ 0 "error code 43" "code 43"
case_ 0 "saved the GPU.s state" "GPU crash dump"
case_ 0 "TdrDelay" "TDR"
case_ 0 "newer than the CUDA version the driver" "driver version is insufficient"
case_ 0 "nvidia/cuda|NVIDIA_VISIBLE_DEVICES" "container without GPU"
case_ 0 "time-slicing" "MIG and time-slicing"
case_ 0 "batch size" "CUDA out of memory"
case_ 0 "SASS" "no kernel image is available for execution"
case_ 0 '"xid": 79' 79 --format json
case_ 0 '"id": "arch_unsupported"' --format json "sm_120 is not compatible"
case_ 1 "no explanation" "the weather is nice"
case_ 0 "XID 1: not used on Ampere" 1
case_ 0 "XID 172: " 172
case_ 0 "XID  79  critical GPU has fallen off the bus" --list
case_ 0 "XID 172" --list
case_ 0 "显存" --lang zh "CUDA out of memory"
case_ 0 "显存" --lang zh 显存不足
case_ 0 "out of memory" --lang en 显存不足
case_ 2 "en or zh" --lang fr 79
case_ 1 "not in gpuscope's catalogue" 12345
case_ 2 "needs" 
exit $fail
