#!/usr/bin/env bash
# report's HOST WHILE THE GPU WAITED (src/analyze/hostwait.c) on real H200
# recordings with host samples (tests/fixtures/real/host/, xz-compressed;
# README.md there): the DataLoader-starved ResNet loop must be
# input_pipeline, its main thread must wait in the DataLoader's __next__ and
# its workers must run the transforms/decoders of the dataset's __getitem__;
# the findings must quote those functions as evidence.
# usage: host_wait.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
fx=$src/tests/fixtures/real/host
out=$build/host_wait_fixtures
mkdir -p "$out"
for x in "$fx"/*.db.xz; do
	db=$out/$(basename "$x" .xz)
	[ "$db" -nt "$x" ] && continue
	xz -dc "$x" >"$db.tmp" && mv "$db.tmp" "$db" || die "cannot decompress $x"
done

# holds NAME PYTHON: report's JSON (r) and text (text) of NAME.db pass
# PYTHON's assertions
holds() {
	local name=$1 code=$2
	"$bin" report --format json "$out/$name.db" >"$out/$name.json" 2>"$out/$name.err" || {
		bad "$name: report exited $?"
		cat "$out/$name.err"
		return
	}
	"$bin" report "$out/$name.db" >"$out/$name.txt" 2>&1 || bad "$name: text report exited $?"
	python3 - "$out/$name.json" "$out/$name.txt" <<PY || bad "$name: an assertion failed"
import json, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
hw = r["host_wait"]
assert hw is not None, "no host_wait section"
cls = {c["class"]: c for c in hw["classes"]}
def thread(c, role):
    return [t for t in cls[c]["threads"] if t["role"] == role]
def finding(fid):
    return next(f for f in r["findings"] if f["id"] == fid)
$code
print("ok: $name")
PY
}

holds tv_resnet_loader '
assert r["primary"] == "input_pipeline", r["primary"]
host = cls["host"]
# the class is the idle breakdown figure
assert abs(host["idle_ns"] - r["idle"]["host_ns"]) <= 1, (host["idle_ns"], r["idle"])
main = thread("host", "main")[0]
top = main["functions"][0]
# the main thread waits for a batch: inside the DataLoader iterator, called from the loop
assert "DataLoader" in top["call"] and "__next__" in top["call"], top
assert top["own"].startswith("step (tv_resnet_loader.py:"), top
assert top["share_pct"] >= 80, top
# both workers are there and run the dataset: decode/resize/to_tensor under __getitem__
workers = thread("host", "dataloader_worker")
assert len(workers) == 2, [t["pid"] for t in workers]
for w in workers:
    assert w["pid"] != main["pid"]
    f = w["functions"][0]
    assert "__getitem__ (tv_resnet_loader.py:" in f["own"], f
    assert any(k in f["inner"] for k in ("Image.", "ImageFile.", "to_tensor", "blend")), f
    assert f["share_pct"] < main["functions"][0]["share_pct"]
# shares never pass 100%, and a thread'"'"'s functions are sorted
for c in hw["classes"]:
    for t in c["threads"]:
        s = [f["share_pct"] for f in t["functions"]]
        assert s == sorted(s, reverse=True) and all(0 < v <= 100 for v in s), s
ip = finding("input_pipeline")["evidence"]
assert ip["host_function"] == top["function"], ip
assert ip["host_function_pct"] == top["share_pct"] or abs(ip["host_function_pct"] - top["share_pct"]) < 0.05
assert "__getitem__" in ip["worker_function"], ip
assert "HOST WHILE THE GPU WAITED" in text
assert "the main thread (pid %d) ran Condition.wait" % main["pid"] in text, text
assert "DataLoader worker (pid" in text
'
# the host-bound decode loop (transformers generate at batch 1): a host-side
# finding that is not input_pipeline, and the idle spent in the model's
# forward code inside generate (torch.no_grad's decorate_context stepped
# over), called from the program's step
holds hf_decode '
assert r["primary"] in ("launch_overhead", "host_overhead"), r["primary"]
assert not any(f["id"] == "input_pipeline" for f in r["findings"]), [f["id"] for f in r["findings"]]
assert abs(cls["launch"]["idle_ns"] - r["idle"]["launch_ns"]) <= 1
for c in ("host", "dispatch", "launch"):
    main = thread(c, "main")[0]
    top = main["functions"][0]
    assert top["own"].startswith("step (hf_decode.py:"), (c, top)
    assert top["call"].startswith("GenerationMixin.generate ("), (c, top)
    # the model and the decoding loop: attention, MLP, projections, logits processors
    models = ("sdpa_attention", "GPT2", "Conv1D", "GELU", "LogitsProcessor", "generate")
    assert any(m in top["inner"] for m in models), (c, top)
pri = finding(r["primary"])["evidence"]
assert pri["host_function"].endswith("from step (hf_decode.py:39)"), pri
assert "decorate_context" not in text, "a trampoline named as the library call"
assert "DataLoader" not in text and "num_workers" not in text
# cuDNN rebuilt its SDPA kernel with NVRTC for the new sequence length in the
# analysed step (a 55 ms gap ending in cuLibraryLoadData, under a kernel name
# launched before): JIT from the host samples, not per-step host work
assert r["idle"]["jit_ns"] >= 50e6, r["idle"]
assert not any(f["id"] == "host_overhead" for f in r["findings"]), [f["id"] for f in r["findings"]]
assert ", JIT compilation " in text and "\n, JIT" not in text
'
# a torch.profiler trace with Python stacks (with_stack=True) and no host
# samples: the same section from the stacks of its python_function events
prof=$src/tests/fixtures/real/hf_bert_syncs.json.gz
check_prof() {
	"$bin" report --format json "$prof" >"$out/prof.json" || bad "report of $prof exited $?"
	python3 - "$out/prof.json" <<'PY' || bad "$prof: an assertion failed"
import json, sys
r = json.load(open(sys.argv[1]))
hw = r["host_wait"]
assert hw["source"] == "profiler_stacks", hw["source"]
cls = {c["class"]: c for c in hw["classes"]}
d = cls["dispatch"]
assert abs(d["idle_ns"] - r["idle"]["dispatch_ns"]) <= 1
main = [t for t in d["threads"] if t["role"] == "main"][0]
top = main["functions"][0]
# the step's backward: autograd's run_backward called from the program's step
assert top["own"].startswith("step (hf_bert_syncs.py:"), top
assert top["call"].startswith("backward (_tensor.py:"), top
assert top["inner"] == "run_backward (built-in)", top
assert top["share_pct"] >= 40, top
lo = next(f for f in r["findings"] if f["id"] == "launch_overhead")["evidence"]
assert lo["host_function"] == top["function"], lo
print("ok: hf_bert_syncs.json.gz (profiler stacks)")
PY
}
check_prof
exit $fail
