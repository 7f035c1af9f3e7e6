/*
 * idle.c - why the GPU was idle: each gap of the GPU busy union is split
 * into time a blocking sync explains, time a copy call explains, launch
 * latency, and time the host spent outside CUDA (HTA's idle-time breakdown,
 * made causal with API timing and launch correlation).
 *
 * Precedence inside a gap: launch > sync > copy > host. Launch first: while
 * launched work is queued (or a launch call is in flight) the GPU is not
 * starved by a blocked host, even if the host sits in a sync call (a
 * pipeline that enqueues everything and waits once). The covering
 * intervals come from API calls (sorted by start), streamed through three
 * running unions with one cursor each, so the whole pass is linear.
 */
#include <limits.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/thresholds.h"

enum { C_SYNC = 1, C_COPY = 2, C_LAUNCH = 4 };

/* Streams the union of the covering intervals whose class is in `mask`. */
struct cursor {
	const struct analysis *a;
	int mask;
	size_t ia, is;	/* next api, next sync record */
	int64_t ps, pe; /* one raw interval of lookahead */
	int have_pending, done;
	int64_t us, ue; /* current union interval */
	int valid;
};
/* Next covering interval in start order from apis + sync records. */
static int next_raw(struct cursor *c, int64_t *s, int64_t *e)
{
	const struct trace *t = c->a->t;
	for (;;) {
		int64_t sa = c->ia < t->n_apis ? t->apis[c->ia].start_ns : INT64_MAX;
		int64_t ss = c->is < t->n_syncs ? t->syncs[c->is].start_ns : INT64_MAX;
		if (sa == INT64_MAX && ss == INT64_MAX)
			return 0;
		int cls;
		if (ss < sa) {
			const struct trace_sync *y = &t->syncs[c->is++];
			*s = y->start_ns;
			*e = y->end_ns;
			cls = C_SYNC;
		} else {
			const struct trace_api *p = &t->apis[c->ia++];
			*s = p->start_ns;
			*e = p->end_ns;
			if (p->kind == API_SYNC) {
				cls = C_SYNC;
			} else if (p->kind == API_MEMCPY || p->kind == API_MEMSET) {
				cls = C_COPY;
			} else if (p->kind == API_LAUNCH) {
				cls = C_LAUNCH;
				uint32_t r = an_corr_find(c->a, p->pid, p->correlation);
				if (r != AN_OP_NONE) {
					int64_t os, oe;
					an_op_span(c->a, r, &os, &oe);
					if (os > *e)
						*e = os; /* queued until the GPU starts it */
				}
			} else {
				continue;
			}
		}
		if (!(cls & c->mask))
			continue;
		if (cls == C_SYNC) {
			/* charge the relaunch after the sync too, up to a limit */
			int64_t nb = an_next_busy(c->a, *e);
			int64_t lim = *e + TH_SYNC_RELAUNCH_NS;
			*e = nb < lim ? (nb > *e ? nb : *e) : lim;
		}
		return 1;
	}
}

/* Builds the next disjoint union interval into us/ue; 0 when exhausted. */
static int advance(struct cursor *c)
{
	int64_t s, e;
	if (c->done)
		return 0;
	if (!c->have_pending && !next_raw(c, &c->ps, &c->pe)) {
		c->done = 1;
		return 0;
	}
	c->have_pending = 0;
	c->us = c->ps;
	c->ue = c->pe;
	while (next_raw(c, &s, &e)) {
		if (s <= c->ue) {
			if (e > c->ue)
				c->ue = e;
			continue;
		}
		c->ps = s;
		c->pe = e;
		c->have_pending = 1;
		break;
	}
	c->valid = 1;
	return 1;
}

/* Time of [g0, g1) the union covers; gaps must come in increasing order. */
static int64_t cover(struct cursor *c, int64_t g0, int64_t g1)
{
	int64_t sum = 0;
	for (;;) {
		if (!c->valid && !advance(c))
			return sum;
		if (c->ue <= g0) {
			c->valid = 0;
			continue;
		}
		if (c->us >= g1)
			return sum;
		int64_t s = c->us > g0 ? c->us : g0;
		int64_t e = c->ue < g1 ? c->ue : g1;
		sum += e - s;
		if (c->ue > g1)
			return sum;
		c->valid = 0;
	}
}

static void gap(struct analysis *a, struct cursor *cur, int64_t g0, int64_t g1)
{
	if (g1 <= g0)
		return;
	int64_t len = g1 - g0;
	int64_t c1 = cover(&cur[0], g0, g1); /* launch */
	int64_t c2 = cover(&cur[1], g0, g1); /* launch + sync */
	int64_t c3 = cover(&cur[2], g0, g1); /* launch + sync + copy */
	struct an_idle *d = &a->idle;
	d->total_ns += len;
	d->gaps++;
	if (len >= TH_GPU_GAP_NS)
		d->gaps_ge_500ms++;
	if (len > d->longest_gap_ns)
		d->longest_gap_ns = len;
	d->launch_ns += c1;
	d->sync_ns += c2 - c1;
	d->copy_ns += c3 - c2;
	if (len < TH_LAUNCH_GAP_NS)
		d->launch_ns += len - c3;
	else
		d->host_ns += len - c3;
}

int an_idle_breakdown(struct analysis *a, char *err)
{
	struct cursor cur[3];
	memset(cur, 0, sizeof(cur));
	int masks[3] = {C_LAUNCH, C_LAUNCH | C_SYNC, C_LAUNCH | C_SYNC | C_COPY};
	for (int i = 0; i < 3; i++) {
		cur[i].a = a;
		cur[i].mask = masks[i];
	}
	int64_t at = a->start_ns;
	for (size_t i = 0; i < a->n_busy; i++) {
		gap(a, cur, at, a->busy[i].start);
		if (a->busy[i].end > at)
			at = a->busy[i].end;
	}
	gap(a, cur, at, a->end_ns);

	/* synchronization statistics: calls, time, GPU idle they explain */
	const struct trace *t = a->t;
	struct an_sync_stats *y = &a->sync;
	for (size_t i = 0; i < t->n_apis; i++) {
		if (t->apis[i].kind != API_SYNC)
			continue;
		y->count++;
		y->sum_ns += t->apis[i].end_ns - t->apis[i].start_ns;
	}
	for (size_t i = 0; i < t->n_syncs; i++)
		y->by_kind[t->syncs[i].kind < 5 ? t->syncs[i].kind : 0]++;
	if (y->count == 0) {
		for (size_t i = 0; i < t->n_syncs; i++) {
			y->count++;
			y->sum_ns += t->syncs[i].end_ns - t->syncs[i].start_ns;
		}
	}
	y->idle_after_ns = a->idle.sync_ns;
	(void)err;
	return 0;
}
