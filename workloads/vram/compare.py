#!/usr/bin/env python3
"""Estimate vs measurement: runs `gpuscope vram` for every row of
vram-measured.json (measure.py) and prints estimate / measured for the
allocator peak and for the saved activations.

With --recording DB=TABLE (TABLE: the vram-measured.json of the run that
was recorded into DB), that run is also estimated with `gpuscope vram
--recording DB`, which sets the recording's peak device memory (cudaMalloc'd:
PyTorch's reserved memory) beside the estimate and the run's own peaks.

usage: python3 compare.py [--bin build/gpuscope] [--recording DB=TABLE] vram-measured.json
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def job_args(r):
    mode = r["mode"]
    a = ["--mode", mode, "--batch", str(r["batch"]), "--seq", str(r["seq"]), "--gpu", "none",
         "--format", "json"]
    if mode == "inference":
        a += ["--precision", "bf16", "--new-tokens", str(r["new_tokens"])]
    else:
        a += ["--precision", "amp", "--checkpointing", r["checkpointing"],
              "--optimizer", r.get("optimizer") or "adamw"]
        if mode in ("lora", "qlora"):
            a += ["--lora-rank", "16"]
    return a


def estimate(binary, r, extra=()):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(r["hf_config"], f)
        path = f.name
    try:
        p = subprocess.run([binary, "vram", path] + job_args(r) + list(extra),
                           capture_output=True, text=True)
    finally:
        os.unlink(path)
    if p.returncode not in (0, 3):
        return None, p.stderr.strip()
    return json.loads(p.stdout), ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/gpuscope")
    ap.add_argument("--recording", default="", help="DB=TABLE")
    ap.add_argument("table")
    a = ap.parse_args()
    rows = json.load(open(a.table))
    print(f"{'configuration':34} {'params':>7} {'meas MiB':>10} {'est MiB':>10} {'ratio':>6} "
          f"{'saved':>8} {'est act':>8} {'ratio':>6}  peak phase")
    worst = 0.0
    for r in rows:
        if r.get("status") != "ok":
            print(f"{r['name']:34} {r.get('status')}")
            continue
        e, err = estimate(a.bin, r)
        if e is None:
            print(f"{r['name']:34} estimate failed: {err}")
            continue
        pe = e["model"]["parameters"] / max(r["parameters"], 1)
        meas = r.get("max_allocated")
        est = e["allocated_peak_bytes"]
        ratio = est / meas if meas else float("nan")
        if meas:
            worst = max(worst, abs(ratio - 1))
        saved = r.get("saved_bytes")
        ph = next(p for p in e["phases"] if p["name"] == "backward (loss)") if saved else None
        est_act = (ph["breakdown"]["activations"] + ph["breakdown"]["weight_copies"]) if ph else None
        ar = est_act / saved if saved else float("nan")
        mib = lambda v: f"{v / 2**20:10.1f}" if v else f"{'-':>10}"
        print(f"{r['name']:34} {pe:7.4f} {mib(meas)} {mib(est)} {ratio:6.3f} "
              f"{(saved or 0) / 2**20:8.2f} {(est_act or 0) / 2**20:8.2f} {ar:6.3f}  "
              f"{e['peak_phase']}")
    print(f"worst |estimate/measured - 1| of the allocator peak: {worst:.3f}")
    # the optimizers: state bytes and step temporaries, per trainable parameter
    opt_rows = [r for r in rows if r.get("status") == "ok" and r.get("opt_state_bytes")]
    if opt_rows:
        print(f"\n{'configuration':34} {'optimizer':>16} {'states B/p':>10} {'est':>7} "
              f"{'temp B/p':>9} {'est':>7}")
    for r in opt_rows:
        e, err = estimate(a.bin, r)
        if e is None:
            print(f"{r['name']:34} estimate failed: {err}")
            continue
        step = next(p for p in e["phases"] if p["name"] == "optimizer step")["breakdown"]
        n = max(r.get("trainable") or 0, 1)
        est_states = step["optimizer_states"] + step.get("optimizer_states_paged", 0)
        temp = r.get("step_temp_bytes")
        print(f"{r['name']:34} {r.get('optimizer', 'adamw'):>16} "
              f"{r['opt_state_bytes'] / n:10.3f} {est_states / n:7.3f} "
              f"{(temp / n if temp is not None else float('nan')):9.3f} "
              f"{step['optimizer_temp'] / n:7.3f}")
    if a.recording:
        db, table = a.recording.split("=", 1)
        r = next((x for x in json.load(open(table)) if x.get("status") == "ok"), None)
        e, err = estimate(a.bin, r, ["--recording", db]) if r else (None, "no row measured")
        rec = e.get("recording") if e else None
        if rec:
            mib = 2**20
            print(f"recording of {r['name']}: peak device memory {rec['peak_bytes'] / mib:.1f} MiB "
                  f"(pid {rec['pid']}, {rec['allocations']} allocations); estimate "
                  f"(allocated + headroom) {rec['estimate_reserved_bytes'] / mib:.1f} MiB, ratio "
                  f"{rec['ratio']:.3f}; the run's max_memory_reserved {r['max_reserved'] / mib:.1f}"
                  f" MiB, max_memory_allocated {r['max_allocated'] / mib:.1f} MiB")
        else:
            print(f"recording: {err or 'no recording in the output'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
