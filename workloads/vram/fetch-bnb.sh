#!/usr/bin/env bash
# fetch-bnb.sh: bitsandbytes for the H200 machine, which has none and no
# registry. Run HERE (a machine with pip), in the repo root: downloads the
# bitsandbytes wheel (Python 3.12, manylinux x86_64; it ships a library for
# CUDA 13.0, the H200's runtime) and unpacks only its Python code and the
# CUDA 13.0 / CPU libraries into .whl/bnb (git-ignored through
# .git/info/exclude; about 5 MB instead of the wheel's 43). measure.py puts
# .whl/bnb on sys.path when it exists; carry ".whl" in the device call.
# usage: bash workloads/vram/fetch-bnb.sh [VERSION]
set -eu
ver=${1:-0.50.2}
root=$(git rev-parse --show-toplevel)
cd "$root"
excl=$(git rev-parse --git-path info/exclude)
grep -qx '/.whl/' "$excl" 2>/dev/null || echo '/.whl/' >>"$excl"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
	--implementation cp --platform manylinux_2_24_x86_64 --platform manylinux_2_28_x86_64 \
	--platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$tmp" \
	"bitsandbytes==$ver"
whl=$(ls "$tmp"/bitsandbytes-*.whl)
rm -rf .whl/bnb
mkdir -p .whl/bnb
python3 - "$whl" .whl/bnb <<'PY'
import sys, zipfile
whl, dst = sys.argv[1], sys.argv[2]
keep_so = ("libbitsandbytes_cuda130.so", "libbitsandbytes_cpu.so")
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if n.endswith(".so") and not n.endswith(keep_so):
            continue
        z.extract(n, dst)
PY
du -sh .whl/bnb
echo "carry: .whl (measure.py finds .whl/bnb)"
