/*
 * fma.h - the FMA chain kernel shared by small_grid and fma_bound: CHAINS
 * independent x <- x*a + b chains per thread (a=0.5, b=1 converge to exactly
 * 2.0f), so every output must be 2*CHAINS. Pure arithmetic, no memory traffic.
 * check_fma_out returns the sum of the outputs (n * 2*CHAINS) for RESULT.
 */
#include "zoo.h"

template <int CHAINS> __global__ void fma_chains(float *out, int iters, float a, float b)
{
	float v[CHAINS];
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
#pragma unroll
	for (int c = 0; c < CHAINS; c++)
		v[c] = (float)(c + (i & 7));
	for (int k = 0; k < iters; k++) {
#pragma unroll
		for (int c = 0; c < CHAINS; c++)
			v[c] = fmaf(v[c], a, b);
	}
	float s = 0.0f;
#pragma unroll
	for (int c = 0; c < CHAINS; c++)
		s += v[c];
	out[i] = s;
}

static long long check_fma_out(const char *name, const float *d_out, size_t n, float want)
{
	long long sum = 0;
	float *h = (float *)malloc(n * sizeof(float));
	if (!h)
		zoo_fail(name, "out of host memory");
	MEMCPY(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < n; i++) {
		if (h[i] != want)
			zoo_fail(name, "fma chain result != 2*CHAINS");
		sum += (long long)h[i];
	}
	free(h);
	return sum;
}
