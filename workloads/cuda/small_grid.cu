/*
 * small_grid - 10 launches of a long FMA kernel on a grid of 4 blocks of 256
 * threads: 4 SMs busy, 128 of the H200's 132 idle, while NVML's GPU-Util
 * reads high. Each launch runs ~40 ms. Expected finding: small_grid.
 * Counts: kernels=10 memcpy=1 memset=1 sync=1.
 * RESULT out_sum: the 1024 outputs copied back, 1024 * 8.
 */
#include "fma.h"

#define BLOCKS 4
#define THREADS 256
#define LAUNCHES 10
#define ITERS (1 << 23)

int main(void)
{
	float *out;
	size_t n = BLOCKS * THREADS;
	zoo_begin();
	CK(cudaMalloc(&out, n * sizeof(float)));
	MEMSET(out, 0xff, n * sizeof(float)); /* poison: NaN */
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(fma_chains<4>, BLOCKS, THREADS, 0, 0, out, ITERS, FMA_A, FMA_B);
	DSYNC();
	long long out_sum = check_fma_out("small_grid", out, n, 8.0f);
	CK(cudaFree(out));
	printf("RESULT name=small_grid out_sum=%lld\n", out_sum);
	return zoo_end("small_grid");
}
