/*
 * managed_faults - unified (managed) memory that a kernel reads on demand
 * (issue 36 item 3). 256 MiB of cudaMallocManaged memory (MANAGED_MIB, never
 * more than half of what the card has free), filled by the host once; then
 * STEPS = 10 times the host updates one value in every 4 KiB page (boundary
 * values, say: the pages move back to the CPU) and a kernel, touch_sum,
 * reads every element and sums them (into device memory, read back).
 *   default:    the host's updates fault each page back to the CPU, and the
 *               kernel's reads fault them all in again: GPU page faults and
 *               on-demand migrations stall it, the GPU waits while the
 *               host pulls pages. Expected: unified_memory primary, naming
 *               touch_sum, the bytes migrated, cudaMemPrefetchAsync first.
 *   --prefetch: cudaMemPrefetchAsync to the host before the host's updates
 *               and to the GPU before the kernel: the migrations are the
 *               program's own, nothing faults on the GPU. Expected: no
 *               unified_memory (the kernel then runs at DRAM speed).
 * A device without concurrent managed access cannot prefetch: --prefetch
 * then exits 2 and says so.
 * Counts: kernels=10 memcpy=10 memset=10 sync=10 (both variants).
 *
 * Run on the GPU machine (repo root; workloads/build-zoo.sh builds it into
 * .gpu/bin/managed_faults beside the zoo, and a gpuscope build):
 *   build/gpuscope record -o mf.db -- .gpu/bin/managed_faults
 *   build/gpuscope record -o mf_pf.db -- .gpu/bin/managed_faults --prefetch
 *   build/gpuscope report mf.db       # unified_memory primary, touch_sum named
 *   build/gpuscope report mf_pf.db    # no unified_memory
 *   sqlite3 mf.db "select kind, flags, count(*), sum(value) from uvm group by 1, 2;
 *                  select value from meta where key = 'uvm_counters'"
 * (uvm kinds: 1 HtoD bytes, 2 DtoH bytes, 3 CPU fault, 4 GPU fault group;
 * flags of migrations: 1 the program's prefetch, 2 a fault, 3 the driver's
 * prefetch.) With meta uvm_counters "not recorded: ..." the driver refused
 * the counters: report then warns (uvm_not_recorded) and cannot decide.
 */
#include <string.h>

#include "zoo.h"

#define STEPS 10
#define THREADS 256

/* the sum of x[0..n) as integers (the values are small whole numbers) */
__global__ void touch_sum(const float *x, size_t n, unsigned long long *sum)
{
	unsigned long long s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		s += (unsigned long long)x[i];
	atomicAdd(sum, s);
}

/* cudaMemPrefetchAsync to device dev, or to the host (dev < 0); CUDA 13
 * takes a cudaMemLocation, earlier versions the device number */
static void prefetch(const void *p, size_t bytes, int dev)
{
#if CUDART_VERSION >= 13000
	struct cudaMemLocation loc;
	memset(&loc, 0, sizeof(loc));
	loc.type = dev >= 0 ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
	loc.id = dev >= 0 ? dev : 0;
	CK(cudaMemPrefetchAsync(p, bytes, loc, 0, 0));
#else
	CK(cudaMemPrefetchAsync(p, bytes, dev >= 0 ? dev : cudaCpuDeviceId, 0));
#endif
}

int main(int argc, char **argv)
{
	int pf = argc > 1 && strcmp(argv[1], "--prefetch") == 0;
	if (argc > 1 && !pf) {
		fprintf(stderr, "usage: managed_faults [--prefetch]\n");
		return 2;
	}
	zoo_begin();
	int dev, sms, concurrent;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	CK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
	if (pf && !concurrent) {
		fprintf(stderr, "managed_faults: this device has no concurrent managed access: "
				"cudaMemPrefetchAsync cannot run here\n");
		return 2;
	}
	size_t want = 256;
	const char *e = getenv("MANAGED_MIB");
	if (e && atol(e) > 0)
		want = (size_t)atol(e);
	size_t free_b, total_b;
	CK(cudaMemGetInfo(&free_b, &total_b));
	size_t bytes = want << 20;
	if (bytes > free_b / 2)
		bytes = (free_b / 2) >> 20 << 20;
	size_t n = bytes / sizeof(float);
	float *x;
	unsigned long long *dsum, sum;
	CK(cudaMallocManaged(&x, bytes, cudaMemAttachGlobal));
	CK(cudaMalloc(&dsum, sizeof(*dsum)));
	size_t page = 4096 / sizeof(float), pages = n / page;
	for (size_t i = 0; i < n; i++) /* first touch: the pages are made on the CPU */
		x[i] = 1.0f;
	for (int step = 0; step < STEPS; step++) {
		if (pf && step)
			prefetch(x, bytes, -1); /* back to the host before it writes */
		DSYNC();
		/* one value in every page: each page moves back to the CPU */
		for (size_t p = 0; p < pages; p++)
			x[p * page] = (float)(step + 2);
		if (pf)
			prefetch(x, bytes, dev);
		MEMSET(dsum, 0, sizeof(*dsum));
		LAUNCH(touch_sum, sms * 8, THREADS, 0, 0, x, n, dsum);
		MEMCPY(&sum, dsum, sizeof(sum), cudaMemcpyDeviceToHost);
		if (sum != (unsigned long long)(n - pages) + (unsigned long long)pages * (step + 2))
			zoo_fail("managed_faults", "sum");
	}
	printf("MANAGED mib=%zu prefetch=%d\n", bytes >> 20, pf);
	CK(cudaFree(x));
	CK(cudaFree(dsum));
	return zoo_end("managed_faults");
}
