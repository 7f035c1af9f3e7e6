/*
 * api-cost.cu - ns per call of the CUDA calls a framework makes around each
 * GPU op, to see what tracing adds to each (bench/api-cost.sh runs it
 * untraced and under `gpuscope record` with one CUPTI kind at a time).
 *
 * PyTorch, per op, launches one kernel and checks it (cudaLaunchKernel,
 * cudaGetLastError) and, through its device guards and allocator, asks for
 * the current device and the primary context's state (cudaGetDevice,
 * cuDevicePrimaryCtxGetState) and whether the stream is capturing. Each
 * line printed is `COST name=CALL ns=F` (median of 7 timed batches); the
 * launches are timed on the host only, in batches that the GPU drains
 * between (no queue-full stalls). `torch_op` is that mix, once per op;
 * `launch_*` vary what a framework's launches vary: parameter size, which
 * kernel, grid size.
 *
 *   nvcc -O2 -arch=sm_90 -o api-cost bench/api-cost.cu -lcuda
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../workloads/cuda/zoo.h" /* CK, zoo_now */

__global__ void empty_kernel(int *p)
{
	if (p && threadIdx.x == 1000)
		*p = 1;
}

/* PyTorch's elementwise kernels take their TensorIterator state by value
 * (offset calculators, strides: hundreds of bytes to a few KiB of
 * parameters); a framework step also launches dozens of different kernels */
struct params1k {
	int v[256];
};
struct params4k {
	int v[1000];
};
__global__ void param1k_kernel(params1k a, int *p)
{
	if (p && threadIdx.x == 1000)
		*p = a.v[7];
}
__global__ void param4k_kernel(params4k a, int *p)
{
	if (p && threadIdx.x == 1000)
		*p = a.v[7];
}
template <int N> __global__ void many_kernel(int *p)
{
	if (p && threadIdx.x == 1000)
		*p = N;
}
typedef void (*many_fn)(int *);
#define MANY 32
static many_fn many[MANY];
template <int N> struct fill_many {
	static void go()
	{
		many[N - 1] = many_kernel<N>;
		fill_many<N - 1>::go();
	}
};
template <> struct fill_many<0> {
	static void go()
	{
	}
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#define BATCHES 7
#define PER_BATCH 2000

/* COST(name, body...): median over BATCHES of the ns per execution of body,
 * each batch PER_BATCH executions, the GPU drained after each batch */
#define COST(name, ...)                                                                            \
	do {                                                                                       \
		double ns_[BATCHES];                                                               \
		for (int b_ = 0; b_ < BATCHES; b_++) {                                             \
			double t0_ = zoo_now();                                                    \
			for (int i_ = 0; i_ < PER_BATCH; i_++) {                                   \
				__VA_ARGS__;                                                       \
			}                                                                          \
			ns_[b_] = (zoo_now() - t0_) * 1e9 / PER_BATCH;                             \
			CK(cudaDeviceSynchronize());                                               \
		}                                                                                  \
		qsort(ns_, BATCHES, sizeof(double), cmp_double);                                   \
		printf("COST name=%s ns=%.1f\n", name, ns_[BATCHES / 2]);                          \
	} while (0)

int main(void)
{
	int dev = 0, d = 0, active = 0;
	unsigned flags = 0;
	cudaStreamCaptureStatus cap;
	CUcontext ctx;
	CK(cudaSetDevice(0));
	CK(cudaFree(0));
	CUdevice cudev;
	if (cuDeviceGet(&cudev, 0) != CUDA_SUCCESS)
		return 1;
	int *p = NULL;
	CK(cudaMalloc(&p, 64));
	empty_kernel<<<1, 32>>>(p); /* loads the module before any timing */
	static params1k a1;
	static params4k a4;
	fill_many<MANY>::go();
	param1k_kernel<<<1, 32>>>(a1, p);
	param4k_kernel<<<1, 32>>>(a4, p);
	for (int k = 0; k < MANY; k++)
		many[k]<<<1, 32>>>(p);
	CK(cudaDeviceSynchronize());
	double t0 = zoo_now();
	COST("cudaGetDevice", CK(cudaGetDevice(&d)));
	COST("cudaSetDevice", CK(cudaSetDevice(dev)));
	COST("cudaGetLastError", CK(cudaGetLastError()));
	COST("cudaStreamIsCapturing", CK(cudaStreamIsCapturing(0, &cap)));
	COST("cuDevicePrimaryCtxGetState", cuDevicePrimaryCtxGetState(cudev, &flags, &active));
	COST("cuCtxGetCurrent", cuCtxGetCurrent(&ctx));
	COST("cudaLaunchKernel", empty_kernel<<<1, 32>>>(p));
	COST("launch_1KiB_params", param1k_kernel<<<1, 32>>>(a1, p));
	COST("launch_4KiB_params", param4k_kernel<<<1, 32>>>(a4, p));
	COST("launch_32_kernels", many[i_ % MANY]<<<1, 32>>>(p));
	COST("launch_256_blocks", empty_kernel<<<256, 128>>>(p));
	COST("cudaMemsetAsync", CK(cudaMemsetAsync(p, 0, 4, 0)));
	COST("cudaEventRecord+Query", {
		static cudaEvent_t ev;
		if (!ev)
			CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
		CK(cudaEventRecord(ev, 0));
		(void)cudaEventQuery(ev);
	});
	COST("torch_op", {
		CK(cudaGetDevice(&d));
		cuDevicePrimaryCtxGetState(cudev, &flags, &active);
		CK(cudaStreamIsCapturing(0, &cap));
		CK(cudaGetDevice(&d));
		empty_kernel<<<1, 32>>>(p);
		CK(cudaGetLastError());
	});
	CK(cudaDeviceSynchronize());
	printf("TIME name=api_cost loop_s=%.6f\n", zoo_now() - t0);
	CK(cudaFree(p));
	return 0;
}
