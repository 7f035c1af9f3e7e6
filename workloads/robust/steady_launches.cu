/*
 * steady_launches.cu - the CUDA C program of run-on-gpu.sh's robustness
 * stage: launches a tiny kernel in a loop until killed (or for ARG1 seconds,
 * then exits ARG2), printing `launched N` after each 1000 launches and a
 * device synchronize, so a database can be checked against the last line.
 *
 *   nvcc -O2 -arch=sm_90 -o steady_launches workloads/robust/steady_launches.cu
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../cuda/zoo.h" /* CK */

__global__ void bump(int *p)
{
	if (threadIdx.x == 0)
		atomicAdd(p, 1);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double limit = argc > 1 ? atof(argv[1]) : 0;
	int code = argc > 2 ? atoi(argv[2]) : 0;
	int *p = NULL;
	CK(cudaMalloc(&p, sizeof(int)));
	CK(cudaMemset(p, 0, sizeof(int)));
	double t0 = now_s();
	for (long n = 1;; n++) {
		bump<<<1, 32>>>(p);
		if (n % 1000 == 0) {
			CK(cudaDeviceSynchronize());
			printf("launched %ld\n", n);
			fflush(stdout);
			if (limit > 0 && now_s() - t0 > limit)
				return code;
		}
	}
}
