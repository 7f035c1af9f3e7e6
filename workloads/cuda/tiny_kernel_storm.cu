/*
 * tiny_kernel_storm - 20000 launches of a kernel that does almost nothing.
 * Problem: launch overhead (~3-5 us per launch on the H200) dwarfs the ~2 us
 * of GPU work; expected finding: launch_overhead.
 * Counts: kernels=20000 memcpy=2 (H2D, D2H) memset=0 sync=1.
 * NVTX: 100 "step" ranges of 200 launches each.
 * RESULT x_sum: the 32 values copied back, sum of x0 + 32 * 20000.
 */
#include "zoo.h"
#include <nvtx3/nvToolsExt.h>

#define STEPS 100
#define PER_STEP 200

__global__ void tiny_add(float *x)
{
	x[threadIdx.x] += 1.0f;
}

int main(void)
{
	float h[32], *d;
	zoo_begin();
	for (int i = 0; i < 32; i++)
		h[i] = zoo_val(i);
	CK(cudaMalloc(&d, sizeof(h)));
	MEMCPY(d, h, sizeof(h), cudaMemcpyHostToDevice);
	for (int s = 0; s < STEPS; s++) {
		nvtxRangePushA("step");
		for (int k = 0; k < PER_STEP; k++)
			LAUNCH(tiny_add, 1, 32, 0, 0, d);
		nvtxRangePop();
	}
	DSYNC();
	float out[32];
	long long x_sum = 0;
	MEMCPY(out, d, sizeof(out), cudaMemcpyDeviceToHost);
	for (int i = 0; i < 32; i++) {
		if (out[i] != zoo_val(i) + STEPS * PER_STEP)
			zoo_fail("tiny_kernel_storm", "x[i] != x0 + 20000");
		x_sum += (long long)out[i];
	}
	CK(cudaFree(d));
	printf("RESULT name=tiny_kernel_storm x_sum=%lld\n", x_sum);
	return zoo_end("tiny_kernel_storm");
}
