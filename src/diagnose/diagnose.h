/*
 * diagnose.h - running an analysis: the engine's passes (analyze/), then
 * the diagnosis (the rules' findings and the warnings), per device and for
 * the run (diagnose.c). What report, diff, export and the tests call.
 */
#ifndef GPUSCOPE_DIAGNOSE_H
#define GPUSCOPE_DIAGNOSE_H

#include "analyze/analysis.h"

/* Analyses t (sorted) as o says into *r (initialised here). Returns 0, or
 * -1 with a message in err and r released. Thread-safe: it keeps no state
 * outside r, and t is only read. */
int analysis_result_run(struct analysis_result *r, const struct trace *t,
			const struct analysis_opts *o, char *err);
void analysis_result_release(struct analysis_result *r);
/* The job rules (straggler, comm_exposed) over r->comm and r->all's span,
 * their findings appended to r->all's (what analysis_result_run does last;
 * the job from summaries, summary.h, runs them on its own result). */
int analysis_result_job_rules(struct analysis_result *r, char *err);
/* The analysis of device id in a run of several, NULL when none. */
const struct analysis *analysis_result_device(const struct analysis_result *r, uint32_t id);
/* Analyses t (sorted) into *a (initialised here) and runs the rules.
 * Returns 0, or -1 with a message in err; on error *a is released. */
int analysis_run(struct analysis *a, const struct trace *t, char *err);
/* Like analysis_run, but the span is bounded by the NVTX/annotation ranges
 * named `range` (first start to last end); only events that start inside
 * are analysed. Fails when no range has that name. */
int analysis_run_range(struct analysis *a, const struct trace *t, const char *range, char *err);
/* analysis_run_range, and with whole = 0 and no range a recorded process
 * (source cupti) is analysed from the end of its warm-up (analysis.c);
 * warmup_ns then says how much was left out. */
int analysis_run_opts(struct analysis *a, const struct trace *t, const char *range, int whole,
		      char *err);
void analysis_release(struct analysis *a);

#endif
