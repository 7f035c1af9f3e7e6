/*
 * access.h - body shared by coalesced.cu and uncoalesced.cu: 1000 launches of
 * out[i] = 2 * in[p(i)] over 128M floats (512 MiB in, 512 MiB out). Coalesced:
 * p(i) = i. Uncoalesced: p(i) = (i % 256) * (n / 256) + i / 256, a permutation
 * in which the 32 lanes of a warp read 32 addresses 2 MiB apart, one 32-byte
 * sector each for 4 useful bytes, and no two warps of a block share a sector
 * (no L1 reuse). Same bytes asked for, far more sectors moved.
 * Counts: kernels=1001 (1 init + 1000) memcpy=1 memset=0 sync=1.
 * RESULT out_sum: the first 4M outputs (those copied back), 2 * in[p(i)] each.
 */
#include "zoo.h"

#define NF (128u << 20)
#define LAUNCHES 1000
#define CHECK_N (4u << 20)

__global__ void init_in(float *in)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < NF)
		in[i] = zoo_val(i);
}

__host__ __device__ static inline size_t perm(size_t i, int strided)
{
	return strided ? (i % 256) * (NF / 256) + i / 256 : i;
}

__global__ void scale(float *out, const float *in, int strided)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < NF)
		out[i] = 2.0f * in[perm(i, strided)];
}

static int run_access(const char *name, int strided)
{
	float *in, *out;
	long long out_sum = 0;
	zoo_begin();
	CK(cudaMalloc(&in, NF * sizeof(float)));
	CK(cudaMalloc(&out, NF * sizeof(float)));
	LAUNCH(init_in, NF / 256, 256, 0, 0, in);
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(scale, NF / 256, 256, 0, 0, out, in, strided);
	DSYNC();
	float *h = (float *)malloc(CHECK_N * sizeof(float));
	if (!h)
		zoo_fail(name, "out of host memory");
	MEMCPY(h, out, CHECK_N * sizeof(float), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < CHECK_N; i++) {
		if (h[i] != 2.0f * zoo_val(perm(i, strided)))
			zoo_fail(name, "out[i] != 2 * in[p(i)]");
		out_sum += (long long)h[i];
	}
	free(h);
	CK(cudaFree(in));
	CK(cudaFree(out));
	printf("RESULT name=%s out_sum=%lld\n", name, out_sum);
	return zoo_end(name);
}
