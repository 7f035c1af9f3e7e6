/*
 * test_kineto_shapes.c - the input shapes the PyTorch importer keeps
 * (kineto_shapes.c): the token batches of aten::embedding and the masks of
 * aten::scaled_dot_product_attention, the same through yajl, the fast
 * path and its direct decoder; and the padding finding they feed
 * (diagnose/rules_padding.c): named for batches of one length with masks,
 * not for lengths that change, batches without a mask, one-sequence
 * decoding or a single step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "diagnose/rules_int.h"
#include "import/kineto.h"
#include "util/error.h"
#include "../analyze/build_trace.h"

#define EMB "aten::embedding"
#define SDPA "aten::scaled_dot_product_attention"
#define MASK "[[8, 12, 64, 64], [8, 12, 64, 64], [8, 12, 64, 64], [8, 1, 64, 64], [], []]"

/* an op's event with its "Input Dims" */
static void op(char *buf, size_t cap, int ts, const char *name, const char *dims)
{
	size_t n = strlen(buf);
	snprintf(buf + n, cap - n,
		 "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, "
		 "\"tid\": 1, \"ts\": %d, \"dur\": 2, \"args\": {\"External id\": %d, "
		 "\"Input Dims\": %s, \"Input type\": [\"float\", \"long int\"]}}",
		 n > 20 ? ",\n" : "", name, ts, ts, dims);
}

/* The events: two steps' embeddings and attentions, then shapes that are
 * none of one tensor's (a list of tensors, five dimensions, a string,
 * "Input Dims" that is no array, another op) and "Input Dims" before the
 * name (not kept). */
static char *shapes_text(void)
{
	static char buf[8192];
	strcpy(buf, "{\"traceEvents\": [\n");
	op(buf, sizeof(buf), 10, EMB, "[[30522, 768], [8, 64], [], [], []]");
	op(buf, sizeof(buf), 20, EMB, "[[512, 768], [1, 64], [], [], []]");
	op(buf, sizeof(buf), 30, SDPA, MASK);
	op(buf, sizeof(buf), 40, SDPA, MASK);
	/* no mask; a per-head bias is no padding mask */
	op(buf, sizeof(buf), 50, SDPA, "[[8, 12, 64, 64], [8, 12, 64, 64], [8, 12, 64, 64], []]");
	op(buf, sizeof(buf), 55, SDPA,
	   "[[8, 12, 64, 64], [8, 12, 64, 64], [8, 12, 64, 64], [8, 12, 64, 64]]");
	op(buf, sizeof(buf), 60, EMB, "[[30522, 768], [8, 64], [], [], []]");
	op(buf, sizeof(buf), 70, EMB, "[[30522, 768], [[8, 64], [8, 64]], []]");
	op(buf, sizeof(buf), 80, EMB, "[[30522, 768], [1, 2, 3, 4, 5]]");
	op(buf, sizeof(buf), 90, EMB, "[[30522, 768], [\"x\", 64]]");
	op(buf, sizeof(buf), 95, EMB, "7");
	op(buf, sizeof(buf), 100, "aten::mm", "[[8, 64], [64, 64]]");
	size_t n = strlen(buf);
	snprintf(buf + n, sizeof(buf) - n,
		 ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"args\": {\"Input Dims\": [[1, 1], "
		 "[8, 64]]}, \"name\": \"aten::embedding\", \"pid\": 1, \"tid\": 1, \"ts\": 110, "
		 "\"dur\": 2}\n]}");
	return buf;
}

static void shapes_kept(void **state)
{
	(void)state;
	static const struct kineto_options opts[] = {
	    {.yajl_only = 1},
	    {.threads = 0, .chunk_bytes = 200},
	    {.threads = 2, .chunk_bytes = 300},
	    {.threads = 1, .no_direct = 1},
	};
	const char *text = shapes_text();
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct trace t;
		char err[GS_ERR_LEN];
		if (kineto_load_mem_opt(&t, text, strlen(text), &opts[i], err) != 0)
			fail_msg("options %zu: %s", i, err);
		const char *tok = trace_get_meta(&t, "kineto.shapes.tokens");
		const char *mask = trace_get_meta(&t, "kineto.shapes.masks");
		const char *attn = trace_get_meta(&t, "kineto.shapes.attention");
		assert_non_null(tok);
		assert_non_null(mask);
		assert_non_null(attn);
		/* two [8, 64] batches and the positions' [1, 64]; the list, the
		 * five dimensions and the string are none */
		assert_string_equal(tok, "8x64*2,1x64*1");
		assert_string_equal(mask, "8x64*2");
		assert_string_equal(attn, "4");
		trace_release(&t);
	}
	/* a trace without the two ops has no such keys */
	char none[1024] = "{\"traceEvents\": [\n";
	op(none, sizeof(none), 10, "aten::mm", "[[8, 64], [64, 64]]");
	strcat(none, "\n]}");
	struct trace t;
	char err[GS_ERR_LEN];
	assert_int_equal(kineto_load_mem(&t, none, strlen(none), err), 0);
	assert_null(trace_get_meta(&t, "kineto.shapes.tokens"));
	assert_null(trace_get_meta(&t, "kineto.shapes.attention"));
	trace_release(&t);
}

/* A loop of 400 launches of 100 us kernels (a step of 40 launches) with
 * the shapes' meta and `steps` ProfilerStep ranges. */
static void padded_trace(struct trace *t, const char *tok, const char *mask, const char *attn,
			 int steps)
{
	bt_init(t);
	t->source = TRACE_SRC_PYTORCH;
	for (int i = 0; i < 400; i++) {
		double s = 10.0 + 110.0 * i;
		bt_api(t, s, s + 5, API_LAUNCH, (uint32_t)i + 1, "cudaLaunchKernel");
		bt_kernel(t, s + 8, s + 108, 7, (uint32_t)i + 1, "gemm", 264, 256, 32);
	}
	for (int k = 0; k < steps; k++) {
		struct trace_range *r = trace_add_range(t);
		r->start_ns = (int64_t)((10.0 + 110.0 * 400 * k / steps) * US);
		r->end_ns = (int64_t)((10.0 + 110.0 * 400 * (k + 1) / steps) * US);
		r->pid = 100;
		r->tid = 1;
		r->kind = RANGE_ANNOTATION;
		char name[32];
		snprintf(name, sizeof(name), "ProfilerStep#%d", k + 1);
		r->name_id = trace_intern(t, name);
	}
	if (tok)
		assert_int_equal(trace_set_meta(t, "kineto.shapes.tokens", tok), 0);
	if (mask)
		assert_int_equal(trace_set_meta(t, "kineto.shapes.masks", mask), 0);
	if (attn)
		assert_int_equal(trace_set_meta(t, "kineto.shapes.attention", attn), 0);
}

static const struct finding *padding_of(const char *tok, const char *mask, const char *attn,
					int steps, struct analysis *a, struct trace *t)
{
	char err[GS_ERR_LEN];
	padded_trace(t, tok, mask, attn, steps);
	assert_int_equal(analysis_run(a, t, err), 0);
	return finding_find(&a->findings, "padding");
}

static void padding_named(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a;
	const struct finding *f = padding_of("64x128*8,1x128*4", "64x128*48", "48", 4, &a, &t);
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_INFO);
	assert_true(f->impact_pct == 0);
	assert_int_equal((int)finding_get(f, "token_batch")->num, 64);
	assert_int_equal((int)finding_get(f, "token_length")->num, 128);
	assert_int_equal((int)finding_get(f, "token_lookups")->num, 8);
	assert_int_equal((int)finding_get(f, "steps")->num, 4);
	assert_int_equal((int)finding_get(f, "masked_attention_calls")->num, 48);
	assert_int_equal((int)finding_get(f, "attention_calls")->num, 48);
	assert_non_null(strstr(f->title, "128 tokens"));
	assert_non_null(strstr(f->actions[0], "longest"));
	/* never the primary: it has no impact of its own */
	assert_true(a.primary != f);
	analysis_release(&a);
	trace_release(&t);

	/* a smaller last batch of the same length is still one length */
	f = padding_of("64x128*6,37x128*2", "64x128*36,37x128*12", "48", 4, &a, &t);
	assert_non_null(f);
	assert_int_equal((int)finding_get(f, "token_batch")->num, 64);
	analysis_release(&a);
	trace_release(&t);

	static const struct {
		const char *tok, *mask, *attn;
		int steps;
		const char *why;
	} not [] = {
	    {"64x87*2,64x128*2,64x101*2", "64x87*12,64x128*12,64x101*12", "36", 3,
	     "lengths that change: padded per batch"},
	    {"64x100*2,64x128*6", "64x100*12,64x128*36", "48", 4, "one batch of another length"},
	    {"16x1024*4", NULL, "32", 4, "no mask: packed or fixed-length blocks"},
	    {"16x1024*4", "16x512*32", "32", 4, "a mask of another length"},
	    {"64x128*4", "64x128*6", "48", 4, "masks in an eighth of the calls"},
	    {"1x16*2,1x1*30", "1x17*6", "96", 4, "one sequence at a time (decoding)"},
	    {"64x128*2", "64x128*12", "12", 1, "one step"},
	    {"64x8*8", "64x8*48", "48", 4, "8 tokens"},
	    {"64x128*8,other*3", "64x128*48", "48", 4, "more shapes than were counted"},
	    {"64x128*8", "64y128*48", "48", 4, "a malformed value"},
	};
	for (size_t i = 0; i < sizeof(not ) / sizeof(not [0]); i++) {
		f = padding_of(not [i].tok, not [i].mask, not [i].attn, not [i].steps, &a, &t);
		if (f)
			fail_msg("padding named for %s", not [i].why);
		analysis_release(&a);
		trace_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(shapes_kept),
	    cmocka_unit_test(padding_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
