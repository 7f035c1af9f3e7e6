#!/usr/bin/env bash
# build-zoo.sh - compile every workloads/cuda/*.cu (and workloads/counters/*.cu,
# the designed counter signatures) into .gpu/bin/NAME
# (nvcc -O2 -arch=sm_90 -lineinfo). Run from anywhere; NVCC overrides nvcc.
# BIN_DIR overrides the output folder. ptxas -v output (registers, shared
# memory, spills per kernel) goes to BIN_DIR/ptxas.txt. workloads/procs/:
# multi_process (nvcc, like the zoo) and driver_api (plain C on the driver
# API, gcc -lcuda, with driver_api_kernels.cubin beside it). workloads/real/:
# cublas_gemm (nvcc -lcublas). workloads/robust/*.cu (nvcc -lcuda). workloads/cuda/capture_ranges.cu is not a zoo program
# (run-on-gpu.sh's list) but workloads/capture-on-gpu.sh's.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${BIN_DIR:-$root/.gpu/bin}
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null 2>&1 || nvcc=/usr/local/cuda/bin/nvcc
mkdir -p "$out"
# ZOO_CUDART=shared: link the CUDA runtime dynamically, with a copy of
# libcudart beside the programs (rpath $ORIGIN): 30 KB a program instead of
# 1 MB, so that the zoo fits the device call's 64 MiB with the fixtures
cudart=()
if [ "${ZOO_CUDART:-static}" = shared ]; then
	cudart=(--cudart shared -Xlinker -rpath='$ORIGIN')
	lib=$(ldconfig -p | awk '/libcudart\.so\.[0-9]+ / { print $NF; exit }')
	[ -n "$lib" ] || lib=$(ls "$(dirname "$(dirname "$(command -v "$nvcc")")")"/lib64/libcudart.so.[0-9]* | head -1)
	cp -L "$lib" "$out/" || exit 1
fi
: >"$out/ptxas.txt"
fail=0
for src in "$root"/workloads/cuda/*.cu "$root"/workloads/counters/*.cu; do
	name=$(basename "$src" .cu)
	# probe.cu is built with src/inject/counters.cpp (its header says how)
	[ "$name" = probe ] && continue
	if "$nvcc" "${cudart[@]}" -O2 -arch=sm_90 -lineinfo -Xptxas -v -o "$out/$name" "$src" \
		2>>"$out/ptxas.txt"; then
		echo "built $out/$name"
	else
		echo "build-zoo: failed to build '$name'" >&2
		fail=1
	fi
done
cuda=$(dirname "$(dirname "$(command -v "$nvcc")")")
if "$nvcc" "${cudart[@]}" -O2 -arch=sm_90 -lineinfo -o "$out/multi_process" "$root/workloads/procs/multi_process.cu" &&
	"$nvcc" -cubin -arch=sm_90 -o "$out/driver_api_kernels.cubin" \
		"$root/workloads/procs/driver_api_kernels.cu" &&
	${CC:-gcc} -O2 -Wall -Wextra -Werror -I"$cuda/include" -o "$out/driver_api" \
		"$root/workloads/procs/driver_api.c" -L"$cuda/lib64/stubs" -lcuda; then
	echo "built $out/multi_process $out/driver_api"
else
	echo "build-zoo: failed to build workloads/procs" >&2
	fail=1
fi
if "$nvcc" "${cudart[@]}" -O2 -arch=sm_90 -lineinfo -o "$out/cublas_gemm" "$root/workloads/real/cublas_gemm.cu" \
	-lcublas; then
	echo "built $out/cublas_gemm"
else
	echo "build-zoo: failed to build workloads/real/cublas_gemm" >&2
	fail=1
fi
# workloads/robust/: the recorder's own failure cases (host_memset_free
# needs the driver API: -lcuda; uvm_probe CUPTI as well, found as the injected
# library finds it: the toolkit's own, or the one of the runpath on the GPU host
for src in "$root"/workloads/robust/*.cu; do
	name=$(basename "$src" .cu)
	cupti=()
	grep -q '#include <cupti.h>' "$src" &&
		cupti=(-I"$cuda/extras/CUPTI/include" -L"$cuda/extras/CUPTI/lib64" -lcupti
			-Xlinker "-rpath=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/extras/CUPTI/lib64")
	if "$nvcc" "${cudart[@]}" -O2 -arch=sm_90 -lineinfo -o "$out/$name" "$src" -lcuda "${cupti[@]}"; then
		echo "built $out/$name"
	else
		echo "build-zoo: failed to build workloads/robust/$name" >&2
		fail=1
	fi
done
exit $fail
