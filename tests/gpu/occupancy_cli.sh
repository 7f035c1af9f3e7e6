#!/usr/bin/env bash
# occupancy CLI: JSON fields and values, exit 2 on each class of bad input.
# usage: occupancy_cli.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
out=$tmp/out errf=$tmp/err
run() { "$bin" occupancy "$@" >"$out" 2>"$errf"; }
run --arch sm_90 --block-size 256 --regs 64 --grid 1056 --format json
[ $? = 0 ] || { bad "json run"; cat "$errf"; }
for kv in '"active_blocks_per_sm": 4' '"theoretical_occupancy": 0.5' '"limiter": "registers"' \
	'"active_warps_per_sm": 32' '"max_warps_per_sm": 64' '"limit_warps": 8' '"limit_blocks": 32' \
	'"limit_regs": 4' '"limit_smem": 228' '"waves": 2'; do
	grep -qF "$kv" "$out" || { bad "json lacks $kv"; cat "$out"; }
done
run --arch 9.0 --block-size 32 --regs 32
[ $? = 0 ] && grep -q 'limiter *blocks' "$out" || { bad "text run"; cat "$out" "$errf"; }
refused() { # refused DESC ARGS...: exit 2 and exactly one line on stderr
	local desc=$1
	shift
	run "$@"
	local rc=$?
	if [ $rc != 2 ] || [ "$(wc -l <"$errf")" != 1 ]; then
		bad "$desc: exit $rc"; cat "$errf"
	else
		ok "$desc"
	fi
}
refused "block > 1024" --arch sm_90 --block-size 1025 --regs 32
refused "block < 1" --arch sm_90 --block-size 0 --regs 32
refused "regs > 255" --arch sm_90 --block-size 256 --regs 256
refused "negative regs" --arch sm_90 --block-size 256 --regs -1
refused "negative smem" --arch sm_90 --block-size 256 --regs 32 --smem -4
refused "smem beyond max" --arch sm_90 --block-size 256 --regs 32 --smem 300000
refused "smem beyond sm_86 max" --arch sm_86 --block-size 256 --regs 32 --smem 102400
refused "unknown arch" --arch sm_91 --block-size 256 --regs 32
refused "junk number" --arch sm_90 --block-size 12abc --regs 32
refused "junk arch" --arch banana --block-size 256 --regs 32
refused "negative grid" --arch sm_90 --block-size 256 --regs 32 --grid -3
refused "missing --arch" --block-size 256 --regs 32
refused "missing --regs" --arch sm_90 --block-size 256
refused "missing --block-size" --arch sm_90 --regs 32
refused "missing value" --arch sm_90 --block-size 256 --regs
refused "unknown option" --arch sm_90 --block-size 256 --regs 32 --frob 1
refused "bad format" --arch sm_90 --block-size 256 --regs 32 --format xml
exit $fail
