/*
 * rules_comm.c - the job rules over the ranks of a distributed run
 * (comm.h): comm_exposed (collectives no computation hides) and straggler
 * (one rank arrives last and the others wait for it). Both read the
 * result's cross-rank statistics; impacts are shares of the job's
 * analysed span, like every other finding's.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/comm.h"
#include "diagnose/rules_int.h"
#include "util/error.h"
#include "util/i18n.h"

static int oom(char *err)
{
	return error_set(err, "out of memory");
}

/* The rank whose exposed communication is the largest, -1 when none. */
static int most_exposed(const struct comm_stats *c)
{
	int best = -1;
	for (size_t i = 0; i < c->n; i++)
		if (c->r[i].comm_ns && (best < 0 || c->r[i].exposed_ns > c->r[best].exposed_ns))
			best = (int)i;
	return best;
}

int rule_comm_exposed(struct rule_ctx *ctx, const struct rule *r, char *err)
{
	struct analysis *a = ctx->a;
	const struct comm_stats *c = ctx->res ? &ctx->res->comm : NULL;
	if (!c || c->n < 2 || a->span_ns <= 0)
		return 0;
	int w = most_exposed(c);
	if (w < 0)
		return 0;
	const struct comm_rank *x = &c->r[w];
	double sum = 0;
	for (size_t i = 0; i < c->n; i++)
		sum += (double)c->r[i].exposed_ns;
	double impact = an_pct(a, sum / (double)c->n);
	double worst = an_pct(a, (double)x->exposed_ns);
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f = finding_add(
	    &a->findings, r->id, rule_sev(impact),
	    N_("communication no computation hides takes %.1f%% of the run on the average rank, "
	       "%.1f%% on rank %d (%.1f of its %.1f ms in %s collectives)"),
	    impact, worst, x->rank, rule_ms(x->exposed_ns), rule_ms(x->comm_ns),
	    c->top_kind[0] ? c->top_kind : "");
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "exposed_pct", impact);
	finding_num(f, "ranks", (double)c->n);
	finding_num(f, "rank", (double)x->rank);
	finding_num(f, "rank_exposed_pct", worst);
	finding_num(f, "comm_ms", rule_ms(x->comm_ns));
	finding_num(f, "exposed_ms", rule_ms(x->exposed_ns));
	finding_num(f, "overlap_pct",
		    x->comm_ns ? 100.0 * (double)x->overlap_ns / (double)x->comm_ns : 0);
	finding_num(f, "wait_ms", rule_ms(x->wait_ns));
	finding_num(f, "collectives", (double)x->collectives);
	finding_str(f, "collective", "%s", c->top_kind);
	int host = c->host; /* no rank has a communication kernel: gloo, MPI */
	finding_str(f, "backend", "%s", host ? "host (gloo/MPI)" : "NCCL");
	if (x->exposed_ns && 2 * x->wait_ns >= x->exposed_ns && c->straggler >= 0)
		finding_action(f,
			       N_("most of it is rank %d waiting for rank %d to arrive (%.1f ms): "
				  "balance the work first (see straggler)"),
			       x->rank, c->r[c->straggler].rank, rule_ms(x->wait_ns));
	if (host) {
		finding_action(f, N_("the collectives run on the host (gloo): the GPU idles while "
				     "they move data through host memory; use backend=\"nccl\" for "
				     "CUDA tensors"));
		finding_action(f, N_("or start them with async_op=True and compute before wait()"));
	} else {
		finding_action(f, N_("overlap them with computation: DDP overlaps gradient "
				     "all-reduce with backward by buckets (bucket_cap_mb); FSDP "
				     "prefetches (forward_prefetch, backward_prefetch)"));
		finding_action(f, N_("fewer, larger collectives (gradient accumulation with "
				     "no_sync(), bigger buckets); check the interconnect (NVLink, "
				     "NCCL_DEBUG=INFO shows the transport)"));
	}
	return 0;
}

int rule_straggler(struct rule_ctx *ctx, const struct rule *r, char *err)
{
	struct analysis *a = ctx->a;
	const struct comm_stats *c = ctx->res ? &ctx->res->comm : NULL;
	if (!c || c->n < 2 || c->straggler < 0 || a->span_ns <= 0)
		return 0;
	const struct comm_rank *s = &c->r[c->straggler];
	double others = 0, others_compute = 0;
	for (size_t i = 0; i < c->n; i++)
		if ((int)i != c->straggler) {
			others += (double)c->r[i].wait_ns;
			others_compute += (double)c->r[i].compute_ns;
		}
	others /= (double)(c->n - 1);
	others_compute /= (double)(c->n - 1);
	double impact = an_pct(a, others);
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f = finding_add(
	    &a->findings, r->id, rule_sev(impact),
	    N_("rank %d is the straggler: it arrived last in %llu of %llu collectives and the "
	       "other ranks wait for it %.1f%% of the run (%.1f ms each); it computes %.1f ms, "
	       "they %.1f ms"),
	    s->rank, (unsigned long long)s->last_to_arrive, (unsigned long long)c->matched, impact,
	    others / 1e6, rule_ms(s->compute_ns), others_compute / 1e6);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "wait_pct", impact);
	finding_num(f, "straggler_rank", (double)s->rank);
	finding_num(f, "straggler_pid", (double)s->pid);
	finding_num(f, "last_to_arrive", (double)s->last_to_arrive);
	finding_num(f, "collectives", (double)c->matched);
	finding_num(f, "others_wait_ms", others / 1e6);
	finding_num(f, "straggler_compute_ms", rule_ms(s->compute_ns));
	finding_num(f, "others_compute_ms", others_compute / 1e6);
	finding_num(f, "imbalance_pct", 100.0 * c->imbalance);
	if (s->compute_ns > others_compute * TH_STRAGGLER_COMPUTE_EXCESS)
		finding_action(f,
			       N_("rank %d computes %.0f%% more than the others: give it the same "
				  "work (the same shard size and sequence lengths; extra work only "
				  "it does, such as logging or checkpointing, off the step)"),
			       s->rank, 100.0 * ((double)s->compute_ns / others_compute - 1));
	else
		finding_action(f, N_("its GPU work is no longer than the others': look at its host "
				     "(data loading, CPU contention) and its GPU (clocks, "
				     "throttling: gpuscope doctor)"));
	finding_action(f, N_("gpuscope report --device %u diagnoses that rank's GPU alone"),
		       s->device);
	return 0;
}
