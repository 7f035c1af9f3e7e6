/*
 * warnings.c - what a reader must not miss about the data behind a report,
 * decided here so every renderer says the same: records CUPTI dropped,
 * gpuscope's own overhead when it is large enough to matter, processes
 * that were not traced (or not whole). (A trace with no GPU work is said by
 * the verdict: nowork.c.) Each
 * warning is a line of the report model (analyze/report.h) with a stable id.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/thresholds.h"
#include "util/error.h"

static struct rm_line *add(struct analysis *a, size_t *cap, const char *id, const char *tmpl)
{
	if (a->n_warnings == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct rm_line *v = realloc(a->warnings, nc * sizeof(*v));
		if (!v)
			return NULL;
		a->warnings = v;
		*cap = nc;
	}
	struct rm_line *l = &a->warnings[a->n_warnings++];
	memset(l, 0, sizeof(*l));
	l->id = id;
	l->tmpl = tmpl;
	return l;
}

static void arg(struct rm_line *l, const char *key, struct rm_cell c)
{
	l->args[l->n_args].key = key;
	l->args[l->n_args++].c = c;
}

int an_warnings(struct analysis *a, char *err)
{
	size_t cap = 0;
	struct rm_line *l;
	if (a->dropped_records) {
		l = add(a, &cap, "dropped_records",
			RM_T("{records} CUPTI records were dropped: the timeline is incomplete and "
			     "GPU busy time is underestimated"));
		if (!l)
			goto oom;
		arg(l, "records", rm_cell_int(RM_COUNT, (int64_t)a->dropped_records));
	}
	/* overhead_ns covers whole processes (startup and exit flush too): it is
	 * weighed against their lifetimes, or the span when those are unknown;
	 * it is measured in CUPTI's completion thread, the flush thread and the
	 * exit flush (inject/flush.c); in the program's calls only the buffer
	 * requests, a pop from a pool */
	double run = a->process_ns > 0 ? (double)a->process_ns : (double)a->span_ns;
	if (a->overhead_ns > 0 && run > 0 &&
	    (double)a->overhead_ns > TH_OVERHEAD_WARN_SHARE * run) {
		l = add(a, &cap, "overhead",
			RM_T("gpuscope spent {overhead} on CUPTI buffers ({share} of the run), off "
			     "the program's CUDA calls"));
		if (!l)
			goto oom;
		arg(l, "overhead", rm_cell_int(RM_DURATION, a->overhead_ns));
		arg(l, "share", rm_cell_num(RM_PERCENT, 100.0 * (double)a->overhead_ns / run, 1));
	}
	for (size_t i = 0; i < a->n_processes; i++) {
		const char *st = trace_str(a->t, a->processes[i].status_id);
		if (!*st)
			continue;
		if (!(l = add(a, &cap, "process_status", RM_T("process {pid}: {status}"))))
			goto oom;
		arg(l, "pid", rm_cell_int(RM_COUNT, a->processes[i].pid));
		arg(l, "status", rm_cell_str(RM_TEXT, st));
	}
	/* torch.profiler's own cost lands on the host side of every op: a
	 * per-op host-bound verdict from its trace may not hold without it
	 * (PRODUCT.md: 2.6x on a transformer step, 7.9x on tiny ops on the
	 * H200; tests/fixtures/real: +25 us per launch on hf_llama_train) */
	if (a->source && !strcmp(a->source, "pytorch") && a->primary &&
	    (!strcmp(a->primary->id, "launch_overhead") ||
	     !strcmp(a->primary->id, "host_overhead")) &&
	    !add(
		a, &cap, "profiler_overhead",
		a->prog.rocm
		    ? RM_T("torch.profiler adds host time to every op it records (on the H200 2.6x "
			   "on a transformer step): a host-bound profile can be a GPU-bound "
			   "program; "
			   "rocprofv3 --kernel-trace measures the kernels without it")
		    : RM_T("torch.profiler adds host time to every op it records (on the H200 2.6x "
			   "on a transformer step): a host-bound profile can be a GPU-bound "
			   "program; gpuscope record measures it without the profiler")))
		goto oom;
	/* no GPU work is the verdict's to say, not a warning (#16 item 11) */
	return 0;
oom:
	return error_set(err, "out of memory");
}
