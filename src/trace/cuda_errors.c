/*
 * cuda_errors.c - the CUDA calls of a trace that failed, and the one race a
 * recording can show behind such failures: pinned host memory freed while a
 * device memset into pinned host memory was still running.
 *
 * Only results that mean a broken context or a kernel that cannot run are
 * counted (a launch failure, an illegal address, a device assert, no binary
 * for the GPU, ...): programs meet "not ready", "already enabled" and "not
 * found" answers in normal operation (cuStreamQuery, cuGetProcAddress) and
 * those are not failures. The codes below have the same number and meaning
 * in the driver (CUresult) and runtime (cudaError_t) APIs (cuda.h,
 * driver_types.h).
 *
 * The race: XLA's redzone checker zeroes a pinned host buffer with an
 * asynchronous memset and, when it had no buffer to check, frees it at once
 * with no synchronization (openxla/xla issue 46093, fixed by pull request
 * 47040). cuMemFreeHost does not wait for the stream; when the memset runs
 * after the free (a busy stream, a profiler's changed timing), the device
 * writes to memory that is gone and the context fails with
 * CUDA_ERROR_LAUNCH_FAILED at a later call. A recording shows it as a
 * memset into pinned memory (its memory kind) whose call came before a
 * cuMemFreeHost / cuMemHostUnregister call of the same process that started
 * before the memset ended. It cannot show that both name the same buffer (an
 * activity record holds no address), so report says "may".
 */
#include <stdlib.h>
#include <string.h>

#include "trace/cuda_errors.h"

static const struct {
	int32_t code;
	const char *driver, *runtime;
} failures[] = {
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "cudaErrorNoKernelImageForDevice"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE", "cudaErrorECCUncorrectable"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT", "cudaErrorLaunchTimeout"},
    {710, "CUDA_ERROR_ASSERT", "cudaErrorAssert"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR", "cudaErrorHardwareStackError"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "cudaErrorIllegalInstruction"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS", "cudaErrorMisalignedAddress"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "cudaErrorInvalidAddressSpace"},
    {718, "CUDA_ERROR_INVALID_PC", "cudaErrorInvalidPc"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "cudaErrorLaunchFailure"},
    {999, "CUDA_ERROR_UNKNOWN", "cudaErrorUnknown"},
};

/* CUPTI's CUpti_ActivityMemoryKind: page-locked host memory */
enum { MEMORY_KIND_PINNED = 2 };

const char *cuda_failure_name(int domain, int32_t code)
{
	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++)
		if (failures[i].code == code)
			return domain == DOMAIN_DRIVER ? failures[i].driver : failures[i].runtime;
	return NULL;
}

static int is_host_free(const char *name)
{
	static const char *const frees[] = {"cuMemFreeHost", "cuMemHostUnregister", "cudaFreeHost",
					    "cudaHostUnregister"};
	for (size_t i = 0; i < sizeof(frees) / sizeof(frees[0]); i++) {
		size_t n = strlen(frees[i]);
		/* versioned names too: cudaFreeHost_v3020 */
		if (strncmp(name, frees[i], n) == 0 && (name[n] == 0 || name[n] == '_'))
			return 1;
	}
	return 0;
}

/* (cuMemHostUnregister is no API_FREE: its kind is API_OTHER) */
static int host_free_call(const struct trace *t, const struct trace_api *a)
{
	return (a->kind == API_FREE || a->kind == API_OTHER) &&
	       is_host_free(trace_str(t, a->name_id));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* pinned memsets: key pid<<32|correlation, with the index of the memset */
struct pinned {
	uint64_t key;
	size_t memset;
	int64_t call_ns; /* its API call's start, -1 until found */
};

static int cmp_pinned(const void *a, const void *b)
{
	return cmp_u64(&((const struct pinned *)a)->key, &((const struct pinned *)b)->key);
}

/* the memsets into pinned memory that were still running when a later
 * host-free call of their process began */
static int scan_races(const struct trace *t, struct cuda_failures *f)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_memsets; i++)
		n += t->memsets[i].mem_kind == MEMORY_KIND_PINNED;
	if (!n)
		return 0;
	struct pinned *p = malloc(n * sizeof(*p));
	if (!p)
		return -1;
	n = 0;
	for (size_t i = 0; i < t->n_memsets; i++)
		if (t->memsets[i].mem_kind == MEMORY_KIND_PINNED)
			p[n++] = (struct pinned){
			    (uint64_t)t->memsets[i].pid << 32 | t->memsets[i].correlation, i, -1};
	qsort(p, n, sizeof(*p), cmp_pinned);
	/* the host-free calls, in start order (the api table is) */
	size_t n_frees = 0;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *a = &t->apis[i];
		struct pinned key = {(uint64_t)a->pid << 32 | a->correlation, 0, 0};
		struct pinned *hit = bsearch(&key, p, n, sizeof(*p), cmp_pinned);
		if (hit)
			hit->call_ns = a->start_ns;
		n_frees += host_free_call(t, a);
	}
	if (!n_frees) {
		free(p);
		return 0;
	}
	const struct trace_api **fr = malloc(n_frees * sizeof(*fr));
	if (!fr) {
		free(p);
		return -1;
	}
	n_frees = 0;
	for (size_t i = 0; i < t->n_apis; i++)
		if (host_free_call(t, &t->apis[i]))
			fr[n_frees++] = &t->apis[i];
	for (size_t i = 0; i < n; i++) {
		const struct trace_memset *m = &t->memsets[p[i].memset];
		if (p[i].call_ns < 0)
			continue;
		/* the first host free of its process after the memset's call:
		 * the frees are in start order, so from the first one after it */
		size_t lo = 0, hi = n_frees;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (fr[mid]->start_ns <= p[i].call_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t j = lo; j < n_frees; j++) {
			const struct trace_api *a = fr[j];
			if (a->pid != m->pid)
				continue;
			if (a->start_ns < m->end_ns) {
				if (!f->races || a->start_ns < f->race_free_ns) {
					f->race_free_ns = a->start_ns;
					f->race_memset_end_ns = m->end_ns;
					f->race_pid = m->pid;
					f->race_free_name_id = a->name_id;
				}
				f->races++;
			}
			break;
		}
	}
	free(fr);
	free(p);
	return 0;
}

int cuda_failures_scan(const struct trace *t, struct cuda_failures *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *a = &t->apis[i];
		if (!a->ret || !cuda_failure_name(a->domain, a->ret))
			continue;
		/* the runtime call and the driver call under it fail together:
		 * count the call the program made, the outer one (a runtime call
		 * when both are recorded) by counting each domain and keeping the
		 * larger */
		if (a->domain == DOMAIN_DRIVER)
			f->failed_driver++;
		else
			f->failed_runtime++;
		if (!f->first || a->start_ns < f->first->start_ns)
			f->first = a;
	}
	f->failed = f->failed_driver > f->failed_runtime ? f->failed_driver : f->failed_runtime;
	int rc = scan_races(t, f);
	/* a read of every row (5 ms in a 1 GB trace, on the report's last
	 * pass): only when a failure or a race is said from it */
	if (f->failed || f->races)
		f->start_ns = trace_first_ns(t);
	return rc;
}
