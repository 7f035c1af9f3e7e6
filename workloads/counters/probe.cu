/*
 * probe - the range-profiler sequence of src/inject/counters.cpp run from
 * main(), outside any CUPTI callback: profiles two launches of one kernel
 * and prints each value. If this works where `record --metrics kernels`
 * fails, the difference is the callback context (workloads/counters/
 * run-on-gpu.sh runs both). Build: nvcc -O2 -arch=sm_90 -I src
 * workloads/counters/probe.cu src/inject/counters.cpp -lcupti -lcuda.
 */
#include <cuda.h>
#include <stdio.h>

#include "inject/counters.h"

__global__ void scale(float *x, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		x[i] = x[i] * 2.0f + 1.0f;
}

static int values;

static void emit(void *ud, uint32_t corr, const char *metric, double v)
{
	(void)ud;
	values++;
	if (values <= 60)
		printf("PROBE corr=%u %s = %.6g\n", corr, metric, v);
}

static void log_line(const char *m)
{
	fprintf(stderr, "probe: %s\n", m);
}

int main(void)
{
	size_t n = 64u << 20;
	float *x;
	if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess ||
	    cudaMemset(x, 0, n * 4) != cudaSuccess)
		return 1;
	struct gs_counters_opts o = {NULL, 0, 2, log_line};
	char why[256];
	if (gs_counters_setup(&o, why, sizeof(why)) < 0) {
		fprintf(stderr, "probe: setup: %s\n", why);
		return 1;
	}
	CUcontext ctx;
	cuCtxGetCurrent(&ctx);
	for (int l = 0; l < 2; l++) {
		int on = gs_counters_launch_enter(ctx, "_Z5scalePfm", (uint32_t)(l + 1));
		scale<<<528, 512>>>(x, n);
		cudaError_t e = cudaDeviceSynchronize();
		if (on)
			gs_counters_launch_exit(emit, NULL);
		printf("PROBE launch %d profiled=%d sync=%s status='%s'\n", l, on,
		       cudaGetErrorString(e), gs_counters_status());
	}
	float h;
	cudaMemcpy(&h, x, sizeof(h), cudaMemcpyDeviceToHost);
	printf("PROBE values=%d x0=%g (want 3)\n", values, h);
	return h == 3.0f ? 0 : 2;
}
