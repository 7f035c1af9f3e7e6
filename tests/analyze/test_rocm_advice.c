/*
 * test_rocm_advice.c - adv_rocm_terms (advice.h, issue 40): on a ROCm
 * program every finding's actions speak ROCm (HIP graphs and calls,
 * rocBLAS/MIOpen, amd-smi), an ncu or gpuscope record action becomes ROCm's
 * tool, PyTorch's torch.cuda.* API names stay, and nothing changes when the
 * program is not ROCm's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "diagnose/advice.h"
#include "analyze/analysis.h"

static struct analysis *with_actions(int rocm)
{
	struct analysis *a = calloc(1, sizeof(*a));
	assert_non_null(a);
	finding_list_init(&a->findings);
	a->prog.rocm = rocm;
	struct finding *f = finding_add(&a->findings, "launch_overhead", SEV_WARNING,
					"GPU idle inside other CUDA calls");
	assert_non_null(f);
	finding_action(f, "capture the step in a CUDA graph (torch.cuda.graphs, or "
			  "cudaStreamBeginCapture / cudaGraphLaunch)");
	finding_action(f, "the time is in library kernels (cuBLAS/cuDNN/flash); fuse the epilogue "
			  "(cuBLASLt)");
	finding_action(f, "profile the top kernel with ncu (WarpState, MemoryWorkloadAnalysis)");
	finding_action(f, "record with host sampling (gpuscope record samples host stacks)");
	finding_action(f, "set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; check nvidia-smi; "
			  "torch.backends.cudnn.benchmark=True");
	finding_action(f, "warm up every shape first, CUDA_MODULE_LOADING=EAGER, and keep caches");
	return a;
}

static void rocm_terms(void **state)
{
	struct analysis *a = with_actions(1);
	adv_rocm_terms(a);
	const struct finding *f = &a->findings.v[0];
	assert_string_equal(f->title, "GPU idle inside other HIP calls");
	assert_string_equal(f->actions[0], "capture the step in a HIP graph (torch.cuda.graphs, or "
					   "hipStreamBeginCapture / hipGraphLaunch)");
	assert_string_equal(f->actions[1], "the time is in library kernels (rocBLAS/MIOpen/flash); "
					   "fuse the epilogue (hipBLASLt)");
	assert_non_null(strstr(f->actions[2], "rocprofiler-compute"));
	assert_null(strstr(f->actions[2], "ncu"));
	assert_non_null(strstr(f->actions[3], "torch.profiler(with_stack=True)"));
	/* the env var and the tool change; PyTorch's cudnn flag is its API on ROCm too */
	assert_string_equal(f->actions[4], "set PYTORCH_HIP_ALLOC_CONF=expandable_segments:True; "
					   "check amd-smi; torch.backends.cudnn.benchmark=True");
	assert_string_equal(f->actions[5], "warm up every shape first, and keep caches");
	finding_list_release(&a->findings);
	free(a);
	(void)state;
}

static void not_rocm_untouched(void **state)
{
	struct analysis *a = with_actions(0), *b = with_actions(0);
	adv_rocm_terms(a);
	for (int k = 0; k < b->findings.v[0].n_actions; k++)
		assert_string_equal(a->findings.v[0].actions[k], b->findings.v[0].actions[k]);
	finding_list_release(&a->findings);
	finding_list_release(&b->findings);
	free(a);
	free(b);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(rocm_terms),
					   cmocka_unit_test(not_rocm_untouched)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
