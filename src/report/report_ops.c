/*
 * report_ops.c - the report's OPS section: PyTorch ops by the GPU time of
 * the work they launched (ops.h), as torch.profiler's table sorted by CUDA
 * time: calls, host time, GPU time, GPU ops launched, blocking syncs, the
 * Python call site when the trace has stacks.
 */
#include "report/report_int.h"

/* an op (ctx: the trace its names are in) */
RM_FILL(op_display, struct an_op, rm_text(ops_display_name(trace_str(w->ctx, x->name_id))))
RM_FILL(op_name, struct an_op, rm_text(trace_str(w->ctx, x->name_id)))
RM_FILL(op_calls, struct an_op, rm_count(x->calls))
RM_FILL(op_host, struct an_op, rm_dur(x->host_ns))
RM_FILL(op_gpu, struct an_op, rm_dur(x->gpu_ns))
RM_FILL(op_kernels, struct an_op, rm_count(x->kernels))
RM_FILL(op_syncs, struct an_op, rm_count(x->syncs))
RM_FILL(op_sync_ns, struct an_op, rm_dur(x->sync_ns))
RM_FILL(op_dtoh, struct an_op, rm_count(x->dtoh))
RM_FILL(op_idle, struct an_op, rm_dur(x->idle_ns))
RM_FILL(op_inner, struct an_op, rm_if(x->inner_id != 0, rm_text(trace_str(w->ctx, x->inner_id))))
RM_FILL(op_site, struct an_op, rm_if(x->site_id != 0, rm_text(trace_str(w->ctx, x->site_id))))

int rm_build_ops(struct report *r, const struct analysis *a)
{
	const struct an_ops *o = &a->ops;
	const struct rm_entry cols[] = {
	    {{.header = RM_T("op"), .kind = RM_TEXT, .width = 32, .left = 1, .trunc = 1},
	     op_display},
	    {{.key = "name", .kind = RM_TEXT, .json = 1}, op_name},
	    {{.key = "calls", .header = RM_T("calls"), .kind = RM_COUNT, .json = 1, .width = 6},
	     op_calls},
	    {{.key = "host_ns", .header = RM_T("host"), .kind = RM_DURATION, .json = 1, .width = 9},
	     op_host},
	    {{.key = "gpu_ns", .header = RM_T("GPU"), .kind = RM_DURATION, .json = 1, .width = 9},
	     op_gpu},
	    {{.key = "gpu_ops",
	      .header = RM_T("launched"),
	      .kind = RM_COUNT,
	      .json = 1,
	      .width = 8},
	     op_kernels},
	    {{.key = "syncs", .header = RM_T("syncs"), .kind = RM_COUNT, .json = 1, .width = 5},
	     op_syncs},
	    {{.key = "sync_ns", .kind = RM_DURATION, .json = 1}, op_sync_ns},
	    {{.key = "dtoh_copies", .kind = RM_COUNT, .json = 1}, op_dtoh},
	    {{.key = "idle_ns", .kind = RM_DURATION, .json = 1}, op_idle},
	    {{.key = "inner_op", .kind = RM_TEXT, .json = 1}, op_inner},
	    /* in text only when the trace has stacks */
	    {{.key = "site",
	      .header = o->have_stacks ? RM_T("call site") : NULL,
	      .kind = RM_TEXT,
	      .json = 1,
	      .width = 22,
	      .left = 1,
	      .trunc = 1},
	     op_site},
	};
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
	struct rm_table *t = rm_table_fill(r, s, "ops", RM_TJ_ARRAY, cols, NCOLS(cols), o->v,
					   sizeof(*o->v), n, a->whole ? a->whole : a->t);
	TRYP(t);
	t->text_rows = n < RM_TEXT_TOP_ROWS ? n : RM_TEXT_TOP_ROWS;
	return 0;
}
