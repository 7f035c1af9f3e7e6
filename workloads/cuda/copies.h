/*
 * copies.h - body shared by pageable_copies.cu and pinned_copies.cu: the same
 * 32 x 64 MiB host-to-device cudaMemcpy calls with a short kernel between
 * them, from malloc()ed (pageable) or cudaMallocHost()ed (pinned) memory.
 * Counts: kernels=32 memcpy=33 (32 H2D + 1 D2H) memset=1 sync=1.
 * RESULT acc_sum: the 16M accumulated values copied back, 32 * sum of in[i].
 */
#include "zoo.h"

#define CHUNK_FLOATS (16u << 20) /* 64 MiB */
#define CHUNKS 32

__global__ void accumulate(float *acc, const float *in, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		acc[i] += in[i];
}

static int run_copies(const char *name, int pinned)
{
	size_t bytes = CHUNK_FLOATS * sizeof(float);
	float *h, *d_in, *d_acc;
	long long acc_sum = 0;
	zoo_begin();
	if (pinned)
		CK(cudaMallocHost(&h, bytes));
	else if (!(h = (float *)malloc(bytes)))
		zoo_fail(name, "out of host memory");
	for (size_t i = 0; i < CHUNK_FLOATS; i++)
		h[i] = zoo_val(i);
	CK(cudaMalloc(&d_in, bytes));
	CK(cudaMalloc(&d_acc, bytes));
	MEMSET(d_acc, 0, bytes);
	for (int c = 0; c < CHUNKS; c++) {
		MEMCPY(d_in, h, bytes, cudaMemcpyHostToDevice);
		LAUNCH(accumulate, CHUNK_FLOATS / 256, 256, 0, 0, d_acc, d_in, CHUNK_FLOATS);
	}
	DSYNC();
	MEMCPY(h, d_acc, bytes, cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < CHUNK_FLOATS; i++) {
		if (h[i] != CHUNKS * zoo_val(i))
			zoo_fail(name, "acc[i] != 32 * in[i]");
		acc_sum += (long long)h[i];
	}
	CK(cudaFree(d_in));
	CK(cudaFree(d_acc));
	if (pinned)
		CK(cudaFreeHost(h));
	else
		free(h);
	printf("RESULT name=%s acc_sum=%lld\n", name, acc_sum);
	return zoo_end(name);
}
