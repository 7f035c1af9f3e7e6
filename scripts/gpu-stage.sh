#!/usr/bin/env bash
# Builds, on this (GPU-less) machine, everything the H200 run needs into .gpu/
# (git-ignored): the gpuscope binary and injection library (.gpu/build/), the
# workload zoo and the occupancy sweep (.gpu/bin/). Then, on the GPU machine:
#   mkdir -p build && cp .gpu/build/* build/ && bash workloads/run-on-gpu.sh
# with carry [".gpu"] (see workloads/README.md).
set -eu
cd "$(dirname "$0")/.."
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-gpu --target gpuscope gpuscope-inject gpuscope-preload -j "$(nproc)"
mkdir -p .gpu/build .gpu/bin
cp build-gpu/gpuscope build-gpu/libgpuscope-inject.so build-gpu/libgpuscope-preload.so .gpu/build/
[ -f workloads/build-zoo.sh ] && bash workloads/build-zoo.sh .gpu/bin
[ -f workloads/occupancy/build.sh ] && bash workloads/occupancy/build.sh .gpu/bin
cc -O2 -o .gpu/bin/clock-cost bench/clock-cost.c -ldl
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" -O2 -arch=sm_90 -o .gpu/bin/api-cost bench/api-cost.cu -L/usr/local/cuda/lib64/stubs -lcuda
"$nvcc" -O2 -arch=sm_90 -o .gpu/bin/steady_launches workloads/robust/steady_launches.cu
"$nvcc" -O2 -arch=sm_90 -o .gpu/bin/uvm_probe workloads/robust/uvm_probe.cu -L/usr/local/cuda/lib64 \
	-L/usr/local/cuda/lib64/stubs -lcupti -lcuda -Xlinker -rpath=/usr/local/cuda/targets/x86_64-linux/lib
du -sh .gpu
