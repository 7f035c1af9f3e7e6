#!/usr/bin/env bash
# run-optim-on-gpu.sh: the optimizers' memory on one H100 or H200 (repo root,
# $OUT set), for `gpuscope vram --optimizer` (issue 39 item 2). measure.py
# --set optim runs Llama-3.2-1B-shaped full fine-tunes (and three others)
# with torch.optim.AdamW foreach and fused=True, bitsandbytes AdamW8bit and
# PagedAdamW8bit, transformers' Adafactor and SGD with momentum, each in its
# own CUDA context, and records the optimizer's state bytes and the step's
# temporaries (the last step's peak over what it started with); compare.py
# sets the estimate beside each, the short table last. About 100 s of GPU
# work after the imports; BUDGET_S (default 200) bounds it, none started
# that would end past it. Carry .gpu (a build of gpuscope for compare.py)
# and .whl (fetch-bnb.sh's bitsandbytes wheel, for the 8-bit rows).
# Writes $OUT/vram.tar.gz; make a fixture of it with
#   python3 workloads/vram/make-fixture.py tests/fixtures/vram/h200-optim vram-measured.json
set -u
export BUDGET_S=${BUDGET_S:-200} VRAM_SET=optim VRAM_REC=0
exec bash "$(dirname "$0")/run-on-gpu.sh"
