/*
 * api_order.h - which driver calls only order work between streams or patch
 * an instantiated CUDA graph: GPUSCOPE_API=lean, the default, gives them no
 * activity record (api_select.c enable_api). They enqueue no GPU work of
 * their own and never wait, and XLA makes them by the dozen each step
 * (flax_small on the H100: 27 cuEventRecord, 22 cuStreamWaitEvent, 9
 * cuGraphExecKernelNodeSetParams a step of ~0.8 ms), so each recorded one is
 * a cost on a host-bound step. What report then lacks: their rows in "other
 * CUDA calls" and their time, counted as host dispatch or host work instead
 * (docs/record.md). The runtime's cudaEventRecord and cudaStreamWaitEvent,
 * which a PyTorch program calls itself, keep their records;
 * GPUSCOPE_API=calls records these too (the default before 2026-12-06).
 * Matched on CUPTI's names of the calls (cuptiGetCallbackName), so that
 * versioned and per-thread-stream variants are covered. Header only, no
 * CUPTI: tests/record/test_api_order.c includes it.
 */
#ifndef GPUSCOPE_INJECT_API_ORDER_H
#define GPUSCOPE_INJECT_API_ORDER_H

#include <string.h>

/* 1 for cuEventRecord*, cuStreamWaitEvent* and cuGraphExec*NodeSet*
 * (cuGraphExecKernelNodeSetParams_v2, cuGraphExecEventRecordNodeSetEvent,
 * cuGraphExecNodeSetParams, ...); 0 for every runtime call (cuda*) and for
 * the rest of the driver's (cuGraphExecUpdate, cuEventSynchronize,
 * cuStreamWaitValue32, ...) */
static inline int gs_api_driver_ordering(const char *name)
{
	if (!name || strncmp(name, "cuda", 4) == 0)
		return 0;
	return strncmp(name, "cuEventRecord", 13) == 0 ||
	       strncmp(name, "cuStreamWaitEvent", 17) == 0 ||
	       (strncmp(name, "cuGraphExec", 11) == 0 && strstr(name + 11, "NodeSet") != NULL);
}

#endif
