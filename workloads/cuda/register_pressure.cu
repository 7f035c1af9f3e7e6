/*
 * register_pressure - a kernel that keeps 192 floats live per thread
 * (__launch_bounds__(256, 1) lets ptxas use up to 255 registers), so only one
 * 256-thread block fits per SM: 8 of 64 warps, 12.5% theoretical occupancy,
 * limiter registers. Grid 132*4 blocks (no small-grid problem), 8 launches of
 * ~50 ms dominate the run. Expected finding: low_occupancy.
 * Check registers with: nvcc -Xptxas -v (expect > 200 registers).
 * Counts: kernels=8 memcpy=2 memset=1 sync=1.
 */
#include "zoo.h"

#define LIVE 192
#define THREADS 256
#define LAUNCHES 8
#define ITERS (1 << 15)

__global__ void __launch_bounds__(THREADS, 1)
    heavy(float *out, const float *in, int iters, float a, float b)
{
	float v[LIVE];
	size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
#pragma unroll
	for (int j = 0; j < LIVE; j++)
		v[j] = in[(t + j) & 1023];
	for (int k = 0; k < iters; k++) {
		/* each value also feeds its neighbour, so the loops cannot be
		   interchanged to keep a single value live */
#pragma unroll
		for (int j = 0; j < LIVE; j++)
			v[j] = fmaf(v[j], a, b) + (v[(j + 1) % LIVE] - v[(j + 1) % LIVE]);
	}
	float s = 0.0f;
#pragma unroll
	for (int j = 0; j < LIVE; j++)
		s += v[j];
	out[t] = s;
}

int main(void)
{
	int dev, sms;
	float h_in[1024], *in, *out;
	zoo_begin();
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	size_t blocks = (size_t)sms * 4, n = blocks * THREADS;
	for (int i = 0; i < 1024; i++)
		h_in[i] = zoo_val(i) / 1000.0f;
	CK(cudaMalloc(&in, sizeof(h_in)));
	CK(cudaMalloc(&out, n * sizeof(float)));
	MEMSET(out, 0xff, n * sizeof(float));
	MEMCPY(in, h_in, sizeof(h_in), cudaMemcpyHostToDevice);
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(heavy, (unsigned)blocks, THREADS, 0, 0, out, in, ITERS, FMA_A, FMA_B);
	DSYNC();
	float *h = (float *)malloc(n * sizeof(float));
	if (!h)
		zoo_fail("register_pressure", "out of host memory");
	MEMCPY(h, out, n * sizeof(float), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < n; i++)
		if (h[i] != 2.0f * LIVE)
			zoo_fail("register_pressure", "sum != 2*LIVE");
	free(h);
	CK(cudaFree(in));
	CK(cudaFree(out));
	return zoo_end("register_pressure");
}
