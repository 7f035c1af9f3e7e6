/*
 * test_replay.c - trace_remove_replay (src/trace/replay.c) on a trace built
 * like a `record --metrics kernels` recording: a profiled launch whose call
 * lasted 250 ms around a 100 us kernel recorded without timestamps, events
 * before, during and after it, samples inside the replay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "trace/trace.h"

#define MS 1000000LL
#define US 1000LL

static void api(struct trace *t, int64_t s, int64_t e, uint32_t corr)
{
	struct trace_api *a = trace_add_api(t);
	a->start_ns = s;
	a->end_ns = e;
	a->pid = 7;
	a->correlation = corr;
	a->kind = API_LAUNCH;
	a->name_id = trace_intern(t, "cudaLaunchKernel");
}

static struct trace_kernel *kernel(struct trace *t, int64_t s, int64_t e, uint32_t corr)
{
	struct trace_kernel *k = trace_add_kernel(t);
	k->start_ns = s;
	k->end_ns = e;
	k->pid = 7;
	k->correlation = corr;
	k->name_id = trace_intern(t, "k");
	return k;
}

static void sample(struct trace *t, int64_t ts)
{
	struct trace_sample *x = trace_add_sample(t);
	x->ts_ns = ts;
	x->metric_id = trace_intern(t, "gpm_sm_util");
	x->value = 50;
}

static void test_replay_removed(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	/* before: launch 1 at 1 ms, kernel 2..3 ms */
	api(&t, 1 * MS, 1 * MS + 5 * US, 1);
	kernel(&t, 2 * MS, 3 * MS, 1);
	/* profiled: launch 2 from 10 ms to 260 ms, its kernel without times */
	api(&t, 10 * MS, 260 * MS, 2);
	kernel(&t, 0, 0, 2);
	struct trace_counter *c = trace_add_counter(&t);
	c->pid = 7;
	c->correlation = 2;
	c->metric_id = trace_intern(&t, "gpu__time_duration.sum");
	c->value = 100 * US;
	/* a kernel without times that was not profiled */
	kernel(&t, 0, 0, 99);
	/* after: launch 3 at 300 ms, kernel 301..302 ms */
	api(&t, 300 * MS, 300 * MS + 5 * US, 3);
	kernel(&t, 301 * MS, 302 * MS, 3);
	sample(&t, 5 * MS);
	sample(&t, 100 * MS); /* inside the replay: dropped */
	sample(&t, 280 * MS);
	/* a page fault after the replay moves with the rest */
	struct trace_uvm *u = trace_add_uvm(&t);
	*u = (struct trace_uvm){
	    .start_ns = 301 * MS, .end_ns = 301 * MS + 40 * US, .pid = 7, .kind = UVM_GPU_FAULT};
	trace_sort(&t);

	int64_t removed;
	uint64_t placed, left_out;
	assert_int_equal(trace_remove_replay(&t, &removed, &placed, &left_out), 0);
	assert_int_equal(removed, 250 * MS - 100 * US);
	assert_int_equal(placed, 1);
	assert_int_equal(left_out, 1);
	assert_int_equal(t.n_kernels, 3);
	/* before the replay: unchanged */
	assert_int_equal(t.kernels[0].start_ns, 2 * MS);
	/* the profiled kernel: at its call's start, for its measured duration */
	assert_int_equal(t.kernels[1].correlation, 2);
	assert_int_equal(t.kernels[1].start_ns, 10 * MS);
	assert_int_equal(t.kernels[1].end_ns, 10 * MS + 100 * US);
	/* its call now lasts as long as the kernel */
	assert_int_equal(t.apis[1].end_ns - t.apis[1].start_ns, 100 * US);
	/* after: earlier by the time removed */
	assert_int_equal(t.kernels[2].start_ns, 301 * MS - removed);
	assert_int_equal(t.apis[2].start_ns, 300 * MS - removed);
	assert_int_equal(t.n_samples, 2);
	assert_int_equal(t.samples[1].ts_ns, 280 * MS - removed);
	assert_int_equal(t.uvm[0].start_ns, 301 * MS - removed);
	assert_int_equal(t.uvm[0].end_ns - t.uvm[0].start_ns, 40 * US);
	assert_string_equal(trace_get_meta(&t, "kernel_replay_launches"), "1");
	trace_release(&t);
}

static void add_counter(struct trace *t, uint32_t corr, const char *metric, double v)
{
	struct trace_counter *c = trace_add_counter(t);
	c->pid = 7;
	c->correlation = corr;
	c->metric_id = trace_intern(t, metric);
	c->value = v;
}

/* The profiler's set-up before the call and its decoding after it are
 * timestamped by the injected library: the window covers them too. */
static void test_profiler_work_widens(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	api(&t, 10 * MS, 260 * MS, 2);
	kernel(&t, 0, 0, 2);
	add_counter(&t, 2, "gpu__time_duration.sum", 100 * US);
	add_counter(&t, 2, "gpuscope__profile_begin_ns", 9 * MS);
	add_counter(&t, 2, "gpuscope__profile_end_ns", 290 * MS);
	api(&t, 300 * MS, 300 * MS + 5 * US, 3);
	trace_sort(&t);
	int64_t removed;
	uint64_t placed, left_out;
	assert_int_equal(trace_remove_replay(&t, &removed, &placed, &left_out), 0);
	assert_int_equal(removed, 281 * MS - 100 * US);
	assert_int_equal(t.kernels[0].start_ns, 9 * MS);
	assert_int_equal(t.apis[1].start_ns, 300 * MS - removed);
	trace_release(&t);
}

static void test_no_counters_untouched(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	api(&t, 10 * MS, 260 * MS, 2);
	kernel(&t, 20 * MS, 30 * MS, 2);
	int64_t removed;
	uint64_t placed, left_out;
	assert_int_equal(trace_remove_replay(&t, &removed, &placed, &left_out), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(t.kernels[0].start_ns, 20 * MS);
	assert_null(trace_get_meta(&t, "kernel_replay_launches"));
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_replay_removed),
	    cmocka_unit_test(test_profiler_work_widens),
	    cmocka_unit_test(test_no_counters_untouched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
