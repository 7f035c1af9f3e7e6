#!/usr/bin/env bash
# import + export round trip on the synthetic kineto traces: import writes
# a database, export reads both it and the raw trace; perfetto output must
# parse and keep the format rules (check_perfetto.py); csv has headers; bad
# input gives one line, exit 1 and no output file.
# usage: import_export.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
fix=$src/tests/fixtures/kineto-synthetic
# The command table links cmd_import/cmd_export through weak symbols; a
# binary built without them cannot run this test (it says so, loudly).
if ! "$bin" --help | grep -q '^  import ' || ! "$bin" --help | grep -q '^  export '; then
	echo "SKIP: $bin has no import/export command (src/cli/cmd_import.c, cmd_export.c not linked in)"
	exit 0
fi

"$bin" import "$fix/small.json" -o "$tmp/a.db" >"$tmp/out" 2>"$tmp/err" && ok "import json" || { bad "import json"; cat "$tmp/err"; }
# results on stdout, chatter on stderr: "wrote FILE" and the counts go to stderr
grep -q "wrote '$tmp/a.db': 1 kernels, 3 copies, 1 memsets, 5 api calls" "$tmp/err" && ok "import counts" || { bad "import counts"; cat "$tmp/err"; }
[ -s "$tmp/out" ] && bad "import wrote to stdout" || ok "import: nothing on stdout"
"$bin" import "$fix/small.json.gz" -o "$tmp/b.db" >/dev/null 2>&1 && ok "import json.gz" || bad "import json.gz"
"$bin" import "$fix/small.json" -o "$tmp/a.db" >/dev/null 2>&1 && ok "re-import over a gpuscope db" || bad "re-import over a gpuscope db"
echo "precious" >"$tmp/notes.txt"
"$bin" import "$fix/small.json" -o "$tmp/notes.txt" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q precious "$tmp/notes.txt" && ok "refuses to overwrite a foreign file" || bad "refuses to overwrite a foreign file"

# the synthetic trace, and real H200 recordings (a CUDA pipeline on 4 streams, a PyTorch
# step recorded by gpuscope and the same step under torch.profiler)
h200=$src/tests/fixtures
for input in "$tmp/a.db" "$fix/small.json" "$fix/small.json.gz" "$h200/zoo/healthy_pipeline.db" \
	"$h200/pytorch/transformer_step.db" "$h200/pytorch/healthy_train.json.gz"; do
	[ -f "$input" ] || continue
	rm -f "$tmp/p.json"
	"$bin" export "$input" --format perfetto -o "$tmp/p.json" 2>"$tmp/err" || { bad "export perfetto $input"; cat "$tmp/err"; continue; }
	python3 -m json.tool "$tmp/p.json" >/dev/null && ok "perfetto json parses ($input)" || bad "perfetto json parses"
	python3 "$src/tests/import/check_perfetto.py" "$tmp/p.json" 10 || bad "check_perfetto $input"
	grep -q '"ph":"s"' "$tmp/p.json" && grep -q '"ph":"f","bp":"e"' "$tmp/p.json" && ok "flows present" || bad "flows present"
	grep -q '"name":"GPU 0 NVIDIA H200"' "$tmp/p.json" && ok "gpu process named" || bad "gpu process named"
	ls "$tmp" | grep -q 'tmp-' && bad "temporary file left behind"
done
"$bin" export "$fix/overlap.json" --format perfetto -o "$tmp/o.json" 2>/dev/null && python3 "$src/tests/import/check_perfetto.py" "$tmp/o.json" 3 && grep -q '(overlap 1)' "$tmp/o.json" && ok "overlapping slices moved to an overflow track" || bad "overlap handling"

"$bin" export "$tmp/a.db" --format csv -o "$tmp/csv" 2>"$tmp/err" && ok "export csv" || { bad "export csv"; cat "$tmp/err"; }
for f in kernels copies memsets api ranges samples syncs; do
	[ -f "$tmp/csv/$f.csv" ] || bad "missing $f.csv"
done
head -1 "$tmp/csv/kernels.csv" | grep -q '^start_ns,end_ns,dur_ns,pid,device,context,stream,correlation,name,grid_x' && ok "kernels.csv header" || bad "kernels.csv header"
python3 - "$tmp/csv" <<'PY' && ok "csv parses (RFC 4180)" || bad "csv parses"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/kernels.csv", newline="")))
assert len(rows) == 1 and rows[0]["name"] == "void gemm_kernel<float, 128>(float const*, float*)", rows
assert rows[0]["start_ns"] == "1733141234000130123" and rows[0]["grid_y"] == "2"
c = list(csv.DictReader(open(sys.argv[1] + "/copies.csv", newline="")))
assert [r["src_kind"] for r in c] == ["pageable", "device", "device"], c
PY

# bad input: one line on stderr, exit 1, no output left
printf '{"traceEvents": [ {"ph": "X", "cat": "kernel", "ts": 1' >"$tmp/trunc.json"
head -c 300 "$fix/small.json.gz" >"$tmp/trunc.json.gz"
head -c 4096 /dev/urandom >"$tmp/random.bin"
: >"$tmp/empty.json"
# a corrupt gzip header split across two reads: ISA-L 2.30 came back from it
# with its input count wrapped, and the next call crashed (fuzz_kineto)
cp "$src/tests/fuzz/corpus/kineto/isal-split-header.json.gz" "$tmp/split-header.json.gz"
for b in trunc.json trunc.json.gz random.bin empty.json split-header.json.gz; do
	"$bin" import "$tmp/$b" -o "$tmp/out-$b.db" >/dev/null 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc = 1 ] && [ "$lines" = 1 ] && [ ! -e "$tmp/out-$b.db" ] && ! ls "$tmp" | grep -q "out-$b.db.tmp"; then
		ok "bad input $b: $(cat "$tmp/err")"
	else
		bad "bad input $b: rc=$rc lines=$lines"; cat "$tmp/err"
	fi
	"$bin" export "$tmp/$b" --format perfetto -o "$tmp/x-$b.json" >/dev/null 2>&1
	[ $? = 1 ] && [ ! -e "$tmp/x-$b.json" ] && ok "export refuses $b" || bad "export refuses $b"
done

# Chrome trace-event files that are no torch.profiler trace are refused with
# what they are (kineto_post.c not_kineto), not reported as "no GPU work":
# gpuscope export's own Perfetto file (its API calls and copies are under
# its own categories: reported, it read as a launch-bound PyTorch run with
# no API calls), and a trace none of whose events kineto writes (a JAX/XLA
# profiler's, here its shape: device processes, events without cat)
"$bin" export "$src/examples/tiny-kernel-storm.db" --format perfetto -o "$tmp/own.json" 2>/dev/null
cat >"$tmp/xla.json" <<'JSON'
{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[
{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"ph":"X","pid":1,"tid":2,"ts":1000.5,"dur":12.25,"name":"fusion_1","args":{"hlo_op":"fusion_1"}},
{"ph":"X","pid":701,"tid":9,"ts":990.0,"dur":5.0,"name":"cuLaunchKernel","args":{"correlation_id":"7"}}]}
JSON
for c in "own.json:written by gpuscope export" "xla.json:not a PyTorch profiler (kineto) trace"; do
	f=${c%%:*} want=${c#*:}
	for cmd in report import; do
		out=()
		[ $cmd = import ] && out=(-o "$tmp/r-$f.db")
		"$bin" $cmd "$tmp/$f" "${out[@]}" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "$want" "$tmp/err" &&
			[ ! -s "$tmp/out" ] && [ ! -e "$tmp/r-$f.db" ] && ok "$cmd refuses $f: $(cat "$tmp/err")" ||
			{ bad "$cmd $f: rc=$rc"; cat "$tmp/err"; }
	done
done
# Nsight Systems' files are named as such: a report (by its name) and a
# SQLite export (by its tables); another SQLite database stays "not a
# gpuscope trace"
# (binary content that opens like JSON, which a sniffer would take: the
# name decides; random bytes alone made this test fail now and then)
{ printf ' {\n'; head -c 256 /dev/urandom; } >"$tmp/run.nsys-rep"
python3 - "$tmp" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1] + "/run.sqlite")
c.execute("create table StringIds (id integer primary key, value text)")
c.execute("create table CUPTI_ACTIVITY_KIND_KERNEL (start int, end int, deviceId int)")
c.commit()
c = sqlite3.connect(sys.argv[1] + "/other.sqlite")
c.execute("create table notes (x)")
c.commit()
PY
for c in "run.nsys-rep:an Nsight Systems report" "run.sqlite:an Nsight Systems SQLite export" \
	"other.sqlite:a sqlite database but not a gpuscope trace"; do
	f=${c%%:*} want=${c#*:}
	"$bin" report "$tmp/$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "$want" "$tmp/err" &&
		ok "report refuses $f: $(cat "$tmp/err")" || { bad "report $f: rc=$rc"; cat "$tmp/err"; }
done
# Other tools' profiles are named with what to do instead: JAX's real
# trace viewer JSON and XPlane file (tests/fixtures/foreign), an execution
# trace, an Nsight Compute report, a pickle (a memory snapshot); and a
# directory of them, or a log directory whose runs are subdirectories
fx="$src/tests/fixtures/foreign"
printf '{"schema": "1.1.1-chakra.0.0.4", "pid": 7, "nodes": [{"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 0}]}' >"$tmp/et.json"
printf 'NVIDIA Nsight Compute report, not really' >"$tmp/k.ncu-rep"
python3 -c 'import pickle, sys; pickle.dump({"segments": [], "device_traces": []}, open(sys.argv[1], "wb"))' "$tmp/snap.pickle"
mkdir -p "$tmp/tb/plugins/profile/run1" "$tmp/xp" "$tmp/log/run7" "$tmp/nothing"
cp "$fx/jax-cpu.xplane.pb" "$tmp/tb/plugins/profile/run1/host.xplane.pb"
cp "$fx/jax-cpu.xplane.pb" "$tmp/xp/"
cp "$src/tests/fixtures/real/triton_fused.json.gz" "$tmp/log/run7/h_1.1.pt.trace.json.gz"
for c in "$fx/jax-cpu.perfetto_trace.json.gz:a JAX/TensorFlow (XLA) profiler trace" \
	"$fx/jax-cpu.xplane.pb:is an XLA profiler file" "$tmp/et.json:a PyTorch execution trace" \
	"$tmp/k.ncu-rep:an Nsight Compute report" "$tmp/snap.pickle:a Python pickle" \
	"$tmp/tb:only a TensorBoard profile" "$tmp/xp:only XLA profiler files" \
	"$tmp/log:its subdirectory 'run7' does" "$tmp/nothing:holds no trace (.db, .json, .json.gz)$"; do
	f=${c%%:*} want=${c#*:}
	"$bin" report "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "$want" "$tmp/err" && [ ! -s "$tmp/out" ] &&
		ok "report names ${f#"$tmp"/}: $(cat "$tmp/err")" || { bad "report ${f#"$tmp"/}: rc=$rc"; cat "$tmp/err"; }
done
"$bin" import "$fx/jax-cpu.perfetto_trace.json.gz" -o "$tmp/jax.db" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && [ ! -e "$tmp/jax.db" ] && grep -q "(XLA) profiler trace" "$tmp/err" &&
	ok "import names a JAX trace" || { bad "import of a JAX trace"; cat "$tmp/err"; }
"$bin" report "$tmp/log/run7" >"$tmp/out" 2>"$tmp/err" && grep -q "^VERDICT" "$tmp/out" &&
	ok "the subdirectory named reports" || { bad "report of the named subdirectory"; cat "$tmp/err"; }
# an empty torch.profiler trace (kineto's schemaVersion, no events it maps)
# is still a trace with nothing to diagnose
printf '{"schemaVersion": 1, "traceEvents": [{"ph": "i", "cat": "Trace", "name": "x", "pid": 1, "tid": 1, "ts": 5}]}' >"$tmp/empty-kineto.json"
"$bin" report "$tmp/empty-kineto.json" >"$tmp/out" 2>"$tmp/err" &&
	grep -q "nothing to diagnose" "$tmp/out" && ok "an empty torch.profiler trace: nothing to diagnose" ||
	{ bad "empty torch.profiler trace"; cat "$tmp/out" "$tmp/err"; }
exit $fail
