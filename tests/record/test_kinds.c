/*
 * test_kinds.c - which activity kinds GPUSCOPE_KINDS selects
 * (inject/kinds.h): the defaults when unset, exactly the listed names
 * otherwise (no prefix or substring matches), and kernels recorded whenever
 * copies are (CUPTI's memcpy kinds without its kernel kind broke a JAX
 * program on the H100: kinds.h says how), without turning on anything else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "inject/kinds.h"

static void defaults(void **st)
{
	(void)st;
	assert_int_equal(gs_kind_wanted(NULL, "kernel", 1), 1);
	assert_int_equal(gs_kind_wanted(NULL, "memcpy", 1), 1);
	assert_int_equal(gs_kind_wanted(NULL, "sync", 0), 0);
	assert_int_equal(gs_kinds_kernel_forced(NULL), 0);
	/* CUPTI's graph-level records (api_select.c "graph"): off unless named */
	assert_int_equal(gs_kind_wanted(NULL, "graph", 0), 0);
	assert_int_equal(gs_kind_wanted("device,context,runtime,driver,graph", "graph", 0), 1);
	assert_int_equal(gs_kind_wanted("device,context,runtime,driver,graph", "kernel", 1), 0);
}

static void exact_names(void **st)
{
	(void)st;
	const char *l = "device,context,memset";
	assert_int_equal(gs_kind_wanted(l, "memset", 1), 1);
	assert_int_equal(gs_kind_wanted(l, "device", 1), 1);
	assert_int_equal(gs_kind_wanted(l, "memory", 1), 0);
	assert_int_equal(gs_kind_wanted(l, "kernel", 1), 0);
	/* a name that is a prefix or a part of a listed one is not listed */
	assert_int_equal(gs_kind_wanted("memsets,contexts", "memset", 1), 0);
	assert_int_equal(gs_kind_wanted("xmemcpy", "memcpy", 1), 0);
	assert_int_equal(gs_kind_wanted("sync", "sync", 0), 1);
}

static void kernels_with_copies(void **st)
{
	(void)st;
	static const char *const forced[] = {"memcpy", "device,context,memcpy",
					     "device,context,memcpy,memset",
					     "device,context,memcpy,runtime,driver"};
	for (size_t i = 0; i < sizeof(forced) / sizeof(forced[0]); i++) {
		assert_int_equal(gs_kinds_kernel_forced(forced[i]), 1);
		assert_int_equal(gs_kind_wanted(forced[i], "kernel", 1), 1);
		/* and nothing else comes with them */
		assert_int_equal(gs_kind_wanted(forced[i], "marker", 1), 0);
		assert_int_equal(gs_kind_wanted(forced[i], "memory", 1), 0);
	}
	assert_int_equal(gs_kinds_kernel_forced("device,context,memcpy,kernel"), 0);
	assert_int_equal(gs_kinds_kernel_forced("device,context,memset"), 0);
	assert_int_equal(gs_kind_wanted("device,context,memset", "kernel", 1), 0);
	assert_int_equal(gs_kinds_kernel_forced("none"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults),
	    cmocka_unit_test(exact_names),
	    cmocka_unit_test(kernels_with_copies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
