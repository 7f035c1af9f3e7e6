#!/usr/bin/env bash
# fetch-bnb.sh: bitsandbytes for the H200 machine, which has none and no
# registry. Run HERE (a machine with pip), in the repo root. Downloads the
# bitsandbytes wheel for Python 3.12 / manylinux x86_64 (it ships a library
# for CUDA 13.0, the H200's runtime, beside those for 11.8-13.2, ROCm and
# XPU) and writes a slim copy with only the CUDA 13.0 and CPU libraries
# (3.6 MB instead of 43; RECORD trimmed to match) as .whl/bitsandbytes-*.whl,
# git-ignored through .git/info/exclude. run-on-gpu.sh installs it when
# bitsandbytes is not importable there; carry ".whl".
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
mkdir -p .whl
rm -f .whl/bitsandbytes-*.whl
python3 - "$tmp" .whl <<'PY'
import glob, os, sys, zipfile
src = glob.glob(os.path.join(sys.argv[1], "bitsandbytes-*.whl"))[0]
dst = os.path.join(sys.argv[2], os.path.basename(src))
keep = ("libbitsandbytes_cuda130.so", "libbitsandbytes_cpu.so")
drop = lambda n: n.endswith(".so") and not n.endswith(keep)
with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
    for info in zi.infolist():
        if drop(info.filename):
            continue
        data = zi.read(info.filename)
        if info.filename.endswith(".dist-info/RECORD"):
            rows = [r for r in data.decode().splitlines() if not drop(r.split(",")[0])]
            data = ("\n".join(rows) + "\n").encode()
        zo.writestr(info, data)
print(dst, os.path.getsize(dst), "bytes")
PY
echo "carry: .whl"
