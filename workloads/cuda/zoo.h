/*
 * zoo.h - shared helpers for the CUDA workload zoo.
 *
 * Every zoo program counts the CUDA calls it makes through these macros and
 * prints, as its last stdout line, the exact summary
 *   WORKLOAD name=N kernels=K memcpy=C memset=S sync=Y
 * so that `gpuscope record` can be checked row for row (kernels = kernel
 * executions, including graph kernel nodes; memcpy/memset = cudaMemcpy* /
 * cudaMemset* calls; sync = explicit cudaDeviceSynchronize/cudaStreamSynchronize).
 * The line before it, `TIME name=N loop_s=F`, is the wall time of the work
 * itself (after context creation), used by bench/record-overhead.sh.
 * Before both, `RESULT name=N KEY_sum=S ...` says what the GPU computed, for
 * workloads/real/same_result.py (record must not change it, issue 35): the
 * sum of the values the program already copies back to check, added up in
 * its check loop (no CUDA call more, nothing added to the work). The zoo's
 * values are small integers, exact in float (zoo_val, FMA_A/FMA_B), and
 * each is checked before it is added, so the sum is an exact integer
 * (%lld) that same_result.py compares exactly.
 * Any failed CUDA call or wrong result exits 1.
 */
#ifndef ZOO_H
#define ZOO_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long zoo_kernels, zoo_memcpy, zoo_memset, zoo_sync;
static double zoo_t0;

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
				cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* LAUNCH(kernel, grid, block, smem, stream, args...): launch, check, count */
#define LAUNCH(k, g, b, sm, st, ...)                                                               \
	do {                                                                                       \
		k<<<(g), (b), (sm), (st)>>>(__VA_ARGS__);                                          \
		CK(cudaGetLastError());                                                            \
		zoo_kernels++;                                                                     \
	} while (0)
#define MEMCPY(...)                                                                                \
	do {                                                                                       \
		CK(cudaMemcpy(__VA_ARGS__));                                                       \
		zoo_memcpy++;                                                                      \
	} while (0)
#define MEMCPY_ASYNC(...)                                                                          \
	do {                                                                                       \
		CK(cudaMemcpyAsync(__VA_ARGS__));                                                  \
		zoo_memcpy++;                                                                      \
	} while (0)
#define MEMSET(...)                                                                                \
	do {                                                                                       \
		CK(cudaMemset(__VA_ARGS__));                                                       \
		zoo_memset++;                                                                      \
	} while (0)
#define DSYNC()                                                                                    \
	do {                                                                                       \
		CK(cudaDeviceSynchronize());                                                       \
		zoo_sync++;                                                                        \
	} while (0)

static double zoo_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* create the context outside the timed region; cudaFree(0) is not counted */
static void zoo_begin(void)
{
	CK(cudaFree(0));
	zoo_t0 = zoo_now();
}

static void zoo_fail(const char *name, const char *what)
{
	fprintf(stderr, "%s: wrong result: %s\n", name, what);
	exit(1);
}

static int zoo_end(const char *name)
{
	printf("TIME name=%s loop_s=%.6f\n", name, zoo_now() - zoo_t0);
	printf("WORKLOAD name=%s kernels=%ld memcpy=%ld memset=%ld sync=%ld\n", name, zoo_kernels,
	       zoo_memcpy, zoo_memset, zoo_sync);
	fflush(stdout);
	return 0;
}

/* deterministic small-integer test data: exact in float, never all zeros */
static __host__ __device__ inline float zoo_val(uint64_t i)
{
	uint64_t h = i * 0x9E3779B97F4A7C15ull;
	return (float)((h >> 40) % 1000u) + 1.0f;
}

/* x <- x*0.5 + 1 converges to exactly 2.0f in float; the loop cannot be folded
   because a and b are runtime kernel arguments */
#define FMA_A 0.5f
#define FMA_B 1.0f

#endif
