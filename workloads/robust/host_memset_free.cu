/*
 * host_memset_free.cu - the call sequence of XLA's redzone checker when it
 * has no buffer to check (openxla/xla issue 46093): pinned host memory
 * allocated (cuMemHostAlloc), zeroed by an asynchronous memset on a stream
 * that is still busy (cuMemsetD32Async), and freed at once (cuMemFreeHost)
 * with no synchronization in between. Untraced, cuMemFreeHost waits for the
 * device; a recorder must not change that (issue 35, item 1: under record a
 * JAX program autotuning its GEMMs failed with CUDA_ERROR_LAUNCH_FAILED).
 *
 *   nvcc -O2 -arch=sm_90 -o host_memset_free workloads/robust/host_memset_free.cu -lcuda
 *   host_memset_free [ROUNDS] [SPIN_US] [alloc|register|mmap]
 *
 * Each round: a kernel that spins SPIN_US microseconds (default 200) on the
 * stream, then alloc / memset / free of 8 bytes of pinned host memory, then a
 * second kernel that counts. How the memory is pinned and freed (the third
 * argument): `alloc` (default) cuMemHostAlloc / cuMemFreeHost, as XLA does
 * by default; `register` a page from aligned_alloc pinned with
 * cuMemHostRegister and unpinned with cuMemHostUnregister before free(), as
 * XLA's NUMA-aware host allocator does; `mmap` the same on a page of its own
 * from mmap, given back with munmap, so that a write after the free has no
 * page to land in. At the end the context is synchronized and every
 * error checked: any failure exits 1 with the failing call. Prints the zoo's
 * `WORKLOAD` line (kernels, memsets; memcpy and sync are those it made).
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../cuda/zoo.h"

#define CU(call)                                                                                   \
	do {                                                                                       \
		CUresult r_ = (call);                                                              \
		if (r_ != CUDA_SUCCESS) {                                                          \
			const char *s_ = "?";                                                      \
			cuGetErrorName(r_, &s_);                                                   \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);         \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

__global__ void spin(long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles) {
	}
}

__global__ void count(int *p)
{
	if (threadIdx.x == 0)
		atomicAdd(p, 1);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	int spin_us = argc > 2 ? atoi(argv[2]) : 200;
	const char *mode = argc > 3 ? argv[3] : "alloc";
	if (strcmp(mode, "alloc") && strcmp(mode, "register") && strcmp(mode, "mmap")) {
		fprintf(stderr, "host_memset_free: mode is alloc, register or mmap, not %s\n",
			mode);
		return 2;
	}
	zoo_begin();
	int clock_khz = 0;
	CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
	long long cycles = (long long)clock_khz * spin_us / 1000;
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	int *d = NULL;
	CK(cudaMalloc(&d, sizeof(int)));
	MEMSET(d, 0, sizeof(int));
	for (int i = 0; i < rounds; i++) {
		LAUNCH(spin, 1, 32, 0, s, cycles);
		void *h = NULL;
		if (!strcmp(mode, "alloc")) {
			CU(cuMemHostAlloc(&h, 8, CU_MEMHOSTALLOC_PORTABLE));
		} else {
			h = !strcmp(mode, "mmap") ? mmap(NULL, 4096, PROT_READ | PROT_WRITE,
							 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
						  : aligned_alloc(4096, 4096);
			if (!h || h == MAP_FAILED) {
				fprintf(stderr, "host_memset_free: no host page\n");
				return 1;
			}
			CU(cuMemHostRegister(h, 4096, CU_MEMHOSTREGISTER_PORTABLE));
		}
		CUdeviceptr dh = (CUdeviceptr)h;
		if (strcmp(mode, "alloc"))
			CU(cuMemHostGetDevicePointer(&dh, h, 0));
		CU(cuMemsetD32Async(dh, 0, 2, (CUstream)s));
		zoo_memset++;
		if (!strcmp(mode, "alloc")) {
			CU(cuMemFreeHost(h));
		} else {
			CU(cuMemHostUnregister(h));
			if (!strcmp(mode, "mmap"))
				munmap(h, 4096);
			else
				free(h);
		}
		LAUNCH(count, 1, 32, 0, s, d);
	}
	CK(cudaStreamSynchronize(s));
	zoo_sync++;
	int n = 0;
	MEMCPY(&n, d, sizeof(int), cudaMemcpyDeviceToHost);
	if (n != rounds) {
		fprintf(stderr, "host_memset_free: counted %d rounds of %d\n", n, rounds);
		return 1;
	}
	printf("RESULT name=host_memset_free mode=%s rounds=%d counted=%d\n", mode, rounds, n);
	zoo_end("host_memset_free");
	return 0;
}
