/*
 * test_kcounters.c - per-kernel counters to numbers and verdicts
 * (src/analyze/kcounters.c) on traces built in memory: exact derived values
 * (sectors per request and per thread access, shared-memory ways, FLOP,
 * intensity, roofs), the speed-of-light bound and its unit, the top stalls,
 * means over several profiled launches and rows that match no launch. The
 * H200 recordings with counters are checked in test_report_fixtures.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/kcounters.h"
#include "build_trace.h"

/* cmocka 1.1.5 compares floats only in single precision */
#define assert_double_equal(a, b, eps) near((a), (b), (eps), #a, __FILE__, __LINE__)

static void near(double a, double b, double eps, const char *what, const char *file, int line)
{
	if (!(fabs(a - b) <= eps)) {
		print_error("%s = %.17g, want %.17g (+-%g)\n", what, a, b, eps);
		_fail(file, line);
	}
}

static void counter(struct trace *t, uint32_t corr, int id, double v)
{
	bt_counter(t, corr, kc_metric_name(id), v);
}

static const struct kc_group *group(const struct trace *t, const struct kc_table *k,
				    const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (strcmp(trace_str(t, k->g[i].name_id), name) == 0)
			return &k->g[i];
	return NULL;
}

static void test_no_counters(void **state)
{
	(void)state;
	struct trace t;
	bt_init(&t);
	bt_kernel(&t, 0, 10, 7, 1, "k", 132, 256, 32);
	struct kc_table k;
	char err[256];
	assert_int_equal(kc_build(&k, &t, err), 0);
	assert_int_equal(k.n, 0);
	kc_release(&k);
	trace_release(&t);
}

static void test_strided_memory_bound(void **state)
{
	(void)state;
	struct trace t;
	bt_init(&t);
	t.devices[0].mem_bandwidth_bps = 4800000000000ull;
	bt_kernel(&t, 0, 100, 7, 1, "strided", 8192, 256, 10);
	bt_kernel(&t, 200, 300, 7, 2, "strided", 8192, 256, 10); /* not profiled */
	counter(&t, 1, KM_DURATION, 100000);
	counter(&t, 1, KM_SM_SOL, 20);
	counter(&t, 1, KM_MEM_SOL, 90);
	counter(&t, 1, KM_DRAM_PCT, 88);
	counter(&t, 1, KM_L2_PCT, 60);
	counter(&t, 1, KM_L1_PCT, 40);
	counter(&t, 1, KM_GLD_SECTORS, 3200);
	counter(&t, 1, KM_GLD_REQUESTS, 100);
	counter(&t, 1, KM_THREADS_PER_INST, 32);
	counter(&t, 1, KM_DRAM_READ, 3e8);
	counter(&t, 1, KM_DRAM_WRITE, 1e8);
	counter(&t, 1, KM_FMUL, 2e6);
	counter(&t, 1, KM_SM_CLOCK, 1.98e9);
	struct kc_table k;
	char err[256];
	assert_int_equal(kc_build(&k, &t, err), 0);
	assert_int_equal(k.n, 1);
	const struct kc_group *g = &k.g[0];
	assert_int_equal(g->launches, 2);
	assert_int_equal(g->profiled, 1);
	assert_int_equal(g->sum_ns, 200 * US);
	assert_double_equal(g->sectors_per_request, 32.0, 1e-12);
	assert_double_equal(g->sectors_per_thread, 1.0, 1e-12);
	assert_int_equal(g->bound, KC_BOUND_MEMORY);
	assert_string_equal(g->unit, "DRAM");
	assert_double_equal(g->dram_bytes, 4e8, 1e-3);
	assert_double_equal(g->flop, 2e6, 1e-6);
	assert_double_equal(g->intensity, 2e6 / 4e8, 1e-15);
	assert_double_equal(g->dram_bytes_per_s, 4e8 / 1e-4, 1.0);
	assert_double_equal(g->roof_bytes_per_s, 4.8e12, 1.0);
	/* fp32: 256 FLOP per SM cycle on cc 9.0, 132 SMs at the measured clock */
	assert_double_equal(g->roof_flop_per_s, 256.0 * 132 * 1.98e9, 1e3);
	assert_true(isnan(g->shared_ways));
	kc_release(&k);
	trace_release(&t);
}

static void test_conflicts_latency_stalls(void **state)
{
	(void)state;
	struct trace t;
	bt_init(&t);
	bt_kernel(&t, 0, 10, 7, 5, "transpose", 16384, 1024, 31);
	bt_kernel(&t, 20, 30, 7, 6, "transpose", 16384, 1024, 31);
	/* two profiled launches: means */
	uint32_t c[2] = {5, 6};
	for (int i = 0; i < 2; i++) {
		counter(&t, c[i], KM_SM_SOL, 30 + 10 * i);
		counter(&t, c[i], KM_MEM_SOL, 50);
		counter(&t, c[i], KM_SHARED_LD_INST, 1000);
		counter(&t, c[i], KM_SHARED_LD_WAVEFRONTS, 32000);
		counter(&t, c[i], KM_SHARED_LD_CONFLICTS, 31000);
		counter(&t, c[i], KM_SHARED_ST_INST, 1000);
		counter(&t, c[i], KM_SHARED_ST_WAVEFRONTS, 1000);
		counter(&t, c[i], KM_SHARED_ST_CONFLICTS, 0);
		counter(&t, c[i], KM_STALL_SHORT_SB, 4.0);
		counter(&t, c[i], KM_STALL_MIO, 2.0 + i * 2); /* mean 3 */
		counter(&t, c[i], KM_STALL_BARRIER, 1.0);
		counter(&t, c[i], KM_STALL_LONG_SB, 0.5);
	}
	counter(&t, 99, KM_SM_SOL, 1); /* no such launch */
	struct kc_table k;
	char err[256];
	assert_int_equal(kc_build(&k, &t, err), 0);
	assert_int_equal(k.unmatched, 1);
	const struct kc_group *g = group(&t, &k, "transpose");
	assert_non_null(g);
	assert_int_equal(g->profiled, 2);
	assert_double_equal(g->v[KM_SM_SOL], 35.0, 1e-12);
	assert_int_equal(g->bound, KC_BOUND_LATENCY);
	assert_null(g->unit);
	assert_double_equal(g->shared_ways, 33000.0 / 2000.0, 1e-12);
	assert_double_equal(g->bank_conflict_share, 31000.0 / 33000.0, 1e-12);
	assert_int_equal(g->stall[0], KM_STALL_SHORT_SB);
	assert_int_equal(g->stall[1], KM_STALL_MIO);
	assert_int_equal(g->stall[2], KM_STALL_BARRIER);
	assert_double_equal(g->stall_share[0], 4.0 / 8.5, 1e-12);
	assert_true(isnan(g->flop));
	kc_release(&k);
	trace_release(&t);
}

static void test_tensor_compute_bound(void **state)
{
	(void)state;
	struct trace t;
	bt_init(&t);
	bt_kernel(&t, 0, 1000, 7, 9, "gemm", 132, 384, 168);
	counter(&t, 9, KM_DURATION, 1e6);
	counter(&t, 9, KM_SM_SOL, 85);
	counter(&t, 9, KM_MEM_SOL, 40);
	counter(&t, 9, KM_PIPE_TENSOR, 82);
	counter(&t, 9, KM_PIPE_FMA, 10);
	counter(&t, 9, KM_PIPE_ALU, 12);
	counter(&t, 9, KM_TENSOR_HGMMA_BF16, 3e14);
	counter(&t, 9, KM_FFMA, 1e9);
	counter(&t, 9, KM_SM_CLOCK, 1.98e9);
	struct kc_table k;
	char err[256];
	assert_int_equal(kc_build(&k, &t, err), 0);
	const struct kc_group *g = &k.g[0];
	assert_int_equal(g->bound, KC_BOUND_COMPUTE);
	assert_string_equal(g->unit, "tensor pipe");
	assert_double_equal(g->tensor_flop, 3e14, 1.0);
	assert_double_equal(g->flop, 3e14 + 2e9, 1.0);
	/* tensor roof: 4096 FLOP per SM cycle on cc 9.0 */
	assert_double_equal(g->roof_flop_per_s, 4096.0 * 132 * 1.98e9, 1e6);
	assert_true(isnan(g->intensity));
	kc_release(&k);
	trace_release(&t);
}

static void test_metric_names(void **state)
{
	(void)state;
	assert_int_equal(kc_metric_id("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
			 KM_SM_SOL);
	assert_int_equal(kc_metric_id("no.such.metric"), -1);
	assert_string_equal(kc_metric_unit(KM_DRAM_READ), "bytes");
	assert_string_equal(kc_bound_name(KC_BOUND_LATENCY), "latency");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_counters),
	    cmocka_unit_test(test_strided_memory_bound),
	    cmocka_unit_test(test_conflicts_latency_stalls),
	    cmocka_unit_test(test_tensor_compute_bound),
	    cmocka_unit_test(test_metric_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
