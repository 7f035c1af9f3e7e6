/*
 * fma_bound - 4 launches of an FMA kernel filling every SM (132*8 blocks of
 * 256 threads, 16 independent chains per thread): arithmetic near the FP32
 * roof, no memory traffic. ~0.15 s per launch. Expected finding: compute_bound.
 * Counts: kernels=4 memcpy=1 memset=1 sync=1.
 * RESULT out_sum: the outputs copied back, 32 * (SMs * 8 * 256).
 */
#include "fma.h"

#define THREADS 256
#define LAUNCHES 4
#define ITERS (1 << 20)

int main(void)
{
	int dev, sms;
	float *out;
	zoo_begin();
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	size_t blocks = (size_t)sms * 8, n = blocks * THREADS;
	CK(cudaMalloc(&out, n * sizeof(float)));
	MEMSET(out, 0xff, n * sizeof(float));
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(fma_chains<16>, (unsigned)blocks, THREADS, 0, 0, out, ITERS, FMA_A, FMA_B);
	DSYNC();
	long long out_sum = check_fma_out("fma_bound", out, n, 32.0f);
	CK(cudaFree(out));
	printf("RESULT name=fma_bound out_sum=%lld\n", out_sum);
	return zoo_end("fma_bound");
}
