#!/usr/bin/env bash
# workloads/capture-on-gpu.sh's plumbing on the CPU, so that the single H200
# run does not fail on a typo: the CUDA C program is stood in for by
# fake_spool's capture program (tests/record/fake_spool.c: a spool with
# cudaProfilerStart/Stop pairs and NVTX ranges "step") behind a wrapper that
# prints the CAPTURE line fake_spool's counts make. Checks: the script
# records each mode, every row matches, the no-cudaProfilerStart run says
# why, one archive with the databases and the table comes back, the PyTorch
# runs say they were skipped (no torch here); and a wrapper that claims a
# wrong count makes the script fail with a FAIL row.
# usage: capture_on_gpu.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
fake=$(dirname "$bin")/fake_spool
[ -x "$fake" ] || die "$fake not built"

# the stand-in: fake_spool capture's counts (see its header): all 10,
# cudaProfilerApi 7, nvtx:step 4, --delay 0.5 4 (the kernels from 1 s on),
# cudaProfilerApi --duration 0.025 2; --no-profiler: fake_spool's replay
# program (no cudaProfilerStart at all)
mk() { # mk DIR PROFILER_COUNT
	mkdir -p "$1"
	cat >"$1/capture_ranges" <<EOF
#!/usr/bin/env bash
if [ "\${1:-}" = --no-profiler ]; then
	"$fake" || exit 1
	echo "WORKLOAD name=capture_ranges kernels=3 memcpy=0 memset=0 sync=0"
	echo "CAPTURE all=3 profiler=0 nvtx=0 nvtx_name=step delay_s=0 after_delay=3 duration_s=0.025 profiler_duration=0 pre_end_s=0.01"
	exit 0
fi
"$fake" capture || exit 1
echo "WORKLOAD name=capture_ranges kernels=10 memcpy=0 memset=0 sync=0"
echo "CAPTURE all=10 profiler=$2 nvtx=4 nvtx_name=step delay_s=0.5 after_delay=4 duration_s=0.025 profiler_duration=2 pre_end_s=0.03"
EOF
	chmod +x "$1/capture_ranges"
}
# the script asks for nvtx:capture_me; the stand-in's ranges are "step"
script=$tmp/capture-on-gpu.sh
sed 's/nvtx:capture_me/nvtx:step/g' "$src/workloads/capture-on-gpu.sh" >"$script"
mkdir -p "$tmp/repo/workloads"
cp "$script" "$tmp/repo/workloads/capture-on-gpu.sh"

mk "$tmp/bin" 7
OUT=$tmp/out GPUSCOPE=$bin BIN=$tmp/bin PYTHON=python3 CAPTURE_WAIT_S=1.0 BUDGET_S=120 \
	bash "$tmp/repo/workloads/capture-on-gpu.sh" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ -n "${VERBOSE:-}" ] && cat "$tmp/stdout"
[ $rc = 0 ] || bad "script exit $rc: $(cat "$tmp/stdout")"
for r in c_all c_profiler c_nvtx c_delay c_duration c_noprofiler; do
	grep -Eq "^$r +ok " "$tmp/stdout" || bad "no ok row for $r: $(grep "^$r" "$tmp/stdout")"
done
grep -q "^c_noprofiler .*status='nothing was captured: the program never called cudaProfilerStart" \
	"$tmp/stdout" || bad "the no-start run does not say why: $(grep '^c_noprofiler' "$tmp/stdout")"
grep -q "^c_profiler .*windows=2 " "$tmp/stdout" || bad "cudaProfilerApi: not 2 windows"
grep -q "^t_\* .*skipped (no torch" "$tmp/stdout" || bad "the PyTorch runs do not say they were skipped"
[ "$(tail -1 "$tmp/stdout" | sed 's/;.*//')" = "failures: 0" ] || bad "last line: $(tail -1 "$tmp/stdout")"
[ "$(ls "$tmp/out")" = capture-results.tar.gz ] || bad "OUT holds: $(ls "$tmp/out")"
tar -tzf "$tmp/out/capture-results.tar.gz" >"$tmp/list" || bad "archive unreadable"
for f in table.txt run.log c_all.db c_profiler.db c_profiler.report.txt c_profiler.report.json \
	c_noprofiler.db c_delay.out; do
	grep -q "^\./$f$" "$tmp/list" || bad "archive lacks $f"
done
[ -z "$(find /tmp -maxdepth 1 -name 'gs-capture-gpu.*' -newer "$script" 2>/dev/null)" ] ||
	bad "scratch folder left behind"

# a wrong count is a failure, with a FAIL row
mk "$tmp/bin2" 8
OUT=$tmp/out2 GPUSCOPE=$bin BIN=$tmp/bin2 PYTHON=python3 CAPTURE_WAIT_S=1.0 BUDGET_S=120 \
	bash "$tmp/repo/workloads/capture-on-gpu.sh" >"$tmp/stdout2" 2>/dev/null &&
	bad "a wrong count passed"
grep -Eq "^c_profiler +FAIL +8 +7 " "$tmp/stdout2" || bad "no FAIL row: $(grep '^c_profiler' "$tmp/stdout2")"
bash -n "$src/workloads/capture-on-gpu.sh" || bad "bash -n"
[ $fail = 0 ] && ok "capture-on-gpu.sh plumbing"
exit $fail
