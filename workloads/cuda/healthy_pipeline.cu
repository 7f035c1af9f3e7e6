/*
 * healthy_pipeline - 64 chunks of 4 MiB over 4 streams: pinned async H2D,
 * a ~8 ms compute kernel, async D2H; copies of one chunk overlap the kernels
 * of others, the host enqueues everything up front and waits once. The GPU
 * is busy, the host is not the bottleneck. Expected finding: gpu_busy.
 * NVTX: one "chunk" range per chunk (enqueue side).
 * Counts: kernels=64 memcpy=128 memset=0 sync=1.
 * RESULT out_sum: the 64M outputs copied back, 2 + in[i] each.
 */
#include "zoo.h"
#include <nvtx3/nvToolsExt.h>

#define STREAMS 4
#define CHUNKS 64
#define CHUNK_FLOATS (1u << 20)
#define ITERS (1 << 18)

__global__ void work(float *out, const float *in, int iters, float a, float b)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < CHUNK_FLOATS) {
		float x0 = in[i], x = x0;
		for (int k = 0; k < iters; k++)
			x = fmaf(x, a, b);
		out[i] = x + x0; /* exactly 2 + in[i] */
	}
}

int main(void)
{
	size_t total = (size_t)CHUNKS * CHUNK_FLOATS, cb = CHUNK_FLOATS * sizeof(float);
	float *h_in, *h_out, *d_in[STREAMS], *d_out[STREAMS];
	cudaStream_t st[STREAMS];
	long long out_sum = 0;
	zoo_begin();
	CK(cudaMallocHost(&h_in, total * sizeof(float)));
	CK(cudaMallocHost(&h_out, total * sizeof(float)));
	for (size_t i = 0; i < total; i++) {
		h_in[i] = zoo_val(i);
		h_out[i] = -1.0f;
	}
	for (int s = 0; s < STREAMS; s++) {
		CK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
		CK(cudaMalloc(&d_in[s], cb));
		CK(cudaMalloc(&d_out[s], cb));
	}
	for (int c = 0; c < CHUNKS; c++) {
		int s = c % STREAMS; /* stream order keeps reuse of d_in[s] safe */
		nvtxRangePushA("chunk");
		MEMCPY_ASYNC(d_in[s], h_in + c * (size_t)CHUNK_FLOATS, cb, cudaMemcpyHostToDevice,
			     st[s]);
		LAUNCH(work, CHUNK_FLOATS / 256, 256, 0, st[s], d_out[s], d_in[s], ITERS, FMA_A,
		       FMA_B);
		MEMCPY_ASYNC(h_out + c * (size_t)CHUNK_FLOATS, d_out[s], cb, cudaMemcpyDeviceToHost,
			     st[s]);
		nvtxRangePop();
	}
	DSYNC();
	for (size_t i = 0; i < total; i++) {
		if (h_out[i] != 2.0f + h_in[i])
			zoo_fail("healthy_pipeline", "out != 2 + in");
		out_sum += (long long)h_out[i];
	}
	for (int s = 0; s < STREAMS; s++) {
		CK(cudaStreamDestroy(st[s]));
		CK(cudaFree(d_in[s]));
		CK(cudaFree(d_out[s]));
	}
	CK(cudaFreeHost(h_in));
	CK(cudaFreeHost(h_out));
	printf("RESULT name=healthy_pipeline out_sum=%lld\n", out_sum);
	return zoo_end("healthy_pipeline");
}
