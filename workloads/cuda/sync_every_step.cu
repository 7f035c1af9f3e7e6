/*
 * sync_every_step - 4000 steps of: a ~20 us kernel, cudaDeviceSynchronize,
 * a 4-byte D2H cudaMemcpy of a "loss", a host check. Each sync drains the GPU
 * queue, so the GPU idles for the sync + copy + relaunch round trip every
 * step (the CUDA C twin of loss.item() in a training loop).
 * Expected finding: sync_stall. NVTX: one "step" range per step.
 * Counts: kernels=4000 memcpy=4000 memset=1 sync=4000.
 * RESULT loss_sum: the 4000 losses copied back, 0 + 1 + ... + 3999 (added up
 * in the step's host check: one integer add, no CUDA call).
 */
#include "zoo.h"
#include <nvtx3/nvToolsExt.h>

#define STEPS 4000
#define N (1u << 20)

__global__ void step_kernel(float *x, int *loss, int step, float a, float b)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < N) {
		float v = x[i];
		for (int k = 0; k < 512; k++)
			v = fmaf(v, a, b);
		x[i] = v;
	}
	if (i == 0)
		*loss = step;
}

int main(void)
{
	float *x;
	int *loss;
	long long loss_sum = 0;
	zoo_begin();
	CK(cudaMalloc(&x, N * sizeof(float)));
	CK(cudaMalloc(&loss, sizeof(int)));
	MEMSET(x, 0, N * sizeof(float));
	for (int s = 0; s < STEPS; s++) {
		int h = -1;
		nvtxRangePushA("step");
		LAUNCH(step_kernel, N / 256, 256, 0, 0, x, loss, s, FMA_A, FMA_B);
		DSYNC();
		MEMCPY(&h, loss, sizeof(int), cudaMemcpyDeviceToHost);
		nvtxRangePop();
		if (h != s)
			zoo_fail("sync_every_step", "loss != step");
		loss_sum += h;
	}
	CK(cudaFree(x));
	CK(cudaFree(loss));
	printf("RESULT name=sync_every_step loss_sum=%lld\n", loss_sum);
	return zoo_end("sync_every_step");
}
