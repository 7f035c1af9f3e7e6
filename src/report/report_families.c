/*
 * report_families.c - the report's KERNEL FAMILIES section (families.h):
 * the busy time by family (GEMM/convolution, attention,
 * elementwise/reduction, communication, own kernels, and copies), each
 * family's verdict where the GPM windows it dominates support one, and how
 * much of the sampled time was mixed (no verdict).
 */
#include "report/report_int.h"

/* A row: a family with kernels, or the copies and memsets (copies: fam
 * is all zero, nothing sampled). ctx: the analysis. */
struct fam_row {
	const char *name, *label, *verdict, *top;
	uint64_t kernels;
	int64_t ns;
	const struct an_family *fam;
	int copies;
};
RM_FILL(fm_name, struct fam_row, rm_text(x->name))
RM_FILL(fm_label, struct fam_row, rm_text(x->label))
RM_FILL(fm_kernels, struct fam_row, rm_count(x->kernels))
RM_FILL(fm_busy_ns, struct fam_row, rm_dur(x->ns))
RM_FILL(fm_busy_pct, struct fam_row, rm_pct(an_pct(w->ctx, (double)x->ns), 1))
RM_FILL(fm_verdict, struct fam_row, rm_text(x->verdict))
RM_FILL(fm_sampled, struct fam_row, rm_if(!x->copies, rm_dur(x->fam->sampled_ns)))
RM_FILL(fm_mem, struct fam_row, rm_if(x->fam->sampled_ns > 0, rm_pct(100.0 * x->fam->mem, 1)))
RM_FILL(fm_compute, struct fam_row,
	rm_if(x->fam->sampled_ns > 0, rm_pct(100.0 * x->fam->compute, 1)))
RM_FILL(fm_latency, struct fam_row,
	rm_if(x->fam->sampled_ns > 0, rm_pct(100.0 * x->fam->latency, 1)))
RM_FILL(fm_dram, struct fam_row, rm_if(x->fam->sampled_ns > 0, rm_pct(x->fam->dram, 1)))
RM_FILL(fm_pipe, struct fam_row, rm_if(x->fam->sampled_ns > 0, rm_pct(x->fam->pipe, 1)))
RM_FILL(fm_top, struct fam_row,
	rm_cell_styled(rm_cell_str(RM_NAME, x->top),
		       x->copies ? RM_STYLE_DEFAULT : RM_STYLE_BASE_NAME))

int rm_build_families(struct report *r, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {{.key = "family", .kind = RM_TEXT, .json = 1}, fm_name},
	    {{.header = RM_T("family"), .kind = RM_TEXT, .width = 22, .left = 1}, fm_label},
	    {{.key = "kernels", .header = RM_T("kernels"), .kind = RM_COUNT, .json = 1, .width = 8},
	     fm_kernels},
	    {{.key = "busy_ns",
	      .header = RM_T("busy"),
	      .kind = RM_DURATION,
	      .json = 1,
	      .width = 10},
	     fm_busy_ns},
	    {{.key = "busy_pct",
	      .header = RM_T("of span"),
	      .kind = RM_PERCENT,
	      .json = 1,
	      .width = 7},
	     fm_busy_pct},
	    {{.key = "verdict",
	      .header = RM_T("verdict"),
	      .kind = RM_TEXT,
	      .json = 1,
	      .width = 8,
	      .left = 1},
	     fm_verdict},
	    {{.key = "sampled_ns", .kind = RM_DURATION, .json = 1}, fm_sampled},
	    {{.key = "memory_bound_pct", .kind = RM_PERCENT, .json = 1}, fm_mem},
	    {{.key = "compute_bound_pct", .kind = RM_PERCENT, .json = 1}, fm_compute},
	    {{.key = "latency_bound_pct", .kind = RM_PERCENT, .json = 1}, fm_latency},
	    {{.key = "dram_pct", .kind = RM_PERCENT, .json = 1}, fm_dram},
	    {{.key = "pipe_pct", .kind = RM_PERCENT, .json = 1}, fm_pipe},
	    {{.key = "top_kernel",
	      .header = RM_T("top kernel"),
	      .kind = RM_NAME,
	      .json = 1,
	      .width = 36,
	      .left = 1,
	      .trunc = 1},
	     fm_top},
	};
	static const struct an_family none;
	const struct an_families *F = &a->fam;
	struct rm_section *s = rm_section_add(r, "families", RM_T("KERNEL FAMILIES (busy time)"),
					      RM_SJ_OBJECT, "families", JP_FAMILIES);
	TRYP(s);
	struct fam_row rows[KF_COUNT + 1];
	size_t n = 0;
	for (int f = 0; f < KF_COUNT; f++) {
		const struct an_family *x = &F->f[f];
		if (!x->kernels)
			continue;
		const char *v = an_family_verdict(a, f);
		/* no window of its own: "mixed" when sampled, "none" without samples */
		rows[n++] = (struct fam_row){
		    .name = kfam_name((enum kfam)f),
		    .label = kfam_label((enum kfam)f),
		    .verdict = v		   ? v
			       : F->sampled_ns > 0 ? "mixed"
						   : "none",
		    .top = trace_str(a->t, x->top_name_id),
		    .kernels = x->kernels,
		    .ns = x->kernel_ns,
		    .fam = x,
		};
	}
	int copies = a->copy_ns + a->memset_ns > 0;
	if (copies)
		rows[n] = (struct fam_row){
		    .name = "copies",
		    .label = "copies and memsets",
		    .verdict = "",
		    .top = "",
		    .kernels = a->n_copies + a->n_memsets,
		    .ns = a->copy_ns + a->memset_ns,
		    .fam = &none,
		    .copies = 1,
		};
	s->text = n + (size_t)copies > 1; /* one family alone says nothing new */
	TRY(rm_field_add(s, "sampled_ns", 1, rm_dur(F->sampled_ns)));
	TRY(rm_field_add(s, "mixed_ns", 1, rm_dur(F->mixed_ns)));
	double mixed = F->sampled_ns > 0 ? 100.0 * (double)F->mixed_ns / (double)F->sampled_ns : 0;
	TRY(rm_field_add(s, "mixed_pct", 1, rm_if(F->sampled_ns > 0, rm_pct(mixed, 1))));
	TRYP(rm_table_fill(r, s, "families", RM_TJ_ARRAY, cols, NCOLS(cols), rows, sizeof(*rows),
			   n + (size_t)copies, a));
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
