/*
 * uvm_probe.cu - does this machine give CUPTI's unified-memory counters to a
 * program that asks for them the way NVIDIA's own CUPTI sample does, with no
 * gpuscope in the process? (issue #36 item 3)
 *
 * Under `gpuscope record` the counters were refused on every device machine so
 * far (meta uvm_counters "not recorded: CUPTI_ERROR_NOT_READY"): the injection
 * library configures them while CUDA initialises and, when CUPTI is not ready
 * then, once more from its flush thread a flush period later (src/inject/uvm.c).
 * If this probe gets the counters where record does not, the refusal is ours
 * (the moment or the thread of the request), not the platform's; if it is
 * refused too, the platform refuses them (a virtual machine).
 *
 *   uvm_probe [after-init|after-context|before-init|thread]
 *
 * after-init (NVIDIA's sample): cuInit, then configure and enable in main.
 * after-context: the same once the primary context exists (cudaFree(0)).
 * before-init: configure and enable before cuInit.
 * thread: configure and enable from a second thread once the context exists
 *   (as record's flush thread does).
 * Then: 64 MiB of managed memory written on the host, incremented by a kernel,
 * read back on the host; CUPTI flushed; one line per call with its result and
 * one line with the records by counter kind. Exit 0 when the managed memory
 * gave unified-memory records, 1 when not, 2 when CUDA itself failed.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_KINDS 16
static unsigned long records[N_KINDS];

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	*size = (size_t)1 << 20;
	*buf = (uint8_t *)aligned_alloc(8, *size);
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				      size_t valid)
{
	(void)ctx, (void)stream, (void)size;
	CUpti_Activity *r = NULL;
	while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS)
		if (r->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
			const CUpti_ActivityUnifiedMemoryCounter3 *u =
			    (const CUpti_ActivityUnifiedMemoryCounter3 *)r;
			records[(unsigned)u->counterKind < N_KINDS ? (unsigned)u->counterKind
								   : 0]++;
		}
	free(buf);
}

static const char *result(CUptiResult r)
{
	const char *s = "?";
	cuptiGetResultString(r, &s);
	return s;
}

static const CUpti_ActivityUnifiedMemoryCounterKind kinds[] = {
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
};
#define N_ASK (sizeof(kinds) / sizeof(kinds[0]))

/* configure (all four, then the sample's two alone) and enable; 0 when enabled */
static int ask(const char *who)
{
	CUpti_ActivityUnifiedMemoryCounterConfig c[N_ASK];
	memset(c, 0, sizeof(c));
	for (size_t i = 0; i < N_ASK; i++) {
		c[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
		c[i].kind = kinds[i];
		c[i].deviceId = 0;
		c[i].enable = 1;
	}
	CUptiResult r = cuptiActivityConfigureUnifiedMemoryCounter(c, (uint32_t)N_ASK);
	printf("%s: configure 4 counters: %s\n", who, result(r));
	if (r != CUPTI_SUCCESS) {
		r = cuptiActivityConfigureUnifiedMemoryCounter(c, 2);
		printf("%s: configure htod+dtoh: %s\n", who, result(r));
	}
	CUptiResult e = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	printf("%s: enable UNIFIED_MEMORY_COUNTER: %s\n", who, result(e));
	return e == CUPTI_SUCCESS ? 0 : -1;
}

static void *ask_thread(void *arg)
{
	(void)arg;
	ask("thread");
	return NULL;
}

__global__ void touch(int *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] += 1;
}

int main(int argc, char **argv)
{
	const char *when = argc > 1 ? argv[1] : "after-init";
	CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	printf("mode %s\nregister callbacks: %s\n", when, result(r));
	if (!strcmp(when, "before-init"))
		ask("main, before cuInit");
	CUresult cr = cuInit(0);
	if (cr != CUDA_SUCCESS) {
		printf("cuInit failed: %d\n", (int)cr);
		return 2;
	}
	if (!strcmp(when, "after-init"))
		ask("main, after cuInit");
	if (cudaFree(0) != cudaSuccess) {
		printf("no CUDA context\n");
		return 2;
	}
	if (!strcmp(when, "after-context"))
		ask("main, after the context");
	if (!strcmp(when, "thread")) {
		pthread_t th;
		pthread_create(&th, NULL, ask_thread, NULL);
		pthread_join(th, NULL);
	}
	size_t n = (size_t)64 << 20 >> 2;
	int *p = NULL;
	if (cudaMallocManaged(&p, n * sizeof(int), cudaMemAttachGlobal) != cudaSuccess) {
		printf("cudaMallocManaged failed\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = (int)i;
	touch<<<264, 256>>>(p, n);
	if (cudaDeviceSynchronize() != cudaSuccess) {
		printf("kernel failed\n");
		return 2;
	}
	long bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += p[i] != (int)i + 1;
	cudaFree(p);
	cuptiActivityFlushAll(1);
	unsigned long total = 0;
	printf("records:");
	for (int k = 0; k < N_KINDS; k++)
		if (records[k]) {
			printf(" kind%d=%lu", k, records[k]);
			total += records[k];
		}
	printf(" total=%lu (wrong values: %ld)\n", total, bad);
	return total ? 0 : 1;
}
