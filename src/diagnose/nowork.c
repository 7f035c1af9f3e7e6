/*
 * nowork.c - traces with nothing (or too little) to diagnose (nowork.h).
 *
 * Another accelerator is told by the event categories the PyTorch importer
 * did not know (meta import.unknown, kineto_post.c): Kineto names MTIA's
 * "mtia_runtime", "mtia_ccp_events"; a profile with CPU ops and no GPU
 * events at all is a CPU-only profile (torch.profiler without
 * ProfilerActivity.CUDA, or a machine without a GPU).
 */
#include <string.h>

#include "analyze/analysis.h"
#include "diagnose/nowork.h"
#include "diagnose/thresholds.h"

void an_nowork(struct analysis *a)
{
	const struct trace *w = a->whole ? a->whole : a->t;
	a->nowork = NW_NONE;
	a->nowork_accel = "";
	if (w->n_kernels + w->n_copies + w->n_memsets == 0) {
		const char *u = trace_get_meta(w, "import.unknown");
		int ops = 0;
		for (size_t i = 0; i < w->n_ranges && !ops; i++)
			ops = trace_range_row(w, i)->kind == RANGE_CPU_OP;
		if (u && (strstr(u, "mtia") || strstr(u, "MTIA"))) {
			a->nowork = NW_OTHER_ACCEL;
			a->nowork_accel = "MTIA";
		} else if ((trace_source_caps(w->source) & TRACE_CAP_CPU_OPS) && ops &&
			   !w->n_apis) {
			a->nowork = NW_CPU_ONLY;
		} else {
			a->nowork = NW_NO_GPU_WORK;
		}
		return;
	}
	if (a->busy_ns < TH_MIN_GPU_WORK_NS)
		a->nowork = NW_TOO_LITTLE;
}
