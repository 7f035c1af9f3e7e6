/*
 * test_host_idle.c - an_host_idle_in (idle.c), the "host work outside
 * CUDA" idle of a time range, on real H200 recordings and torch.profiler
 * traces: over the whole span it must add up to the idle breakdown's
 * host_ns (the class it names, after the share charged to syncs), and it
 * must add up over any split of the span. hostside.c divides the op
 * events' data-loading and other-op idle by host_ns; when those counted
 * every idle class (launch latency, dispatch) the two shares of one host
 * idle summed to 172% on tv_resnet_loader's trace, and "other host work"
 * could outweigh the DataLoader on a data-starved run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "analyze/analysis_int.h"
#include "diagnose/diagnose.h"
#include "analyze/ops.h"
#include "util/error.h"

static const char *const files[] = {
    FIXTURES_DIR "/real/tv_resnet_loader.json.gz",
    FIXTURES_DIR "/real/tv_resnet_loader.db",
    FIXTURES_DIR "/real/hf_decode.json.gz",
    FIXTURES_DIR "/real/hf_bert_syncs.db",
    FIXTURES_DIR "/pytorch/dataloader_starved.json.gz",
    FIXTURES_DIR "/pytorch/dataloader_starved.db",
    FIXTURES_DIR "/pytorch/transformer_step.json.gz",
    FIXTURES_DIR "/pytorch/item_every_step.db",
};

static int64_t absdiff(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

static void check(const char *path, int whole)
{
	struct trace t;
	struct analysis a;
	char err[GS_ERR_LEN];
	if (analysis_load(&t, path, err) != 0)
		fail_msg("%s: %s", path, err);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, whole, err), 0);
	struct an_interval *u;
	size_t n;
	assert_int_equal(an_idle_union_all(&a, &u, &n), 0);
	int64_t all = an_host_idle_in(&a, u, n, a.start_ns, a.end_ns, NULL);
	/* each gap's part is rounded once: a ns per gap at most */
	int64_t tol = (int64_t)a.idle.gaps + 1;
	if (absdiff(all, a.idle.host_ns) > tol)
		fail_msg("%s (whole %d): host idle over the span %lld ns, breakdown %lld ns", path,
			 whole, (long long)all, (long long)a.idle.host_ns);
	/* additive over a split into 7 parts (and nothing outside the span),
	 * the parts through a cursor */
	struct an_host_cursor c = {0, -1};
	int64_t sum = an_host_idle_in(&a, u, n, a.start_ns - 1000000, a.start_ns, NULL);
	for (int k = 0; k < 7; k++) {
		int64_t s = a.start_ns + (a.end_ns - a.start_ns) * k / 7;
		int64_t e = k == 6 ? a.end_ns + 1000000
				   : a.start_ns + (a.end_ns - a.start_ns) * (k + 1) / 7;
		sum += an_host_idle_in(&a, u, n, s, e, &c);
	}
	if (absdiff(sum, all) > tol + 8)
		fail_msg("%s: parts add up to %lld ns, the whole is %lld ns", path, (long long)sum,
			 (long long)all);
	/* the op events' shares of it, as hostside.c reads them */
	if (a.ops.have_ops && a.idle.host_ns > 0) {
		assert_true(a.ops.host_idle_dataload_ns <= a.ops.idle_dataload_ns);
		assert_true(a.ops.host_idle_in_ops_ns <= a.ops.idle_in_ops_ns);
		assert_true(a.ops.host_idle_in_ops_ns <= a.idle.host_ns + tol);
	}
	print_message("  %s%s: host idle %.3f ms, %zu gaps, %zu call intervals\n", path,
		      whole ? " (whole)" : "", (double)all / 1e6, (size_t)a.idle.gaps, n);
	free(u);
	analysis_release(&a);
	trace_release(&t);
}

static void host_idle_adds_up(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		check(files[i], 0);
		check(files[i], 1);
	}
}

/* tv_resnet_loader under torch.profiler: the DataLoader's share and the
 * other ops' share are of one host idle, so they cannot pass 100% */
static void shares_of_one_host_idle(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a;
	char err[GS_ERR_LEN];
	assert_int_equal(analysis_load(&t, FIXTURES_DIR "/real/tv_resnet_loader.json.gz", err), 0);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 0, err), 0);
	double in = a.hostside.input_share, rest = a.hostside.overhead_share;
	print_message("  data loading %.1f%%, other host work %.1f%%\n", 100 * in, 100 * rest);
	assert_true(in + rest <= 1.0 + 1e-6);
	assert_true(in > 0.5 && in > 4 * rest);
	assert_int_equal(a.hostside.kind, HK_INPUT);
	analysis_release(&a);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(host_idle_adds_up),
	    cmocka_unit_test(shares_of_one_host_idle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
