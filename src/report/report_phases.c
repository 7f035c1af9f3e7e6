/*
 * report_phases.c - the report's RUN PHASES section (phases.h): startup,
 * the JIT compilations found, the warm-up left out, the steady state
 * analysed (its ProfilerStep# ranges in a PyTorch profiler trace) and the
 * final phase, each with its time, so a compile is never read as a slow
 * step.
 */
#include "report/report_int.h"

/* a JIT compilation (ctx: the trace its names are in) */
RM_FILL(jit_start, struct an_jit, rm_cell_int(RM_TIMESTAMP, x->start_ns))
RM_FILL(jit_end, struct an_jit, rm_cell_int(RM_TIMESTAMP, x->end_ns))
RM_FILL(jit_ns, struct an_jit, rm_dur(x->end_ns - x->start_ns))
RM_FILL(jit_loads, struct an_jit, rm_count(x->module_loads))
RM_FILL(jit_kernel, struct an_jit, rm_cell_str(RM_NAME, trace_str(w->ctx, x->first_kernel_id)))
RM_FILL(jit_in_window, struct an_jit, rm_count(x->in_window))

int rm_build_run_phases(struct report *r, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {{.key = "start_ns", .kind = RM_TIMESTAMP, .json = 1}, jit_start},
	    {{.key = "end_ns", .kind = RM_TIMESTAMP, .json = 1}, jit_end},
	    {{.key = "duration_ns", .kind = RM_DURATION, .json = 1}, jit_ns},
	    {{.key = "module_loads", .kind = RM_COUNT, .json = 1}, jit_loads},
	    {{.key = "first_kernel", .kind = RM_NAME, .json = 1}, jit_kernel},
	    {{.key = "in_window", .kind = RM_COUNT, .json = 1}, jit_in_window},
	};
	const struct an_phases *p = &a->phases;
	struct rm_section *s = rm_section_add(r, "run_phases", RM_T("RUN PHASES"), RM_SJ_OBJECT,
					      "run_phases", JP_RUN_PHASES);
	TRYP(s);
	s->text = a->warmup_ns > 0 || p->jit_total > 0 || a->profiler_steps > 0;
	TRY(rm_field_add(s, "startup_ns", 1, rm_dur(p->startup_ns)));
	TRY(rm_field_add(s, "warmup_ns", 1, rm_dur(p->warmup_ns)));
	TRY(rm_field_add(s, "steady_ns", 1, rm_dur(a->span_ns)));
	TRY(rm_field_add(s, "final_ns", 1, rm_dur(p->final_ns)));
	TRY(rm_field_add(s, "profiler_steps", 1, rm_count(a->profiler_steps)));
	TRY(rm_field_add(s, "jit_compilations", 1, rm_count(p->jit_total)));
	TRY(rm_field_add(s, "jit_ns", 1, rm_dur(p->jit_ns)));
	TRY(rm_field_add(s, "jit_warmup_ns", 1, rm_dur(p->jit_warmup_ns)));
	TRY(rm_field_add(s, "jit_window_ns", 1, rm_dur(p->jit_window_ns)));
	TRY(rm_field_add(s, "module_loads", 1, rm_count(p->module_loads)));
	if (a->profiler_steps)
		TRYP(rm_line_add(
		    s, " ", "    ",
		    RM_T("steady state: the {profiler_steps} ProfilerStep# ranges of the "
			 "trace, {steady_ns}; before them {warmup_ns}, after them "
			 "{final_ns}")));
	else if (a->warmup_ns > 0)
		TRYP(
		    rm_line_add(s, " ", "    ",
				RM_T("startup {startup_ns}, warm-up {warmup_ns} (left out), steady "
				     "state {steady_ns} (analysed), final phase {final_ns}")));
	if (p->jit_total)
		TRYP(
		    rm_line_add(s, " ", "    ",
				RM_T("JIT compilation: {jit_compilations} stretch(es) of host work "
				     "ending in module loads before new kernels, {jit_ns} in all "
				     "({jit_warmup_ns} in the warm-up, {jit_window_ns} in the "
				     "analysed window)")));
	struct rm_table *t = rm_table_fill(r, s, "jit", RM_TJ_ARRAY, cols, NCOLS(cols), p->jit,
					   sizeof(*p->jit), p->n_jit, a->whole ? a->whole : a->t);
	TRYP(t);
	t->text_rows = 0;
	return 0;
}
