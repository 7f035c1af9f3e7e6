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

#include "util/vec.h"
#include "diagnose/rules_int.h"
#include "diagnose/thresholds.h"
#include "diagnose/verdict.h"
#include "report/report.h"
#include "trace/cuda_errors.h"
#include "trace/spool.h"
#include "util/error.h"

static struct rm_line *add(struct analysis *a, size_t *cap, const char *id, const char *tmpl)
{
	struct rm_line *l = VEC_PUSH(a->warnings, a->n_warnings, *cap);
	if (!l)
		return NULL;
	l->id = id;
	l->tmpl = tmpl;
	return l;
}

static void arg(struct rm_line *l, const char *key, struct rm_cell c)
{
	if (l->n_args == RM_LINE_ARGS)
		return; /* a template with more values than a line holds: a bug */
	l->args[l->n_args].key = key;
	l->args[l->n_args++].c = c;
}

/* CUDA calls that failed (a broken context: what follows is not the
 * program's normal run) and the pinned-memory race that can cause them
 * (trace/cuda_errors.c); over the whole recording, not just the window */
static int cuda_failure_warnings(struct analysis *a, size_t *cap)
{
	const struct trace *t = a->whole ? a->whole : a->t;
	const struct cuda_failures *f = &a->fail; /* the failures pass (analysis.c) */
	struct rm_line *l;
	if (f->failed) {
		l = add(
		    a, cap, "cuda_failures",
		    RM_T("{calls} CUDA calls failed; the first, {call} {at} into the recording, "
			 "returned {result}: the context is broken from there on and what "
			 "follows is not the program's normal run (gpuscope explain {result})"));
		if (!l)
			return -1;
		arg(l, "calls", rm_cell_int(RM_COUNT, (int64_t)f->failed));
		arg(l, "call", rm_cell_str(RM_TEXT, trace_str(t, f->first->name_id)));
		arg(l, "at", rm_cell_int(RM_DURATION, f->first->start_ns - f->start_ns));
		arg(l, "result",
		    rm_cell_str(RM_TEXT, cuda_failure_name(f->first->domain, f->first->ret)));
	}
	if (f->races) {
		l = add(
		    a, cap, "host_free_race",
		    RM_T("{memsets} memsets into pinned host memory were still running when "
			 "their process freed pinned host memory (the first: {call} {at} into "
			 "the recording, {early} before the memset ended): if it was the same "
			 "buffer, the device wrote to freed memory, and CUDA_ERROR_LAUNCH_FAILED "
			 "follows. XLA's GEMM autotuner does this (openxla/xla issue 46093): a "
			 "newer jaxlib has the fix; XLA_FLAGS=--xla_gpu_autotune_level=3 "
			 "autotunes without the redzone checks that make the memset"));
		if (!l)
			return -1;
		arg(l, "memsets", rm_cell_int(RM_COUNT, (int64_t)f->races));
		arg(l, "call", rm_cell_str(RM_TEXT, trace_str(t, f->race_free_name_id)));
		arg(l, "at", rm_cell_int(RM_DURATION, f->race_free_ns - f->start_ns));
		arg(l, "early", rm_cell_int(RM_DURATION, f->race_memset_end_ns - f->race_free_ns));
	}
	return 0;
}

/* #36 item 3: the program allocated managed memory, and the recording has
 * no unified-memory counters (the driver refused them, or GPUSCOPE_KINDS
 * left them out: record's note, meta uvm_counters): unified_memory cannot
 * fire, and a reader must not take its absence for a clean bill */
static int uvm_warning(struct analysis *a, size_t *cap)
{
	const char *note;
	int64_t managed = an_managed_unrecorded(a, &note);
	if (!managed)
		return 0;
	struct rm_line *l = add(
	    a, cap, "uvm_not_recorded",
	    RM_T("the program allocated {managed} MiB of managed memory, but this recording has no "
		 "unified-memory counters ({why}): its page faults and migrations cannot be "
		 "seen"));
	if (!l)
		return -1;
	arg(l, "managed", rm_cell_num(RM_NUMBER, (double)managed / (1024.0 * 1024.0), 1));
	arg(l, "why", rm_cell_str(RM_TEXT, note));
	return 0;
}

/* Launches that each waited for their kernel (thresholds.h
 * TH_BLOCKING_*): CUDA_LAUNCH_BLOCKING=1 left set after debugging, named
 * when the recorder saw it (SPOOL_NOTE_LAUNCH_BLOCKING). Not with per-kernel
 * counters: their replay serialises every profiled launch itself. */
static int blocking_warning(struct analysis *a, size_t *cap)
{
	const struct an_launch *l = &a->launch;
	if (a->kc.rows || l->long_launches < TH_BLOCKING_MIN_LAUNCHES ||
	    (double)l->long_waited < TH_BLOCKING_SHARE * (double)l->long_launches)
		return 0;
	const struct trace *t = a->whole ? a->whole : a->t;
	const char *v = trace_get_meta(t, SPOOL_NOTE_LAUNCH_BLOCKING);
	struct rm_line *l2;
	if (v && *v) {
		l2 = add(
		    a, cap, "blocking_launches",
		    RM_T("{waited} of {long} kernel launches of {min} or more returned only after "
			 "their kernel had ended: CUDA_LAUNCH_BLOCKING={value} was set in the "
			 "program's environment, so the host never runs ahead of the GPU. It is "
			 "a debugging switch: unset it for training and timing"));
		if (!l2)
			return -1;
		arg(l2, "value", rm_cell_str(RM_TEXT, v));
	} else {
		l2 = add(
		    a, cap, "blocking_launches",
		    RM_T("{waited} of {long} kernel launches of {min} or more returned only after "
			 "their kernel had ended: launches are synchronous, so the host never runs "
			 "ahead of the GPU. CUDA_LAUNCH_BLOCKING=1 does this (a debugging switch: "
			 "unset it), or a tool that serialises launches"));
		if (!l2)
			return -1;
	}
	arg(l2, "waited", rm_cell_int(RM_COUNT, (int64_t)l->long_waited));
	arg(l2, "long", rm_cell_int(RM_COUNT, (int64_t)l->long_launches));
	arg(l2, "min", rm_cell_int(RM_DURATION, TH_BLOCKING_KERNEL_NS));
	return 0;
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
	 * (measured on the H200: 2.6x on a transformer step, 7.9x on tiny ops;
	 * tests/fixtures/real: +25 us per launch on hf_llama_train). With a
	 * host-side primary the verdict was estimated without it (unprofiled.c) */
	const struct an_unprof *u = &a->unprof;
	if ((trace_source_caps(a->t->source) & TRACE_CAP_PROFILER_COST) && u->ran) {
		const char *tmpl =
		    u->changed
			? (a->prog.rocm
			       ? RM_T(
				     "the profiler's own cost decides this profile's verdict: "
				     "without ~{per} for each of the {events} records it took, the "
				     "GPU would be busy {busy} of the run ({traced} as traced), "
				     "and "
				     "the verdict is that estimate's; rocprofv3 --kernel-trace "
				     "measures the kernels without it")
			       : RM_T(
				     "torch.profiler's own cost decides this profile's verdict: "
				     "without ~{per} for each of the {events} records it took, the "
				     "GPU would be busy {busy} of the run ({traced} as traced), "
				     "and "
				     "the verdict is that estimate's; gpuscope record measures the "
				     "program without the profiler"))
		    : a->prog.rocm
			? RM_T("the profiler adds host time to every op it records: without ~{per} "
			       "for each of the {events} records it took, the GPU would be busy "
			       "{busy} of the run ({traced} as traced), and the host-side verdict "
			       "holds; rocprofv3 --kernel-trace measures the kernels without it")
			: RM_T("torch.profiler adds host time to every op it records: without "
			       "~{per} "
			       "for each of the {events} records it took, the GPU would be busy "
			       "{busy} of the run ({traced} as traced), and the host-side verdict "
			       "holds; gpuscope record measures the program without the profiler");
		if (!(l = add(a, &cap, u->changed ? "profiler_estimate" : "profiler_overhead",
			      tmpl)))
			goto oom;
		arg(l, "per", rm_cell_int(RM_DURATION, u->per_event_ns));
		arg(l, "events", rm_cell_int(RM_COUNT, (int64_t)u->events));
		arg(l, "busy", rm_cell_num(RM_PERCENT, u->busy_pct, 1));
		arg(l, "traced", rm_cell_num(RM_PERCENT, u->traced_busy_pct, 1));
	} else if ((trace_source_caps(a->t->source) & TRACE_CAP_PROFILER_COST) && a->primary &&
		   (!strcmp(a->primary->id, "launch_overhead") ||
		    !strcmp(a->primary->id, "host_overhead")) &&
		   !add(
		       a, &cap, "profiler_overhead",
		       a->prog.rocm
			   ? RM_T(
				 "torch.profiler adds host time to every op it records (on the "
				 "H200 2.6x on a transformer step): a host-bound profile can be a "
				 "GPU-bound program; rocprofv3 --kernel-trace measures the kernels "
				 "without it")
			   : RM_T("torch.profiler adds host time to every op it records (on the "
				  "H200 2.6x on a transformer step): a host-bound profile can be a "
				  "GPU-bound program; gpuscope record measures it without the "
				  "profiler")))
		goto oom;
	/* #36 item 2: a steady state that is a small part of a run that
	 * compiled again and again is said, never silently analysed (a short
	 * loop after a long warm-up is the common case, not worth a warning) */
	/* (a read of every kernel, copy and memset: only when it can apply) */
	int64_t run_ns =
	    a->whole && finding_find(&a->findings, "recompilation") ? an_gpu_run_ns(a) : 0;
	if (run_ns > 0 && (double)a->span_ns < TH_WINDOW_MIN_SHARE * (double)run_ns) {
		l = add(a, &cap, "short_window",
			RM_T("the analysed steady state ({span}) is {share} of the run's GPU work "
			     "({run}), and the rest compiled the same kernels again: the verdict "
			     "covers that window only; report --whole analyses all of it"));
		if (!l)
			goto oom;
		arg(l, "span", rm_cell_int(RM_DURATION, a->span_ns));
		arg(l, "share",
		    rm_cell_num(RM_PERCENT, 100.0 * (double)a->span_ns / (double)run_ns, 1));
		arg(l, "run", rm_cell_int(RM_DURATION, run_ns));
	}
	if (cuda_failure_warnings(a, &cap) < 0)
		goto oom;
	if (uvm_warning(a, &cap) < 0)
		goto oom;
	if (blocking_warning(a, &cap) < 0)
		goto oom;
	/* no GPU work is the verdict's to say, not a warning (#16 item 11) */
	return 0;
oom:
	return error_set(err, "out of memory");
}
