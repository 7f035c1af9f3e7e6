/*
 * test_api_order.c - gs_api_driver_ordering (inject/api_order.h), the calls
 * record's default API selection (GPUSCOPE_API=lean) leaves without records,
 * on CUPTI 13.0's own names of the calls: every variant of the three
 * families must be left out (a missed one costs XLA's steps a record each),
 * and nothing else may be (a call wrongly left out is missing from report:
 * the runtime's calls a PyTorch program makes itself, graph launches and
 * updates, event waits and queries, the non-exec graph edits).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "inject/api_order.h"

static void left_out(void **st)
{
	(void)st;
	static const char *const names[] = {
	    "cuEventRecord",
	    "cuEventRecord_ptsz",
	    "cuEventRecordWithFlags",
	    "cuEventRecordWithFlags_ptsz",
	    "cuStreamWaitEvent",
	    "cuStreamWaitEvent_ptsz",
	    "cuGraphExecKernelNodeSetParams",
	    "cuGraphExecKernelNodeSetParams_v2",
	    "cuGraphExecMemcpyNodeSetParams",
	    "cuGraphExecMemsetNodeSetParams",
	    "cuGraphExecHostNodeSetParams",
	    "cuGraphExecChildGraphNodeSetParams",
	    "cuGraphExecEventRecordNodeSetEvent",
	    "cuGraphExecEventWaitNodeSetEvent",
	    "cuGraphExecExternalSemaphoresSignalNodeSetParams",
	    "cuGraphExecExternalSemaphoresWaitNodeSetParams",
	    "cuGraphExecBatchMemOpNodeSetParams",
	    "cuGraphExecNodeSetParams",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!gs_api_driver_ordering(names[i]))
			fail_msg("%s should get no record", names[i]);
	}
}

static void kept(void **st)
{
	(void)st;
	static const char *const names[] = {
	    /* the runtime's, which PyTorch calls itself */
	    "cudaEventRecord_v3020",
	    "cudaEventRecord_ptsz_v7000",
	    "cudaEventRecordWithFlags_v11010",
	    "cudaStreamWaitEvent_v3020",
	    "cudaStreamWaitEvent_ptsz_v7000",
	    "cudaGraphExecKernelNodeSetParams_v10010",
	    /* the driver's that launch, wait, update, create or edit */
	    "cuGraphLaunch",
	    "cuGraphLaunch_ptsz",
	    "cuGraphExecUpdate",
	    "cuGraphExecUpdate_v2",
	    "cuGraphExecDestroy",
	    "cuGraphInstantiate",
	    "cuGraphKernelNodeSetParams",
	    "cuGraphKernelNodeSetParams_v2",
	    "cuGraphNodeSetParams",
	    "cuGraphNodeSetEnabled",
	    "cuGraphAddEventRecordNode",
	    "cuGraphEventRecordNodeSetEvent",
	    "cuEventSynchronize",
	    "cuEventQuery",
	    "cuEventCreate",
	    "cuEventDestroy_v2",
	    "cuEventElapsedTime",
	    "cuStreamWaitValue32",
	    "cuStreamWaitValue64_v2",
	    "cuStreamSynchronize",
	    "cuStreamQuery",
	    "cuLaunchKernel",
	    "cuLaunchKernelEx",
	    "cuLaunchHostFunc",
	    "cuMemcpyDtoHAsync_v2",
	    "cuMemsetD32Async",
	    "cuEvent",
	    "cuStreamWait",
	    "cuGraphExec",
	    "",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (gs_api_driver_ordering(names[i]))
			fail_msg("%s should keep its record", names[i]);
	}
	assert_int_equal(gs_api_driver_ordering(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(left_out),
	    cmocka_unit_test(kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
