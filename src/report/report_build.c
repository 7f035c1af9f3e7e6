/*
 * report_build.c - report_build: an analysis into the report model, in
 * text order (the JSON order is each section's json_pos). This file builds
 * the run's header, the warnings, the verdict, the summary and the
 * findings; report_tables.c the evidence tables.
 */
#include <stdlib.h>
#include <string.h>

#include "diagnose/summary.h"
#include "report/report_int.h"
#include "trace/capture.h"
#include "util/error.h"

static int64_t meta_ns(const struct trace *t, const char *key)
{
	const char *v = trace_get_meta(t, key);
	return v ? (int64_t)strtoll(v, NULL, 10) : 0;
}

/* record's capture (trace/capture.h): the range, or NULL when the run was
 * recorded whole; its status, captured time and program span */
static const char *capture_meta(const struct trace *t, const char **st, int64_t *cap, int64_t *span)
{
	*st = trace_get_meta(t, "capture_status");
	*cap = meta_ns(t, "capture_captured_ns");
	*span = meta_ns(t, "capture_span_ns");
	return trace_get_meta(t, "capture_range");
}

/* record --capture-range/--delay/--duration: JSON */
static int capture_fields(struct rm_section *s, const struct analysis *a)
{
	const char *st;
	int64_t cap, span;
	const char *cr = capture_meta(a->t, &st, &cap, &span);
	if (!cr)
		return 0;
	TRY(rm_field_add(s, "capture_range", 1, rm_text(*cr ? cr : "delay/duration")));
	TRY(rm_field_add(s, "capture_windows", 1, rm_count(a->t->n_capture_windows)));
	TRY(rm_field_add(s, "captured_ns", 1, rm_dur(cap)));
	TRY(rm_field_add(s, "not_captured_ns", 1, rm_dur(span > cap ? span - cap : 0)));
	TRY(rm_field_add(s, "uncaptured_in_span_ns", 1, rm_dur(a->uncaptured_ns)));
	TRY(rm_field_add(s, "capture_status", 1, rm_text(st ? st : "")));
	return 0;
}

/* the same in SUMMARY's words */
static int capture_lines(struct rm_section *s, const struct analysis *a)
{
	const char *st;
	int64_t cap, span;
	const char *cr = capture_meta(a->t, &st, &cap, &span);
	if (!cr)
		return 0;
	TRY(rm_field_add(s, "cap_range", 0, rm_text(*cr ? cr : "--delay/--duration")));
	if (st && *st) {
		TRY(rm_field_add(s, "cap_status", 0, rm_text(st)));
		TRYP(rm_line_add(s, "  ", NULL, RM_T("capture range {cap_range}: {cap_status}")));
		return 0;
	}
	TRY(rm_field_add(s, "cap_windows", 0, rm_count(a->t->n_capture_windows)));
	TRY(rm_field_add(s, "cap_captured", 0, rm_dur(cap)));
	TRY(rm_field_add(s, "cap_program", 0, rm_dur(span)));
	TRY(rm_field_add(s, "cap_outside", 0, rm_dur(span > cap ? span - cap : 0)));
	TRYP(rm_line_add(
	    s, "  ", "   ",
	    RM_T("(capture range {cap_range}: {cap_windows} window(s), {cap_captured} "
		 "of the program's {cap_program}; the {cap_outside} outside them is not "
		 "in the trace)")));
	if (a->uncaptured_ns > 0) {
		TRY(rm_field_add(s, "cap_between", 0, rm_dur(a->uncaptured_ns)));
		TRYP(rm_line_add(s, "  ", NULL,
				 RM_T("({cap_between} between the windows is left out of the span "
				      "and of the idle time)")));
	}
	return 0;
}

static int run_header(struct report *r, const struct analysis_result *res, const char *path)
{
	const struct analysis *a = &res->all;
	struct rm_section *s = rm_section_add(r, "run", NULL, RM_SJ_INLINE, NULL, JP_RUN);
	TRYP(s);
	/* --device (the result's), or a trace narrowed by trace_keep_device */
	const char *dev = res->device >= 0 ? rm_printf(r, "%lld", res->device)
					   : trace_get_meta(a->t, "report_device");
	TRY(rm_field_add(s, "schema", 1, rm_text("gpuscope.report.v1")));
	TRY(rm_field_add(s, "source", 1, rm_text(a->source)));
	TRY(rm_field_add(s, "file", 1, rm_text(path ? path : "")));
	TRY(rm_field_add(s, "range", 1, rm_if(a->range[0] != 0, rm_text(a->range))));
	TRY(rm_field_add(s, "device", 1,
			 rm_if(dev != NULL, rm_count(dev ? strtoull(dev, NULL, 10) : 0))));
	TRY(rm_field_add(s, "span_ns", 1, rm_dur(a->span_ns)));
	/* recordings with per-kernel counters (src/trace/replay.c) */
	const char *rp = trace_get_meta(a->t, "kernel_replay_removed_ns");
	if (rp)
		TRY(rm_field_add(s, "kernel_replay_removed_ns", 1,
				 rm_dur((int64_t)strtoll(rp, NULL, 10))));
	TRY(capture_fields(s, a));
	TRY(rm_field_add(s, "warmup_ns", 1, rm_dur(a->warmup_ns)));
	TRY(rm_field_add(s, "cooldown_ns", 1, rm_dur(a->cooldown_ns)));
	TRY(rm_field_add(s, "startup_ns", 1, rm_dur(a->startup_ns)));
	TRY(rm_field_add(s, "teardown_ns", 1, rm_dur(a->teardown_ns)));
	TRY(rm_field_add(s, "start_ns", 1, rm_cell_int(RM_TIMESTAMP, a->start_ns)));
	TRY(rm_field_add(s, "end_ns", 1, rm_cell_int(RM_TIMESTAMP, a->end_ns)));
	struct rm_line *l =
	    rm_line_add(s, "", NULL, RM_T("gpuscope report: {path} (source {source})"));
	TRYP(l);
	rm_line_arg(l, "path", rm_text(path ? path : "-"));
	if (a->range[0]) {
		TRYP(l = rm_line_add(s, "", NULL, RM_T(", span bounded by range '{range}'")));
		l->join = 1;
	}
	if (dev) {
		TRYP(l = rm_line_add(s, "", NULL, RM_T(", device {dev} only")));
		rm_line_arg(l, "dev", rm_text(dev));
		l->join = 1;
	}
	return 0;
}

static int warnings(struct report *r, const struct analysis *a)
{
	struct rm_section *s =
	    rm_section_add(r, "warnings", NULL, RM_SJ_LINES, "warnings", JP_WARNINGS);
	TRYP(s);
	s->text = a->n_warnings > 0;
	for (size_t i = 0; i < a->n_warnings; i++) {
		struct rm_line *l = rm_line_add(s, RM_T("WARNING:"), NULL, a->warnings[i].tmpl);
		TRYP(l);
		const char *prefix = l->prefix;
		*l = a->warnings[i];
		l->prefix = prefix;
		l->cont = "  "; /* wrapped within the 100 columns */
	}
	return 0;
}

static int verdict(struct report *r, const struct analysis *a)
{
	struct rm_section *s =
	    rm_section_add(r, "verdict", RM_T("VERDICT"), RM_SJ_INLINE, NULL, JP_PRIMARY);
	TRYP(s);
	s->kind = RM_SEC_VERDICT;
	s->findings = &a->findings;
	s->primary = a->primary;
	TRY(rm_field_add(s, "primary", 1,
			 rm_if(a->primary != NULL, rm_text(a->primary ? a->primary->id : ""))));
	static const char *const why[] = {[NW_NO_GPU_WORK] = "no_gpu_work",
					  [NW_TOO_LITTLE] = "too_little_gpu_work",
					  [NW_OTHER_ACCEL] = "other_accelerator",
					  [NW_CPU_ONLY] = "cpu_only"};
	TRY(rm_field_add(s, "nothing_to_diagnose", 1,
			 rm_if(a->nowork != NW_NONE, rm_text(a->nowork ? why[a->nowork] : ""))));
	if (!a->primary) {
		TRY(rm_field_add(s, "busy_pct", 0, rm_pct(an_pct(a, (double)a->busy_ns), 1)));
		struct rm_cell span = rm_cell_styled(rm_dur(a->span_ns), RM_STYLE_SECONDS);
		span.prec = 3;
		TRY(rm_field_add(s, "span", 0, span));
		TRY(rm_field_add(s, "busy", 0, rm_dur(a->busy_ns)));
		TRY(rm_field_add(s, "n_kernels", 0, rm_count(a->n_kernels)));
		TRY(rm_field_add(s, "n_apis", 0, rm_count(a->n_apis)));
		TRY(rm_field_add(s, "accel", 0, rm_text(a->nowork_accel ? a->nowork_accel : "")));
		const char *t = RM_T("no bottleneck found: GPU busy {busy_pct} of {span}, no rule "
				     "fired");
		if (a->nowork == NW_NO_GPU_WORK)
			t = RM_T("nothing to diagnose: the trace holds no GPU work ({n_apis} CUDA "
				 "API calls)");
		else if (a->nowork == NW_TOO_LITTLE)
			t = RM_T(
			    "too little GPU work to diagnose: {n_kernels} kernel(s), {busy} of "
			    "GPU time in all");
		else if (a->nowork == NW_OTHER_ACCEL)
			t = RM_T("a profile of another accelerator ({accel}): gpuscope diagnoses "
				 "NVIDIA GPUs, nothing to say about it");
		else if (a->nowork == NW_CPU_ONLY)
			t = RM_T("a CPU-only profile: no GPU activity was recorded (torch.profiler "
				 "without ProfilerActivity.CUDA?)");
		TRYP(rm_line_add(s, "  ", NULL, t));
	}
	return 0;
}

/* "time by category: kernels ..%, copies ..% (HtoD ..%)..., memsets, idle"
 * and "GPU idle because: ..." */
static int summary_shares(struct rm_section *s, const struct analysis *a)
{
	TRY(rm_field_add(s, "kernels_pct", 0, rm_pct(an_pct(a, (double)a->kernel_ns), 1)));
	TRY(rm_field_add(s, "copies_pct", 0, rm_pct(an_pct(a, (double)a->copy_ns), 1)));
	TRY(rm_field_add(s, "memsets_pct", 0, rm_pct(an_pct(a, (double)a->memset_ns), 1)));
	TRY(rm_field_add(s, "idle_pct", 0, rm_pct(an_pct(a, (double)a->idle.total_ns), 1)));
	struct rm_line *l = rm_line_add(
	    s, " ", "    ", RM_T("time by category: kernels {kernels_pct}, copies {copies_pct}"));
	TRYP(l);
	for (int k = 1; k < 6; k++) {
		if (!a->copy_kind_ns[k])
			continue;
		TRYP(l = rm_line_add(s, "", NULL, RM_T(" ({kind} {pct})")));
		l->join = 1;
		rm_line_arg(l, "kind", rm_text(copy_kind_name(k)));
		rm_line_arg(l, "pct", rm_pct(an_pct(a, (double)a->copy_kind_ns[k]), 1));
	}
	TRYP(l = rm_line_add(s, "", NULL, RM_T(", memsets {memsets_pct}, idle {idle_pct}")));
	l->join = 1;
	const struct an_idle *d = &a->idle;
	TRY(rm_field_add(s, "idle_host_pct", 0, rm_pct(an_pct(a, (double)d->host_ns), 1)));
	TRY(rm_field_add(s, "idle_dispatch_pct", 0, rm_pct(an_pct(a, (double)d->dispatch_ns), 1)));
	TRY(rm_field_add(s, "idle_launch_pct", 0, rm_pct(an_pct(a, (double)d->launch_ns), 1)));
	TRY(rm_field_add(s, "idle_sync_pct", 0, rm_pct(an_pct(a, (double)d->sync_ns), 1)));
	TRY(rm_field_add(s, "idle_copy_pct", 0, rm_pct(an_pct(a, (double)d->copy_ns), 1)));
	TRY(rm_field_add(s, "idle_api_pct", 0, rm_pct(an_pct(a, (double)d->api_ns), 1)));
	/* every field before the lines: the JIT part is joined to the line before it */
	if (d->jit_ns > 0)
		TRY(rm_field_add(s, "idle_jit_pct", 0, rm_pct(an_pct(a, (double)d->jit_ns), 1)));
	/* a ROCm program's calls are HIP's (issue 40) */
	TRYP(rm_line_add(
	    s, " ", "    ",
	    a->prog.rocm
		? RM_T("GPU idle because: host work outside HIP {idle_host_pct}, host "
		       "dispatch {idle_dispatch_pct}, launch latency {idle_launch_pct}, "
		       "sync {idle_sync_pct}, copy calls {idle_copy_pct}, other HIP calls "
		       "{idle_api_pct}")
		: RM_T("GPU idle because: host work outside CUDA {idle_host_pct}, host "
		       "dispatch {idle_dispatch_pct}, launch latency {idle_launch_pct}, "
		       "sync {idle_sync_pct}, copy calls {idle_copy_pct}, other CUDA calls "
		       "{idle_api_pct}")));
	if (d->jit_ns > 0) {
		struct rm_line *j =
		    rm_line_add(s, "", NULL, RM_T(", JIT compilation {idle_jit_pct}"));
		TRYP(j);
		j->join = 1;
	}
	return 0;
}

/* A run of several devices: each device's busy share (of its own span) and
 * primary finding. */
static int summary_devices(struct rm_section *s, const struct analysis_result *res)
{
	for (size_t i = 0; i < res->n_dev; i++) {
		const struct analysis *d = &res->dev[i];
		const struct finding *p = d->primary;
		struct rm_line *l =
		    rm_line_add(s, "  ", NULL,
				p ? RM_T("device {id}: busy {busy_pct}, primary {primary} "
					 "({impact} of its span)")
				  : RM_T("device {id}: busy {busy_pct}, no finding"));
		TRYP(l);
		rm_line_arg(l, "id", rm_count(d->devices[0].id));
		rm_line_arg(l, "busy_pct", rm_pct(an_pct(d, (double)d->busy_ns), 1));
		if (p) {
			rm_line_arg(l, "primary", rm_text(p->id));
			rm_line_arg(l, "impact", rm_pct(p->impact_pct, 1));
		}
	}
	TRYP(rm_line_add(s, " ", "   ",
			 RM_T("(each device is diagnosed on its own; GPU busy and the tables are "
			      "the devices' union; --device N for one)")));
	return 0;
}

/* a device's analysis in a run of several */
RM_FILL(pd_device, struct analysis, rm_count(x->devices[0].id))
RM_FILL(pd_span, struct analysis, rm_dur(x->span_ns))
RM_FILL(pd_busy, struct analysis, rm_pct(an_pct(x, (double)x->busy_ns), 1))
RM_FILL(pd_kernels, struct analysis, rm_count(x->n_kernels))
RM_FILL(pd_warmup, struct analysis, rm_dur(x->warmup_ns))
RM_FILL(pd_primary, struct analysis,
	rm_if(x->primary != NULL, rm_text(x->primary ? x->primary->id : "")))
RM_FILL(pd_impact, struct analysis,
	rm_if(x->primary != NULL, rm_pct(x->primary ? x->primary->impact_pct : 0, 1)))
RM_FILL(pd_findings, struct analysis, rm_count(x->findings.n))

/* per_device (JSON, added in v1): one row per device of a run of several. */
static int per_device(struct report *r, const struct analysis_result *res)
{
	static const struct rm_entry cols[] = {
	    {{.key = "device", .kind = RM_COUNT, .json = 1}, pd_device},
	    {{.key = "span_ns", .kind = RM_DURATION, .json = 1}, pd_span},
	    {{.key = "gpu_busy_pct", .kind = RM_PERCENT, .json = 1}, pd_busy},
	    {{.key = "kernels", .kind = RM_COUNT, .json = 1}, pd_kernels},
	    {{.key = "warmup_ns", .kind = RM_DURATION, .json = 1}, pd_warmup},
	    {{.key = "primary", .kind = RM_TEXT, .json = 1}, pd_primary},
	    {{.key = "primary_impact_pct", .kind = RM_PERCENT, .json = 1}, pd_impact},
	    {{.key = "findings", .kind = RM_COUNT, .json = 1}, pd_findings},
	};
	if (res->n_dev < 2)
		return 0;
	struct rm_section *s =
	    rm_section_add(r, "per_device", NULL, RM_SJ_INLINE, NULL, JP_PER_DEVICE);
	TRYP(s);
	s->text = 0;
	TRYP(rm_table_fill(r, s, "per_device", RM_TJ_ARRAY, cols, NCOLS(cols), res->dev,
			   sizeof(*res->dev), res->n_dev, NULL));
	return 0;
}

static int summary(struct report *r, const struct analysis_result *res)
{
	const struct analysis *a = &res->all;
	struct rm_section *s =
	    rm_section_add(r, "summary", RM_T("SUMMARY"), RM_SJ_OBJECT, "summary", JP_SUMMARY);
	TRYP(s);
	TRY(rm_field_add(s, "gpu_busy_pct", 1, rm_pct(an_pct(a, (double)a->busy_ns), 1)));
	TRY(rm_field_add(s, "gpu_idle_pct", 1, rm_pct(an_pct(a, (double)a->idle.total_ns), 1)));
	TRY(rm_field_add(s, "kernels", 1, rm_count(a->n_kernels)));
	TRY(rm_field_add(s, "copies", 1, rm_count(a->n_copies)));
	TRY(rm_field_add(s, "memsets", 1, rm_count(a->n_memsets)));
	TRY(rm_field_add(s, "api_calls", 1, rm_count(a->n_apis)));
	TRY(rm_field_add(s, "devices", 1, rm_count(a->n_devices)));
	TRY(rm_field_add(s, "streams", 1, rm_count(a->n_streams)));
	TRY(rm_field_add(s, "gpu_busy_ns", 1, rm_dur(a->busy_ns)));
	TRY(rm_field_add(s, "kernel_sum_ns", 1, rm_dur(a->kernel_sum_ns)));
	TRY(rm_field_add(s, "dropped_records", 1, rm_count(a->dropped_records)));
	TRY(rm_field_add(s, "overhead_ns", 1, rm_dur(a->overhead_ns)));
	TRY(rm_field_add(s, "span", 0, rm_dur(a->span_ns)));
	TRY(rm_field_add(s, "busy", 0, rm_dur(a->busy_ns)));
	TRY(rm_field_add(s, "idle", 0, rm_dur(a->idle.total_ns)));
	TRYP(rm_line_add(s, "  ", NULL,
			 RM_T("span {span}, GPU busy {busy} ({gpu_busy_pct}), idle {idle} "
			      "({gpu_idle_pct})")));
	if (a->warmup_ns > 0) {
		TRY(rm_field_add(s, "warmup", 0, rm_dur(a->warmup_ns)));
		TRY(rm_field_add(s, "cooldown", 0, rm_dur(a->cooldown_ns)));
		TRYP(rm_line_add(s, " ", "   ",
				 RM_T("(steady state: left out {warmup} of warm-up, the first "
				      "launches of each kernel, and {cooldown} of a final phase "
				      "with new kernels; --whole keeps them)")));
	}
	const char *rp = trace_get_meta(a->t, "kernel_replay_removed_ns");
	if (rp) {
		const char *nl = trace_get_meta(a->t, "kernel_replay_launches");
		TRY(rm_field_add(s, "replay_launches", 0, rm_if(nl != NULL, rm_text(nl))));
		TRY(rm_field_add(s, "replay_removed", 0, rm_dur((int64_t)strtod(rp, NULL))));
		TRYP(rm_line_add(s, " ", "   ",
				 RM_T("(per-kernel counters: {replay_launches} profiled launches; "
				      "{replay_removed} of kernel replay taken out of the "
				      "timeline)")));
	}
	TRY(capture_lines(s, a));
	if (a->startup_ns > 0 || a->teardown_ns > 0) {
		TRY(rm_field_add(s, "startup", 0, rm_dur(a->startup_ns)));
		TRY(rm_field_add(s, "teardown", 0, rm_dur(a->teardown_ns)));
		TRYP(rm_line_add(s, "  ", NULL,
				 RM_T("(first to last GPU work; not analysed: {startup} of "
				      "startup before it, {teardown} after it)")));
	}
	TRYP(rm_line_add(s, "  ", NULL,
			 RM_T("{kernels} kernels, {copies} copies, {memsets} memsets, "
			      "{api_calls} API calls on {devices} device(s), {streams} "
			      "stream(s)")));
	TRY(summary_shares(s, a));
	if (res->n_dev > 1)
		return summary_devices(s, res);
	if (a->n_devices > 1 || a->n_streams > 1) {
		for (size_t i = 0; i < a->n_devices; i++) {
			struct rm_line *l =
			    rm_line_add(s, "  ", NULL, RM_T("device {id}: busy {busy_pct}"));
			TRYP(l);
			rm_line_arg(l, "id", rm_count(a->devices[i].id));
			rm_line_arg(l, "busy_pct",
				    rm_pct(an_pct(a, (double)a->devices[i].busy_ns), 1));
		}
	}
	return 0;
}

/* copy time by kind (a row: an enum copy_kind; ctx: the analysis) */
RM_FILL(ck_kind, int, rm_text(copy_kind_name(*x)))
RM_FILL(ck_ns, int, rm_dur(((const struct analysis *)w->ctx)->copy_kind_ns[*x]))

static int time_by_category(struct report *r, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {{.key = "kind", .kind = RM_TEXT, .json = 1}, ck_kind},
	    {{.key = "ns", .kind = RM_DURATION, .json = 1}, ck_ns},
	};
	struct rm_section *s = rm_section_add(r, "time_by_category", NULL, RM_SJ_OBJECT,
					      "time_by_category", JP_TIME_BY_CATEGORY);
	TRYP(s);
	s->text = 0;
	TRY(rm_field_add(s, "kernels_ns", 1, rm_dur(a->kernel_ns)));
	TRY(rm_field_add(s, "copies_ns", 1, rm_dur(a->copy_ns)));
	int rows[6];
	size_t n = 0;
	for (int k = 0; k < 6; k++)
		if (a->copy_kind_ns[k])
			rows[n++] = k;
	TRYP(rm_table_fill(r, s, "copies_by_kind_ns", RM_TJ_KEYED_ONE, cols, NCOLS(cols), rows,
			   sizeof(*rows), n, a));
	TRY(rm_field_add(s, "memsets_ns", 1, rm_dur(a->memset_ns)));
	TRY(rm_field_add(s, "idle_ns", 1, rm_dur(a->idle.total_ns)));
	return 0;
}

static int findings(struct report *r, const struct analysis *a)
{
	struct rm_section *s = rm_section_add(r, "findings", RM_T("FINDINGS"), RM_SJ_FINDINGS,
					      "findings", JP_FINDINGS);
	TRYP(s);
	s->kind = RM_SEC_FINDINGS;
	s->findings = &a->findings;
	s->primary = a->primary;
	s->text = a->findings.n > 0;
	return 0;
}

int report_build(struct report *r, const struct analysis_result *res, const char *path, char *err)
{
	const struct analysis *a = &res->all;
	memset(r, 0, sizeof(*r));
	if (run_header(r, res, path) < 0 || warnings(r, a) < 0 || verdict(r, a) < 0 ||
	    summary(r, res) < 0 || per_device(r, res) < 0 || time_by_category(r, a) < 0 ||
	    rm_build_program(r, a) < 0 || rm_build_run_phases(r, a) < 0 || findings(r, a) < 0 ||
	    rm_build_ranks(r, res) < 0 || rm_build_devices_phases(r, a) < 0 ||
	    rm_build_families(r, a) < 0 || rm_build_kernels(r, a) < 0 || rm_build_ops(r, a) < 0 ||
	    rm_build_launch_idle(r, a) < 0 || rm_build_hostwait(r, a) < 0 ||
	    rm_build_calls(r, a) < 0 || rm_build_copies_syncs(r, a) < 0 ||
	    rm_build_nvtx_samples(r, a) < 0 || rm_build_counters(r, a) < 0 ||
	    rm_build_memory(r, a) < 0 || rm_build_processes(r, a) < 0 ||
	    rm_build_series(r, a) < 0) {
		report_release(r);
		return error_set(err, "out of memory");
	}
	return 0;
}

int report_build_job(struct report *r, const struct summary_job *j, const char *path, char *err)
{
	const struct analysis_result *res = &j->res;
	const struct analysis *a = &res->all;
	memset(r, 0, sizeof(*r));
	if (run_header(r, res, path) < 0 || warnings(r, a) < 0 || verdict(r, a) < 0 ||
	    findings(r, a) < 0 || rm_build_ranks(r, res) < 0 || rm_build_rank_summaries(r, j) < 0) {
		report_release(r);
		return error_set(err, "out of memory");
	}
	return 0;
}
