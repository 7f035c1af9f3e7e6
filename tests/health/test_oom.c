/*
 * test_oom.c - the numbers of pasted "CUDA out of memory" messages
 * (src/health/oom.h): every real message of tests/fixtures/oom/messages.txt
 * gets its stated verdict and figures; a container's message (this process
 * among the listed) takes the smallest listed use that holds PyTorch's
 * reserve for this process; text that is not an OOM message, or has no
 * figure beside the request, reads as nothing; explain prints the figures
 * and the verdict above the cuda_oom entry, and in JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain.h"
#include "health/oom.h"
#include "util/error.h"

#include "fixture_cases.h"

#define MESSAGES FIXTURES_DIR "/oom/messages.txt"

static double field(const struct oom_numbers *o, const char *name, unsigned *bit)
{
	static const struct {
		const char *name;
		unsigned bit;
		size_t off;
	} f[] = {
	    {"request", OOM_REQ, offsetof(struct oom_numbers, request)},
	    {"total", OOM_TOTAL, offsetof(struct oom_numbers, total)},
	    {"free", OOM_FREE, offsetof(struct oom_numbers, free)},
	    {"process", OOM_PROC, offsetof(struct oom_numbers, process)},
	    {"alloc", OOM_ALLOC, offsetof(struct oom_numbers, alloc)},
	    {"unalloc", OOM_UNALLOC, offsetof(struct oom_numbers, unalloc)},
	    {"others", OOM_OTHERS, offsetof(struct oom_numbers, others)},
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(f[i].name, name)) {
			*bit = f[i].bit;
			return *(const double *)((const char *)o + f[i].off);
		}
	fail_msg("unknown field %s", name);
	return 0;
}

static double unit(const char *u)
{
	if (!strcmp(u, "bytes"))
		return 1.0;
	if (!strcmp(u, "GiB"))
		return 1073741824.0;
	if (!strcmp(u, "MiB"))
		return 1048576.0;
	fail_msg("unknown unit %s", u);
	return 0;
}

/* The verdicts a fixture must hold at least one real message of, and how
 * many it does. */
struct tally {
	const char *const *ids;
	int n, seen[16];
};

static void count(struct tally *t, const char *verdict)
{
	for (int i = 0; i < t->n; i++)
		t->seen[i] += !strcmp(verdict, t->ids[i]);
}

static void all_seen(const struct tally *t)
{
	for (int i = 0; i < t->n; i++)
		if (!t->seen[i])
			fail_msg("no real message with verdict %s", t->ids[i]);
}

/* "request 22.78 GiB": the field's name, its value in bytes, and how far
 * a figure may be from it (the message's figures have 3-4 significant
 * digits: 0.006 of the unit written) */
static void expectation(const char *e, char *name, double *bytes, double *tol)
{
	char u[16];
	assert_int_equal(sscanf(e, "%31s %lf %15s", name, bytes, u), 3);
	*bytes *= unit(u);
	*tol = 0.006 * unit(u);
}

static void check_pytorch(const struct fixture_case *k, void *ctx)
{
	struct oom_numbers o;
	const char *verdict = case_value(k, "verdict", NULL), *e;
	assert_non_null(verdict);
	if (!oom_parse(k->msg, k->len, &o))
		fail_msg("%s: not read", k->source);
	const char *got = oom_verdict_id(oom_verdict(&o, NULL));
	if (strcmp(got, verdict))
		fail_msg("%s: verdict %s, expected %s", k->source, got, verdict);
	count(ctx, verdict);
	for (int from = 0; (e = case_value(k, "expect", &from));) {
		char name[32];
		double want, tol;
		unsigned bit = 0;
		expectation(e, name, &want, &tol);
		double v = field(&o, name, &bit);
		if (!(o.have & bit))
			fail_msg("%s: %s not read", k->source, name);
		if (fabs(v - want) > tol)
			fail_msg("%s: %s %.0f bytes, expected %s", k->source, name, v, e);
	}
}

static void real_messages(void **state)
{
	(void)state;
	static const char *const all[] = {"free_enough", "fragmented",	    "other_processes",
					  "non_pytorch", "outside_pytorch", "one_tensor",
					  "full",	 "larger_than_gpu"};
	struct tally t = {all, 8, {0}};
	assert_true(each_fixture_case(FIXTURES_DIR "/oom/messages.txt", check_pytorch, &t) >= 20);
	all_seen(&t);
}

static void check_xla(const struct fixture_case *k, void *ctx)
{
	struct xla_oom x;
	const char *verdict = case_value(k, "verdict", NULL), *e;
	const char *largest = case_value(k, "largest", NULL);
	assert_non_null(verdict);
	if (!xla_oom_parse(k->msg, k->len, &x))
		fail_msg("%s: not read", k->source);
	const char *got = xla_verdict_id(xla_oom_verdict(&x));
	if (strcmp(got, verdict))
		fail_msg("%s: verdict %s, expected %s", k->source, got, verdict);
	count(ctx, verdict);
	static const struct {
		const char *name;
		unsigned bit;
		size_t off;
	} f[] = {
	    {"request", XLA_REQ, offsetof(struct xla_oom, request)},
	    {"param", XLA_PARAM, offsetof(struct xla_oom, param)},
	    {"out", XLA_OUT, offsetof(struct xla_oom, out)},
	    {"temp", XLA_TEMP, offsetof(struct xla_oom, temp)},
	    {"total", XLA_TOTAL, offsetof(struct xla_oom, total)},
	    {"frag", XLA_FRAG, offsetof(struct xla_oom, frag)},
	};
	for (int from = 0; (e = case_value(k, "expect", &from));) {
		char name[32];
		double want, tol;
		expectation(e, name, &want, &tol);
		size_t j = 0;
		while (j < sizeof(f) / sizeof(f[0]) && strcmp(f[j].name, name))
			j++;
		assert_true(j < sizeof(f) / sizeof(f[0]));
		double v = *(const double *)((const char *)&x + f[j].off);
		if (!(x.have & f[j].bit))
			fail_msg("%s: %s not read", k->source, name);
		if (fabs(v - want) > tol)
			fail_msg("%s: %s %.0f bytes, expected %s", k->source, name, v, e);
	}
	if (largest) {
		char shape[64], op[96], where[96], got_l[300];
		assert_int_equal(sscanf(largest, "%63s %95s %95s", shape, op, where), 3);
		assert_true(x.n_buf >= 1);
		snprintf(got_l, sizeof(got_l), "%s %s %s", x.buf[0].shape, x.buf[0].op,
			 *x.buf[0].where ? x.buf[0].where : "-");
		if (strcmp(got_l, largest))
			fail_msg("%s: largest buffer '%s', expected '%s'", k->source, got_l,
				 largest);
	}
}

static void real_xla_messages(void **state)
{
	(void)state;
	static const char *const all[] = {"held_elsewhere", "outputs", "parameters", "unknown"};
	struct tally t = {all, 4, {0}};
	assert_true(each_fixture_case(FIXTURES_DIR "/oom/xla-messages.txt", check_xla, &t) >= 5);
	all_seen(&t);
}

/* A container lists this process under its host pid; the others are what
 * is left of the GPU beside the smallest listed use that holds PyTorch's
 * reserve (the numbers of a message pasted without its source). */
static void container_listing(void **state)
{
	(void)state;
	static const char m[] =
	    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 90.00 MiB. GPU 0 has a "
	    "total capacity of 23.52 GiB of which 32.06 MiB is free. Process 323138 has 2.16 GiB "
	    "memory in use. Process 2514068 has 21.30 GiB memory in use. Of the allocated memory "
	    "1.52 GiB is allocated by PyTorch, and 85.39 MiB is reserved by PyTorch but "
	    "unallocated.";
	struct oom_numbers o;
	assert_int_equal(oom_parse(m, sizeof(m) - 1, &o), 1);
	assert_true(o.have & OOM_GUESSED);
	assert_true(fabs(o.process - 2.16 * 1073741824.0) < 1e6);
	assert_true(fabs(o.others - (23.52 - 2.16) * 1073741824.0 + 32.06 * 1048576.0) < 2e7);
	assert_string_equal(oom_verdict_id(oom_verdict(&o, NULL)), "other_processes");
	/* with the "this process" line, the listed are the others, none guessed */
	static const char m2[] =
	    "CUDA out of memory. Tried to allocate 19.36 GiB. GPU 0 has a total capacity of 47.40 "
	    "GiB of which 11.47 GiB is free. Including non-PyTorch memory, this process has 1.49 "
	    "GiB memory in use. Process 58488 has 11.00 GiB memory in use. Process 58482 has "
	    "12.66 GiB memory in use. Process 58486 has 10.76 GiB memory in use. Of the allocated "
	    "memory 1.02 GiB is allocated by PyTorch, and 164.03 MiB is reserved by PyTorch but "
	    "unallocated.";
	assert_int_equal(oom_parse(m2, sizeof(m2) - 1, &o), 1);
	assert_false(o.have & OOM_GUESSED);
	assert_true(fabs(o.others - 34.44 * 1073741824.0) < 0.02 * 1073741824.0);
	assert_string_equal(oom_verdict_id(oom_verdict(&o, NULL)), "other_processes");
}

static void not_numbers(void **state)
{
	(void)state;
	struct oom_numbers o;
	static const char *const t[] = {
	    "RuntimeError: CUDA error: out of memory",
	    "CUDA out of memory. Tried to allocate 2.00 GiB.",
	    "Tried to allocate lots (GPU 0; 6.00 GiB total capacity)",
	    "Tried to allocate 2.00 XiB (GPU 0; 6.00 GiB total capacity)",
	    "Tried to allocate 1",
	    "",
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(oom_parse(t[i], strlen(t[i]), &o), 0);
	/* the length bounds the text: nothing past it is read */
	static const char cut[] = "Tried to allocate 2.00 GiB (GPU 0; 6.00 GiB total capacity)";
	assert_int_equal(oom_parse(cut, 26, &o), 0);
}

/* explain says the figures and the verdict, text and JSON */
static void explain_prints(void **state)
{
	(void)state;
	static const char q[] =
	    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 "
	    "has a total capacty of 23.65 GiB of which 1.66 GiB is free. Including non-PyTorch "
	    "memory, this process has 20.81 GiB memory in use. Of the allocated memory 12.09 GiB "
	    "is allocated by PyTorch, and 4.84 GiB is reserved by PyTorch but unallocated.";
	struct explain_result r;
	char err[GS_ERR_LEN];
	assert_int_equal(explain_match(q, strlen(q), &r, err), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	explain_print_text(f, &r, q);
	explain_print_json(f, &r, q);
	fclose(f);
	assert_non_null(strstr(buf, "GPU 0 (23.65 GiB)"));
	assert_non_null(strstr(buf, "4.84 GiB"));
	assert_non_null(strstr(buf, "expandable_segments:True"));
	assert_non_null(strstr(buf, "\"verdict\": \"fragmented\""));
	assert_non_null(strstr(buf, "\"request_bytes\": 3221225472"));
	/* the figures come before the catalogue's entry */
	assert_true(strstr(buf, "4.84 GiB") < strstr(buf, "cuda_oom"));
	free(buf);
	/* a PyTorch before 2.1 (its message's shape) has no expandable segments */
	static const char q2[] =
	    "RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU "
	    "0; 15.90 GiB total capacity; 13.13 GiB already allocated; 415.88 "
	    "MiB free; 14.80 GiB reserved in total by PyTorch)";
	assert_int_equal(explain_match(q2, strlen(q2), &r, err), 0);
	f = open_memstream(&buf, &len);
	explain_print_text(f, &r, q2);
	fclose(f);
	assert_non_null(strstr(buf, "max_split_size_mb"));
	assert_non_null(strstr(buf, "1.67 GiB"));
	free(buf);
	/* JAX's message goes to xla_oom, with XLA's figures */
	static const char q3[] =
	    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
	    "to allocate 6291456 bytes.\nBufferAssignment OOM Debugging.\nBufferAssignment "
	    "stats:\n  parameter allocation:    6.00MiB\n  maybe_live_out allocation:    "
	    "6.00MiB\n  preallocated temp allocation:         0B\n  total allocation:   "
	    "12.00MiB\nPeak buffers:\n  Buffer 1:\n    Size: 6.00MiB\n    Operator: "
	    "op_name=\"jit(f)/jit(main)/enc/layer_3/jit(_einsum)/dot_general[x=1]\" "
	    "source_file=\"/a/b/model.py\" source_line=12\n    Shape: f32[4096,128,3]\n";
	assert_int_equal(explain_match(q3, strlen(q3), &r, err), 0);
	assert_string_equal(r.m[0].entry->id, "xla_oom");
	f = open_memstream(&buf, &len);
	explain_print_text(f, &r, q3);
	explain_print_json(f, &r, q3);
	fclose(f);
	assert_non_null(strstr(buf, "layer_3/dot_general (model.py:12)"));
	assert_non_null(strstr(buf, "\"verdict\": \"held_elsewhere\""));
	assert_non_null(strstr(buf, "\"program_bytes\": 12582912"));
	assert_null(strstr(buf, "PYTORCH_CUDA_ALLOC_CONF"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(real_messages),	 cmocka_unit_test(real_xla_messages),
	    cmocka_unit_test(container_listing), cmocka_unit_test(not_numbers),
	    cmocka_unit_test(explain_prints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
