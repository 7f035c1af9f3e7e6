/*
 * test_kineto_fast.c - the fast path (kineto_fast.c, kineto_lex.c) gives
 * the trace the yajl parse gives, row for row and string for string, on
 * every committed trace and on texts made to trip it (small chunks, a cut
 * pattern inside an element, no newlines, members after the events, a
 * top-level array, escapes, bad input with the same error message).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "import/kineto.h"
#include "util/error.h"

static const char *files[] = {
    FIXTURES_DIR "/pytorch/transformer_step.json.gz",
    FIXTURES_DIR "/pytorch/small_ops.json.gz",
    FIXTURES_DIR "/pytorch/bf16_gemm.json.gz",
    FIXTURES_DIR "/pytorch/healthy_train.json.gz",
    FIXTURES_DIR "/pytorch/dataloader_starved.json.gz",
    FIXTURES_DIR "/pytorch/item_every_step.json.gz",
    FIXTURES_DIR "/kineto-synthetic/small.json",
    FIXTURES_DIR "/kineto-synthetic/overlap.json",
    FIXTURES_DIR "/kineto-synthetic/profiler_ranges.json",
    FIXTURES_DIR "/kineto-synthetic/profiler_ranges_only.json",
};

static const struct kineto_options variants[] = {
    {.progress = 0, .threads = 2},
    {.progress = 0, .threads = 1, .chunk_bytes = 4096},
    {.progress = 0, .threads = 3, .chunk_bytes = 700},
};

static void files_match_yajl(void **state)
{
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct trace want, got;
		char err[GS_ERR_LEN];
		struct kineto_options y = {.progress = 0, .yajl_only = 1};
		assert_int_equal(kineto_load_opt(&want, files[f], &y, err), 0);
		assert_true(want.n_kernels + want.n_ranges > 0);
		for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
			assert_int_equal(kineto_load_opt(&got, files[f], &variants[v], err), 0);
			if (!kineto_same_trace(&want, &got))
				fail_msg("%s: variant %zu differs from yajl's trace", files[f], v);
			trace_release(&got);
		}
		trace_release(&want);
	}
}

/* both parses of text: the same outcome, the same trace or message */
static void same(const char *text, size_t chunk)
{
	struct trace a, b;
	char ea[GS_ERR_LEN] = "", eb[GS_ERR_LEN] = "";
	struct kineto_options y = {.yajl_only = 1}, f = {.threads = 0, .chunk_bytes = chunk},
			      g = {.threads = 2, .chunk_bytes = chunk};
	int ra = kineto_load_mem_opt(&a, text, strlen(text), &y, ea);
	int rb = kineto_load_mem_opt(&b, text, strlen(text), &f, eb);
	if (ra != rb || strcmp(ea, eb) != 0)
		fail_msg("outcome differs (%d '%s' vs %d '%s') on: %.80s", ra, ea, rb, eb, text);
	if (ra == 0 && !kineto_same_trace(&a, &b))
		fail_msg("trace differs on: %.80s", text);
	if (rb == 0)
		trace_release(&b);
	rb = kineto_load_mem_opt(&b, text, strlen(text), &g, eb);
	if (ra != rb || strcmp(ea, eb) != 0)
		fail_msg("threaded outcome differs (%d '%s' vs %d '%s')", ra, ea, rb, eb);
	if (ra == 0 && !kineto_same_trace(&a, &b))
		fail_msg("threaded trace differs on: %.80s", text);
	if (ra == 0)
		trace_release(&a);
	if (rb == 0)
		trace_release(&b);
}

#define EV(ts, name)                                                                               \
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": 0, \"tid\": 7, "    \
	"\"ts\": " #ts ".250, \"dur\": 3.5, \"args\": {\"correlation\": " #ts                      \
	", \"grid\": [1, 2, 3], \"block\": [32, 1, 1]}}"

static void texts_match_yajl(void **state)
{
	static const char *texts[] = {
	    /* pretty, many small chunks */
	    "{\n  \"traceEvents\": [\n  " EV(1, "a") ",\n  " EV(2, "b") ",\n  " EV(
		3,
		"a") ",\n  " EV(4,
				"c") "\n  ],\n  \"deviceProperties\": [{\"id\": 0, \"name\": "
				     "\"H200\", \"numSms\": "
				     "132}],\n  \"baseTimeNanoseconds\": 1700000000000000000\n}\n",
	    /* the cut pattern inside an element: a list of objects at the same indentation */
	    "{\n  \"traceEvents\": [\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"x\", "
	    "\"pid\": "
	    "1, \"tid\": 1, \"ts\": 1, \"dur\": 9, \"args\": {\"l\": [{\"a\": 1},\n  {\"b\": "
	    "2},\n  {\"c\": 3}]}},\n  " EV(5, "k") "\n  ]\n}",
	    /* no newlines at all */
	    "{\"traceEvents\":[" EV(1, "a") "," EV(2, "b") "],\"x\":1}",
	    /* a top-level array, escapes and UTF-8 in names */
	    "[\n" EV(1, "q\\\"uote\\\\back\\/slash\\n\\u00e9\\u4e2d") ",\n" EV(
		2, "\xc3\xa9\xe4\xb8\xad") "\n]",
	    /* members before and after the events, empty arrays, nested values */
	    "{\"schemaVersion\": 1, \"deviceProperties\": [], \"distributedInfo\": {\"rank\": 3, "
	    "\"world_size\": 8}, \"traceEvents\": [\n" EV(1, "a") "\n], \"after\": [1, [2, {\"x\": "
								  "[]}]], \"traceName\": \"t\"}",
	    "{\"traceEvents\": []}",
	    /* bad input: the messages must be yajl's */
	    "{\"traceEvents\": [\n" EV(1, "a") ",\n" EV(2, "b"),
	    "{\"traceEvents\": [\n" EV(1, "a") ",\n" EV(2, "b") ",\n]}",
	    "{\"traceEvents\": [\n" EV(1, "\xff") "]}",
	    "{\"traceEvents\": [\n" EV(1, "\\ud800") "]}",
	    "{\"traceEvents\": [\n" EV(1, "a") "]} trailing",
	    "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": "
	    "1e20, "
	    "\"ts\": 1, \"dur\": 1}\n]}",
	    "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": "
	    "1, "
	    "\"ts\": 01, \"dur\": 1}\n]}",
	    "{\"nothing\": 1}",
	    "",
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		for (size_t chunk = 16; chunk <= 4096; chunk *= 4)
			same(texts[i], chunk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(files_match_yajl),
	    cmocka_unit_test(texts_match_yajl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
