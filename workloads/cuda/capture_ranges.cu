/*
 * capture_ranges.cu - kernels before, inside and after cudaProfilerStart/
 * Stop pairs and NVTX ranges "capture_me", for `record --capture-range`
 * (workloads/capture-on-gpu.sh). Not in the zoo's list (run-on-gpu.sh).
 *
 *   capture_ranges [--wait S] [--no-profiler]
 *
 * Phases (each kernel adds 1 to every element of one array, so the result
 * proves that every launch ran once):
 *   pre    100  (then, with --wait S, it sleeps until S seconds after main)
 *   cudaProfilerStart
 *   A       60
 *   nvtx push capture_me
 *   B       40
 *   nvtx push capture_me (nested)  C 10  pop
 *   D       20
 *   nvtx pop
 *   sleep 0.6 s
 *   E       30 (the last one spins ~20 ms: launched inside, runs past Stop)
 *   cudaProfilerStop
 *   F       50
 *   cudaProfilerStart  G 25  cudaProfilerStop
 *   H       15
 *   nvtx push capture_me  I 35  pop (a repeat outside the profiler windows)
 *   J        5
 * --no-profiler leaves out the cudaProfilerStart/Stop calls.
 * The last line, CAPTURE ..., has the counts each mode must record:
 *   all (no capture range), profiler (cudaProfilerApi), nvtx (nvtx:capture_me),
 *   after_delay (--delay delay_s; only meaningful with --wait > delay_s and
 *   pre_end_s < delay_s), profiler_duration (cudaProfilerApi --duration
 *   duration_s: A+B+C+D and G, launched within ms of their starts).
 */
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>
#include <string.h>
#include <unistd.h>

#include "zoo.h"

#define N (1 << 16)

__global__ void add1(float *x, int n, long long spin)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (spin && i == 0) {
		long long t0 = clock64();
		while (clock64() - t0 < spin)
			;
	}
	if (i < n)
		x[i] += 1.0f;
}

static float *d_x;

static void kernels(int n)
{
	for (int i = 0; i < n; i++)
		LAUNCH(add1, N / 256, 256, 0, 0, d_x, N, 0LL);
}

/* cudaProfilerStart/Stop: a failure is reported, not fatal (the counts
 * then tell) */
static void profiler(int on)
{
	cudaError_t e = on ? cudaProfilerStart() : cudaProfilerStop();
	if (e != cudaSuccess)
		fprintf(stderr, "capture_ranges: cudaProfiler%s: %s\n", on ? "Start" : "Stop",
			cudaGetErrorString(e));
}

static void sleep_s(double s)
{
	if (s > 0)
		usleep((useconds_t)(s * 1e6));
}

int main(int argc, char **argv)
{
	double t_main = zoo_now(), wait = 0;
	int with_profiler = 1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--wait") == 0 && i + 1 < argc)
			wait = atof(argv[++i]);
		else if (strcmp(argv[i], "--no-profiler") == 0)
			with_profiler = 0;
	}
	zoo_begin();
	CK(cudaMalloc(&d_x, N * sizeof(float)));
	MEMSET(d_x, 0, N * sizeof(float));
	kernels(100);
	DSYNC();
	double pre_end = zoo_now() - t_main;
	if (wait > 0)
		sleep_s(wait - (zoo_now() - t_main));
	if (with_profiler)
		profiler(1);
	kernels(60);
	nvtxRangePushA("capture_me");
	kernels(40);
	nvtxRangePushA("capture_me");
	kernels(10);
	nvtxRangePop();
	kernels(20);
	nvtxRangePop();
	sleep_s(0.6);
	kernels(29);
	/* ~20 ms at the H200's ~1.98 GHz */
	LAUNCH(add1, N / 256, 256, 0, 0, d_x, N, 40000000LL);
	if (with_profiler)
		profiler(0);
	kernels(50);
	DSYNC();
	if (with_profiler)
		profiler(1);
	kernels(25);
	if (with_profiler)
		profiler(0);
	kernels(15);
	nvtxRangePushA("capture_me");
	kernels(35);
	nvtxRangePop();
	kernels(5);
	DSYNC();
	float *h = (float *)malloc(N * sizeof(float));
	MEMCPY(h, d_x, N * sizeof(float), cudaMemcpyDeviceToHost);
	for (int i = 0; i < N; i++)
		if (h[i] != (float)zoo_kernels)
			zoo_fail("capture_ranges", "an element does not count every kernel");
	free(h);
	zoo_end("capture_ranges");
	int pf = with_profiler ? 60 + 40 + 10 + 20 + 30 + 25 : 0;
	printf("CAPTURE all=%ld profiler=%d nvtx=%d nvtx_name=capture_me delay_s=%.1f "
	       "after_delay=%ld duration_s=0.3 profiler_duration=%d pre_end_s=%.3f\n",
	       zoo_kernels, pf, 40 + 10 + 20 + 35, wait > 0 ? wait - 0.5 : 0.0, zoo_kernels - 100,
	       with_profiler ? 60 + 40 + 10 + 20 + 25 : 0, pre_end);
	return 0;
}
