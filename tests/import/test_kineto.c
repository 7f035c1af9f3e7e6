/*
 * test_kineto.c - the kineto importer on the synthetic fixtures: exact
 * counts and field values, ns timestamps, flows, .json.gz == .json, and
 * hostile input (truncated, empty, binary, deep nesting, huge numbers, NUL
 * in strings, huge tokens) failing with a message and no crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/kineto.h"
#include "trace/trace_db.h"
#include "util/error.h"
#include "import/load.h"

#define SMALL FIXTURES_DIR "/kineto-synthetic/small.json"
#define BASE 1733141234000000000LL

static const struct trace_kernel *kernel0(const struct trace *t)
{
	assert_int_equal(t->n_kernels, 1);
	return &t->kernels[0];
}

static void test_small_counts_and_fields(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN] = "";
	assert_int_equal(kineto_load(&t, SMALL, err), 0);
	assert_int_equal(t.source, TRACE_SRC_PYTORCH);
	assert_int_equal(t.n_copies, 3);
	assert_int_equal(t.n_memsets, 1);
	assert_int_equal(t.n_apis, 5);
	assert_int_equal(t.n_ranges, 4);
	assert_int_equal(t.n_devices, 1);
	/* one cuda_sync (Stream Sync, corr 107) + cudaDeviceSynchronize; the
	 * cudaStreamSynchronize with corr 107 is not doubled */
	assert_int_equal(t.n_syncs, 2);

	const struct trace_kernel *k = kernel0(&t);
	assert_true(k->start_ns == BASE + 130123);
	assert_true(k->end_ns == BASE + 130123 + 20456);
	assert_int_equal(k->grid[0], 128);
	assert_int_equal(k->grid[1], 2);
	assert_int_equal(k->grid[2], 1);
	assert_int_equal(k->block[0], 256);
	assert_int_equal(k->regs, 128);
	assert_int_equal(k->dyn_smem + k->static_smem, 49152);
	assert_int_equal(k->stream, 7);
	assert_int_equal(k->correlation, 101);
	assert_int_equal(k->pid, 4242);
	assert_string_equal(trace_str(&t, k->name_id),
			    "void gemm_kernel<float, 128>(float const*, float*)");

	assert_int_equal(t.copies[0].kind, COPY_HTOD);
	assert_int_equal(t.copies[0].src_kind, MEM_PAGEABLE);
	assert_int_equal(t.copies[0].dst_kind, MEM_DEVICE);
	assert_int_equal(t.copies[0].bytes, 1048576);
	assert_int_equal(t.copies[1].kind, COPY_DTOH);
	assert_int_equal(t.copies[1].dst_kind, MEM_PINNED);
	assert_int_equal(t.copies[2].kind, COPY_DTOD);
	/* the DtoD copy has no correlation arg: filled from its ac2g flow end */
	assert_int_equal(t.copies[2].correlation, 104);
	assert_int_equal(t.memsets[0].mem_kind, MEM_DEVICE);
	assert_int_equal(t.memsets[0].bytes, 2048);

	int launches = 0, drivers = 0;
	for (size_t i = 0; i < t.n_apis; i++) {
		launches += t.apis[i].kind == API_LAUNCH;
		drivers += t.apis[i].domain == DOMAIN_DRIVER;
	}
	assert_int_equal(launches, 2);
	assert_int_equal(drivers, 1);
	assert_true(t.apis[0].start_ns == BASE + 120500);
	assert_int_equal(t.apis[0].correlation, 101);
	assert_int_equal(t.apis[0].tid, 4242);

	/* ranges: ProfilerStep (0) > python step (1) > aten::mm (2) */
	assert_int_equal(t.ranges[0].kind, RANGE_ANNOTATION);
	assert_int_equal(t.ranges[0].depth, 0);
	assert_int_equal(t.ranges[1].kind, RANGE_CPU_OP);
	assert_int_equal(t.ranges[1].depth, 2);
	assert_int_equal(t.ranges[2].kind, RANGE_PYTHON);
	assert_int_equal(t.ranges[2].depth, 1);
	assert_string_equal(trace_str(&t, t.ranges[3].domain_id), "gpu");

	const struct trace_device *d = &t.devices[0];
	assert_string_equal(trace_str(&t, d->name_id), "NVIDIA H200");
	assert_int_equal(d->sm_count, 132);
	assert_int_equal(d->cc_major, 9);
	assert_int_equal(d->regs_per_sm, 65536);
	assert_int_equal(d->smem_per_sm, 233472);
	assert_int_equal(d->max_smem_per_block, 232448);
	assert_int_equal(d->max_threads_per_sm, 2048);
	assert_true(d->mem_bytes == 150754820096ULL);

	assert_string_equal(trace_get_meta(&t, "rank"), "3");
	assert_string_equal(trace_get_meta(&t, "world_size"), "8");
	/* the [memory] instant event is an allocation row (#16 item 8), the
	 * other instant event stays unknown */
	assert_string_equal(trace_get_meta(&t, "import.unknown"), "ph=M:2,cat=Trace:1,ph=i:1");
	assert_int_equal(t.n_allocs, 1);
	assert_int_equal(t.allocs[0].bytes, 1048576);
	assert_string_equal(trace_get_meta(&t, "import.flows"), "3");
	trace_release(&t);
}

static void test_gz_equals_json(void **state)
{
	struct trace a, b;
	char err[GS_ERR_LEN];
	assert_int_equal(kineto_load(&a, SMALL, err), 0);
	assert_int_equal(kineto_load(&b, SMALL ".gz", err), 0);
	assert_int_equal(a.n_kernels, b.n_kernels);
	assert_int_equal(a.n_apis, b.n_apis);
	assert_int_equal(a.n_ranges, b.n_ranges);
	assert_memory_equal(a.kernels, b.kernels, a.n_kernels * sizeof(*a.kernels));
	assert_memory_equal(a.copies, b.copies, a.n_copies * sizeof(*a.copies));
	assert_memory_equal(a.apis, b.apis, a.n_apis * sizeof(*a.apis));
	trace_release(&a);
	trace_release(&b);
}

static int load_str(struct trace *t, const char *s, char *err)
{
	return kineto_load_mem(t, s, strlen(s), err);
}

static void test_exact_ns(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	/* absolute epoch microseconds (no baseTimeNanoseconds): 19 digits of ns */
	const char *j = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\","
			"\"pid\":0,\"tid\":7,\"ts\":1733141234567.123,\"dur\":0.0019,"
			"\"args\":{\"stream\":7}}]}";
	assert_int_equal(load_str(&t, j, err), 0);
	assert_int_equal(t.n_kernels, 1);
	assert_true(t.kernels[0].start_ns == 1733141234567123LL);
	assert_true(t.kernels[0].end_ns == 1733141234567125LL); /* 1.9 ns rounds to 2 */
	trace_release(&t);
	/* relative ts + base, and the base after the events */
	j = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,"
	    "\"tid\":1,\"ts\":5.5,\"dur\":1}],\"baseTimeNanoseconds\":1000000000000000000}";
	assert_int_equal(load_str(&t, j, err), 0);
	assert_true(t.ranges[0].start_ns == 1000000000000005500LL);
	assert_true(t.ranges[0].end_ns == 1000000000000006500LL);
	trace_release(&t);
}

static void expect_fail(const char *s, size_t len, const char *want)
{
	struct trace t;
	char err[GS_ERR_LEN] = "";
	assert_int_equal(kineto_load_mem(&t, s, len, err), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' does not mention '%s'", err, want);
	assert_int_equal(t.n_kernels, 0);
	assert_null(t.kernels);
}

static void test_hostile(void **state)
{
	expect_fail("", 0, "empty");
	const char *tr = "{\"traceEvents\": [{\"ph\": \"X\"";
	expect_fail(tr, strlen(tr), "truncated");
	expect_fail("\x7f"
		    "ELF\x02\x01\x01",
		    7, "not valid json");
	expect_fail("{\"foo\": 1}", 10, "no traceEvents");
	expect_fail("42", 2, "no traceEvents");
	const char *huge = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":1e400}]}";
	expect_fail(huge, strlen(huge), "out of range");
	huge = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":"
	       "99999999999999999999999999,\"dur\":1}]}";
	expect_fail(huge, strlen(huge), "out of range");
	huge = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":1,\"args\":"
	       "{\"grid\":[99999999999,1,1]}}]}";
	expect_fail(huge, strlen(huge), "out of range");

	/* deep nesting */
	size_t n = 100000;
	char *deep = malloc(2 * n + 32);
	strcpy(deep, "{\"traceEvents\":");
	size_t off = strlen(deep);
	memset(deep + off, '[', n);
	expect_fail(deep, off + n, "nested deeper");
	free(deep);

	/* one string token of 80 MiB: yajl's buffer is capped */
	size_t big = 80u << 20;
	char *s = malloc(big + 64);
	off = (size_t)sprintf(s, "{\"traceEvents\":[{\"name\":\"");
	memset(s + off, 'a', big);
	off += big;
	off += (size_t)sprintf(s + off, "\"}]}");
	expect_fail(s, off, "longer than 64 MiB");
	free(s);

	/* a gzip header with garbage behind it */
	expect_fail("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage", 18, "gzip");
}

static void test_nul_in_strings(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	const char *j =
	    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ab\\u0000cd\","
	    "\"ts\":1,\"dur\":1},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ab\","
	    "\"ts\":2,\"dur\":1},{\"ph\":\"X\",\"cat\":\"w\\u0000x\",\"ts\":3}]}";
	assert_int_equal(load_str(&t, j, err), 0);
	assert_int_equal(t.n_kernels, 2);
	assert_int_equal(t.kernels[0].name_id, t.kernels[1].name_id);
	assert_string_equal(trace_str(&t, t.kernels[0].name_id), "ab");
	assert_string_equal(trace_get_meta(&t, "import.unknown"), "cat=w_x:1");
	trace_release(&t);
}

static void test_unknown_and_array_form(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	/* the JSON array form of the trace-event format; unknown kinds counted */
	const char *j =
	    "[{\"ph\":\"B\",\"name\":\"x\",\"ts\":1},{\"ph\":\"X\",\"cat\":\"foo\","
	    "\"ts\":1},{\"ph\":\"X\",\"cat\":\"foo\",\"ts\":2},"
	    "{\"ph\":\"C\",\"name\":\"gpu_util\",\"pid\":0,\"ts\":3,\"args\":{\"v\":42}}]";
	assert_int_equal(load_str(&t, j, err), 0);
	assert_string_equal(trace_get_meta(&t, "import.unknown"), "ph=B:1,cat=foo:2");
	assert_int_equal(t.n_samples, 1);
	assert_true(t.samples[0].value == 42.0);
	assert_string_equal(trace_str(&t, t.samples[0].metric_id), "gpu_util");
	trace_release(&t);
}

/* a category is known by its whole name (kineto_set_cat): near misses are
 * unknown, counted under their names with ',' ':' and NUL replaced; a
 * known one is named as written in a failing event's message */
static void test_category_names(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	const char *j =
	    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernelx\",\"ts\":1},"
	    "{\"ph\":\"X\",\"cat\":\"kerneL\",\"ts\":2},{\"ph\":\"X\",\"cat\":\"cpu_o\",\"ts\":3},"
	    "{\"ph\":\"X\",\"cat\":\"a:b,c\",\"ts\":4},{\"ph\":\"X\",\"cat\":\"\",\"ts\":5},"
	    "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":6,"
	    "\"dur\":1,\"args\":{\"stream\":7}}]}";
	assert_int_equal(load_str(&t, j, err), 0);
	assert_string_equal(trace_get_meta(&t, "import.unknown"),
			    "cat=kernelx:1,cat=kerneL:1,cat=cpu_o:1,cat=a_b_c:1,cat=(none):1");
	assert_int_equal(t.n_kernels, 1);
	trace_release(&t);
	const char *bad = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cuda_runtime\","
			  "\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"dur\":1}]}";
	assert_int_equal(load_str(&t, bad, err), -1);
	assert_non_null(strstr(err, "event without ts in category 'cuda_runtime'"));
}

/* older kineto versions wrote capitalised categories (Operator, Runtime,
 * Kernel, Memcpy, Memset; string tids, the stream as "stream 7"): the
 * same events, which read as "no GPU work" while the names were unknown */
static void test_old_category_names(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	const char *j =
	    "{\"schemaVersion\":1,\"traceEvents\":["
	    "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"ProfilerStep#1\",\"pid\":13721,"
	    "\"tid\":\"123\",\"ts\":50,\"dur\":400,\"args\":{\"External id\":1}},"
	    "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::to\",\"pid\":13721,"
	    "\"tid\":\"123\",\"ts\":200,\"dur\":60,\"args\":{\"External id\":3}},"
	    "{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":13721,"
	    "\"tid\":\"456\",\"ts\":360,\"dur\":20,\"args\":{\"correlation\":334}},"
	    "{\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\","
	    "\"pid\":0,\"tid\":\"stream 7\",\"ts\":405,\"dur\":10,"
	    "\"args\":{\"stream\":7,\"correlation\":334}},"
	    "{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":13721,"
	    "\"tid\":\"456\",\"ts\":405,\"dur\":5,\"args\":{\"correlation\":40348}},"
	    "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"void k<float>\",\"pid\":0,"
	    "\"tid\":\"stream 7\",\"ts\":430,\"dur\":15,"
	    "\"args\":{\"correlation\":40348,\"stream\":7,\"device\":0}},"
	    "{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"Memset (Device)\",\"pid\":0,"
	    "\"tid\":\"stream 7\",\"ts\":450,\"dur\":5,\"args\":{\"stream\":7}}]}";
	assert_int_equal(load_str(&t, j, err), 0);
	assert_int_equal(t.n_kernels, 1);
	assert_int_equal(t.n_copies, 1);
	assert_int_equal(t.n_memsets, 1);
	assert_int_equal(t.n_apis, 2);
	assert_int_equal(t.n_ranges, 2);
	assert_int_equal(t.kernels[0].stream, 7);
	assert_int_equal(t.kernels[0].correlation, 40348);
	assert_int_equal(t.ranges[0].tid, 123);
	assert_string_equal(trace_get_meta(&t, "import.unknown"), "");
	trace_release(&t);
}

static void test_load_any(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	assert_int_equal(trace_load_any(&t, SMALL ".gz", err), 0);
	assert_int_equal(t.n_kernels, 1);
	trace_release(&t);
	assert_int_equal(trace_load_any(&t, FIXTURES_DIR "/kineto-synthetic/README", err), -1);
	assert_non_null(strstr(err, "neither a gpuscope trace database nor"));
	assert_int_equal(trace_load_any(&t, "/nonexistent/x.json", err), -1);
	assert_non_null(strstr(err, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small_counts_and_fields),
	    cmocka_unit_test(test_gz_equals_json),
	    cmocka_unit_test(test_exact_ns),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_nul_in_strings),
	    cmocka_unit_test(test_unknown_and_array_form),
	    cmocka_unit_test(test_old_category_names),
	    cmocka_unit_test(test_category_names),
	    cmocka_unit_test(test_load_any),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
