#!/usr/bin/env python3
"""make-fixture.py: a measure.py table as a test fixture.

usage: python3 make-fixture.py vram-measured.json DIR
writes DIR/table.tsv (one measured row a line: name, shape, mode,
checkpointing, batch, seq, new_tokens, parameters, max_allocated,
max_reserved, saved_bytes, device; '-' where not measured) and
DIR/configs/NAME.json (the row's whole HF config, as config.json), which
tests/vram/test_vram_fixture.c reads.
"""
import json
import os
import sys

COLS = ["name", "shape", "mode", "checkpointing", "batch", "seq", "new_tokens", "parameters",
        "max_allocated", "max_reserved", "saved_bytes", "device"]


def main():
    rows = [r for r in json.load(open(sys.argv[1])) if r.get("status") == "ok"]
    out = sys.argv[2]
    os.makedirs(os.path.join(out, "configs"), exist_ok=True)
    with open(os.path.join(out, "table.tsv"), "w") as f:
        f.write("\t".join(COLS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "-")) for c in COLS) + "\n")
            with open(os.path.join(out, "configs", r["name"] + ".json"), "w") as c:
                json.dump(r["hf_config"], c, indent=1, sort_keys=True)
    print(f"{len(rows)} rows -> {out}")


if __name__ == "__main__":
    main()
