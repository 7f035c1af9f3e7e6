/*
 * driver_api - a plain C program on the CUDA driver API alone (no runtime),
 * as JIT compilers and Triton launch: cuModuleLoad, cuLaunchKernel,
 * cuLaunchKernelEx, a stream captured into a graph and replayed with
 * cuGraphLaunch, synchronous and asynchronous copies from pageable and
 * pinned memory, cuMemsetD32. `gpuscope record` must store exactly the
 * kernels, copies and memsets it makes (issue 3: "plain CUDA C/C++ on the
 * runtime or driver API").
 *
 * Prints its PROC line (workloads/procs/check_procs.py) and, last, the zoo's line
 *   WORKLOAD name=driver_api kernels=K memcpy=C memset=S sync=Y
 * (kernels include the graph's kernel nodes at every replay; sync counts
 * cuCtxSynchronize and cuStreamSynchronize calls). Exits 1 on any failed
 * call or a wrong result. Loads driver_api_kernels.cubin from its own folder.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N 4096
#define PLAIN 3000  /* cuLaunchKernel */
#define EX 1000	    /* cuLaunchKernelEx */
#define GRAPH_K 20  /* kernel nodes in the captured graph */
#define REPLAYS 50  /* cuGraphLaunch */
#define ASYNC_CP 16 /* cuMemcpyHtoDAsync from pinned memory */

static long n_kernels, n_memcpy, n_memset, n_sync;

#define CK(call)                                                                                   \
	do {                                                                                       \
		CUresult r_ = (call);                                                              \
		if (r_ != CUDA_SUCCESS) {                                                          \
			const char *s_ = "?";                                                      \
			cuGetErrorString(r_, &s_);                                                 \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);         \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);
	if (n <= 0)
		return 1;
	path[n] = 0;
	char *slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "driver_api_kernels.cubin");

	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction add_one, scale_add;
	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	CK(cuModuleLoad(&mod, path));
	CK(cuModuleGetFunction(&add_one, mod, "add_one"));
	CK(cuModuleGetFunction(&scale_add, mod, "scale_add"));
	double t0 = now_s();

	float *h = malloc(N * sizeof(float)), *pinned;
	CK(cuMemAllocHost((void **)&pinned, N * sizeof(float)));
	for (int i = 0; i < N; i++)
		h[i] = pinned[i] = (float)(i % 1000) + 1.0f;
	CUdeviceptr d;
	CK(cuMemAlloc(&d, N * sizeof(float)));
	CK(cuMemsetD32(d, 0, N));
	n_memset++;
	CK(cuMemcpyHtoD(d, h, N * sizeof(float))); /* pageable, synchronous */
	n_memcpy++;

	int nn = N;
	void *args[] = {&d, &nn};
	for (int k = 0; k < PLAIN; k++) {
		CK(cuLaunchKernel(add_one, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
		n_kernels++;
	}
	CUlaunchConfig cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.gridDimX = N / 128;
	cfg.gridDimY = cfg.gridDimZ = 1;
	cfg.blockDimX = 128;
	cfg.blockDimY = cfg.blockDimZ = 1;
	for (int k = 0; k < EX; k++) {
		CK(cuLaunchKernelEx(&cfg, add_one, args, NULL));
		n_kernels++;
	}
	CK(cuCtxSynchronize());
	n_sync++;

	/* a graph captured from a stream: GRAPH_K add_one nodes, replayed */
	CUstream s;
	CUgraph graph;
	CUgraphExec exec;
	CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
	for (int k = 0; k < GRAPH_K; k++)
		CK(cuLaunchKernel(add_one, N / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
	CK(cuStreamEndCapture(s, &graph));
	CK(cuGraphInstantiate(&exec, graph, 0));
	for (int r = 0; r < REPLAYS; r++) {
		CK(cuGraphLaunch(exec, s));
		n_kernels += GRAPH_K;
	}
	/* pinned async copies on the stream, then x = x * 1 + 0.5 twice */
	CUdeviceptr d2;
	CK(cuMemAlloc(&d2, N * sizeof(float)));
	for (int c = 0; c < ASYNC_CP; c++) {
		CK(cuMemcpyHtoDAsync(d2, pinned, N * sizeof(float), s));
		n_memcpy++;
	}
	float a = 1.0f, b = 0.5f;
	void *sargs[] = {&d, &a, &b, &nn};
	for (int k = 0; k < 2; k++) {
		CK(cuLaunchKernel(scale_add, N / 256, 1, 1, 256, 1, 1, 0, s, sargs, NULL));
		n_kernels++;
	}
	CK(cuStreamSynchronize(s));
	n_sync++;

	CK(cuMemcpyDtoH(h, d, N * sizeof(float)));
	n_memcpy++;
	long adds = PLAIN + EX + (long)GRAPH_K * REPLAYS;
	for (int i = 0; i < N; i++)
		if (h[i] != pinned[i] + (float)adds + 1.0f) {
			fprintf(stderr, "driver_api: wrong result at %d: %g, expected %g\n", i,
				(double)h[i], (double)(pinned[i] + (float)adds + 1.0f));
			return 1;
		}
	CK(cuGraphExecDestroy(exec));
	CK(cuGraphDestroy(graph));
	CK(cuStreamDestroy(s));
	CK(cuMemFree(d));
	CK(cuMemFree(d2));
	CK(cuMemFreeHost(pinned));
	free(h);
	printf("PROC pid=%d ppid=%d kernels=%ld memcpy=%ld memset=%ld sync=%ld\n", (int)getpid(),
	       (int)getppid(), n_kernels, n_memcpy, n_memset, n_sync);
	printf("TIME name=driver_api loop_s=%.6f\n", now_s() - t0);
	printf("WORKLOAD name=driver_api kernels=%ld memcpy=%ld memset=%ld sync=%ld\n", n_kernels,
	       n_memcpy, n_memset, n_sync);
	CK(cuModuleUnload(mod));
	CK(cuDevicePrimaryCtxRelease(dev));
	return 0;
}
