/*
 * test_capture.c - trace_capture (src/trace/capture.c): record's capture
 * ranges on traces built in memory. Each case holds rows just inside and
 * just outside a window, so that a window off by one call, a kernel judged
 * by its own start instead of its launch, or a nested start that reopened
 * a window gives a different count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace/capture.h"
#include "trace/trace.h"
#include "trace/trace_db.h"
#include "util/error.h"

#define MS 1000000LL
#define US 1000LL

static void call(struct trace *t, uint32_t pid, int64_t s, int64_t e, uint32_t corr,
		 const char *name)
{
	struct trace_api *a = trace_add_api(t);
	*a = (struct trace_api){s, e, pid, 1, corr, trace_intern(t, name), DOMAIN_RUNTIME, 0, 0};
}

/* a launch at `at` of a kernel that runs at `run` */
static void launch(struct trace *t, uint32_t pid, int64_t at, int64_t run, uint32_t corr)
{
	call(t, pid, at, at + 5 * US, corr, "cudaLaunchKernel_v7000");
	struct trace_kernel *k = trace_add_kernel(t);
	k->start_ns = run;
	k->end_ns = run + 10 * US;
	k->pid = pid;
	k->correlation = corr;
	k->name_id = trace_intern(t, "k");
}

static void range(struct trace *t, int64_t s, int64_t e, const char *name, const char *domain,
		  uint32_t depth)
{
	struct trace_range *r = trace_add_range(t);
	*r = (struct trace_range){
	    s, e, 7, 1, trace_intern(t, name), trace_intern(t, domain), RANGE_NVTX, depth};
}

static int has_corr(const struct trace *t, uint32_t corr)
{
	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].correlation == corr)
			return 1;
	return 0;
}

/* the kernels' correlations, in order, as "1,2,3" */
static const char *kept(const struct trace *t)
{
	static char b[256];
	size_t at = 0;
	b[0] = '\0';
	for (size_t i = 0; i < t->n_kernels; i++)
		at += (size_t)snprintf(b + at, sizeof(b) - at, "%s%u", i ? "," : "",
				       t->kernels[i].correlation);
	return b;
}

/* the profiler program: 1 before; start (runtime + nested driver) at
 * 10 ms; 2 inside, 3 launched inside at 19 ms but run after the stop; stop
 * at 20 ms, a second stop at 22; 4 after; a start at 100 ms never stopped:
 * 5 and 6 inside. A kernel with no launch call recorded (corr 50) runs at
 * 15 ms (inside: judged by its own start), one at 30 ms (outside). */
static void profiler_program(struct trace *t)
{
	trace_init(t);
	launch(t, 7, 1 * MS, 2 * MS, 1);
	call(t, 7, 10 * MS, 11 * MS, 90, "cudaProfilerStart_v4000");
	call(t, 7, 10 * MS + 100 * US, 10 * MS + 200 * US, 91, "cuProfilerStart");
	launch(t, 7, 12 * MS, 12 * MS + 10 * US, 2);
	launch(t, 7, 19 * MS, 25 * MS, 3);
	call(t, 7, 20 * MS, 21 * MS, 92, "cudaProfilerStop_v4000");
	call(t, 7, 22 * MS, 23 * MS, 93, "cudaProfilerStop_v4000");
	launch(t, 7, 40 * MS, 41 * MS, 4);
	call(t, 7, 100 * MS, 101 * MS, 94, "cudaProfilerStart_v4000");
	launch(t, 7, 110 * MS, 111 * MS, 5);
	launch(t, 7, 120 * MS, 121 * MS, 6);
	struct trace_kernel *k = trace_add_kernel(t);
	*k = (struct trace_kernel){
	    .start_ns = 15 * MS, .end_ns = 16 * MS, .pid = 7, .correlation = 50};
	k = trace_add_kernel(t);
	*k = (struct trace_kernel){
	    .start_ns = 30 * MS, .end_ns = 31 * MS, .pid = 7, .correlation = 51};
	/* samples and a copy by time / by launch */
	struct trace_sample *s = trace_add_sample(t);
	s->ts_ns = 5 * MS;
	s = trace_add_sample(t);
	s->ts_ns = 15 * MS;
	struct trace_copy *c = trace_add_copy(t);
	*c =
	    (struct trace_copy){.start_ns = 50 * MS, .end_ns = 51 * MS, .pid = 7, .correlation = 2};
	/* counters: 0 is the counters' own statistics */
	struct trace_counter *n = trace_add_counter(t);
	*n = (struct trace_counter){7, 0, trace_intern(t, "gpuscope__profiled_launches"), 1};
	n = trace_add_counter(t);
	*n = (struct trace_counter){7, 4, trace_intern(t, "x"), 1};
	n = trace_add_counter(t);
	*n = (struct trace_counter){7, 5, trace_intern(t, "x"), 1};
	/* unified memory: by their own time, kept when they overlap a window */
	const int64_t uv[][2] = {{5 * MS, 6 * MS}, {19 * MS, 22 * MS}, {60 * MS, 60 * MS}};
	for (size_t i = 0; i < 3; i++) {
		struct trace_uvm *u = trace_add_uvm(t);
		*u = (struct trace_uvm){
		    .start_ns = uv[i][0], .end_ns = uv[i][1], .pid = 7, .kind = UVM_GPU_FAULT};
	}
	trace_sort(t);
}

static void test_profiler_api(void **state)
{
	(void)state;
	struct trace t;
	profiler_program(&t);
	struct capture_spec spec = {.mode = CAPTURE_PROFILER_API};
	struct capture_result r;
	assert_int_equal(trace_capture(&t, &spec, 0, &r), 0);
	assert_string_equal(r.status, "");
	assert_int_equal(r.windows, 2);
	trace_sort(&t);
	assert_string_equal(kept(&t), "2,50,3,5,6");
	assert_int_equal(r.kernels_kept, 5);
	assert_int_equal(r.kernels_dropped, 3);
	/* the windows: [end of the first start, start of the first stop], and
	 * [101 ms, the trace's end (the last kernel's end, 121.01 ms)] */
	assert_int_equal(t.n_capture_windows, 2);
	const struct trace_capture_window *w = t.capture_windows;
	assert_int_equal(w[0].start_ns, 11 * MS);
	assert_int_equal(w[0].end_ns, 20 * MS);
	assert_string_equal(trace_str(&t, w[0].closed_id), "cudaProfilerStop");
	assert_int_equal(w[0].kernels, 3);
	assert_int_equal(w[1].start_ns, 101 * MS);
	assert_int_equal(w[1].end_ns, 121 * MS + 10 * US);
	assert_string_equal(trace_str(&t, w[1].closed_id), "program end");
	assert_int_equal(w[1].kernels, 2);
	assert_int_equal(w[0].pid, 7);
	assert_int_equal(r.captured_ns, 9 * MS + 20 * MS + 10 * US);
	/* API calls kept by their start: the launches inside, not the start or
	 * stop calls themselves */
	for (size_t i = 0; i < t.n_apis; i++)
		assert_null(strstr(trace_str(&t, t.apis[i].name_id), "Profiler"));
	assert_int_equal(t.n_apis, 4);
	assert_int_equal(t.n_samples, 1);
	assert_int_equal(t.samples[0].ts_ns, 15 * MS);
	assert_int_equal(t.n_copies, 1); /* launched by corr 2 (inside), run at 50 ms */
	assert_int_equal(t.n_counters, 2);
	assert_true(t.counters[0].correlation == 0 || t.counters[1].correlation == 0);
	assert_int_equal(t.n_uvm, 1);
	assert_int_equal(t.uvm[0].start_ns, 19 * MS);
	assert_string_equal(trace_get_meta(&t, "capture_range"), "cudaProfilerApi");
	assert_string_equal(trace_get_meta(&t, "capture_status"), "");
	trace_release(&t);
}

/* two processes: windows of each, merged into one timeline */
static void test_profiler_two_processes(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	call(&t, 7, 10 * MS, 11 * MS, 1, "cudaProfilerStart_v4000");
	call(&t, 7, 30 * MS, 31 * MS, 2, "cudaProfilerStop_v4000");
	call(&t, 8, 20 * MS, 21 * MS, 1, "cudaProfilerStart_v4000");
	call(&t, 8, 40 * MS, 41 * MS, 2, "cudaProfilerStop_v4000");
	/* pid 8's stop must not close pid 7's window and the reverse: corr 3
	 * of pid 8 at 35 ms is inside pid 8's window */
	launch(&t, 8, 35 * MS, 36 * MS, 3);
	launch(&t, 7, 45 * MS, 46 * MS, 4);
	struct capture_spec spec = {.mode = CAPTURE_PROFILER_API};
	struct capture_result r;
	assert_int_equal(trace_capture(&t, &spec, 0, &r), 0);
	assert_int_equal(r.windows, 1);
	assert_int_equal(t.capture_windows[0].start_ns, 11 * MS);
	assert_int_equal(t.capture_windows[0].end_ns, 40 * MS);
	assert_string_equal(kept(&t), "3");
	trace_release(&t);
}

static void test_never_started(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	launch(&t, 7, 1 * MS, 2 * MS, 1);
	launch(&t, 7, 3 * MS, 4 * MS, 2);
	struct capture_spec spec = {.mode = CAPTURE_PROFILER_API};
	struct capture_result r;
	assert_int_equal(trace_capture(&t, &spec, 0, &r), 0);
	assert_int_equal(r.windows, 0);
	assert_int_equal(t.n_kernels + t.n_apis + t.n_capture_windows, 0);
	assert_int_equal(r.kernels_dropped, 2);
	assert_non_null(strstr(r.status, "never called cudaProfilerStart"));
	assert_string_equal(trace_get_meta(&t, "capture_status"), r.status);
	assert_string_equal(trace_get_meta(&t, "capture_captured_ns"), "0");
	assert_string_equal(trace_get_meta(&t, "capture_span_ns"), "4010000");
	trace_release(&t);
}

/* NVTX: a nested repeat merges, a later repeat is a window, another
 * domain's range and another name are not */
static void test_nvtx(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	range(&t, 10 * MS, 30 * MS, "step", "", 0);
	range(&t, 15 * MS, 20 * MS, "step", "", 1);
	range(&t, 50 * MS, 60 * MS, "step", "mylib", 0);
	range(&t, 70 * MS, 80 * MS, "stepper", "", 0);
	range(&t, 90 * MS, 95 * MS, "step", "", 0);
	launch(&t, 7, 5 * MS, 6 * MS, 1);
	launch(&t, 7, 12 * MS, 40 * MS, 2); /* inside, runs after the range */
	launch(&t, 7, 17 * MS, 18 * MS, 3);
	launch(&t, 7, 55 * MS, 56 * MS, 4);
	launch(&t, 7, 75 * MS, 76 * MS, 5);
	launch(&t, 7, 92 * MS, 93 * MS, 6);
	trace_sort(&t);
	struct capture_spec spec = {0};
	char err[256];
	assert_int_equal(capture_parse_range(&spec, "nvtx:step", err), 0);
	struct capture_result r;
	assert_int_equal(trace_capture(&t, &spec, 0, &r), 0);
	assert_int_equal(r.windows, 2);
	assert_string_equal(kept(&t), "3,2,6"); /* by kernel start */
	assert_int_equal(t.capture_windows[0].kernels, 2);
	assert_string_equal(trace_str(&t, t.capture_windows[0].opened_id), "nvtx:step");
	/* ranges overlapping a window stay: both "step"s of the first, the
	 * last; not the other domain's or "stepper" */
	assert_int_equal(t.n_ranges, 3);
	trace_release(&t);

	/* the same with a domain: only mylib's range */
	trace_init(&t);
	range(&t, 10 * MS, 30 * MS, "step", "", 0);
	range(&t, 50 * MS, 60 * MS, "step", "mylib", 0);
	launch(&t, 7, 12 * MS, 13 * MS, 1);
	launch(&t, 7, 55 * MS, 56 * MS, 2);
	assert_int_equal(capture_parse_range(&spec, "nvtx:step@mylib", err), 0);
	assert_int_equal(trace_capture(&t, &spec, 0, &r), 0);
	assert_string_equal(kept(&t), "2");
	assert_string_equal(trace_get_meta(&t, "capture_range"), "nvtx:step@mylib");
	trace_release(&t);

	trace_init(&t);
	launch(&t, 7, 12 * MS, 13 * MS, 1);
	assert_int_equal(capture_parse_range(&spec, "nvtx:absent", err), 0);
	assert_int_equal(trace_capture(&t, &spec, 0, &r), 0);
	assert_non_null(strstr(r.status, "no NVTX range named 'absent'"));
	trace_release(&t);
}

/* --delay from the program's start, --duration from each window's start */
static void test_delay_duration(void **state)
{
	(void)state;
	struct trace t;
	int64_t start = 1000 * MS; /* the program's start on the trace's clock */
	trace_init(&t);
	for (uint32_t i = 0; i < 10; i++)
		launch(&t, 7, start + (int64_t)i * 100 * MS, start + (int64_t)i * 100 * MS + MS,
		       i + 1);
	struct capture_spec spec = {.delay_ns = 250 * MS};
	struct capture_result r;
	assert_int_equal(trace_capture(&t, &spec, start, &r), 0);
	assert_string_equal(kept(&t), "4,5,6,7,8,9,10");
	assert_int_equal(t.capture_windows[0].start_ns, start + 250 * MS);
	assert_string_equal(trace_str(&t, t.capture_windows[0].opened_id), "delay");
	trace_release(&t);

	trace_init(&t);
	for (uint32_t i = 0; i < 10; i++)
		launch(&t, 7, start + (int64_t)i * 100 * MS, start + (int64_t)i * 100 * MS + MS,
		       i + 1);
	spec = (struct capture_spec){.delay_ns = 250 * MS, .duration_ns = 300 * MS};
	assert_int_equal(trace_capture(&t, &spec, start, &r), 0);
	/* [1250, 1550) ms: the launches at 1300, 1400, 1500 */
	assert_string_equal(kept(&t), "4,5,6");
	assert_string_equal(trace_str(&t, t.capture_windows[0].closed_id), "duration");
	assert_int_equal(r.captured_ns, 300 * MS);
	trace_release(&t);

	/* a profiler window cut by --duration */
	profiler_program(&t);
	spec = (struct capture_spec){.mode = CAPTURE_PROFILER_API, .duration_ns = 5 * MS};
	assert_int_equal(trace_capture(&t, &spec, 0, &r), 0);
	/* [11, 16) and [101, 106) ms: launch 2 and kernel 50 (own start 15) */
	trace_sort(&t);
	assert_string_equal(kept(&t), "2,50");
	assert_true(has_corr(&t, 50));
	trace_release(&t);

	/* everything before the delay */
	trace_init(&t);
	launch(&t, 7, start + 10 * MS, start + 11 * MS, 1);
	spec = (struct capture_spec){.delay_ns = 5000 * MS};
	assert_int_equal(trace_capture(&t, &spec, start, &r), 0);
	assert_int_equal(t.n_kernels, 0);
	assert_non_null(strstr(r.status, "before --delay 5 s"));
	trace_release(&t);
}

static void test_parse(void **state)
{
	(void)state;
	struct capture_spec s = {0};
	char err[256];
	assert_false(capture_active(&s));
	assert_int_equal(capture_parse_range(&s, "cudaProfilerApi", err), 0);
	assert_int_equal(s.mode, CAPTURE_PROFILER_API);
	assert_true(capture_active(&s));
	assert_int_equal(capture_parse_range(&s, "nvtx:a b@c@dom", err), 0);
	assert_string_equal(s.nvtx_name, "a b@c");
	assert_string_equal(s.nvtx_domain, "dom");
	const char *bad[] = {"", "cudaprofilerapi", "nvtx", "nvtx:", "nvtx:@d", "nvtx:a@", "hw"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(capture_parse_range(&s, bad[i], err), -1);
	char longname[600];
	memset(longname, 'x', sizeof(longname));
	memcpy(longname, "nvtx:", 5);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(capture_parse_range(&s, longname, err), -1);
	int64_t ns = 0;
	assert_int_equal(capture_parse_seconds(&ns, "--delay", 0, "1.5", err), 0);
	assert_int_equal(ns, 1500 * MS);
	assert_int_equal(capture_parse_seconds(&ns, "--delay", 0, "0", err), 0);
	assert_int_equal(ns, 0);
	const char *badsec[] = {"", "-1", "x", "1s", "nan", "inf", "1e9"};
	for (size_t i = 0; i < sizeof(badsec) / sizeof(badsec[0]); i++)
		assert_int_equal(capture_parse_seconds(&ns, "--delay", 0, badsec[i], err), -1);
	assert_int_equal(capture_parse_seconds(&ns, "--duration", 1, "0", err), -1);
	assert_non_null(strstr(err, "--duration"));
}

/* the windows survive the database (schema v3) */
static void test_db_roundtrip(void **state)
{
	(void)state;
	struct trace t, u;
	profiler_program(&t);
	struct capture_spec spec = {.mode = CAPTURE_PROFILER_API};
	struct capture_result r;
	assert_int_equal(trace_capture(&t, &spec, 0, &r), 0);
	char path[] = "/tmp/test_capture_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	char err[GS_ERR_LEN];
	assert_int_equal(trace_db_save(path, &t, err), 0);
	assert_int_equal(trace_db_load(&u, path, err), 0);
	unlink(path);
	assert_int_equal(u.n_capture_windows, 2);
	assert_int_equal(u.capture_windows[1].start_ns, 101 * MS);
	assert_int_equal(u.capture_windows[1].end_ns, 121 * MS + 10 * US);
	assert_int_equal(u.capture_windows[0].kernels, 3);
	assert_string_equal(trace_str(&u, u.capture_windows[0].opened_id), "cudaProfilerStart");
	assert_string_equal(trace_get_meta(&u, "capture_range"), "cudaProfilerApi");
	assert_int_equal(u.n_kernels, 5);
	trace_release(&t);
	trace_release(&u);
}

/* what the analysis leaves out: of [s, e), the time outside the windows */
static void test_outside(void **state)
{
	(void)state;
	struct trace t;
	profiler_program(&t); /* windows [11, 20) and [101, 121.01) ms after the cut */
	assert_int_equal(trace_capture_outside(&t, 0, 200 * MS), 0); /* no windows yet */
	struct capture_spec spec = {.mode = CAPTURE_PROFILER_API};
	struct capture_result r;
	assert_int_equal(trace_capture(&t, &spec, 0, &r), 0);
	assert_int_equal(trace_capture_first(&t, 0), 0);
	assert_int_equal(trace_capture_first(&t, 20 * MS), 1); /* [11, 20) ends at 20 */
	assert_int_equal(trace_capture_first(&t, 200 * MS), 2);
	assert_int_equal(trace_capture_outside(&t, 12 * MS, 19 * MS), 0);
	assert_int_equal(trace_capture_outside(&t, 15 * MS, 105 * MS), 81 * MS);
	assert_int_equal(trace_capture_outside(&t, 0, 200 * MS),
			 200 * MS - 9 * MS - (20 * MS + 10 * US));
	assert_int_equal(trace_capture_outside(&t, 30 * MS, 40 * MS), 10 * MS);
	assert_int_equal(trace_capture_outside(&t, 40 * MS, 30 * MS), 0);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_profiler_api),   cmocka_unit_test(test_profiler_two_processes),
	    cmocka_unit_test(test_never_started),  cmocka_unit_test(test_nvtx),
	    cmocka_unit_test(test_delay_duration), cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_db_roundtrip),   cmocka_unit_test(test_outside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
