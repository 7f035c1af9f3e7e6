/*
 * idle_parts.c - the idle breakdown's gaps on several threads (issue 38:
 * the idle breakdown was the longest pass on one core). The gaps are cut into parts of about as
 * many calls each, at gap starts T_k. A part's four cursors start at T_k in the state the
 * sequential walk has there: the next call and sync record starting at or after T_k, and the union
 * as far as the calls before T_k reach (M: the latest end, launches extended to their op's start,
 * syncs by their relaunch, over the calls of the cursor's classes that start before T_k). cover()
 * and cover_split() read the union only from the gap's start on, and the end of the last union
 * passed only when no union spans it, which is then M. So every gap gets the same four covers as on
 * one thread. First each part's calls are read once (ext: each launch's extended end, and the
 * latest end per class), then the parts' gaps; the sums are integers, and the chart bins add in
 * time order (series.h: an_gap_sink).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/idle_int.h"
#include "diagnose/thresholds.h"

#define PARTS_PER_CPU 4
#define MAX_PARTS 256

struct idle_part {
	size_t g0, g1;	  /* gaps [g0, g1) */
	int64_t from;	  /* T: where the first gap starts */
	size_t ia, is;	  /* the first call and sync record at or after T */
	int64_t top[4];	  /* the latest end per class of this part's calls (INT64_MIN: none) */
	int64_t reach[4]; /* the same over the parts before it */
	struct an_idle idle;
	struct an_gap_sink sink;
	struct launch_ends *ends;
};

struct idle_split {
	struct analysis *a;
	struct idle_part *p;
	size_t n, next; /* next: atomic */
	int32_t *ext;
	int64_t *host, *disp;
	int phase;
};

static int cls_bit(int cls)
{
	return cls == C_SYNC ? 0 : cls == C_COPY ? 1 : cls == C_LAUNCH ? 2 : 3;
}

/* The latest ends of part k's calls by class, and its launches' ext. */
static void part_calls(struct idle_split *j, struct idle_part *k, size_t ia_end, size_t is_end)
{
	struct analysis *a = j->a;
	const struct trace *t = a->t;
	for (int c = 0; c < 4; c++)
		k->top[c] = INT64_MIN;
	for (size_t i = k->ia; i < ia_end; i++) {
		const struct trace_api *p = &t->apis[i];
		int64_t e = p->end_ns;
		int cls;
		if (p->kind == API_SYNC) {
			cls = C_SYNC;
		} else if (p->kind == API_MEMCPY || p->kind == API_MEMSET) {
			cls = C_COPY;
		} else if (p->kind == API_LAUNCH) {
			cls = C_LAUNCH;
			uint32_t r = an_corr_find(a, p->pid, p->correlation);
			int64_t d = 0;
			if (r != AN_OP_NONE) {
				int64_t os, oe;
				an_op_span(a, r, &os, &oe);
				if (os > e) {
					d = os - e;
					e = os;
				}
			}
			j->ext[i] = d > INT32_MAX ? EXT_FAR : (int32_t)d;
		} else {
			cls = C_API;
		}
		if (cls == C_SYNC) { /* next_raw's relaunch */
			int64_t nb = an_next_busy(a, e), lim = e + TH_SYNC_RELAUNCH_NS;
			e = nb < lim ? (nb > e ? nb : e) : lim;
		}
		int b = cls_bit(cls);
		k->top[b] = e > k->top[b] ? e : k->top[b];
	}
	for (size_t i = k->is; i < is_end; i++) {
		int64_t e = t->syncs[i].end_ns;
		int64_t nb = an_next_busy(a, e), lim = e + TH_SYNC_RELAUNCH_NS;
		e = nb < lim ? (nb > e ? nb : e) : lim;
		k->top[0] = e > k->top[0] ? e : k->top[0];
	}
}

/* Part k's gaps with its own cursors, started at T as the sequential walk
 * has them there. */
static void part_gaps(struct idle_split *j, struct idle_part *k)
{
	struct analysis *a = j->a;
	static const int masks[4] = {C_LAUNCH, C_LAUNCH | C_SYNC, C_LAUNCH | C_SYNC | C_COPY,
				     C_LAUNCH | C_SYNC | C_COPY | C_API};
	struct cursor cur[4];
	memset(cur, 0, sizeof(cur));
	for (int m = 0; m < 4; m++) {
		struct cursor *c = &cur[m];
		c->a = a;
		c->ext = j->ext;
		c->ends = k->ends;
		c->mask = masks[m];
		c->ia = k->ia;
		c->is = k->is;
		c->has_horizon = 1;
		c->horizon = k->g1 - 1 < a->n_busy ? a->busy[k->g1 - 1].start : a->end_ns;
		int64_t reach = INT64_MIN;
		for (int b = 0; b < 4; b++)
			if ((masks[m] >> b) & 1 && k->reach[b] > reach)
				reach = k->reach[b];
		if (reach == INT64_MIN)
			continue; /* no call of its classes before T */
		if (reach <= k->from) {
			c->has_last = 1; /* the last union before T ends at its reach */
			c->last_end = reach;
			continue;
		}
		/* a union spans T: to its end, as advance() builds it */
		c->valid = 1;
		c->us = k->from;
		c->ue = reach;
		int64_t s, e;
		while (c->ue <= c->horizon && an_idle_next_raw(c, &s, &e)) {
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
	}
	struct idle_acc acc = {.d = &k->idle, .sink = &k->sink};
	int64_t at = k->from;
	for (size_t g = k->g0; g < k->g1; g++) {
		int64_t end = g < a->n_busy ? a->busy[g].start : a->end_ns;
		an_idle_gap(a, &acc, cur, at, end, &j->host[g], &j->disp[g]);
		if (g < a->n_busy && a->busy[g].end > at)
			at = a->busy[g].end;
	}
}

static void *split_thread(void *arg)
{
	struct idle_split *j = arg;
	size_t k;
	const struct trace *t = j->a->t;
	while ((k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->n) {
		struct idle_part *p = &j->p[k];
		if (j->phase == 0)
			part_calls(j, p, k + 1 < j->n ? p[1].ia : t->n_apis,
				   k + 1 < j->n ? p[1].is : t->n_syncs);
		else
			part_gaps(j, p);
	}
	return NULL;
}

int an_idle_split(struct analysis *a, int cpus, int64_t *host, int64_t *disp)
{
	const struct trace *t = a->t;
	size_t want = (size_t)cpus * PARTS_PER_CPU, ng = a->n_busy + 1;
	want = want > MAX_PARTS ? MAX_PARTS : want;
	struct idle_split j = {.a = a, .host = host, .disp = disp};
	j.p = calloc(want, sizeof(*j.p));
	if (!j.p)
		return -1;
	/* cuts at gap starts, about n_apis / want calls apart */
	size_t last = 0;
	j.p[j.n++].g0 = 0;
	for (size_t k = 1; k < want; k++) {
		int64_t ts = t->apis[t->n_apis * k / want].start_ns;
		size_t g = an_busy_index(a, ts);
		if (g > last && g < ng) {
			j.p[j.n++].g0 = g;
			last = g;
		}
	}
	if (j.n < 2) {
		free(j.p);
		return 1;
	}
	int rc = -1;
	for (size_t k = 0; k < j.n; k++) {
		struct idle_part *p = &j.p[k];
		p->g1 = k + 1 < j.n ? p[1].g0 : ng;
		size_t g = p->g0;
		p->from = a->start_ns;
		if (g > 0 && a->busy[g - 1].end > p->from)
			p->from = a->busy[g - 1].end;
		if (k) {
			AN_LOWER_START(t->apis, t->n_apis, p->from, p->ia);
			AN_LOWER_START(t->syncs, t->n_syncs, p->from, p->is);
		}
		if (!(p->ends = calloc(1, sizeof(*p->ends))))
			goto out;
	}
	if (!(j.ext = malloc((t->n_apis ? t->n_apis : 1) * sizeof(*j.ext))))
		goto out;
	int nth = cpus < (int)j.n ? cpus : (int)j.n;
	for (j.phase = 0; j.phase < 2; j.phase++) {
		pthread_t th[MAX_PARTS];
		int more = 0;
		j.next = 0;
		while (more + 1 < nth && pthread_create(&th[more], NULL, split_thread, &j) == 0)
			more++;
		split_thread(&j);
		for (int i = 0; i < more; i++)
			pthread_join(th[i], NULL);
		if (j.phase == 0) /* what the calls before each part reach */
			for (size_t k = 0; k < j.n; k++)
				for (int b = 0; b < 4; b++) {
					int64_t r = k ? j.p[k - 1].reach[b] : INT64_MIN;
					int64_t x = k ? j.p[k - 1].top[b] : INT64_MIN;
					j.p[k].reach[b] = r > x ? r : x;
				}
	}
	/* the parts' sums in time order */
	rc = 0;
	struct an_idle *d = &a->idle;
	for (size_t k = 0; k < j.n; k++) {
		const struct an_idle *x = &j.p[k].idle;
		d->total_ns += x->total_ns;
		d->launch_ns += x->launch_ns;
		d->sync_ns += x->sync_ns;
		d->copy_ns += x->copy_ns;
		d->api_ns += x->api_ns;
		d->dispatch_ns += x->dispatch_ns;
		d->host_ns += x->host_ns;
		d->gaps += x->gaps;
		d->gaps_ge_500ms += x->gaps_ge_500ms;
		if (x->longest_gap_ns > d->longest_gap_ns)
			d->longest_gap_ns = x->longest_gap_ns;
		if (an_series_gap_merge(a, &j.p[k].sink) < 0)
			rc = -1;
	}
out:
	for (size_t k = 0; k < j.n; k++) {
		free(j.p[k].ends);
		free(j.p[k].sink.first);
	}
	free(j.ext);
	free(j.p);
	return rc;
}
