/*
 * report_comm.c - the report's RANKS section (comm.h): per rank of a
 * distributed run its busy time (computation or communication), computation,
 * communication, the part of it
 * no computation hides, and its wait in collectives for later ranks; the
 * straggler and the load imbalance across ranks. Only runs with
 * communication (NCCL kernels or host collectives) have the section, so a
 * single-process report is unchanged.
 */
#include "diagnose/summary.h"
#include "report/report_int.h"

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))
#define DUR(k, h)                                                                                  \
	{                                                                                          \
		.key = k, .header = h, .kind = RM_DURATION, .json = 1, .width = 10                 \
	}

int rm_build_ranks(struct report *r, const struct analysis_result *res)
{
	static const struct rm_column cols[] = {
	    {.key = "rank", .header = RM_T("rank"), .kind = RM_COUNT, .json = 1, .width = 5},
	    {.key = "pid", .header = RM_T("pid"), .kind = RM_COUNT, .json = 1, .width = 8},
	    {.key = "device", .header = RM_T("dev"), .kind = RM_COUNT, .json = 1, .width = 4},
	    DUR("busy_ns", RM_T("busy")),
	    DUR("compute_ns", RM_T("compute")),
	    DUR("comm_ns", RM_T("comm")),
	    DUR("exposed_ns", RM_T("exposed")),
	    DUR("wait_ns", RM_T("waiting")),
	    {.key = "collectives",
	     .header = RM_T("colls"),
	     .kind = RM_COUNT,
	     .json = 1,
	     .width = 6},
	    {.key = "last_to_arrive",
	     .header = RM_T("last"),
	     .kind = RM_COUNT,
	     .json = 1,
	     .width = 5},
	};
	const struct comm_stats *c = &res->comm;
	if (c->n == 0)
		return 0;
	struct rm_section *s = rm_section_add(
	    r, "ranks", RM_T("RANKS (communication across ranks; exposed = not hidden by compute)"),
	    RM_SJ_OBJECT, "ranks", JP_RANKS);
	TRYP(s);
	TRY(rm_field_add(s, "ranks", 1, rm_count(c->n)));
	TRY(rm_field_add(s, "collectives_matched", 1, rm_count(c->matched)));
	TRY(rm_field_add(s, "top_collective", 1, rm_text(c->top_kind)));
	TRY(rm_field_add(
	    s, "straggler_rank", 1,
	    rm_if(c->straggler >= 0,
		  rm_count(c->straggler >= 0 ? (uint64_t)c->r[c->straggler].rank : 0))));
	TRY(rm_field_add(s, "imbalance_pct", 1, rm_pct(100.0 * c->imbalance, 1)));
	struct rm_line *l = rm_line_add(
	    s, "  ", NULL,
	    RM_T("{ranks} ranks, {matched} collectives matched on every rank (mostly {kind}); "
		 "compute imbalance {imbalance} of the mean"));
	TRYP(l);
	rm_line_arg(l, "ranks", rm_count(c->n));
	rm_line_arg(l, "matched", rm_count(c->matched));
	rm_line_arg(l, "kind", rm_text(c->top_kind[0] ? c->top_kind : "-"));
	rm_line_arg(l, "imbalance", rm_pct(100.0 * c->imbalance, 1));
	if (c->straggler >= 0) {
		const struct comm_rank *x = &c->r[c->straggler];
		l = rm_line_add(s, "  ", NULL,
				RM_T("straggler: rank {rank} arrived last in {last} of them; the "
				     "others waited {late} for it in all"));
		TRYP(l);
		rm_line_arg(l, "rank", rm_count((uint64_t)x->rank));
		rm_line_arg(l, "last", rm_count(x->last_to_arrive));
		rm_line_arg(l, "late", rm_dur(x->late_ns));
	}
	struct rm_table *t = rm_table_add(r, s, "per_rank", RM_TJ_ARRAY, cols, NCOLS(cols), c->n);
	TRYP(t);
	for (size_t i = 0; i < c->n; i++) {
		const struct comm_rank *x = &c->r[i];
		rm_set(t, i, 0, rm_count((uint64_t)x->rank));
		rm_set(t, i, 1, rm_count(x->pid));
		rm_set(t, i, 2, rm_count(x->device));
		rm_set(t, i, 3, rm_dur(x->compute_ns + x->comm_ns - x->overlap_ns));
		rm_set(t, i, 4, rm_dur(x->compute_ns));
		rm_set(t, i, 5, rm_dur(x->comm_ns));
		rm_set(t, i, 6, rm_dur(x->exposed_ns));
		rm_set(t, i, 7, rm_dur(x->wait_ns));
		rm_set(t, i, 8, rm_count(x->collectives));
		rm_set(t, i, 9, rm_count(x->last_to_arrive));
	}
	return 0;
}

int rm_build_rank_summaries(struct report *r, const struct summary_job *j)
{
	static const struct rm_column cols[] = {
	    {.key = "rank", .header = RM_T("rank"), .kind = RM_COUNT, .json = 1, .width = 5},
	    {.key = "device", .header = RM_T("dev"), .kind = RM_COUNT, .json = 1, .width = 4},
	    DUR("span_ns", RM_T("span")),
	    DUR("busy_ns", RM_T("busy")),
	    {.key = "kernels", .header = RM_T("kernels"), .kind = RM_COUNT, .json = 1, .width = 9},
	    {.key = "findings", .header = RM_T("finds"), .kind = RM_COUNT, .json = 1, .width = 6},
	    {.key = "primary", .header = RM_T("primary"), .kind = RM_TEXT, .json = 1, .width = 18},
	    {.key = "file", .header = RM_T("summary"), .kind = RM_TEXT, .json = 1, .width = 0},
	};
	struct rm_section *s =
	    rm_section_add(r, "rank_summaries", RM_T("RANK SUMMARIES (each rank's own analysis)"),
			   RM_SJ_OBJECT, "rank_summaries", JP_RANK_SUMMARIES);
	TRYP(s);
	TRY(rm_field_add(s, "summaries", 1, rm_count(j->n)));
	struct rm_table *t =
	    rm_table_add(r, s, "per_summary", RM_TJ_ARRAY, cols, NCOLS(cols), j->n);
	TRYP(t);
	for (size_t i = 0; i < j->n; i++) {
		const struct summary_rank *x = &j->ranks[i];
		rm_set(t, i, 0,
		       rm_if(x->rank >= 0, rm_count(x->rank >= 0 ? (uint64_t)x->rank : 0)));
		rm_set(t, i, 1, rm_count(x->device));
		rm_set(t, i, 2, rm_dur(x->end_ns - x->start_ns));
		rm_set(t, i, 3, rm_dur(x->busy_ns));
		rm_set(t, i, 4, rm_count(x->n_kernels));
		rm_set(t, i, 5, rm_count(x->n_findings));
		const char *p = rm_strdup(r, x->primary), *f = rm_strdup(r, x->path);
		TRYP(p);
		TRYP(f);
		rm_set(t, i, 6, rm_if(x->primary[0] != 0, rm_text(p)));
		rm_set(t, i, 7, rm_text(f));
	}
	return 0;
}
