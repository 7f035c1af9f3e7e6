/*
 * bank_conflicts - each thread reads shared memory at word t*32 + (k % 32):
 * the 32 lanes of a warp hit the same bank at once, a 32-way conflict that
 * serializes every load into 32 wavefronts. 10 launches of ~30 ms.
 * Expected finding: latency_bound (shared-memory pipe, neither DRAM nor FMA
 * roof); with --metrics the bank-conflict counters say why.
 * Counts: kernels=10 memcpy=1 memset=1 sync=1.
 * RESULT acc_sum: the accumulators copied back, 496 * ITERS/32 * (SMs * 6 * 256).
 */
#include "zoo.h"

#define THREADS 256
#define LAUNCHES 10
#define ITERS (1 << 15)

__global__ void conflicts(int *out, int iters)
{
	__shared__ int tile[THREADS * 32];
	for (int j = 0; j < 32; j++)
		tile[threadIdx.x * 32 + j] = j;
	__syncthreads();
	volatile int *t = tile; /* keep every load: no hoisting out of the loop */
	int acc = 0;
	for (int k = 0; k < iters; k++)
		acc += t[threadIdx.x * 32 + (k & 31)];
	out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = acc;
}

int main(void)
{
	int dev, sms;
	int *out;
	long long acc_sum = 0;
	zoo_begin();
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	size_t blocks = (size_t)sms * 6, n = blocks * THREADS;
	CK(cudaMalloc(&out, n * sizeof(int)));
	MEMSET(out, 0xff, n * sizeof(int));
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(conflicts, (unsigned)blocks, THREADS, 0, 0, out, ITERS);
	DSYNC();
	int *h = (int *)malloc(n * sizeof(int));
	if (!h)
		zoo_fail("bank_conflicts", "out of host memory");
	MEMCPY(h, out, n * sizeof(int), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < n; i++) {
		if (h[i] != 496 * (ITERS / 32))
			zoo_fail("bank_conflicts", "acc != 496 * iters/32");
		acc_sum += h[i];
	}
	free(h);
	CK(cudaFree(out));
	printf("RESULT name=bank_conflicts acc_sum=%lld\n", acc_sum);
	return zoo_end("bank_conflicts");
}
