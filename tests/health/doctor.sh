#!/usr/bin/env bash
# doctor CLI: on a machine without a driver it says so and exits 3; kernel-log fixtures give
# xid findings with code and pci in JSON; --binary lists the fixture's SM architectures;
# hostile inputs do not crash it. usage: doctor.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
fx=$src/tests/fixtures
out=$tmp/out
err=$tmp/err
export GPUSCOPE_DOCTOR_NO_PYTHON=1
run() { # run DESC EXPECTED_RC ARGS...
	local desc=$1 want=$2
	shift 2
	"$bin" "$@" >"$out" 2>"$err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		bad "$desc: exit $rc, want $want"; head -5 "$err"
	else
		ok "$desc"
	fi
}
want() { # want DESC PATTERN (text lines wrapped at 100 columns are joined first)
	if sed -e ':a;N;$!ba;s/\n   *\([^ [-]\)/ \1/g' "$out" | grep -qE -- "$2"; then ok "$1"; else
		bad "$1 (no /$2/)"; fi
}
if "$bin" doctor --help 2>&1 | grep -q "unknown command"; then
	die "$bin lacks the doctor command (src/cli/cmd_doctor.c not linked: weak symbols" \
		"are not pulled from a static archive; link gpuscope_core with --whole-archive)"
fi
run "help" 0 doctor --help
run "bad option" 2 doctor --bogus
run "bad format" 2 doctor --format xml
run "missing value" 2 doctor --kernel-log
if [ ! -e /proc/driver/nvidia/version ] && ! ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so.1; then
	run "no driver: exit 3" 3 doctor --kernel-log "$fx/kernel-logs/old-forms.log"
	want "no driver said plainly" "No NVIDIA driver"
	want "no_driver finding" "no_driver"
	run "no driver json" 3 doctor --format json --kernel-log "$fx/kernel-logs/raw.log"
	want "json schema" '"schema": "gpuscope.doctor.v1"'
	want "json no_driver" '"id": "no_driver"'
	python3 - "$out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
x = [f for f in d["findings"] if f["id"] == "xid"]
codes = sorted((f["evidence"]["code"], f["evidence"]["pci"]) for f in x)
assert codes == [(48, "0000:86:00"), (79, "0000:3b:00")], codes
assert all(c["status"] in ("ok", "warning", "fail", "skipped") for c in d["checks"])
print("ok: json xid evidence.code/pci")
PY
fi
for f in raw dmesg-T syslog mig old-forms malformed binary huge-line; do
	"$bin" doctor --kernel-log "$fx/kernel-logs/$f.log" >"$out" 2>"$err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then bad "$f.log: exit $rc"; else ok "$f.log"; fi
done
run "unreadable kernel log is a failed check" 3 doctor --kernel-log /nonexistent/log
want "kernel_log fail" "fail +kernel_log"
"$bin" doctor --binary "$fx/fatbin/tiny_sm80_sm90.o" >"$out" 2>"$err"
want "binary archs" "sm_80 sm_90 compute_90"
"$bin" doctor --binary "$fx/kernel-logs/binary.log" >"$out" 2>"$err"
want "random bytes: clear error" "not an ELF file"
# #21 item 10: a directory, an empty file, /dev/zero and a corrupt fatbinary are not "ok"
run "kernel log directory" 3 doctor --kernel-log "$fx"
want "kernel log directory: says so" "fail +kernel_log +'.*' is a directory"
: >"$err.empty"
run "empty kernel log" 3 doctor --kernel-log "$err.empty"
want "empty kernel log: says so" "warning +kernel_log +'.*' is empty"
rm -f "$err.empty"
if timeout 60 "$bin" doctor --kernel-log /dev/zero >"$out" 2>"$err"; then :; fi
want "/dev/zero: stops and says so" "warning +kernel_log +stopped after 64 MiB"
run "binary directory" 3 doctor --binary "$fx"
want "binary directory: says so" "fail +binary_arch +'.*' is a directory"
python3 - "$fx/fatbin/tiny_sm80_sm90.o" "$out.o" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.find(bytes.fromhex("50ed55ba"))
d[i:i + 4] = b"\0\0\0\0"
open(sys.argv[2], "wb").write(d)
PY
run "corrupt fatbinary" 3 doctor --binary "$out.o"
want "corrupt fatbinary: fail" "fail +binary_arch +corrupt fatbinary section"
rm -f "$out.o"
"$bin" doctor --binary /bin/sh >"$out" 2>"$err"
want "elf without fatbin" "no CUDA fatbinary"
# a fake torch package on PYTHONPATH: CPU-only build, and its libtorch_cuda.so arch list
ft=$tmp/ft
mkdir -p "$ft/torch/lib"
cp "$fx/fatbin/tiny_sm80_sm90.o" "$ft/torch/lib/libtorch_cuda.so"
printf 'class version:\n    cuda = None\nclass cuda:\n    @staticmethod\n    def is_available(): return False\n' >"$ft/torch/__init__.py"
if command -v python3 >/dev/null; then
	env -u GPUSCOPE_DOCTOR_NO_PYTHON PYTHONPATH="$ft" "$bin" doctor --kernel-log "$fx/kernel-logs/mig.log" >"$out" 2>"$err"
	want "cpu-only torch" "cpu_only_framework"
	want "libtorch_cuda.so archs" "libtorch_cuda.so: sm_80 sm_90"
fi
rm -rf "$ft"
exit $fail
