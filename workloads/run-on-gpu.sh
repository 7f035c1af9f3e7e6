#!/usr/bin/env bash
# run-on-gpu.sh - the one script the lead runs on the H200 (issue 3, items 6-7):
#   bash workloads/run-on-gpu.sh        (repo root, $OUT set by the device tool)
# Needs, carried from the build machine: build/gpuscope, build/libgpuscope-inject.so,
# build/libgpuscope-preload.so,
# .gpu/bin/* (workloads/build-zoo.sh; occupancy-sweep if workloads/occupancy/build.sh ran).
# Stages (each guarded and timed; a failing stage is logged and the script goes on):
#   a env: nvidia-smi, gpuscope doctor      b occupancy sweep
#   c zoo: untraced, then `gpuscope record`, row counts vs the WORKLOAD line, report
#   d PyTorch: record (PYSTEPS steps, fixture-sized), --profile (kineto, gzipped), report
#   e torch.profiler inside a recorded program (two CUPTI clients)
#   robust: SIGKILL / os._exit / SIGTERM / overwrite refusal
#   capture: recording paused and resumed by the program (gpuscope_capture)
#   procs: several processes (fork+exec tree, spawn, fork, DataLoader workers,
#          subprocess, torchrun ranks) and launches through the driver API
#          (plain C, Triton): per-pid rows vs each process's PROC line
#   f bench/record-overhead.sh (reduced: BENCH_REPS=5)
#   g pack everything into $OUT/results.tar.gz (< 16 MiB) and print the table last
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
RES=${RES:-/tmp/gpuscope-results}
G=${GPUSCOPE:-$PWD/build/gpuscope}
BIN=${BIN:-$PWD/.gpu/bin}
PY=${PYTHON:-python3}
BUDGET=${BUDGET_S:-540} # whole script; stays under 9 minutes with the packing
BENCH_REPS=${BENCH_REPS:-5}
export PATH="/usr/local/cuda/bin:$PATH"
rm -rf "$RES"
mkdir -p "$OUT" "$RES"/env "$RES"/zoo "$RES"/pytorch "$RES"/conflict "$RES"/bench
: >"$RES/table.txt"
: >"$RES/stages.txt"

ZOO="tiny_kernel_storm graph_storm pageable_copies pinned_copies sync_every_step small_grid
register_pressure uncoalesced coalesced divergent_warps bank_conflicts bandwidth_stream
fma_bound healthy_pipeline"
PYW=${PYW:-dataloader_starved small_ops item_every_step bf16_gemm healthy_train transformer_step}
declare -A PRIMARY=(
	[tiny_kernel_storm]=launch_overhead [graph_storm]=launch_overhead
	[pageable_copies]=transfer [pinned_copies]=transfer [sync_every_step]=sync_stall
	[small_grid]=small_grid [register_pressure]=low_occupancy [uncoalesced]=latency_bound
	[coalesced]=latency_bound [divergent_warps]=latency_bound [bank_conflicts]=latency_bound
	[bandwidth_stream]=memory_bound [fma_bound]=compute_bound
	[healthy_pipeline]=compute_bound [dataloader_starved]=input_pipeline
	[small_ops]=launch_overhead [item_every_step]=sync_stall [bf16_gemm]=compute_bound
	[healthy_train]=gpu_busy [transformer_step]=launch_overhead
	[driver_api]=launch_overhead
)
# steps of the recorded PyTorch runs: small enough to commit the databases as fixtures
declare -A PYSTEPS=(
	[dataloader_starved]=20 [small_ops]=1000 [item_every_step]=100 [bf16_gemm]=20
	[healthy_train]=5 [transformer_step]=10
)
# SKIP="occupancy bench ...": stages to leave out
SKIP=${SKIP:-}

log() { echo "[run-on-gpu $(date -u +%H:%M:%S) +${SECONDS}s] $*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
left() { echo $((BUDGET - SECONDS)); }
# lim N: a timeout of N seconds, cut to what is left of the budget (at least 5)
lim() {
	local l
	l=$(($(left) - 20))
	[ "$l" -lt "$1" ] && { [ "$l" -lt 5 ] && l=5; echo "$l"; return; }
	echo "$1"
}

# stage NAME FUNC: run FUNC, log its exit status and duration
stage() {
	local name=$1 t0 rc
	shift
	case " $SKIP " in *" $name "*)
		log "stage '$name' skipped (SKIP)"
		echo "$name skipped (SKIP)" >>"$RES/stages.txt"
		return ;;
	esac
	if [ "$(left)" -lt 30 ]; then
		log "stage '$name' skipped: time budget spent"
		echo "$name skipped (budget)" >>"$RES/stages.txt"
		return
	fi
	log "stage '$name' begins"
	t0=$SECONDS
	"$@"
	rc=$?
	log "stage '$name' done rc=$rc in $((SECONDS - t0))s"
	printf '%-12s rc=%-3s %4ss\n' "$name" "$rc" "$((SECONDS - t0))" >>"$RES/stages.txt"
}

# counts DB: kernels=.. copies=.. memsets=.. api_calls=.. syncs=.. ranges=.. dropped=..
counts() {
	local db=$1 t out=""
	[ -f "$db" ] || { echo "kernels=NA copies=NA memsets=NA api_calls=NA syncs=NA ranges=NA dropped=NA"; return; }
	if command -v sqlite3 >/dev/null 2>&1; then
		for t in kernels copies memsets api_calls syncs ranges; do
			out="$out $t=$(sqlite3 -readonly "$db" "SELECT count(*) FROM $t" 2>/dev/null || echo NA)"
		done
		echo "${out# } dropped=$(sqlite3 -readonly "$db" 'SELECT coalesce(sum(dropped_records),0) FROM processes' 2>/dev/null || echo NA)"
	else
		"$PY" workloads/count_rows.py "$db" 2>/dev/null || echo "kernels=NA copies=NA memsets=NA api_calls=NA syncs=NA ranges=NA dropped=NA"
	fi
}
# field KEY LINE: the value of KEY=... in LINE, NA if absent
field() { local v; v=$(sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"); echo "${v:-NA}"; }
# primary REPORT.json: the "primary" finding id, NA if none
primary() {
	"$PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("primary") or "none")' "$1" 2>/dev/null || echo NA
}

stage_env() {
	nvidia-smi -q >"$RES/env/nvidia-smi-q.txt" 2>&1
	nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,utilization.gpu,mig.mode.current,persistence_mode --format=csv 2>&1 | tee "$RES/env/nvidia-smi.csv" >&2
	{
		uname -a
		head -3 /etc/os-release 2>/dev/null
		/usr/local/cuda/bin/nvcc --version 2>&1 | tail -2
		"$PY" -c 'import torch; print("torch", torch.__version__, torch.version.cuda, torch.cuda.is_available())' 2>&1
		ldd "$G" 2>&1
		ls -l "$G" "$(dirname "$G")/libgpuscope-inject.so" "$BIN" 2>&1
	} >"$RES/env/versions.txt"
	# what one timestamp costs here (CUPTI stamps every record): bench/clock-cost.c
	[ -x "$BIN/clock-cost" ] && timeout "$(lim 30)" "$BIN/clock-cost" >"$RES/env/clock-cost.txt" 2>&1 &&
		grep -v siblings "$RES/env/clock-cost.txt" >&2
	timeout "$(lim 60)" "$G" doctor --format json >"$RES/doctor.json" 2>"$RES/env/doctor.err"
	local rc=$?
	timeout "$(lim 60)" "$G" doctor >"$RES/env/doctor.txt" 2>&1
	log "doctor --format json rc=$rc ($(wc -c <"$RES/doctor.json") bytes)"
	return $rc
}

# cap_log FILE: keep a log readable and the tarball small (head + tail past 1 MiB)
cap_log() {
	local f=$1
	[ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 1048576 ] || return 0
	{ head -n 2000 "$f"; echo "... [run-on-gpu: $(wc -l <"$f") lines, cut] ..."; tail -n 2000 "$f"; } >"$f.cut"
	mv "$f.cut" "$f"
}

# the zoo is normally built here and carried; build it there only if some binary is missing
stage_build() {
	local n missing=0
	for n in $ZOO; do [ -x "$BIN/$n" ] || missing=1; done
	[ $missing -eq 0 ] && { log "zoo binaries present in '$BIN'"; return 0; }
	log "zoo binaries missing: building with workloads/build-zoo.sh"
	BIN_DIR="$BIN" timeout "$(lim 120)" bash workloads/build-zoo.sh >"$RES/env/build-zoo.log" 2>&1
}

stage_occupancy() {
	if [ -x "$BIN/occupancy-sweep" ]; then
		timeout "$(lim 90)" "$BIN/occupancy-sweep" >"$RES/occupancy-sweep.csv" 2>"$RES/env/occupancy-sweep.err"
		local rc=$?
		log "occupancy-sweep rc=$rc, $(wc -l <"$RES/occupancy-sweep.csv") lines"
		return $rc
	fi
	log "no '$BIN/occupancy-sweep' (workloads/occupancy/build.sh not run); skipped"
	return 0
}

# add_row NAME EXP_K EXP_C EXP_S COUNTS MATCH UNTRACED_S TRACED_S PRIMARY_GOT
add_row() {
	printf '%s|%s/%s/%s|%s/%s/%s|%s|%s|%s|%s->%s\n' "$1" "$2" "$3" "$4" \
		"$(field kernels "$5")" "$(field copies "$5")" "$(field memsets "$5")" "$6" "$7" "$8" \
		"${PRIMARY[$1]:-?}" "$9" >>"$RES/table.txt"
}

stage_zoo() {
	local n d t0 t1 rc wl c ek ec es m ut tt p
	for n in $ZOO; do
		d="$RES/zoo"
		if [ ! -x "$BIN/$n" ]; then
			log "zoo: '$BIN/$n' missing"
			add_row "$n" NA NA NA "" missing NA NA NA
			continue
		fi
		t0=$(now)
		timeout "$(lim 60)" "$BIN/$n" >"$d/$n.untraced.out" 2>&1
		rc=$?
		t1=$(now)
		ut=$(elapsed "$t0" "$t1")
		wl=$(grep '^WORKLOAD ' "$d/$n.untraced.out" | tail -1)
		[ $rc -eq 0 ] || log "zoo: '$n' untraced exited $rc"
		rm -f "$d/$n.db"
		t0=$(now)
		GPUSCOPE_DEBUG=1 timeout "$(lim 90)" "$G" record -o "$d/$n.db" -- "$BIN/$n" \
			>"$d/$n.traced.out" 2>"$d/$n.record.log"
		rc=$?
		t1=$(now)
		tt=$(elapsed "$t0" "$t1")
		cap_log "$d/$n.record.log"
		[ $rc -eq 0 ] || log "zoo: '$n' under record exited $rc"
		if [ "$(grep '^WORKLOAD ' "$d/$n.traced.out" | tail -1)" != "$wl" ]; then
			log "zoo: '$n' WORKLOAD line differs traced vs untraced"
		fi
		c=$(counts "$d/$n.db")
		echo "$n $c" >>"$d/counts.txt"
		ek=$(field kernels "$wl")
		ec=$(field memcpy "$wl")
		es=$(field memset "$wl")
		if [ "$ek" = "$(field kernels "$c")" ] && [ "$ec" = "$(field copies "$c")" ] &&
			[ "$es" = "$(field memsets "$c")" ] && [ "$ek" != NA ] &&
			[ "$(field sync "$wl")" = "$(field syncs "$c")" ]; then
			m=yes
		else
			m=NO
		fi
		p=NA
		if [ -f "$d/$n.db" ]; then
			timeout "$(lim 60)" "$G" report "$d/$n.db" --format json >"$d/$n.report.json" 2>"$d/$n.report.err"
			timeout "$(lim 60)" "$G" report "$d/$n.db" >"$d/$n.report.txt" 2>&1
			p=$(primary "$d/$n.report.json")
		fi
		log "zoo: $n untraced=${ut}s traced=${tt}s expected[$wl] recorded[$c] match=$m primary=$p"
		add_row "$n" "$ek" "$ec" "$es" "$c" "$m" "$ut" "$tt" "$p"
	done
}

stage_pytorch() {
	local n d s t0 t1 rc c ut tt p pj
	if ! "$PY" -c 'import torch; assert torch.cuda.is_available()' 2>"$RES/pytorch/torch-check.err"; then
		log "pytorch: no CUDA torch under '$PY'"
		return 1
	fi
	for n in $PYW; do
		d="$RES/pytorch"
		s="workloads/pytorch/$n.py"
		ut=NA
		rm -f "$d/$n.db"
		t0=$(now)
		GPUSCOPE_DEBUG=1 timeout "$(lim 150)" "$G" record -o "$d/$n.db" -- "$PY" "$s" \
			--steps "${PYSTEPS[$n]:-10}" >"$d/$n.traced.out" 2>"$d/$n.record.log"
		rc=$?
		t1=$(now)
		tt=$(elapsed "$t0" "$t1")
		cap_log "$d/$n.record.log"
		[ $rc -eq 0 ] || log "pytorch: '$n' under record exited $rc"
		c=$(counts "$d/$n.db")
		echo "$n $c" >>"$d/counts.txt"
		timeout "$(lim 120)" "$PY" "$s" --profile "$d/$n.json" >"$d/$n.profile.out" 2>&1 ||
			log "pytorch: '$n' --profile failed"
		[ -f "$d/$n.json" ] && gzip -f "$d/$n.json"
		p=NA
		pj=NA
		if [ -f "$d/$n.db" ]; then
			timeout "$(lim 60)" "$G" report "$d/$n.db" --format json >"$d/$n.report.json" 2>"$d/$n.report.err"
			p=$(primary "$d/$n.report.json")
		fi
		if [ -f "$d/$n.json.gz" ]; then
			timeout "$(lim 60)" "$G" report "$d/$n.json.gz" --format json >"$d/$n.kineto-report.json" 2>"$d/$n.kineto-report.err"
			pj=$(primary "$d/$n.kineto-report.json")
		fi
		log "pytorch: $n untraced=${ut}s traced=${tt}s recorded[$c] primary(db)=$p primary(kineto)=$pj"
		add_row "$n" "-" "-" "-" "$c" "n/a" "$ut" "$tt" "$p,kineto:$pj"
	done
}

stage_conflict() {
	local d="$RES/conflict" rc
	rm -f "$d/profiler_conflict.db"
	GPUSCOPE_DEBUG=1 timeout "$(lim 120)" "$G" record -o "$d/profiler_conflict.db" -- \
		"$PY" workloads/pytorch/profiler_conflict.py >"$d/out.txt" 2>"$d/record.log"
	rc=$?
	cap_log "$d/record.log"
	{
		echo "record exit: $rc"
		grep -E '^(CONFLICT|WORKLOAD)' "$d/out.txt"
		echo "rows: $(counts "$d/profiler_conflict.db")"
		if [ -f "$d/profiler_conflict.db" ]; then
			"$PY" - "$d/profiler_conflict.db" <<'PYEOF'
import sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
try:
    for k, v in con.execute("SELECT key, value FROM meta"):
        print(f"meta {k} = {v}")
    for row in con.execute("SELECT p.pid, p.dropped_records, s.value FROM processes p"
                           " LEFT JOIN strings s ON s.id = p.status_id"):
        print("process pid=%s dropped=%s status=%s" % row)
except sqlite3.Error as e:
    print("sqlite:", e)
PYEOF
		fi
		echo "--- gpuscope messages (last 30 lines) ---"
		grep -viE '^\s*$' "$d/record.log" | tail -30
	} >"$d/summary.txt" 2>&1
	sed 's/^/  conflict: /' "$d/summary.txt" | head -25 >&2
	return $rc
}

# robustness of record (issue 3, item 5): SIGKILL of the program, os._exit,
# SIGTERM to the launcher; each database must open and hold the work done
# before the last periodic flush (1 s)
# working OUT: wait until the program has launched work (a first "launched"
# line; on a cold machine importing torch takes more than 6 s), then 4 s more
working() {
	local i
	for i in $(seq 120); do
		grep -q '^launched' "$1" 2>/dev/null && break
		sleep 0.5
	done
	sleep 4
}

stage_robust() {
	local d="$RES/robust" rc pid
	mkdir -p "$d"
	# (1) SIGKILL of the program after ~4 s of work
	rm -f "$d/kill9.db"
	"$G" record -o "$d/kill9.db" -- "$PY" workloads/robust/steady.py >"$d/kill9.out" 2>"$d/kill9.log" &
	pid=$!
	working "$d/kill9.out"
	pkill -9 -P $pid
	wait $pid
	rc=$?
	echo "kill9: record exit $rc; last: $(tail -1 "$d/kill9.out"); rows: $(counts "$d/kill9.db")" >>"$d/summary.txt"
	# (2) os._exit(7) after ~3 s of work and a 1.6 s pause
	rm -f "$d/osexit.db"
	timeout "$(lim 60)" "$G" record -o "$d/osexit.db" -- "$PY" workloads/robust/steady.py 3 7 >"$d/osexit.out" 2>"$d/osexit.log"
	rc=$?
	echo "os._exit(7): record exit $rc; last: $(tail -1 "$d/osexit.out"); rows: $(counts "$d/osexit.db")" >>"$d/summary.txt"
	# (2b) os._exit(5) right after the last synchronize, no pause: the
	# records since the last periodic flush survive only through the _exit
	# shim (src/preload/preload.c); expected: launched + 1 kernels
	rm -f "$d/osexit0.db"
	timeout "$(lim 60)" "$G" record -o "$d/osexit0.db" -- "$PY" workloads/robust/steady.py 3 5 0 >"$d/osexit0.out" 2>"$d/osexit0.log"
	rc=$?
	echo "os._exit(5), no pause: record exit $rc; last: $(tail -1 "$d/osexit0.out"); rows: $(counts "$d/osexit0.db")" >>"$d/summary.txt"
	# (3) SIGTERM to the launcher (forwarded to the program)
	rm -f "$d/term.db"
	"$G" record -o "$d/term.db" -- "$PY" workloads/robust/steady.py >"$d/term.out" 2>"$d/term.log" &
	pid=$!
	working "$d/term.out"
	at=$(tail -1 "$d/term.out")
	kill -TERM $pid
	wait $pid
	rc=$?
	echo "SIGTERM: record exit $rc; at the signal: $at; last: $(tail -1 "$d/term.out"); rows: $(counts "$d/term.db")" >>"$d/summary.txt"
	# (3b) SIGTERM to the launcher, the program handling it (sys.exit(3)):
	# its handler runs, nothing is held, the exit code is the program's
	rm -f "$d/termh.db"
	"$G" record -o "$d/termh.db" -- "$PY" workloads/robust/steady.py handler >"$d/termh.out" 2>"$d/termh.log" &
	pid=$!
	working "$d/termh.out"
	kill -TERM $pid
	wait $pid
	rc=$?
	echo "SIGTERM, program's handler: record exit $rc; last: $(tail -1 "$d/termh.out"); rows: $(counts "$d/termh.db")" >>"$d/summary.txt"
	# (4) refuses to overwrite a file that is not a gpuscope database
	echo "precious" >"$d/not-a-db.txt"
	"$G" record -o "$d/not-a-db.txt" -- true >"$d/overwrite.out" 2>&1
	echo "overwrite non-db: exit $? content: $(cat "$d/not-a-db.txt")" >>"$d/summary.txt"
	for f in kill9 osexit osexit0 term termh; do
		[ -f "$d/$f.db" ] && "$G" report "$d/$f.db" >"$d/$f.report.txt" 2>&1
		echo "$f report exit $?" >>"$d/summary.txt"
		# how the process ended, as record stored it (spool.h, invariant 6)
		[ -f "$d/$f.db" ] && "$PY" -c 'import sqlite3,sys
c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
for pid, st in c.execute("SELECT p.pid, s.value FROM processes p LEFT JOIN strings s ON s.id = p.status_id"):
    st = st or "(complete)"
    print(f"  {sys.argv[2]} pid {pid} status: {st}")' "$d/$f.db" "$f" >>"$d/summary.txt" 2>&1
		rm -f "$d/$f.db"
	done
	sed 's/^/  robust: /' "$d/summary.txt" >&2
}

# gpuscope_capture: the kernels of paused phases stay out, exactly
# (workloads/robust/capture.py); report says recording was paused
stage_capture() {
	local d="$RES/capture" want got
	mkdir -p "$d"
	rm -f "$d/capture.db"
	GPUSCOPE_CAPTURE=off timeout "$(lim 60)" "$G" record -o "$d/capture.db" -- \
		"$PY" workloads/robust/capture.py >"$d/capture.out" 2>"$d/capture.log"
	echo "record exit $?" >"$d/summary.txt"
	want=$(sed -n 's/^EXPECT kernels=\([0-9]*\).*/\1/p' "$d/capture.out")
	got=$(counts "$d/capture.db" | sed -n 's/.*kernels=\([0-9]*\).*/\1/p')
	"$G" report "$d/capture.db" >"$d/report.txt" 2>&1
	echo "capture: expected kernels ${want:-NA}, recorded ${got:-NA}, $([ -n "$want" ] && [ "$want" = "$got" ] && echo exact || echo MISMATCH); report: $(grep -c 'paused' "$d/report.txt") line(s) on the pause" >>"$d/summary.txt"
	grep paused "$d/report.txt" >>"$d/summary.txt"
	cat "$d/summary.txt" >&2
	[ "$want" = "$got" ]
}

# several processes and the driver API (issue 3, item 4; "runtime or driver
# API"): workloads/procs/check_procs.py compares each process's PROC line with
# the rows of its pid
# procs_case NAME CMD...: record CMD into procs/NAME.db and check it
procs_case() {
	local name=$1 d="$RES/procs" rc
	shift
	rm -f "$d/$name.db"
	GPUSCOPE_DEBUG=1 timeout "$(lim 120)" "$G" record -o "$d/$name.db" -- "$@" \
		>"$d/$name.out" 2>"$d/$name.log"
	rc=$?
	cap_log "$d/$name.log"
	{
		echo "== $name: record exit $rc"
		if [ -f "$d/$name.db" ]; then
			"$PY" workloads/procs/check_procs.py "$d/$name.db" "$d/$name.out"
			timeout "$(lim 60)" "$G" report "$d/$name.db" >"$d/$name.report.txt" 2>&1
			echo "report exit $?"
			timeout "$(lim 60)" "$G" report "$d/$name.db" --format json >"$d/$name.report.json" 2>/dev/null
			echo "primary $(primary "$d/$name.report.json")"
		else
			echo "PROCS name=$name match=NO (no database)"
		fi
	} >>"$d/summary.txt" 2>&1
}

stage_procs() {
	local d="$RES/procs" wl m
	mkdir -p "$d"
	: >"$d/summary.txt"
	if [ -x "$BIN/multi_process" ]; then
		procs_case multi_process "$BIN/multi_process"
	fi
	if [ -x "$BIN/driver_api" ]; then
		# its PROC line carries the WORKLOAD counts; check_procs.py judged them
		procs_case driver_api "$BIN/driver_api"
		wl=$(grep '^WORKLOAD ' "$d/driver_api.out" | tail -1)
		m=$(sed -n 's/^PROCS name=driver_api .*match=\([a-zA-Z]*\).*/\1/p' "$d/summary.txt")
		add_row driver_api "$(field kernels "$wl")" "$(field memcpy "$wl")" \
			"$(field memset "$wl")" "$(counts "$d/driver_api.db")" "${m:-NO}" NA NA \
			"$(primary "$d/driver_api.report.json")"
	fi
	if "$PY" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
		local mode
		for mode in ${PROCS_MODES:-spawn fork dataloader subprocess triton}; do
			procs_case "py_$mode" "$PY" workloads/procs/multiproc.py "$mode"
		done
		procs_case py_torchrun "$PY" -m torch.distributed.run --standalone --nproc_per_node=2 \
			workloads/procs/multiproc.py rank
	fi
	grep -E '^(==|PROCS|report exit|primary)' "$d/summary.txt" | sed 's/^/  procs: /' >&2
	! grep -q 'match=NO' "$d/summary.txt"
}

stage_bench() {
	# ns per CUDA call by CUPTI kind (bench/api-cost.sh), when built; API_MODES= skips it
	local modes=${API_MODES-plain record record_sync k_drv}
	if [ -x "$BIN/api-cost" ] && [ -n "$modes" ]; then
		MODES=$modes RUNS=3 BIN="$BIN" GPUSCOPE="$G" \
			WORKDIR="$RES/bench/api-cost" timeout "$(lim 90)" bash bench/api-cost.sh \
			>"$RES/bench/api-cost.txt" 2>&1
		cat "$RES/bench/api-cost.txt" >&2
	fi
	# fewer samples when the budget runs short, so the table still comes out
	[ "$(left)" -lt 200 ] && BENCH_REPS=3 && log "bench: short of time, REPS=3"
	REPS=$BENCH_REPS ROUNDS=${BENCH_ROUNDS:-3} WORKDIR="$RES/bench" GPUSCOPE="$G" BIN="$BIN" \
		VARIANTS="${BENCH_VARIANTS-record_sync}" \
		PYTHON="$PY" timeout "$(lim "${BENCH_TIMEOUT_S:-330}")" bash bench/record-overhead.sh >"$RES/bench/record-overhead.txt" 2>&1
	local rc=$?
	tail -8 "$RES/bench/record-overhead.txt" >&2
	return $rc
}

stage_pack() {
	local tarball="$OUT/results.tar.gz" max=$((15 * 1024 * 1024)) big
	cp "$RES/table.txt" "$RES/stages.txt" "$OUT/" 2>/dev/null
	while :; do
		tar czf "$tarball" -C "$RES" . 2>/dev/null
		[ "$(stat -c %s "$tarball")" -le $max ] && break
		big=$(find "$RES" -type f ! -name table.txt ! -name stages.txt -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
		[ -n "$big" ] || break
		log "pack: results over 15 MiB, dropping '${big#"$RES"/}' ($(stat -c %s "$big") bytes)"
		echo "${big#"$RES"/} $(stat -c %s "$big")" >>"$RES/dropped-files.txt"
		rm -f "$big"
	done
	log "pack: $tarball $(stat -c %s "$tarball") bytes"
}

stage env stage_env
stage build stage_build
stage occupancy stage_occupancy
stage zoo stage_zoo
stage pytorch stage_pytorch
stage conflict stage_conflict
stage robust stage_robust
stage capture stage_capture
stage procs stage_procs
stage bench stage_bench
stage pack stage_pack

echo
echo "stage timings (total ${SECONDS}s):"
cat "$RES/stages.txt"
echo
cat "$RES/robust/summary.txt" "$RES/capture/summary.txt" 2>/dev/null
grep -E '^(==|PROCS)' "$RES/procs/summary.txt" 2>/dev/null
echo
grep -E '^(workload|tiny|small_ops|transformer|variant|inproc)' "$RES/bench/record-overhead.txt" 2>/dev/null
echo
{
	echo "workload|expected k/c/s|recorded k/c/s|match|untraced s|traced s|primary want->got"
	cat "$RES/table.txt"
} | if command -v column >/dev/null 2>&1; then column -t -s '|'; else sed 's/|/ | /g'; fi
