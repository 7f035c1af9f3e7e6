/*
 * graph_storm - the work of tiny_kernel_storm (20000 tiny kernels), captured
 * once into a CUDA Graph of 200 kernel nodes and replayed 100 times.
 * The fix for launch overhead: one cudaGraphLaunch per 200 kernels. The
 * kernels are still tiny, so the GPU is mostly idle per kernel but the host
 * launch cost is gone; expected finding: launch_overhead at much lower impact
 * (or gpu_busy), compare with tiny_kernel_storm via `gpuscope diff`.
 * Counts: kernels=20000 (executed graph kernel nodes; the 200 captured launches
 * do not execute) memcpy=2 memset=0 sync=1 graph_launches=100.
 * RESULT x_sum: the 32 values copied back, sum of x0 + 32 * 20000.
 */
#include "zoo.h"

#define NODES 200
#define REPLAYS 100

__global__ void tiny_add(float *x)
{
	x[threadIdx.x] += 1.0f;
}

int main(void)
{
	float h[32], *d;
	cudaStream_t st;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	zoo_begin();
	for (int i = 0; i < 32; i++)
		h[i] = zoo_val(i);
	CK(cudaMalloc(&d, sizeof(h)));
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	MEMCPY(d, h, sizeof(h), cudaMemcpyHostToDevice);

	CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
	for (int k = 0; k < NODES; k++) {
		tiny_add<<<1, 32, 0, st>>>(d); /* captured, not executed: not counted */
		CK(cudaGetLastError());
	}
	CK(cudaStreamEndCapture(st, &graph));
	CK(cudaGraphInstantiate(&exec, graph, 0));
	size_t n = 0;
	CK(cudaGraphGetNodes(graph, NULL, &n));
	if (n != NODES)
		zoo_fail("graph_storm", "graph does not hold 200 nodes");

	for (int r = 0; r < REPLAYS; r++) {
		CK(cudaGraphLaunch(exec, st));
		zoo_kernels += NODES;
	}
	DSYNC();
	float out[32];
	long long x_sum = 0;
	MEMCPY(out, d, sizeof(out), cudaMemcpyDeviceToHost);
	for (int i = 0; i < 32; i++) {
		if (out[i] != zoo_val(i) + NODES * REPLAYS)
			zoo_fail("graph_storm", "x[i] != x0 + 20000");
		x_sum += (long long)out[i];
	}
	CK(cudaGraphExecDestroy(exec));
	CK(cudaGraphDestroy(graph));
	CK(cudaStreamDestroy(st));
	CK(cudaFree(d));
	printf("RESULT name=graph_storm x_sum=%lld\n", x_sum);
	printf("TIME name=graph_storm loop_s=%.6f\n", zoo_now() - zoo_t0);
	printf("WORKLOAD name=graph_storm kernels=%ld memcpy=%ld memset=%ld sync=%ld "
	       "graph_launches=%d\n",
	       zoo_kernels, zoo_memcpy, zoo_memset, zoo_sync, REPLAYS);
	return 0;
}
