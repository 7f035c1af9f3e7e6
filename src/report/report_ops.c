/*
 * report_ops.c - the report's OPS section: PyTorch ops by the GPU time of
 * the work they launched (ops.h), as torch.profiler's table sorted by CUDA
 * time: calls, host time, GPU time, GPU ops launched, blocking syncs, the
 * Python call site when the trace has stacks.
 */
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

int rm_build_ops(struct report *r, const struct analysis *a)
{
	static const struct rm_column cols0[] = {
	    {.header = RM_T("op"), .kind = RM_TEXT, .width = 32, .left = 1, .trunc = 1},
	    {.key = "name", .kind = RM_TEXT, .json = 1},
	    {.key = "calls", .header = RM_T("calls"), .kind = RM_COUNT, .json = 1, .width = 6},
	    {.key = "host_ns", .header = RM_T("host"), .kind = RM_DURATION, .json = 1, .width = 9},
	    {.key = "gpu_ns", .header = RM_T("GPU"), .kind = RM_DURATION, .json = 1, .width = 9},
	    {.key = "gpu_ops", .header = RM_T("launched"), .kind = RM_COUNT, .json = 1, .width = 8},
	    {.key = "syncs", .header = RM_T("syncs"), .kind = RM_COUNT, .json = 1, .width = 5},
	    {.key = "sync_ns", .kind = RM_DURATION, .json = 1},
	    {.key = "dtoh_copies", .kind = RM_COUNT, .json = 1},
	    {.key = "idle_ns", .kind = RM_DURATION, .json = 1},
	    {.key = "inner_op", .kind = RM_TEXT, .json = 1},
	    {.key = "site",
	     .header = RM_T("call site"),
	     .kind = RM_TEXT,
	     .json = 1,
	     .width = 22,
	     .left = 1,
	     .trunc = 1},
	};
	const struct an_ops *o = &a->ops;
	/* the call-site column in text only when the trace has stacks */
	struct rm_column *cols = rm_alloc(r, sizeof(cols0));
	TRYP(cols);
	memcpy(cols, cols0, sizeof(cols0));
	if (!o->have_stacks)
		cols[NCOLS(cols0) - 1].header = NULL;
	struct rm_section *s = rm_section_add(
	    r, "ops", RM_T("PYTORCH OPS (by the GPU time of the work they launched)"), RM_SJ_OBJECT,
	    "ops", JP_OPS);
	TRYP(s);
	s->valid = o->have_ops;
	s->text = o->have_ops && o->n > 0;
	double attributed =
	    o->gpu_total_ns > 0 ? 100.0 * (double)o->gpu_ns / (double)o->gpu_total_ns : 0;
	TRY(rm_field_add(s, "attributed_gpu_pct", 1,
			 rm_if(o->gpu_total_ns > 0, rm_pct(attributed, 1))));
	TRY(rm_field_add(s, "has_stacks", 1, rm_count((uint64_t)o->have_stacks)));
	TRY(rm_field_add(s, "profiler_steps", 1, rm_count(o->steps)));
	TRY(rm_field_add(s, "ops", 0, rm_count(o->n)));
	TRY(rm_field_add(s, "idle_in_dataload_pct", 1,
			 rm_pct(an_pct(a, (double)o->idle_dataload_ns), 1)));
	TRY(rm_field_add(
	    s, "dataload_range", 1,
	    rm_if(o->dataload_name_id != 0, rm_text(trace_str(a->t, o->dataload_name_id)))));
	TRY(rm_field_add(s, "idle_in_ops_pct", 1, rm_pct(an_pct(a, (double)o->idle_in_ops_ns), 1)));
	TRYP(rm_line_add(s, "  ", NULL,
			 RM_T("{attributed_gpu_pct} of the GPU time is attributed to the {ops} ops "
			      "that launched it")));
	size_t n = o->n < RM_JSON_TOP_KERNELS ? o->n : RM_JSON_TOP_KERNELS;
	struct rm_table *t = rm_table_add(r, s, "ops", RM_TJ_ARRAY, cols, NCOLS(cols0), n);
	TRYP(t);
	t->text_rows = n < RM_TEXT_TOP_ROWS ? n : RM_TEXT_TOP_ROWS;
	for (size_t i = 0; i < n; i++) {
		const struct an_op *op = &o->v[i];
		const struct trace *w = a->whole ? a->whole : a->t;
		const char *name = trace_str(w, op->name_id);
		rm_set(t, i, 0, rm_text(ops_display_name(name)));
		rm_set(t, i, 1, rm_text(name));
		rm_set(t, i, 2, rm_count(op->calls));
		rm_set(t, i, 3, rm_dur(op->host_ns));
		rm_set(t, i, 4, rm_dur(op->gpu_ns));
		rm_set(t, i, 5, rm_count(op->kernels));
		rm_set(t, i, 6, rm_count(op->syncs));
		rm_set(t, i, 7, rm_dur(op->sync_ns));
		rm_set(t, i, 8, rm_count(op->dtoh));
		rm_set(t, i, 9, rm_dur(op->idle_ns));
		rm_set(t, i, 10, rm_if(op->inner_id != 0, rm_text(trace_str(w, op->inner_id))));
		rm_set(t, i, 11, rm_if(op->site_id != 0, rm_text(trace_str(w, op->site_id))));
	}
	return 0;
}
