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

#define DUR(k, h)                                                                                  \
	{                                                                                          \
		.key = k, .header = h, .kind = RM_DURATION, .json = 1, .width = 10                 \
	}

/* a rank of the run */
RM_FILL(rk_rank, struct comm_rank, rm_count((uint64_t)x->rank))
RM_FILL(rk_pid, struct comm_rank, rm_count(x->pid))
RM_FILL(rk_device, struct comm_rank, rm_count(x->device))
RM_FILL(rk_busy, struct comm_rank, rm_dur(x->compute_ns + x->comm_ns - x->overlap_ns))
RM_FILL(rk_compute, struct comm_rank, rm_dur(x->compute_ns))
RM_FILL(rk_comm, struct comm_rank, rm_dur(x->comm_ns))
RM_FILL(rk_exposed, struct comm_rank, rm_dur(x->exposed_ns))
RM_FILL(rk_wait, struct comm_rank, rm_dur(x->wait_ns))
RM_FILL(rk_colls, struct comm_rank, rm_count(x->collectives))
RM_FILL(rk_last, struct comm_rank, rm_count(x->last_to_arrive))

int rm_build_ranks(struct report *r, const struct analysis_result *res)
{
	static const struct rm_entry cols[] = {
	    {{.key = "rank", .header = RM_T("rank"), .kind = RM_COUNT, .json = 1, .width = 5},
	     rk_rank},
	    {{.key = "pid", .header = RM_T("pid"), .kind = RM_COUNT, .json = 1, .width = 8},
	     rk_pid},
	    {{.key = "device", .header = RM_T("dev"), .kind = RM_COUNT, .json = 1, .width = 4},
	     rk_device},
	    {DUR("busy_ns", RM_T("busy")), rk_busy},
	    {DUR("compute_ns", RM_T("compute")), rk_compute},
	    {DUR("comm_ns", RM_T("comm")), rk_comm},
	    {DUR("exposed_ns", RM_T("exposed")), rk_exposed},
	    {DUR("wait_ns", RM_T("waiting")), rk_wait},
	    {{.key = "collectives",
	      .header = RM_T("colls"),
	      .kind = RM_COUNT,
	      .json = 1,
	      .width = 6},
	     rk_colls},
	    {{.key = "last_to_arrive",
	      .header = RM_T("last"),
	      .kind = RM_COUNT,
	      .json = 1,
	      .width = 5},
	     rk_last},
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
	TRYP(rm_table_fill(r, s, "per_rank", RM_TJ_ARRAY, cols, NCOLS(cols), c->r, sizeof(*c->r),
			   c->n, NULL));
	return 0;
}

/* a summary of a job's rank */
RM_FILL(rs_rank, struct summary_rank,
	rm_if(x->rank >= 0, rm_count(x->rank >= 0 ? (uint64_t)x->rank : 0)))
RM_FILL(rs_device, struct summary_rank, rm_count(x->device))
RM_FILL(rs_span, struct summary_rank, rm_dur(x->end_ns - x->start_ns))
RM_FILL(rs_busy, struct summary_rank, rm_dur(x->busy_ns))
RM_FILL(rs_kernels, struct summary_rank, rm_count(x->n_kernels))
RM_FILL(rs_findings, struct summary_rank, rm_count(x->n_findings))
RM_FILL(rs_primary, struct summary_rank,
	rm_if(x->primary[0] != 0, rm_made(w, rm_text(rm_strdup(w->r, x->primary)))))
RM_FILL(rs_file, struct summary_rank, rm_made(w, rm_text(rm_strdup(w->r, x->path))))

int rm_build_rank_summaries(struct report *r, const struct summary_job *j)
{
	static const struct rm_entry cols[] = {
	    {{.key = "rank", .header = RM_T("rank"), .kind = RM_COUNT, .json = 1, .width = 5},
	     rs_rank},
	    {{.key = "device", .header = RM_T("dev"), .kind = RM_COUNT, .json = 1, .width = 4},
	     rs_device},
	    {DUR("span_ns", RM_T("span")), rs_span},
	    {DUR("busy_ns", RM_T("busy")), rs_busy},
	    {{.key = "kernels", .header = RM_T("kernels"), .kind = RM_COUNT, .json = 1, .width = 9},
	     rs_kernels},
	    {{.key = "findings", .header = RM_T("finds"), .kind = RM_COUNT, .json = 1, .width = 6},
	     rs_findings},
	    {{.key = "primary", .header = RM_T("primary"), .kind = RM_TEXT, .json = 1, .width = 18},
	     rs_primary},
	    {{.key = "file", .header = RM_T("summary"), .kind = RM_TEXT, .json = 1, .width = 0},
	     rs_file},
	};
	struct rm_section *s =
	    rm_section_add(r, "rank_summaries", RM_T("RANK SUMMARIES (each rank's own analysis)"),
			   RM_SJ_OBJECT, "rank_summaries", JP_RANK_SUMMARIES);
	TRYP(s);
	TRY(rm_field_add(s, "summaries", 1, rm_count(j->n)));
	TRYP(rm_table_fill(r, s, "per_summary", RM_TJ_ARRAY, cols, NCOLS(cols), j->ranks,
			   sizeof(*j->ranks), j->n, NULL));
	return 0;
}
