/*
 * register_pressure - a latency-bound kernel held back by its registers.
 * Each thread keeps 96 floats live (__launch_bounds__(256, 1) lets ptxas
 * use up to 255 registers), so only one 256-thread block fits per SM: 8 of
 * 64 warps, 12.5% theoretical occupancy, limiter registers. The work is a
 * pointer chase through a 4 MiB table (it stays in L2, so DRAM is idle): every
 * load waits on the previous one, so the kernel's speed is the number of
 * chases in flight, i.e. resident warps. Neither DRAM nor the FP32 pipes get
 * near a roof; more occupancy is the fix. (The first version of this program
 * ran FMA chains: with 192 independent chains per thread the FP32 pipes ran
 * at 91% of peak even at 12.5% occupancy, which is compute-bound, not an
 * occupancy problem; the H200 said so.) Grid 132*4 blocks (no small grid),
 * 8 launches of ~30 ms dominate the run. Expected finding: low_occupancy.
 * Check registers with: nvcc -Xptxas -v (expect ~198 registers, no spill stack).
 * Counts: kernels=9 (1 table init + 8) memcpy=3 memset=1 sync=1.
 * RESULT out_sum: the outputs copied back, 2*LIVE * (SMs * 4 * 256);
 * end_sum: where the first 64 threads' chases ended (replayed on the host).
 */
#include "zoo.h"

#define LIVE 96
#define THREADS 256
#define LAUNCHES 8
#define OUTER 2048 /* outer steps; each chases CHASE dependent loads */
#define CHASE 16
#define TABLE (1u << 20) /* 1 Mi entries x 4 B = 4 MiB */
#define STEP 40503u	 /* odd: with a = 1 mod 4, i -> a*i + STEP visits every slot */
#define CHECKED 64	 /* threads whose chase is replayed on the host */

static __host__ __device__ inline uint32_t next_of(uint32_t i)
{
	return (i * 2654435761u + STEP) & (TABLE - 1);
}

__global__ void init_table(uint32_t *table)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < TABLE)
		table[i] = next_of(i);
}

__global__ void __launch_bounds__(THREADS, 1)
    heavy(float *out, uint32_t *end, const float *in, const uint32_t *table, float a, float b)
{
	float v[LIVE];
	size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
#pragma unroll
	for (int j = 0; j < LIVE; j++)
		v[j] = in[(t + j) & 1023];
	uint32_t p = (uint32_t)(t * 7919u) & (TABLE - 1);
#pragma unroll 1
	for (int k = 0; k < OUTER; k++) {
#pragma unroll 1
		for (int c = 0; c < CHASE; c++)
			p = table[p];
		/* every value feeds its neighbour and depends on the chase, so all
		   96 stay live across the loads (ptxas: 198 registers) */
		float q = (float)(p & 1u) * 0.0f;
#pragma unroll
		for (int j = 0; j < LIVE; j++)
			v[j] = fmaf(v[j], a, b) + (v[(j + 1) % LIVE] - v[(j + 1) % LIVE]) + q;
	}
	float s = 0.0f;
#pragma unroll
	for (int j = 0; j < LIVE; j++)
		s += v[j];
	out[t] = s;
	end[t] = p;
}

int main(void)
{
	int dev, sms;
	float h_in[1024], *in, *out;
	uint32_t *table, *end;
	zoo_begin();
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	size_t blocks = (size_t)sms * 4, n = blocks * THREADS;
	for (int i = 0; i < 1024; i++)
		h_in[i] = zoo_val(i) / 1000.0f;
	CK(cudaMalloc(&in, sizeof(h_in)));
	CK(cudaMalloc(&out, n * sizeof(float)));
	CK(cudaMalloc(&end, n * sizeof(uint32_t)));
	CK(cudaMalloc(&table, TABLE * sizeof(uint32_t)));
	MEMSET(out, 0xff, n * sizeof(float));
	MEMCPY(in, h_in, sizeof(h_in), cudaMemcpyHostToDevice);
	LAUNCH(init_table, TABLE / 256, 256, 0, 0, table);
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(heavy, (unsigned)blocks, THREADS, 0, 0, out, end, in, table, FMA_A, FMA_B);
	DSYNC();
	float *h = (float *)malloc(n * sizeof(float));
	uint32_t he[CHECKED];
	long long out_sum = 0, end_sum = 0;
	if (!h)
		zoo_fail("register_pressure", "out of host memory");
	MEMCPY(h, out, n * sizeof(float), cudaMemcpyDeviceToHost);
	MEMCPY(he, end, sizeof(he), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < n; i++) {
		if (h[i] != 2.0f * LIVE)
			zoo_fail("register_pressure", "sum != 2*LIVE");
		out_sum += (long long)h[i];
	}
	for (uint32_t t = 0; t < CHECKED; t++) {
		uint32_t p = (t * 7919u) & (TABLE - 1);
		for (int k = 0; k < OUTER * CHASE; k++)
			p = next_of(p);
		if (p != he[t])
			zoo_fail("register_pressure", "pointer chase ended elsewhere");
		end_sum += he[t];
	}
	free(h);
	CK(cudaFree(in));
	CK(cudaFree(out));
	CK(cudaFree(end));
	CK(cudaFree(table));
	printf("RESULT name=register_pressure out_sum=%lld end_sum=%lld\n", out_sum, end_sum);
	return zoo_end("register_pressure");
}
