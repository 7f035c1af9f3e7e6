/*
 * test_demangle.c - kernel names are shown demangled when libstdc++ is there
 * (it is wherever gcc is), and left alone when they are not C++ names.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* Names as __cxa_demangle writes PyTorch's kernels (H200 transformer_step). */
static void test_short_names(void **state)
{
	char b[512];
	const char *ln =
	    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, "
	    "float, false>(int, float, float const*, float*)";
	/* the anonymous namespace is not a parameter list (it emptied the name) */
	assert_string_equal(gs_base_name(ln, b, sizeof(b)), "vectorized_layer_norm_kernel<>");
	assert_string_equal(gs_one_line_name(ln, b, sizeof(b), 80),
			    "vectorized_layer_norm_kernel<float, float, false>");
	const char *cp = "void at::native::vectorized_elementwise_kernel<8, "
			 "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda("
			 "float)#1}, std::array<char*, 2ul> >(int, "
			 "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda("
			 "float)#1}, std::array<char*, 2ul>)";
	assert_string_equal(gs_base_name(cp, b, sizeof(b)), "vectorized_elementwise_kernel<>");
	/* the enclosing function's parameters inside the template go */
	assert_string_equal(
	    gs_one_line_name(cp, b, sizeof(b), 200),
	    "vectorized_elementwise_kernel<8, bfloat16_copy_kernel_cuda()::{lambda()#1}, "
	    "std::array<char*, 2ul> >");
	/* cut to exactly w columns with "...", never past the buffer */
	assert_string_equal(gs_one_line_name(cp, b, sizeof(b), 40),
			    "vectorized_elementwise_kernel<8, bflo...");
	assert_int_equal(strlen(gs_one_line_name(cp, b, 16, 80)), 15);
	/* plain names pass through */
	assert_string_equal(gs_base_name("nvjet_sm90_tst_NNT", b, sizeof(b)), "nvjet_sm90_tst_NNT");
	assert_string_equal(gs_one_line_name("tiny_add(float*)", b, sizeof(b), 80), "tiny_add");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_demangle),
	    cmocka_unit_test(test_short_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
