/*
 * report_calls.c - the report's CUDA CALLS section (calls.h): the calls
 * that held the host while the GPU idled, beyond launches, copies and
 * synchronizations, by name with their cause, count, time and idle.
 */
#include "report/report_int.h"

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

int rm_build_calls(struct report *r, const struct analysis *a)
{
	static const struct rm_column cols[] = {
	    {.key = "name",
	     .header = RM_T("call"),
	     .kind = RM_TEXT,
	     .json = 1,
	     .width = 32,
	     .left = 1,
	     .trunc = 1},
	    {.key = "cause",
	     .header = RM_T("cause"),
	     .kind = RM_TEXT,
	     .json = 1,
	     .width = 24,
	     .left = 1,
	     .trunc = 1},
	    {.key = "count", .header = RM_T("calls"), .kind = RM_COUNT, .json = 1, .width = 7},
	    {.key = "call_ns", .header = RM_T("time"), .kind = RM_DURATION, .json = 1, .width = 10},
	    {.key = "idle_ns",
	     .header = RM_T("GPU idle"),
	     .kind = RM_DURATION,
	     .json = 1,
	     .width = 10},
	    {.key = "idle_pct",
	     .header = RM_T("of span"),
	     .kind = RM_PERCENT,
	     .json = 1,
	     .width = 7},
	};
	const struct an_calls *c = &a->calls;
	struct rm_section *s =
	    rm_section_add(r, "cuda_calls", RM_T("OTHER CUDA CALLS (while the GPU idled)"),
			   RM_SJ_OBJECT, "cuda_calls", JP_CALLS);
	TRYP(s);
	/* text when they explain a share worth reading */
	s->text = an_pct(a, (double)c->idle_ns) >= 1.0;
	TRY(rm_field_add(s, "idle_ns", 1, rm_dur(c->idle_ns)));
	TRY(rm_field_add(s, "idle_pct", 1, rm_pct(an_pct(a, (double)c->idle_ns), 1)));
	size_t n = c->n < RM_JSON_TOP_KERNELS ? c->n : RM_JSON_TOP_KERNELS;
	struct rm_table *t = rm_table_add(r, s, "calls", RM_TJ_ARRAY, cols, NCOLS(cols), n);
	TRYP(t);
	t->text_rows = 0;
	for (size_t i = 0; i < n; i++) {
		const struct an_call *x = &c->v[i];
		const char *nm = rm_strdup(r, x->name);
		TRYP(nm);
		rm_set(t, i, 0, rm_text(nm));
		rm_set(t, i, 1, rm_text(call_cause_name(x->cause)));
		rm_set(t, i, 2, rm_count(x->count));
		rm_set(t, i, 3, rm_dur(x->call_ns));
		rm_set(t, i, 4, rm_dur(x->idle_ns));
		rm_set(t, i, 5, rm_pct(an_pct(a, (double)x->idle_ns), 1));
		/* text: the calls that matter (>= 0.1% of the span) */
		if (an_pct(a, (double)x->idle_ns) >= 0.1 && t->text_rows < RM_TEXT_TOP_ROWS)
			t->text_rows = i + 1;
	}
	return 0;
}
