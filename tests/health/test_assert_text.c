/*
 * test_assert_text.c - failed device-side assertions in pasted text
 * (src/health/assert_text.h): every real paste of
 * tests/fixtures/asserts/device-asserts.txt reads its assertion, source
 * location, function, PyTorch check, failing threads and blocks; an
 * unknown assertion reads with no check; explain says what the check
 * means above the device_assert entry; junk reads as nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/assert_text.h"
#include "health/explain.h"
#include "util/error.h"

#include "fixture_cases.h"

static void check(const struct fixture_case *k, void *ctx)
{
	struct assert_text a;
	(void)ctx;
	if (!assert_text_parse(k->msg, k->len, &a))
		fail_msg("%s: not read", k->source);
	assert_int_equal(a.n, 1);
	const struct assert_kind *x = &a.k[0];
	const struct assert_check *c = assert_check_of(x->known);
	const char *func = case_need(k, "func"), *op = case_need(k, "op");
	if (strcmp(x->expr, case_need(k, "assertion")) || strcmp(x->where, case_need(k, "where")) ||
	    strcmp(*x->func ? x->func : "-", func) || strcmp(c ? c->op : "-", op) ||
	    x->threads != atoi(case_need(k, "threads")) ||
	    x->blocks != atoi(case_need(k, "blocks")))
		fail_msg("%s: read as '%s' at '%s' in '%s', %s, %d threads, %d blocks", k->source,
			 x->expr, x->where, x->func, c ? c->op : "-", x->threads, x->blocks);
}

static void real_pastes(void **state)
{
	(void)state;
	assert_true(each_fixture_case(FIXTURES_DIR "/asserts/device-asserts.txt", check, NULL) >=
		    5);
}

static void unknown_and_junk(void **state)
{
	(void)state;
	struct assert_text a;
	static const char m[] =
	    "kernel.cu:12: void k(float*): block: [0,0,0], thread: [1,0,0] Assertion `x < n` "
	    "failed.\nkernel.cu:12: void k(float*): block: [2,0,0], thread: [1,0,0] Assertion `x "
	    "< n` failed.\nRuntimeError: CUDA error: device-side assert triggered\n";
	assert_int_equal(assert_text_parse(m, sizeof(m) - 1, &a), 1);
	assert_int_equal(a.k[0].known, -1);
	assert_int_equal(a.k[0].threads, 2);
	assert_int_equal(a.k[0].blocks, 2);
	assert_string_equal(a.k[0].where, "kernel.cu:12");
	static const char *const junk[] = {"Assertion `x < n", "Assertion `` failed",
					   "Assertion `a\nb` failed", ""};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		assert_int_equal(assert_text_parse(junk[i], strlen(junk[i]), &a), 0);
}

static void explain_prints(void **state)
{
	(void)state;
	static const char q[] =
	    "/opt/conda/conda-bld/pytorch/work/aten/src/ATen/native/cuda/Loss.cu:242: "
	    "nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t "
	    ">= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: device-side assert "
	    "triggered\n";
	struct explain_result r;
	char err[GS_ERR_LEN], *buf = NULL;
	size_t len = 0;
	assert_int_equal(explain_match(q, strlen(q), &r, err), 0);
	assert_string_equal(r.m[0].entry->id, "device_assert");
	FILE *f = open_memstream(&buf, &len);
	explain_print_text(f, &r, q);
	explain_print_json(f, &r, q);
	fclose(f);
	assert_non_null(strstr(buf, "nll_loss_forward_reduce_cuda_kernel_2d (Loss.cu:242)"));
	assert_non_null(strstr(buf, "PyTorch's ignore_index is -100"));
	assert_non_null(strstr(buf, "\"op\": \"cross_entropy / nll_loss\""));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(real_pastes),
	    cmocka_unit_test(unknown_and_junk),
	    cmocka_unit_test(explain_prints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
