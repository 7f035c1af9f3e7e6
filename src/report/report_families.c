/*
 * report_families.c - the report's KERNEL FAMILIES section (families.h):
 * the busy time by family (GEMM/convolution, attention,
 * elementwise/reduction, communication, own kernels, and copies), each
 * family's verdict where the GPM windows it dominates support one, and how
 * much of the sampled time was mixed (no verdict).
 */
#include "report/report_int.h"

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

int rm_build_families(struct report *r, const struct analysis *a)
{
	static const struct rm_column cols[] = {
	    {.key = "family", .kind = RM_TEXT, .json = 1},
	    {.header = RM_T("family"), .kind = RM_TEXT, .width = 22, .left = 1},
	    {.key = "kernels", .header = RM_T("kernels"), .kind = RM_COUNT, .json = 1, .width = 8},
	    {.key = "busy_ns", .header = RM_T("busy"), .kind = RM_DURATION, .json = 1, .width = 10},
	    {.key = "busy_pct",
	     .header = RM_T("of span"),
	     .kind = RM_PERCENT,
	     .json = 1,
	     .width = 7},
	    {.key = "verdict",
	     .header = RM_T("verdict"),
	     .kind = RM_TEXT,
	     .json = 1,
	     .width = 8,
	     .left = 1},
	    {.key = "sampled_ns", .kind = RM_DURATION, .json = 1},
	    {.key = "memory_bound_pct", .kind = RM_PERCENT, .json = 1},
	    {.key = "compute_bound_pct", .kind = RM_PERCENT, .json = 1},
	    {.key = "latency_bound_pct", .kind = RM_PERCENT, .json = 1},
	    {.key = "dram_pct", .kind = RM_PERCENT, .json = 1},
	    {.key = "pipe_pct", .kind = RM_PERCENT, .json = 1},
	    {.key = "top_kernel",
	     .header = RM_T("top kernel"),
	     .kind = RM_NAME,
	     .json = 1,
	     .width = 36,
	     .left = 1,
	     .trunc = 1},
	};
	const struct an_families *F = &a->fam;
	struct rm_section *s = rm_section_add(r, "families", RM_T("KERNEL FAMILIES (busy time)"),
					      RM_SJ_OBJECT, "families", JP_FAMILIES);
	TRYP(s);
	size_t n = 0;
	for (int f = 0; f < KF_COUNT; f++)
		n += F->f[f].kernels > 0;
	int copies = a->copy_ns + a->memset_ns > 0;
	s->text = n + (size_t)copies > 1; /* one family alone says nothing new */
	TRY(rm_field_add(s, "sampled_ns", 1, rm_dur(F->sampled_ns)));
	TRY(rm_field_add(s, "mixed_ns", 1, rm_dur(F->mixed_ns)));
	double mixed = F->sampled_ns > 0 ? 100.0 * (double)F->mixed_ns / (double)F->sampled_ns : 0;
	TRY(rm_field_add(s, "mixed_pct", 1, rm_if(F->sampled_ns > 0, rm_pct(mixed, 1))));
	struct rm_table *t =
	    rm_table_add(r, s, "families", RM_TJ_ARRAY, cols, NCOLS(cols), n + (size_t)copies);
	TRYP(t);
	size_t row = 0;
	for (int f = 0; f < KF_COUNT; f++) {
		const struct an_family *x = &F->f[f];
		if (!x->kernels)
			continue;
		const char *v = an_family_verdict(a, f);
		int sampled = x->sampled_ns > 0;
		rm_set(t, row, 0, rm_text(kfam_name((enum kfam)f)));
		rm_set(t, row, 1, rm_text(kfam_label((enum kfam)f)));
		rm_set(t, row, 2, rm_count(x->kernels));
		rm_set(t, row, 3, rm_dur(x->kernel_ns));
		rm_set(t, row, 4, rm_pct(an_pct(a, (double)x->kernel_ns), 1));
		/* no window of its own: "mixed" when sampled, "none" without samples */
		rm_set(t, row, 5, rm_text(v ? v : F->sampled_ns > 0 ? "mixed" : "none"));
		rm_set(t, row, 6, rm_dur(x->sampled_ns));
		rm_set(t, row, 7, rm_if(sampled, rm_pct(100.0 * x->mem, 1)));
		rm_set(t, row, 8, rm_if(sampled, rm_pct(100.0 * x->compute, 1)));
		rm_set(t, row, 9, rm_if(sampled, rm_pct(100.0 * x->latency, 1)));
		rm_set(t, row, 10, rm_if(sampled, rm_pct(x->dram, 1)));
		rm_set(t, row, 11, rm_if(sampled, rm_pct(x->pipe, 1)));
		rm_set(t, row, 12,
		       rm_cell_styled(rm_cell_str(RM_NAME, trace_str(a->t, x->top_name_id)),
				      RM_STYLE_BASE_NAME));
		row++;
	}
	if (copies) {
		rm_set(t, row, 0, rm_text("copies"));
		rm_set(t, row, 1, rm_text("copies and memsets"));
		rm_set(t, row, 2, rm_count(a->n_copies + a->n_memsets));
		rm_set(t, row, 3, rm_dur(a->copy_ns + a->memset_ns));
		rm_set(t, row, 4, rm_pct(an_pct(a, (double)(a->copy_ns + a->memset_ns)), 1));
		rm_set(t, row, 5, rm_text(""));
		rm_set(t, row, 12, rm_cell_str(RM_NAME, ""));
	}
	if (F->sampled_ns > 0)
		TRYP(rm_line_add(
		    s, " ", "    ",
		    RM_T("verdicts from the GPM windows one family dominates (>= "
			 "{th.family_dominant} of their kernel time); {mixed_pct} of the "
			 "sampled busy time mixed families: no verdict from it")));
	else if (a->prog.rocm) /* no GPM on AMD: ROCm's counters instead */
		TRYP(rm_line_add(s, " ", "    ",
				 RM_T("no hardware counters in the trace: no per-family verdict "
				      "(rocprofv3 --pmc or rocprofiler-compute give per-kernel "
				      "counters)")));
	else
		TRYP(rm_line_add(s, " ", "    ",
				 RM_T("no GPM samples: no per-family verdict (record on a GPU with "
				      "GPM, or with --metrics kernels)")));
	return 0;
}
