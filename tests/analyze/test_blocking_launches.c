/*
 * test_blocking_launches.c - the blocking_launches warning (docs/causes.md
 * row 19, CUDA_LAUNCH_BLOCKING=1 left set): traces built in memory where
 * each launch call returns after its 50 us kernel ended (the variable's
 * effect), with and without the recorder's note of the variable; the same
 * loop launched asynchronously; the 90% line; short kernels (which an idle
 * GPU can finish before a normal launch call returns) never count; a full
 * launch queue (the call waits for an earlier kernel, not its own) is not
 * taken for it; per-kernel counters (their replay serialises launches).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analysis.h"
#include "diagnose/diagnose.h"
#include "diagnose/thresholds.h"
#include "report/report.h"
#include "trace/spool.h"
#include "build_trace.h"

/* n launches of kernels of kern_us, 100 us apart; the first `blocking` of
 * them return kern_us + 5 us after the kernel started (they waited), the
 * others 4 us after they began (asynchronous) */
static void loop(struct trace *t, int n, int blocking, double kern_us)
{
	bt_init(t);
	for (int i = 0; i < n; i++) {
		double at = 1000 + 100.0 * i + (kern_us > 60 ? kern_us * i : 0);
		double ks = at + 6, ke = ks + kern_us;
		double api_end = i < blocking ? ke + 5 : at + 4;
		bt_launched(t, ks, ke, 7, (uint32_t)i + 1, "gemm_kernel", 1056, 256, at, api_end);
	}
}

static const struct rm_line *warning(const struct analysis *a, const char *id)
{
	for (size_t i = 0; i < a->n_warnings; i++)
		if (!strcmp(a->warnings[i].id, id))
			return &a->warnings[i];
	return NULL;
}

static int run(struct trace *t, const char *note, const struct rm_line **out, struct analysis *a)
{
	if (note)
		assert_int_equal(trace_set_meta(t, SPOOL_NOTE_LAUNCH_BLOCKING, note), 0);
	char err[256];
	assert_int_equal(analysis_run(a, t, err), 0);
	*out = warning(a, "blocking_launches");
	return *out != NULL;
}

static const char *arg_str(const struct rm_line *l, const char *key)
{
	for (int i = 0; i < l->n_args; i++)
		if (!strcmp(l->args[i].key, key))
			return l->args[i].c.v.s;
	return NULL;
}

static int64_t arg_int(const struct rm_line *l, const char *key)
{
	for (int i = 0; i < l->n_args; i++)
		if (!strcmp(l->args[i].key, key))
			return l->args[i].c.v.i;
	return -1;
}

static void test_cases(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		int n, blocking;
		double kern_us;
		const char *note;
		int want;
	} cases[] = {
	    {"every launch waited, the variable recorded", 40, 40, 50, "1", 1},
	    {"every launch waited, nothing recorded (a torch.profiler trace)", 40, 40, 50, NULL, 1},
	    {"asynchronous launches", 40, 0, 50, NULL, 0},
	    {"the variable set but launches asynchronous (another tool's note)", 40, 0, 50, "1", 0},
	    {"90% waited", 40, 36, 50, NULL, 1},
	    {"87.5% waited", 40, 35, 50, NULL, 0},
	    {"too few long launches", 19, 19, 50, NULL, 0},
	    {"short kernels, waited or not", 40, 40, 10, NULL, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace t;
		struct analysis a;
		const struct rm_line *l;
		loop(&t, cases[i].n, cases[i].blocking, cases[i].kern_us);
		int got = run(&t, cases[i].note, &l, &a);
		if (got != cases[i].want)
			fail_msg("%s: warning %s", cases[i].what, got ? "given" : "missing");
		if (got) {
			assert_int_equal(arg_int(l, "waited"), cases[i].blocking);
			assert_int_equal(arg_int(l, "long"), cases[i].n);
			const char *v = arg_str(l, "value");
			if (cases[i].note)
				assert_true(v && !strcmp(v, cases[i].note));
			else
				assert_null(v);
			assert_non_null(strstr(l->tmpl, "CUDA_LAUNCH_BLOCKING"));
		}
		analysis_release(&a);
		trace_release(&t);
	}
}

/* A full launch queue: 40 kernels of 200 us launched back to back; from
 * the fifth on, each call waits until the kernel four places ahead of it
 * ends (its own is still queued), so it returns long before its own ends. */
static void test_full_queue(void **state)
{
	(void)state;
	struct trace t;
	bt_init(&t);
	for (int i = 0; i < 40; i++) {
		double ks = 1000 + 200.0 * i, ke = ks + 200;
		double at = i < 4 ? 990 + i : 1000 + 200.0 * (i - 4) + 190;
		double end = i < 4 ? at + 4 : 1000 + 200.0 * (i - 4) + 200 + 2;
		bt_launched(&t, ks, ke, 7, (uint32_t)i + 1, "gemm_kernel", 1056, 256, at, end);
	}
	struct analysis a;
	const struct rm_line *l;
	assert_false(run(&t, NULL, &l, &a));
	analysis_release(&a);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_full_queue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
