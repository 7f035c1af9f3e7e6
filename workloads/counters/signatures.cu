/*
 * signatures - one kernel per hardware-counter signature, for checking
 * `gpuscope record --metrics kernels` against `ncu --clock-control none`
 * on the same launches (workloads/counters/run-on-gpu.sh):
 *
 *   stream_copy      coalesced float4 copy: DRAM near its roof
 *   strided_read     each lane reads 128 bytes apart: 32 sectors per request
 *   divergent        lane L loops L+1 times: ~16.5 threads per instruction
 *   transpose_naive  32x32 shared tile read down a column: 32-way conflicts
 *   transpose_padded the same with a padded tile: no conflicts
 *   pointer_chase    one dependent load after another: long-scoreboard stalls
 *   fp64_fma         dependent DFMA chains: the FP64 pipe
 *   tensor_mma       wmma 16x16x16 half -> float tiles: the tensor pipe
 *
 * Each kernel runs LAUNCHES times; results are checked on the host, and any
 * failed CUDA call or wrong result exits 1. Last lines as the zoo's (zoo.h).
 */
#include <mma.h>

#include "../cuda/zoo.h"

#define LAUNCHES 3
#define N_STREAM (64u << 20) /* floats: 256 MiB per buffer */
#define N_STRIDED (2u << 20) /* floats read, 32 apart: N_STREAM in all */
#define CHASE_STEPS 4096

__global__ void stream_copy(const float4 *in, float4 *out, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		out[i] = in[i];
}

__global__ void strided_read(const float *in, float *out, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i * 32] * 2.0f;
}

__global__ void divergent(float *x, int iters)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	float v = x[i];
	int lane = threadIdx.x & 31;
	/* lane L runs L+1 inner iterations: the warp runs 32 of them with 32, 31,
	 * ..., 1 lanes active, 16.5 threads per instruction on average; a loop
	 * whose trip count differs per lane cannot be turned into selects */
	for (int k = 0; k < iters; k++)
		for (int j = 0; j <= lane; j++)
			v = v * 0.999f + 0.001f;
	x[i] = v;
}

/* reads the tile down a column: lane t hits word t*32 (+ padding) */
template <int PAD> __global__ void transpose(const float *in, float *out, int n, int reps)
{
	__shared__ float tile[32][32 + PAD];
	int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
	float acc = 0;
	for (int r = 0; r < reps; r++) {
		tile[threadIdx.y][threadIdx.x] = in[(size_t)y * n + x] + (float)r;
		__syncthreads();
		acc += tile[threadIdx.x][threadIdx.y];
		__syncthreads();
	}
	int ox = blockIdx.y * 32 + threadIdx.x, oy = blockIdx.x * 32 + threadIdx.y;
	out[(size_t)oy * n + ox] = acc;
}

__global__ void pointer_chase(const unsigned *next, unsigned *out, unsigned n, int steps)
{
	unsigned p = (unsigned)(((blockIdx.x * blockDim.x + threadIdx.x) * 977ull) % n);
	for (int s = 0; s < steps; s++)
		p = next[p];
	out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

__global__ void fp64_fma(double *x, int iters)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	double a = x[i], b = a + 1.0, c = a + 2.0, d = a + 3.0;
	for (int k = 0; k < iters; k++) {
		a = fma(a, 0.5, 1.0);
		b = fma(b, 0.5, 1.0);
		c = fma(c, 0.5, 1.0);
		d = fma(d, 0.5, 1.0);
	}
	x[i] = a + b + c + d; /* each converges to 2.0: 8.0 */
}

__global__ void tensor_mma(const half *a, const half *b, float *c, int reps)
{
	using namespace nvcuda;
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	wmma::fill_fragment(fc, 0.0f);
	wmma::load_matrix_sync(fa, a, 16);
	wmma::load_matrix_sync(fb, b, 16);
	for (int r = 0; r < reps; r++)
		wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(c + (size_t)warp * 256, fc, 16, wmma::mem_row_major);
}

static void check_stream(float *d_out, size_t n)
{
	float *h = (float *)malloc(n * sizeof(float));
	if (!h)
		zoo_fail("signatures", "out of host memory");
	MEMCPY(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < n; i += 4099)
		if (h[i] != zoo_val(i))
			zoo_fail("signatures", "stream_copy");
	free(h);
}

int main(void)
{
	int dev, sms;
	zoo_begin();
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));

	/* streaming copy */
	float *s_in, *s_out;
	CK(cudaMalloc(&s_in, N_STREAM * sizeof(float)));
	CK(cudaMalloc(&s_out, N_STREAM * sizeof(float)));
	float *h = (float *)malloc(N_STREAM * sizeof(float));
	if (!h)
		zoo_fail("signatures", "out of host memory");
	for (size_t i = 0; i < N_STREAM; i++)
		h[i] = zoo_val(i);
	MEMCPY(s_in, h, N_STREAM * sizeof(float), cudaMemcpyHostToDevice);
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(stream_copy, sms * 8, 512, 0, 0, (const float4 *)s_in, (float4 *)s_out,
		       (size_t)N_STREAM / 4);
	DSYNC();
	check_stream(s_out, N_STREAM);

	/* strided reads: in has N_STRIDED * 32 floats (the stream buffers) */
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(strided_read, N_STRIDED / 256, 256, 0, 0, s_in, s_out, (size_t)N_STRIDED);
	DSYNC();
	MEMCPY(h, s_out, 16 * sizeof(float), cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < 16; i++)
		if (h[i] != zoo_val(i * 32) * 2.0f)
			zoo_fail("signatures", "strided_read");

	/* divergence: every lane's value stays finite */
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(divergent, sms * 4, 256, 0, 0, s_out, 256);
	DSYNC();
	MEMCPY(h, s_out, 64 * sizeof(float), cudaMemcpyDeviceToHost);
	for (int i = 0; i < 64; i++)
		if (!(h[i] == h[i]) || h[i] > 1e30f || h[i] < -1e30f)
			zoo_fail("signatures", "divergent");

	/* transposes of a 4096 x 4096 tile grid, 16 repetitions in the block */
	int tn = 4096;
	dim3 tg(tn / 32, tn / 32), tb(32, 32);
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(transpose<0>, tg, tb, 0, 0, s_in, s_out, tn, 16);
	DSYNC();
	MEMCPY(h, s_out, sizeof(float), cudaMemcpyDeviceToHost);
	float want = 0;
	for (int r = 0; r < 16; r++)
		want += zoo_val(0) + (float)r;
	if (h[0] != want)
		zoo_fail("signatures", "transpose_naive");
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(transpose<1>, tg, tb, 0, 0, s_in, s_out, tn, 16);
	DSYNC();
	MEMCPY(h, s_out, sizeof(float), cudaMemcpyDeviceToHost);
	if (h[0] != want)
		zoo_fail("signatures", "transpose_padded");

	/* pointer chase over a 64 MiB random cycle */
	size_t nc = 16u << 20;
	unsigned *hn = (unsigned *)malloc(nc * sizeof(unsigned)), *next, *cout;
	if (!hn)
		zoo_fail("signatures", "out of host memory");
	for (size_t i = 0; i < nc; i++)
		hn[i] = (unsigned)((i * 2654435761ull + 12345) % nc);
	CK(cudaMalloc(&next, nc * sizeof(unsigned)));
	CK(cudaMalloc(&cout, (size_t)sms * 128 * sizeof(unsigned)));
	MEMCPY(next, hn, nc * sizeof(unsigned), cudaMemcpyHostToDevice);
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(pointer_chase, sms, 128, 0, 0, next, cout, (unsigned)nc, CHASE_STEPS);
	DSYNC();
	unsigned first;
	MEMCPY(&first, cout, sizeof(first), cudaMemcpyDeviceToHost);
	unsigned p = 0;
	for (int s = 0; s < CHASE_STEPS; s++)
		p = hn[p];
	if (first != p)
		zoo_fail("signatures", "pointer_chase");
	free(hn);

	/* fp64 FMA chains */
	double *dx;
	size_t n64 = (size_t)sms * 8 * 256;
	CK(cudaMalloc(&dx, n64 * sizeof(double)));
	MEMSET(dx, 0, n64 * sizeof(double));
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(fp64_fma, sms * 8, 256, 0, 0, dx, 1 << 14);
	DSYNC();
	double dv;
	MEMCPY(&dv, dx, sizeof(dv), cudaMemcpyDeviceToHost);
	if (dv != 8.0)
		zoo_fail("signatures", "fp64_fma");

	/* tensor cores: A = B = identity-ish 1/16 tiles */
	half ha[256];
	for (int i = 0; i < 256; i++)
		ha[i] = __float2half(i / 16 == i % 16 ? 1.0f : 0.0f);
	half *ta, *tbm;
	float *tc;
	int mwarps = sms * 16;
	CK(cudaMalloc(&ta, sizeof(ha)));
	CK(cudaMalloc(&tbm, sizeof(ha)));
	CK(cudaMalloc(&tc, (size_t)mwarps * 256 * sizeof(float)));
	MEMCPY(ta, ha, sizeof(ha), cudaMemcpyHostToDevice);
	MEMCPY(tbm, ha, sizeof(ha), cudaMemcpyHostToDevice);
	for (int l = 0; l < LAUNCHES; l++)
		LAUNCH(tensor_mma, mwarps / 4, 128, 0, 0, ta, tbm, tc, 1 << 14);
	DSYNC();
	float tv[2];
	MEMCPY(tv, tc, sizeof(tv), cudaMemcpyDeviceToHost);
	if (tv[0] != (float)(1 << 14) || tv[1] != 0.0f)
		zoo_fail("signatures", "tensor_mma");

	free(h);
	CK(cudaFree(s_in));
	CK(cudaFree(s_out));
	CK(cudaFree(next));
	CK(cudaFree(cout));
	CK(cudaFree(dx));
	CK(cudaFree(ta));
	CK(cudaFree(tbm));
	CK(cudaFree(tc));
	return zoo_end("signatures");
}
