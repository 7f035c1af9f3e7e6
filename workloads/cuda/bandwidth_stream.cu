/*
 * bandwidth_stream - STREAM triad a = b + 2*c over 3 x 256M floats (3 GiB),
 * float4 loads, 300 launches of ~0.8 ms each at the DRAM roof (~4 TB/s).
 * Expected finding: memory_bound.
 * Counts: kernels=301 (1 init + 300) memcpy=1 memset=0 sync=1.
 * `bandwidth_stream --seconds S` (gpuscope monitor's H200 run) instead
 * streams for S seconds in batches of 300 launches, so that sampling windows
 * of 0.2 s lie wholly inside the streaming (the default run streams 0.25 s
 * of a 0.6 s process); its counts line then says how many it launched.
 * RESULT a_sum: the first 4M values of a (those copied back), b + 2c each.
 */
#include <string.h>

#include "zoo.h"

#define NF (256u << 20)
#define LAUNCHES 300
#define CHECK_N (4u << 20)

__global__ void init_bc(float *b, float *c)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < NF) {
		b[i] = (float)(i % 1024);
		c[i] = (float)(i % 7);
	}
}

__global__ void triad(float4 *a, const float4 *b, const float4 *c, float s)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < NF / 4) {
		float4 x = b[i], y = c[i];
		a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
	}
}

int main(int argc, char **argv)
{
	float *a, *b, *c;
	double seconds = 0;
	long long a_sum = 0;
	if (argc == 3 && strcmp(argv[1], "--seconds") == 0)
		seconds = atof(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: bandwidth_stream [--seconds S]\n");
		return 2;
	}
	zoo_begin();
	CK(cudaMalloc(&a, NF * sizeof(float)));
	CK(cudaMalloc(&b, NF * sizeof(float)));
	CK(cudaMalloc(&c, NF * sizeof(float)));
	LAUNCH(init_bc, NF / 256, 256, 0, 0, b, c);
	double until = zoo_now() + seconds;
	do {
		for (int l = 0; l < LAUNCHES; l++)
			LAUNCH(triad, NF / 4 / 256, 256, 0, 0, (float4 *)a, (const float4 *)b,
			       (const float4 *)c, 2.0f);
		/* a batch's 300 launches queue faster than they run: wait per batch */
		if (seconds > 0)
			CK(cudaDeviceSynchronize());
	} while (zoo_now() < until);
	DSYNC();
	float *h = (float *)malloc(CHECK_N * sizeof(float));
	if (!h)
		zoo_fail("bandwidth_stream", "out of host memory");
	MEMCPY(h, a, CHECK_N * sizeof(float), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < CHECK_N; i++) {
		if (h[i] != (float)(i % 1024) + 2.0f * (float)(i % 7))
			zoo_fail("bandwidth_stream", "a != b + 2c");
		a_sum += (long long)h[i];
	}
	free(h);
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(c));
	printf("RESULT name=bandwidth_stream a_sum=%lld\n", a_sum);
	return zoo_end("bandwidth_stream");
}
