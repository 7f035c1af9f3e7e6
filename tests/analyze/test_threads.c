/*
 * test_threads.c - the analysis and the report keep no hidden state: two
 * threads analyse different traces at the same time, build their reports
 * and render them as text and JSON, many times over, and every output is
 * byte-identical to the one a single thread made first. Built twice: in
 * the ASan build (memory errors) and, where the compiler has it, with
 * ThreadSanitizer (test_threads_tsan: any data race fails the run).
 *
 * The traces are real H200 recordings (mangled C++ kernel names, GPM
 * samples, a warm-up cut) and one built here with two devices, so that
 * demangling, the sample alignment, the rules and the per-device results
 * all run concurrently. Loading happens before the threads start (the
 * loaders are not under test here). A trace big enough for the analysis's
 * own threads (its passes, and with four devices the devices' analyses)
 * is reported on one CPU and on all, and must read the same.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diagnose/diagnose.h"
#include "build_trace.h"
#include "report_check.h"
#include "render/report_render.h"

#define ROUNDS 6

struct job {
	const struct trace *t;
	char *want; /* text + JSON of the single-threaded run */
	int bad;    /* rounds whose output differed */
};

static void *worker(void *p)
{
	struct job *j = p;
	for (int i = 0; i < ROUNDS; i++) {
		char *got = report_of(j->t, 1);
		if (!got || strcmp(got, j->want) != 0)
			j->bad++;
		free(got);
	}
	return NULL;
}

/* Two ranks on two devices: long kernels on 0, tiny launches on 1. */
static void two_devices(struct trace *t)
{
	bt_init(t);
	struct trace_device *d1 = trace_add_device(t);
	*d1 = t->devices[0];
	d1->id = 1;
	uint32_t c = 1;
	for (int i = 0; i < 200; i++, c++)
		bt_launched(t, i * 1000.0 + 5, i * 1000.0 + 1005, 7, c, "_Z4gemmPfS_i", 264, 256,
			    i * 1000.0, i * 1000.0 + 4);
	for (int i = 0; i < 2000; i++, c++) {
		bt_launched(t, i * 100.0 + 95, i * 100.0 + 97, 3, c, "_Z4tinyPf", 1, 32,
			    i * 100.0 + 85, i * 100.0 + 92);
		t->kernels[t->n_kernels - 1].pid = 200;
		t->kernels[t->n_kernels - 1].device = 1;
		t->apis[t->n_apis - 1].pid = 200;
	}
	analysis_sort(t);
}

static int load(struct trace *t, const char *name)
{
	char path[1024], err[512];
	snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, name);
	if (analysis_load(t, path, err) < 0) {
		print_error("%s: %s\n", path, err);
		return -1;
	}
	return 0;
}

static void test_two_threads(void **state)
{
	(void)state;
	struct trace t[3];
	assert_int_equal(load(&t[0], "pytorch/healthy_train.db"), 0);
	assert_int_equal(load(&t[1], "zoo/register_pressure.db"), 0);
	two_devices(&t[2]);
	struct job jobs[3];
	for (int i = 0; i < 3; i++) {
		jobs[i] = (struct job){.t = &t[i], .want = report_of(&t[i], 1)};
		assert_non_null(jobs[i].want);
	}
	/* the outputs differ from each other: a shared buffer would show */
	assert_true(strcmp(jobs[0].want, jobs[1].want) != 0);
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 3; i++) {
		if (jobs[i].bad)
			print_error("trace %d: %d of %d concurrent reports differ\n", i,
				    jobs[i].bad, ROUNDS);
		assert_int_equal(jobs[i].bad, 0);
		free(jobs[i].want);
		trace_release(&t[i]);
	}
}

/* Enough launches (over 65536) that one analysis runs its passes side by
 * side (analysis.c; the correlation table beside the timeline's sweep, the
 * sweep in parts), with copies, syncs and ranges for the host passes, and
 * one copy reaching over several of the sweep's parts. */
static void big_trace(struct trace *t)
{
	bt_init(t);
	uint32_t c = 1;
	for (int i = 0; i < 70000; i++, c++) {
		double at = i * 10.0;
		bt_launched(t, at + 5, at + 12 + i % 7, (uint32_t)i % 3, c,
			    i % 2 ? "_Z4gemmPfS_i" : "_Z4tinyPf", 1 + (uint32_t)i % 300, 128, at,
			    at + 3);
		if (i == 7000) /* one copy over half the run (the timeline's parts) */
			bt_copy(t, at + 6, at + 350000, 9, ++c, COPY_HTOD, MEM_PAGEABLE, MEM_DEVICE,
				1 << 30);
		if (i % 500 == 0) {
			bt_copy(t, at + 6, at + 9, 1, ++c, COPY_DTOH, MEM_DEVICE, MEM_PAGEABLE,
				4096);
			bt_api(t, at + 4, at + 9.5, API_SYNC, ++c, "cudaStreamSynchronize");
			bt_range(t, at, at + 5000, 1, "step");
		}
	}
	analysis_sort(t);
}

/* big_trace's work spread over four devices, one process each (the ranks
 * of a merged job): the devices' analyses run side by side too. */
static void big_devices(struct trace *t)
{
	big_trace(t);
	for (uint32_t d = 1; d < 4; d++) {
		struct trace_device *x = trace_add_device(t);
		*x = t->devices[0];
		x->id = d;
	}
	for (size_t i = 0; i < t->n_kernels; i++) {
		t->kernels[i].device = (uint32_t)(i % 4);
		t->kernels[i].pid = 100 + (uint32_t)(i % 4);
	}
	/* each launch with its kernel's process (bt_launched pairs them in order) */
	for (size_t i = 0, k = 0; i < t->n_apis && k < t->n_kernels; i++)
		if (t->apis[i].kind == API_LAUNCH)
			t->apis[i].pid = t->kernels[k++].pid;
}

/* Calls that reach across the parts the idle breakdown cuts the gaps into
 * (idle.c: split_gaps): allocations lasting several gaps, launches whose
 * kernels queue long after them, zero-length calls, sync calls and sync
 * records, copy calls reaching into the next kernel, host stretches short
 * and long, and a recording in two capture windows. */
static void reaching_calls(struct trace *t)
{
	bt_init(t);
	uint32_t c = 1;
	double at = 0;
	for (int i = 0; i < 70000; i++, c++) {
		/* gaps of 60 us and more (a short one is all launch latency
		 * whatever covers it) */
		/* the host stretch over a gap measured from the last call
		 * (about a kernel before it) is over TH_HOST_WORK_NS, from the
		 * gap's start under it */
		double len = i % 5 ? 200 : 3, gap = i % 97 == 0 ? 900 : 350 + (i * 37) % 100;
		double launch = i % 13 == 0 ? at - 700 : at - 20 - i % 30;
		bt_launched(t, at, at + len, (uint32_t)i % 2, c,
			    i % 3 ? "_Z4gemmPfS_i" : "_Z4tinyPf", 64, 128, launch, launch + 3);
		if (i % 1000 == 10)
			bt_api(t, at + len, at + len + 3000, API_OTHER, ++c, "cudaMalloc");
		if (i % 6 == 0)
			bt_api(t, at + len + 1, at + len + 1 + i % 4 / 2, API_OTHER, ++c,
			       "cudaGetDevice");
		if (i == 100) /* one call over most of the run */
			bt_api(t, at, at + 12e6, API_OTHER, ++c, "cudaDeviceSetLimit");
		if (i % 50 == 3)
			bt_api(t, at + len + 1, at + len + gap - 1, API_SYNC, ++c,
			       "cudaStreamSynchronize");
		if (i % 777 == 5) {
			struct trace_sync *y = trace_add_sync(t);
			y->start_ns = (int64_t)((at + len) * US);
			y->end_ns = (int64_t)((at + len + gap / 2) * US);
			y->pid = 100;
		}
		if (i % 30 == 7)
			bt_api(t, at + len, at + len + gap + 50, API_MEMCPY, ++c, "cudaMemcpy");
		at += len + gap;
	}
	const double win[2][2] = {{-1000, at / 2}, {at / 2 + 5000, at + 100}};
	for (int w = 0; w < 2; w++) {
		struct trace_capture_window *x = trace_add_capture_window(t);
		x->start_ns = (int64_t)(win[w][0] * US);
		x->end_ns = (int64_t)(win[w][1] * US);
	}
	analysis_sort(t);
}

/* The side-by-side passes and devices give what one CPU gives: the report
 * made with this thread on one CPU, then on all of them (threads are made
 * with the affinity of the thread that makes them). */
static void side_by_side(void (*make)(struct trace *))
{
	struct trace t;
	make(&t);
	cpu_set_t all;
	assert_int_equal(to_one_cpu(&all), 0);
	char *want = report_of(&t, 1), err[512] = "";
	struct analysis single, any;
	assert_int_equal(analysis_run_opts(&single, &t, NULL, 0, err), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
	assert_non_null(want);
	/* what the report rounds: the idle breakdown and the charts' bins, exactly */
	assert_int_equal(analysis_run_opts(&any, &t, NULL, 0, err), 0);
	assert_memory_equal(&single.idle, &any.idle, sizeof(single.idle));
	assert_int_equal(single.series.n_bins, any.series.n_bins);
	if (single.series.idle)
		assert_memory_equal(single.series.idle, any.series.idle,
				    (size_t)single.series.n_bins * AN_IDLE_CAUSES *
					sizeof(*single.series.idle));
	assert_memory_equal(single.series.gap_ns, any.series.gap_ns, sizeof(single.series.gap_ns));
	analysis_release(&single);
	analysis_release(&any);
	for (int i = 0; i < 2; i++) {
		char *got = report_of(&t, 1);
		assert_non_null(got);
		assert_string_equal(got, want);
		free(got);
	}
	free(want);
	trace_release(&t);
}

/* A kernel that ends before it starts (no loader makes one, a trace built
 * by hand can): the timeline's parts would not add up to the running
 * union's result, so the sweep takes the trace whole on any number of CPUs
 * (timeline_parts.c). */
static void backwards_kernel(struct trace *t)
{
	big_trace(t);
	struct trace_kernel *k = &t->kernels[t->n_kernels / 2];
	k->end_ns = k->start_ns - 5 * US;
}

static void test_side_by_side(void **state)
{
	(void)state;
	side_by_side(big_trace);
}

static void test_devices_side_by_side(void **state)
{
	(void)state;
	side_by_side(big_devices);
}

static void test_reaching_calls_side_by_side(void **state)
{
	(void)state;
	side_by_side(reaching_calls);
}

static void test_backwards_side_by_side(void **state)
{
	(void)state;
	side_by_side(backwards_kernel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_threads),
	    cmocka_unit_test(test_side_by_side),
	    cmocka_unit_test(test_devices_side_by_side),
	    cmocka_unit_test(test_backwards_side_by_side),
	    cmocka_unit_test(test_reaching_calls_side_by_side),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
