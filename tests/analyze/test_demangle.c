/*
 * test_demangle.c - kernel names are shown demangled when libstdc++ is there
 * (it is wherever gcc is), and left alone when they are not C++ names.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/demangle.h"

static void test_demangle(void **state)
{
	char buf[256];
	/* not mangled: the same pointer comes back */
	const char *plain = "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT";
	assert_ptr_equal(gs_demangle(plain, buf, sizeof(buf)), plain);
	const char *bad = "_Znot-a-name";
	assert_ptr_equal(gs_demangle(bad, buf, sizeof(buf)), bad);
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		h = dlopen("libstdc++.so.6", RTLD_LAZY);
	if (!h) {
		/* no demangler on this machine: the names stay as recorded */
		assert_string_equal(gs_demangle("_Z8tiny_addPf", buf, sizeof(buf)),
				    "_Z8tiny_addPf");
		return;
	}
	assert_string_equal(gs_demangle("_Z8tiny_addPf", buf, sizeof(buf)), "tiny_add(float*)");
	assert_string_equal(gs_demangle("_Z10fma_chainsILi16EEvPfiff", buf, sizeof(buf)),
			    "void fma_chains<16>(float*, int, float, float)");
	/* a small buffer truncates, never overflows */
	char small[8];
	assert_string_equal(gs_demangle("_Z8tiny_addPf", small, sizeof(small)), "tiny_ad");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_demangle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
