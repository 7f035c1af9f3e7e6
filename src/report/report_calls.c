/*
 * report_calls.c - the report's CUDA CALLS section (calls.h): the calls
 * that held the host while the GPU idled, beyond launches, copies and
 * synchronizations, by name with their cause, count, time and idle.
 */
#include "report/report_int.h"

/* The columns, each with its value (struct rm_entry); ctx is the analysis. */
RM_FILL(f_name, struct an_call, rm_made(w, rm_text(rm_strdup(w->r, x->name))))
RM_FILL(f_cause, struct an_call, rm_text(call_cause_name(x->cause)))
RM_FILL(f_count, struct an_call, rm_count(x->count))
RM_FILL(f_call_ns, struct an_call, rm_dur(x->call_ns))
RM_FILL(f_idle_ns, struct an_call, rm_dur(x->idle_ns))
RM_FILL(f_idle_pct, struct an_call, rm_pct(an_pct(w->ctx, (double)x->idle_ns), 1))

static const struct rm_entry entries[] = {
    {{.key = "name",
      .header = RM_T("call"),
      .kind = RM_TEXT,
      .json = 1,
      .width = 32,
      .left = 1,
      .trunc = 1},
     f_name},
    {{.key = "cause",
      .header = RM_T("cause"),
      .kind = RM_TEXT,
      .json = 1,
      .width = 24,
      .left = 1,
      .trunc = 1},
     f_cause},
    {{.key = "count", .header = RM_T("calls"), .kind = RM_COUNT, .json = 1, .width = 7}, f_count},
    {{.key = "call_ns", .header = RM_T("time"), .kind = RM_DURATION, .json = 1, .width = 10},
     f_call_ns},
    {{.key = "idle_ns", .header = RM_T("GPU idle"), .kind = RM_DURATION, .json = 1, .width = 10},
     f_idle_ns},
    {{.key = "idle_pct", .header = RM_T("of span"), .kind = RM_PERCENT, .json = 1, .width = 7},
     f_idle_pct},
};

int rm_build_calls(struct report *r, const struct analysis *a)
{
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
	struct rm_table *t = rm_table_fill(r, s, "calls", RM_TJ_ARRAY, entries, NCOLS(entries),
					   c->v, sizeof(*c->v), n, a);
	TRYP(t);
	/* text: the calls that matter (>= 0.1% of the span) */
	t->text_rows = 0;
	for (size_t i = 0; i < n && t->text_rows < RM_TEXT_TOP_ROWS; i++)
		if (an_pct(a, (double)c->v[i].idle_ns) >= 0.1)
			t->text_rows = i + 1;
	return 0;
}
