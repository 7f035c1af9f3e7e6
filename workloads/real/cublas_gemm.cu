/*
 * cublas_gemm - a CUDA C program whose time is cuBLAS's GEMMs (library kernels).
 *
 * C = relu(A x B + bias) with A, B, C bf16 8192 x 8192 (fp32 accumulation,
 * cublasGemmEx, tensor cores; ~1.1 TFLOP, ~1.4 ms per call on an H200), the
 * bias + ReLU done by the program's own small kernel after each GEMM (128
 * MiB read and written, ~60 us); 1000 iterations (~1.5 s, so the 10 Hz GPM
 * samples see it), no host syncs in the loop.
 * The inputs are made on the device by the program's own kernel from a
 * hash that the host recomputes, and 16 entries of C are checked against a
 * double-precision dot product on the host.
 * Expected: gpu_busy / compute_bound on cuBLAS's kernels near the tensor
 * roof (healthy); advice for library kernels (shapes, precision such as
 * fp8, batching, a cuBLASLt epilogue that fuses the bias + ReLU), never
 * float4/vector-load or occupancy advice for the GEMMs (not the user's
 * code), never PyTorch advice (torch.compile, DataLoader): a CUDA C program.
 * Prints `RESULT name=cublas_gemm c_sum=F`, the sum of the 16 checked entries
 * of C, as %.9e so that workloads/real/same_result.py reads a float and
 * compares it within its relative tolerance, as it does the PyTorch sums
 * (cuBLAS promises bitwise-identical results only for one toolkit version on
 * one architecture and SM count), then TIME and, last,
 *   WORKLOAD name=cublas_gemm kernels=K memcpy=C memset=S sync=Y gemm_calls=G
 * with K = the program's own kernels + G (one kernel per cublasGemmEx call
 * is expected at this shape; the run's table says whether it held).
 * Build (workloads/build-zoo.sh): nvcc -O2 -arch=sm_90 -lineinfo -o cublas_gemm cublas_gemm.cu
 * -lcublas
 */
#include "../cuda/zoo.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <math.h>

#define N 8192
#define ITERS 1000
#define CHECKS 16

static long gemm_calls;

#define CB(call)                                                                                   \
	do {                                                                                       \
		cublasStatus_t s_ = (call);                                                        \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
			fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__,       \
				#call, (int)s_);                                                   \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* a value in [-1, 1) from (seed, i), the same on host and device */
static __host__ __device__ inline float hval(uint64_t seed, uint64_t i)
{
	uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed * 0xBF58476D1CE4E5B9ull;
	h ^= h >> 31;
	h *= 0x94D049BB133111EBull;
	h ^= h >> 29;
	return (float)(h >> 40) / (float)(1u << 23) - 1.0f;
}

__global__ void fill(__nv_bfloat16 *x, uint64_t n, uint64_t seed, float scale)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = __float2bfloat16(hval(seed, i) * scale);
}

/* the user's own epilogue: c = relu(c + bias[column]), column-major n x n */
__global__ void bias_relu(__nv_bfloat16 *c, const __nv_bfloat16 *bias, uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i < n * n) {
		float v = __bfloat162float(c[i]) + __bfloat162float(bias[i / n]);
		c[i] = __float2bfloat16(v > 0.0f ? v : 0.0f);
	}
}

static float host_bf16(uint64_t seed, uint64_t i, float scale)
{
	return __bfloat162float(__float2bfloat16(hval(seed, i) * scale));
}

int main(void)
{
	const uint64_t nn = (uint64_t)N * N;
	const float bscale = 1.0f / sqrtf((float)N);
	__nv_bfloat16 *a, *b, *c, *bias;
	cublasHandle_t h;
	const float one = 1.0f, zero = 0.0f;
	unsigned blocks = (unsigned)((nn + 255) / 256);
	double c_sum = 0;

	zoo_begin();
	CK(cudaMalloc((void **)&a, nn * sizeof(*a)));
	CK(cudaMalloc((void **)&b, nn * sizeof(*b)));
	CK(cudaMalloc((void **)&c, nn * sizeof(*c)));
	CK(cudaMalloc((void **)&bias, N * sizeof(*bias)));
	CB(cublasCreate(&h));
	CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
	LAUNCH(fill, blocks, 256, 0, 0, a, nn, 1, 1.0f);
	LAUNCH(fill, blocks, 256, 0, 0, b, nn, 2, bscale);
	LAUNCH(fill, (N + 255) / 256, 256, 0, 0, bias, (uint64_t)N, 3, 0.1f);
	for (int it = 0; it < ITERS; it++) {
		/* column-major: C = A * B */
		CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, CUDA_R_16BF, N, b,
				CUDA_R_16BF, N, &zero, c, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F,
				CUBLAS_GEMM_DEFAULT));
		gemm_calls++;
		LAUNCH(bias_relu, blocks, 256, 0, 0, c, bias, (uint64_t)N);
	}
	DSYNC();

	/* spot checks: C(r, q) = relu(sum_k A(r, k) B(k, q) + bias(q)) */
	for (int t = 0; t < CHECKS; t++) {
		uint64_t r = (uint64_t)(hval(7, t) * 0.5f * N + N / 2) % N;
		uint64_t q = (uint64_t)(hval(8, t) * 0.5f * N + N / 2) % N;
		double ref = host_bf16(3, q, 0.1f);
		__nv_bfloat16 got;
		for (uint64_t k = 0; k < N; k++)
			ref += (double)host_bf16(1, k * N + r, 1.0f) *
			       (double)host_bf16(2, q * N + k, bscale);
		ref = ref > 0 ? ref : 0;
		MEMCPY(&got, c + q * N + r, sizeof(got), cudaMemcpyDeviceToHost);
		if (fabs(__bfloat162float(got) - ref) > 0.02 * fabs(ref) + 0.02) {
			fprintf(stderr, "C(%lu,%lu) = %g, expected %g\n", (unsigned long)r,
				(unsigned long)q, __bfloat162float(got), ref);
			zoo_fail("cublas_gemm", "GEMM result");
		}
		c_sum += __bfloat162float(got);
	}
	CB(cublasDestroy(h));
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(c));
	CK(cudaFree(bias));
	printf("RESULT name=cublas_gemm c_sum=%.9e\n", c_sum);
	printf("TIME name=cublas_gemm loop_s=%.6f\n", zoo_now() - zoo_t0);
	printf(
	    "WORKLOAD name=cublas_gemm kernels=%ld memcpy=%ld memset=%ld sync=%ld gemm_calls=%ld\n",
	    zoo_kernels + gemm_calls, zoo_memcpy, zoo_memset, zoo_sync, gemm_calls);
	fflush(stdout);
	return 0;
}
