/*
 * sweep.cu - ground truth for gpuscope's occupancy calculator: real kernels
 * of different register counts x block sizes x dynamic shared memory, with
 * the runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor answer.
 * Output (stdout): CSV arch,regs,block_size,smem_static,smem_dynamic,active_blocks
 * Build: workloads/occupancy/build.sh OUTDIR; run OUTDIR/occupancy-sweep.
 */
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "sweep: %s failed: %s\n", #call, cudaGetErrorString(e_));  \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* N live accumulators force roughly N registers per thread. */
template <int N> __global__ void regs_kernel(float *out, const float *in, int iters)
{
	float acc[N];
	extern __shared__ float dyn[];
#pragma unroll
	for (int i = 0; i < N; i++)
		acc[i] = in[(threadIdx.x + i) & 255];
	for (int it = 0; it < iters; it++) {
#pragma unroll
		for (int i = 0; i < N; i++)
			acc[i] = acc[i] * acc[(i + 1) % N] + in[(it + i) & 255];
	}
	float s = 0;
#pragma unroll
	for (int i = 0; i < N; i++)
		s += acc[i];
	if (iters < 0)
		dyn[threadIdx.x] = s;
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* Same, with static shared memory and a launch bound capping registers. */
template <int N> __global__ void __launch_bounds__(1024) static_smem_kernel(float *out, int iters)
{
	__shared__ float tile[2048 + N];
	float acc[N];
#pragma unroll
	for (int i = 0; i < N; i++)
		acc[i] = (float)(threadIdx.x + i);
	tile[threadIdx.x] = acc[0];
	__syncthreads();
	for (int it = 0; it < iters; it++) {
#pragma unroll
		for (int i = 0; i < N; i++)
			acc[i] = acc[i] * tile[(it + i) & 1023] + acc[(i + 3) % N];
	}
	float s = 0;
#pragma unroll
	for (int i = 0; i < N; i++)
		s += acc[i];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static const void *kernels[] = {
    (const void *)regs_kernel<1>,	  (const void *)regs_kernel<8>,
    (const void *)regs_kernel<16>,	  (const void *)regs_kernel<24>,
    (const void *)regs_kernel<32>,	  (const void *)regs_kernel<48>,
    (const void *)regs_kernel<64>,	  (const void *)regs_kernel<80>,
    (const void *)regs_kernel<96>,	  (const void *)regs_kernel<128>,
    (const void *)regs_kernel<160>,	  (const void *)regs_kernel<200>,
    (const void *)regs_kernel<240>,	  (const void *)static_smem_kernel<8>,
    (const void *)static_smem_kernel<40>,
};

static const int block_sizes[] = {32,  64,  96,	 128, 160, 192, 256, 288,
				  320, 384, 448, 512, 640, 768, 896, 1024};
static const int smem_sizes[] = {
    0,	   1,	  1000,	 3000,	4096,	8192,	12345,	16384,	24576, 32768, 40000,
    49152, 65536, 81920, 98304, 131072, 163840, 180000, 200000, -1 /* the per-block maximum */};

int main(void)
{
	int dev;
	cudaDeviceProp prop;
	CHECK(cudaGetDevice(&dev));
	CHECK(cudaGetDeviceProperties(&prop, dev));
	fprintf(stderr, "sweep: %s, cc %d.%d, %d SMs, %zu B smem/SM, %zu B opt-in/block\n",
		prop.name, prop.major, prop.minor, prop.multiProcessorCount,
		prop.sharedMemPerMultiprocessor, prop.sharedMemPerBlockOptin);
	printf("arch,regs,block_size,smem_static,smem_dynamic,active_blocks\n");
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		cudaFuncAttributes attr;
		CHECK(cudaFuncGetAttributes(&attr, kernels[k]));
		int max_dyn = (int)(prop.sharedMemPerBlockOptin - attr.sharedSizeBytes);
		CHECK(cudaFuncSetAttribute(kernels[k], cudaFuncAttributeMaxDynamicSharedMemorySize,
					   max_dyn));
		for (size_t b = 0; b < sizeof(block_sizes) / sizeof(block_sizes[0]); b++) {
			int bs = block_sizes[b];
			if (bs > attr.maxThreadsPerBlock)
				continue;
			for (size_t s = 0; s < sizeof(smem_sizes) / sizeof(smem_sizes[0]); s++) {
				int dyn = smem_sizes[s] < 0 ? max_dyn : smem_sizes[s];
				if (dyn > max_dyn)
					continue;
				int n = -1;
				CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
				    &n, kernels[k], bs, (size_t)dyn));
				printf("sm_%d%d,%d,%d,%zu,%d,%d\n", prop.major, prop.minor,
				       attr.numRegs, bs, attr.sharedSizeBytes, dyn, n);
			}
		}
	}
	return 0;
}
