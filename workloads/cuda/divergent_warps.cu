/*
 * divergent_warps - in each warp, lanes 0, 8, 16, 24 run 8x the FMA
 * iterations of the others, so for 7/8 of the warp's time only 4 of 32 lanes
 * are active (~7.5 threads per instruction on average, far under Nsight
 * Compute's 24). Expected finding: divergence (with --metrics), else
 * compute_bound/latency_bound from the timeline.
 * Counts: kernels=8 memcpy=1 memset=1 sync=1.
 * RESULT out_sum: the outputs copied back, 2 * (SMs * 8 * 256).
 */
#include "zoo.h"

#define THREADS 256
#define LAUNCHES 8
#define ITERS (1 << 19)

__global__ void divergent(float *out, int iters, float a, float b)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	int n = (threadIdx.x % 8 == 0) ? iters * 8 : iters;
	float x = (float)(i & 15);
	for (int k = 0; k < n; k++)
		x = fmaf(x, a, b);
	out[i] = x;
}

int main(void)
{
	int dev, sms;
	float *out;
	long long out_sum = 0;
	zoo_begin();
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	size_t blocks = (size_t)sms * 8, n = blocks * THREADS;
	CK(cudaMalloc(&out, n * sizeof(float)));
	MEMSET(out, 0xff, n * sizeof(float));
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(divergent, (unsigned)blocks, THREADS, 0, 0, out, ITERS, FMA_A, FMA_B);
	DSYNC();
	float *h = (float *)malloc(n * sizeof(float));
	if (!h)
		zoo_fail("divergent_warps", "out of host memory");
	MEMCPY(h, out, n * sizeof(float), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < n; i++) {
		if (h[i] != 2.0f)
			zoo_fail("divergent_warps", "out[i] != 2");
		out_sum += (long long)h[i];
	}
	free(h);
	CK(cudaFree(out));
	printf("RESULT name=divergent_warps out_sum=%lld\n", out_sum);
	return zoo_end("divergent_warps");
}
