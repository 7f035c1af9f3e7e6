#!/usr/bin/env python3
"""make-fixture.py: measure.py tables as a test fixture.

usage: python3 make-fixture.py DIR vram-measured.json [vram-measured.json ...]
writes DIR/table.tsv (one measured row a line, the rows of every table in
order: name, shape, mode, checkpointing, batch, seq, new_tokens,
parameters, trainable, max_allocated, max_reserved, saved_bytes,
outside_allocator, nvml_process_used, device, optimizer, opt_state_bytes,
step_temp_bytes; '-' where not measured) and
DIR/configs/NAME.json (the row's whole HF config, as config.json), which
tests/vram/test_vram_fixture.c reads (by the header's column names). Rows
that did not run (status other than ok) are left out; a name twice is an
error.
"""
import json
import os
import sys

COLS = ["name", "shape", "mode", "checkpointing", "batch", "seq", "new_tokens", "parameters",
        "trainable", "max_allocated", "max_reserved", "saved_bytes", "outside_allocator",
        "nvml_process_used", "device", "optimizer", "opt_state_bytes", "step_temp_bytes"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[2])
    out, rows = sys.argv[1], []
    for path in sys.argv[2:]:
        rows += [r for r in json.load(open(path)) if r.get("status") == "ok"]
    names = [r["name"] for r in rows]
    if len(set(names)) != len(names):
        sys.exit("make-fixture.py: a configuration is in two tables")
    os.makedirs(os.path.join(out, "configs"), exist_ok=True)
    with open(os.path.join(out, "table.tsv"), "w") as f:
        f.write("\t".join(COLS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "-")) for c in COLS) + "\n")
            with open(os.path.join(out, "configs", r["name"] + ".json"), "w") as c:
                json.dump(r["hf_config"], c, indent=1, sort_keys=True)
                c.write("\n")
    print(f"{len(rows)} rows -> {out}")


if __name__ == "__main__":
    main()
