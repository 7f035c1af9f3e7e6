/*
 * test_cuda_errors.c - cuda_failures_scan (src/trace/cuda_errors.c) on
 * traces built in memory: which failed calls count (not "not ready"), the
 * earliest one, the runtime call and the driver call under it counted once,
 * and the pinned-memory race (a memset into pinned memory still running
 * when its process frees pinned memory) told from its near misses: a free
 * after the memset ended, a free by another process, a free before the
 * memset's call, a memset into device memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "trace/cuda_errors.h"
#include "trace/trace.h"

#define US 1000LL

static void call(struct trace *t, uint32_t pid, int64_t s, uint32_t corr, const char *name,
		 int domain, int32_t ret)
{
	struct trace_api *a = trace_add_api(t);
	*a = (struct trace_api){s, s + 2 * US, pid, 1, corr, trace_intern(t, name), (uint8_t)domain,
				0, ret};
	a->kind = (uint8_t)api_kind_from_name(name);
}

static void memset_run(struct trace *t, uint32_t pid, uint32_t corr, int64_t s, int64_t e,
		       uint8_t mem_kind)
{
	struct trace_memset *m = trace_add_memset(t);
	*m = (struct trace_memset){s, e, pid, 0, 1, 7, corr, mem_kind, 8, 0};
}

static void test_failures(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	/* not failures: a stream query not ready, a symbol not found */
	call(&t, 1, 10 * US, 1, "cuStreamQuery", DOMAIN_DRIVER, 600);
	call(&t, 1, 11 * US, 2, "cudaGetSymbolAddress_v3020", DOMAIN_RUNTIME, 500);
	struct cuda_failures f;
	assert_int_equal(cuda_failures_scan(&t, &f), 0);
	assert_int_equal(f.failed, 0);
	assert_null(f.first);
	/* a runtime memset failing with the driver call under it, then two
	 * driver-only calls failing; the earliest is the runtime one */
	call(&t, 1, 20 * US, 3, "cudaMemsetAsync_v3020", DOMAIN_RUNTIME, 719);
	call(&t, 1, 21 * US, 4, "cuMemsetD32Async", DOMAIN_DRIVER, 719);
	call(&t, 1, 30 * US, 5, "cuMemsetD32Async", DOMAIN_DRIVER, 719);
	call(&t, 1, 40 * US, 6, "cuLaunchKernel", DOMAIN_DRIVER, 719);
	trace_sort(&t);
	assert_int_equal(cuda_failures_scan(&t, &f), 0);
	assert_int_equal(f.failed_driver, 3);
	assert_int_equal(f.failed_runtime, 1);
	assert_int_equal(f.failed, 3);
	assert_int_equal(f.start_ns, 10 * US); /* the failures are said from the first call */
	assert_non_null(f.first);
	assert_string_equal(trace_str(&t, f.first->name_id), "cudaMemsetAsync_v3020");
	assert_string_equal(cuda_failure_name(f.first->domain, f.first->ret),
			    "cudaErrorLaunchFailure");
	assert_string_equal(cuda_failure_name(DOMAIN_DRIVER, 719), "CUDA_ERROR_LAUNCH_FAILED");
	assert_null(cuda_failure_name(DOMAIN_DRIVER, 600));
	assert_int_equal(f.races, 0);
	trace_release(&t);
}

static void test_race(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	/* process 1: memset (call at 100 us) into pinned memory runs 150-400;
	 * cuMemFreeHost at 200 us: the race */
	call(&t, 1, 100 * US, 10, "cuMemsetD32Async", DOMAIN_DRIVER, 0);
	memset_run(&t, 1, 10, 150 * US, 400 * US, 2);
	call(&t, 1, 200 * US, 11, "cuMemFreeHost", DOMAIN_DRIVER, 0);
	/* process 1: a memset that ended before the next free (at 1000 us) */
	call(&t, 1, 500 * US, 12, "cuMemsetD32Async", DOMAIN_DRIVER, 0);
	memset_run(&t, 1, 12, 510 * US, 520 * US, 2);
	call(&t, 1, 1000 * US, 13, "cuMemHostUnregister", DOMAIN_DRIVER, 0);
	/* process 2: its memset runs long, but the free during it is process
	 * 3's; process 2's own free came before its memset's call */
	call(&t, 2, 2000 * US, 20, "cudaFreeHost_v3020", DOMAIN_RUNTIME, 0);
	call(&t, 2, 2100 * US, 21, "cudaMemsetAsync_v3020", DOMAIN_RUNTIME, 0);
	memset_run(&t, 2, 21, 2150 * US, 3000 * US, 2);
	call(&t, 3, 2200 * US, 30, "cuMemFreeHost", DOMAIN_DRIVER, 0);
	/* process 4: a device-memory memset running across a host free */
	call(&t, 4, 4000 * US, 40, "cuMemsetD32Async", DOMAIN_DRIVER, 0);
	memset_run(&t, 4, 40, 4050 * US, 5000 * US, 3);
	call(&t, 4, 4100 * US, 41, "cuMemFreeHost", DOMAIN_DRIVER, 0);
	trace_sort(&t);
	struct cuda_failures f;
	assert_int_equal(cuda_failures_scan(&t, &f), 0);
	assert_int_equal(f.races, 1);
	assert_int_equal(f.failed, 0);
	assert_int_equal(f.start_ns, 100 * US); /* the race is said from the first call */
	assert_int_equal(f.race_pid, 1);
	assert_int_equal(f.race_free_ns, 200 * US);
	assert_int_equal(f.race_memset_end_ns, 400 * US);
	assert_string_equal(trace_str(&t, f.race_free_name_id), "cuMemFreeHost");
	/* a second race, earlier, through cuMemHostUnregister (versioned) */
	call(&t, 5, 50 * US, 50, "cuMemsetD8Async", DOMAIN_DRIVER, 0);
	memset_run(&t, 5, 50, 60 * US, 90 * US, 2);
	call(&t, 5, 70 * US, 51, "cuMemHostUnregister_v2", DOMAIN_DRIVER, 0);
	trace_sort(&t);
	assert_int_equal(cuda_failures_scan(&t, &f), 0);
	assert_int_equal(f.races, 2);
	assert_int_equal(f.race_pid, 5);
	assert_int_equal(f.race_free_ns, 70 * US);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_failures),
					   cmocka_unit_test(test_race)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
