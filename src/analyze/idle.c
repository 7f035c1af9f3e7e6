/*
 * idle.c - why the GPU was idle: each gap of the GPU busy union is split
 * into time a blocking sync explains, time a copy call explains, launch
 * latency, time inside other CUDA calls (allocation, free, module load), and
 * time the host spent outside CUDA (HTA's idle-time breakdown, made causal
 * with API timing and launch correlation).
 *
 * Precedence inside a gap: launch > sync > copy > other CUDA call > host.
 * Host time is split by the stretch it lies in: short stretches between
 * CUDA calls are dispatch (the framework issuing work call after call:
 * launch_overhead's business), long ones host work (input_pipeline's). Launch first: while
 * launched work is queued (or a launch call is in flight) the GPU is not
 * starved by a blocked host, even if the host sits in a sync call (a
 * pipeline that enqueues everything and waits once). The covering
 * intervals come from API calls (sorted by start), streamed through four
 * running unions with one cursor each, so the whole pass is linear.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "analyze/analysis_int.h"
#include "analyze/idle_int.h"
#include "trace/capture.h"
#include "diagnose/thresholds.h"
#include "util/cpus.h"
#include "util/error.h"

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
			size_t i = c->ia++;
			const struct trace_api *p = &t->apis[i];
			*s = p->start_ns;
			*e = p->end_ns;
			if (p->kind == API_SYNC) {
				cls = C_SYNC;
			} else if (p->kind == API_MEMCPY || p->kind == API_MEMSET) {
				cls = C_COPY;
			} else if (p->kind == API_LAUNCH) {
				cls = C_LAUNCH;
				struct launch_ends *k = c->ends;
				if (c->ext && c->ext[i] != EXT_FAR) {
					*e += c->ext[i];
				} else if (k && k->idx[i % LAUNCH_ENDS] == i + 1) {
					*e = k->end[i % LAUNCH_ENDS];
				} else {
					uint32_t r = an_corr_find(c->a, p->pid, p->correlation);
					if (r != AN_OP_NONE) {
						int64_t os, oe;
						an_op_span(c->a, r, &os, &oe);
						if (os > *e)
							*e =
							    os; /* queued until the GPU starts it */
					}
					if (k) {
						k->idx[i % LAUNCH_ENDS] = i + 1;
						k->end[i % LAUNCH_ENDS] = *e;
					}
				}
			} else {
				cls = C_API;
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
			if (c->has_horizon && c->ue > c->horizon) {
				c->done = 1; /* the last union any gap of the part reads */
				break;
			}
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

/* Like cover, and splits the uncovered time of [g0, g1) by the length of
 * the host stretch it lies in (from the end of one CUDA call to the start
 * of the next, measured beyond the gap): stretches shorter than
 * TH_HOST_WORK_NS are the framework issuing work call after call
 * (dispatch), longer ones are host work outside CUDA. */
static int64_t cover_split(struct cursor *c, int64_t g0, int64_t g1, int64_t *dispatch,
			   int64_t *work)
{
	int64_t sum = 0, pos = g0;
	for (;;) {
		int have = c->valid || advance(c);
		if (have && c->ue <= g0) {
			c->last_end = c->ue;
			c->has_last = 1;
			c->valid = 0;
			continue;
		}
		int64_t next = have ? c->us : INT64_MAX;
		if (next > pos) {
			int64_t e = next < g1 ? next : g1;
			int64_t from = c->has_last && c->last_end <= pos ? c->last_end : pos;
			int64_t to = next == INT64_MAX ? g1 : next;
			if (to - from < TH_HOST_WORK_NS)
				*dispatch += e - pos;
			else
				*work += e - pos;
		}
		if (!have || next >= g1)
			return sum;
		int64_t s = c->us > g0 ? c->us : g0;
		int64_t e = c->ue < g1 ? c->ue : g1;
		sum += e - s;
		pos = e;
		if (c->ue > g1)
			return sum;
		c->last_end = c->ue;
		c->has_last = 1;
		c->valid = 0;
	}
}

/* the union of the calls in mask, in start order, into a fresh *u */
static int union_of(const struct analysis *a, int mask, struct an_interval **u, size_t *n)
{
	struct cursor c = {.a = a, .mask = mask};
	size_t cap = 0;
	*u = NULL;
	*n = 0;
	while (advance(&c)) {
		struct an_interval *p = VEC_PUSH(*u, *n, cap);
		if (!p) {
			free(*u);
			*u = NULL;
			*n = 0;
			return -1;
		}
		*p = (struct an_interval){c.us, c.ue};
	}
	return 0;
}

int an_idle_unions(const struct analysis *a, struct an_interval *u[4], size_t n[4])
{
	static const int masks[4] = {C_LAUNCH, C_LAUNCH | C_SYNC, C_LAUNCH | C_SYNC | C_COPY,
				     C_LAUNCH | C_SYNC | C_COPY | C_API};
	for (int i = 0; i < 4; i++) {
		if (union_of(a, masks[i], &u[i], &n[i]) < 0) {
			for (int j = 0; j < i; j++)
				free(u[j]), u[j] = NULL;
			return -1;
		}
	}
	return 0;
}

int an_idle_union_all(const struct analysis *a, struct an_interval **u, size_t *n)
{
	return union_of(a, C_LAUNCH | C_SYNC | C_COPY | C_API, u, n);
}

long an_last_start(const struct an_interval *u, size_t n, int64_t ts)
{
	long lo = 0, hi = (long)n - 1, best = -1;
	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;
		if (u[mid].start <= ts)
			best = mid, lo = mid + 1;
		else
			hi = mid - 1;
	}
	return best;
}

/* The last call starting at or before lo (-1: none), from the cursor's
 * when lo did not go back */
static long last_call(const struct an_interval *u, size_t n, int64_t lo, struct an_host_cursor *c)
{
	long k;
	if (c && c->k >= 0 && (size_t)c->k < n && u[c->k].start <= lo) {
		k = c->k;
		while ((size_t)(k + 1) < n && u[k + 1].start <= lo)
			k++;
	} else {
		k = an_last_start(u, n, lo);
	}
	if (c)
		c->k = k;
	return k;
}

/* The host work in [lo, hi) of the long gap [g0, g1): its time outside
 * the calls' union u whose host stretch (from the end of one call to the
 * start of the next, measured beyond the gap, as cover_split does) lasts
 * TH_HOST_WORK_NS or more. */
static int64_t host_part(const struct an_interval *u, size_t n, int64_t g0, int64_t g1, int64_t lo,
			 int64_t hi, struct an_host_cursor *c)
{
	long k = last_call(u, n, lo, c);
	int64_t sum = 0, pos = lo;
	for (;;) {
		if (k >= 0 && u[k].end > pos)
			pos = u[k].end;
		if (pos >= hi)
			break;
		int64_t next = (size_t)(k + 1) < n ? u[k + 1].start : INT64_MAX;
		int64_t from = k >= 0 ? u[k].end : g0, to = next == INT64_MAX ? g1 : next;
		int64_t pe = next < hi ? next : hi;
		if (pe > pos && to - from >= TH_HOST_WORK_NS)
			sum += pe - pos;
		if (next >= hi)
			break;
		k++;
		pos = next;
	}
	return sum;
}

/* an_host_idle_in's, and in *synced (when not NULL) the host work of the
 * same stretches that sync_overlap charged to the sync before them */
static double host_idle_in(const struct analysis *a, const struct an_interval *u, size_t n,
			   int64_t s, int64_t e, struct an_host_cursor *c, double *synced);

int64_t an_host_idle_in(const struct analysis *a, const struct an_interval *u, size_t n, int64_t s,
			int64_t e, struct an_host_cursor *c)
{
	return (int64_t)(host_idle_in(a, u, n, s, e, c, NULL) + 0.5);
}

static double host_idle_in(const struct analysis *a, const struct an_interval *u, size_t n,
			   int64_t s, int64_t e, struct an_host_cursor *c, double *synced)
{
	if (s < a->start_ns)
		s = a->start_ns;
	if (e > a->end_ns)
		e = a->end_ns;
	if (s >= e)
		return 0;
	/* the gap s lies in (an_busy_index), from the cursor's when s did not
	 * go back */
	size_t g;
	if (c && c->g <= a->n_busy && (c->g == 0 || a->busy[c->g - 1].end <= s)) {
		g = c->g;
		while (g < a->n_busy && a->busy[g].end <= s)
			g++;
	} else {
		g = an_busy_index(a, s);
	}
	if (c)
		c->g = g;
	double sum = 0;
	for (; g <= a->n_busy; g++) {
		int64_t g0 = g > 0 ? a->busy[g - 1].end : a->start_ns;
		int64_t g1 = g < a->n_busy ? a->busy[g].start : a->end_ns;
		if (g0 >= e)
			break;
		int64_t lo = s > g0 ? s : g0, hi = e < g1 ? e : g1;
		if (hi > lo && g1 - g0 >= TH_LAUNCH_GAP_NS) {
			double frac = a->gap_sync_frac ? a->gap_sync_frac[g] : 0;
			double part = (double)host_part(u, n, g0, g1, lo, hi, c);
			sum += part * (1 - frac);
			if (synced)
				*synced += part * frac;
		}
	}
	return sum;
}

int an_host_idle_within(const struct analysis *a, const struct an_interval *v, size_t n,
			int64_t *host, int64_t *synced)
{
	*host = *synced = 0;
	if (!n)
		return 0;
	struct an_interval *u;
	size_t nu;
	if (an_idle_union_all(a, &u, &nu) < 0)
		return -1;
	struct an_host_cursor c = {0, -1};
	double h = 0, y = 0;
	for (size_t i = 0; i < n; i++)
		h += host_idle_in(a, u, nu, v[i].start, v[i].end, &c, &y);
	free(u);
	*host = (int64_t)(h + 0.5);
	*synced = (int64_t)(y + 0.5);
	return 0;
}

/* host time of each gap, indexed like busy (gap i ends where busy[i]
 * starts; gap n_busy runs to the end of the span) */
static void gap_part(struct analysis *a, struct idle_acc *acc, struct cursor *cur, int64_t g0,
		     int64_t g1, int64_t *host, int64_t *disp)
{
	*host = *disp = 0;
	if (g1 <= g0)
		return;
	int64_t len = g1 - g0;
	int64_t c1 = cover(&cur[0], g0, g1); /* launch */
	int64_t c2 = cover(&cur[1], g0, g1); /* launch + sync */
	int64_t c3 = cover(&cur[2], g0, g1); /* launch + sync + copy */
	int64_t dispatch = 0, work = 0;
	int64_t c4 = cover_split(&cur[3], g0, g1, &dispatch, &work); /* ... + other calls */
	struct an_idle *d = acc->d;
	d->total_ns += len;
	d->gaps++;
	if (len >= TH_GPU_GAP_NS)
		d->gaps_ge_500ms++;
	if (len > d->longest_gap_ns)
		d->longest_gap_ns = len;
	d->launch_ns += c1;
	d->sync_ns += c2 - c1;
	d->copy_ns += c3 - c2;
	d->api_ns += c4 - c3;
	int64_t v[AN_IDLE_CAUSES] = {[AN_IDLE_LAUNCH] = c1,
				     [AN_IDLE_SYNC] = c2 - c1,
				     [AN_IDLE_COPY] = c3 - c2,
				     [AN_IDLE_API] = c4 - c3};
	if (len < TH_LAUNCH_GAP_NS) {
		d->launch_ns += len - c4;
		v[AN_IDLE_LAUNCH] += len - c4;
	} else {
		d->host_ns += work;
		d->dispatch_ns += dispatch;
		*host = work;
		*disp = dispatch;
		v[AN_IDLE_HOST] = work;
		v[AN_IDLE_DISPATCH] = dispatch;
	}
	/* the charts' bins and gap histogram */
	if (acc->sink)
		an_series_gap_part(a, acc->sink, g0, g1, v);
	else
		an_series_gap(a, g0, g1, v, 1);
}

/* A gap, less its time outside record's capture windows (trace/capture.h):
 * that time was not recorded, so it is neither busy nor idle (the timeline
 * pass took it out of the span: uncaptured_ns). A trace without windows:
 * the whole gap. */
static void gap(struct analysis *a, struct idle_acc *acc, struct cursor *cur, int64_t g0,
		int64_t g1, int64_t *host, int64_t *disp)
{
	const struct trace *t = a->t;
	if (!t->n_capture_windows || g1 <= g0) {
		gap_part(a, acc, cur, g0, g1, host, disp);
		return;
	}
	*host = *disp = 0;
	for (size_t i = trace_capture_first(t, g0);
	     i < t->n_capture_windows && t->capture_windows[i].start_ns < g1; i++) {
		const struct trace_capture_window *w = &t->capture_windows[i];
		int64_t s = w->start_ns > g0 ? w->start_ns : g0,
			e = w->end_ns < g1 ? w->end_ns : g1;
		if (e <= s)
			continue;
		int64_t h, d;
		gap_part(a, acc, cur, s, e, &h, &d);
		*host += h;
		*disp += d;
	}
}

/* A blocking sync also costs the overlap it prevents: whatever the host does
 * after it (its bookkeeping, the next step's Python and launches) runs with
 * the GPU idle, where without the sync the host would have run ahead and
 * done it while the GPU worked. So the host time (work and dispatch) of the
 * gap right after a sync is charged to the sync, up to the GPU work done
 * since the previous sync: the work the host could have overlapped. */
static void sync_overlap(struct analysis *a, int64_t *host, int64_t *disp, int64_t prev, int64_t s1,
			 int64_t *carry)
{
	int64_t room = an_busy_between(a, prev, s1) + *carry;
	*carry = 0;
	if (s1 < a->start_ns || s1 >= a->end_ns || an_is_busy(a, s1) || room <= 0)
		return;
	size_t g = an_busy_index(a, s1); /* s1 is idle: the gap ending at busy[g] */
	int64_t room0 = room;
	int64_t take = room < host[g] ? room : host[g];
	host[g] -= take;
	a->idle.host_ns -= take;
	a->idle.sync_ns += take;
	room -= take;
	int64_t moved[AN_IDLE_CAUSES] = {[AN_IDLE_HOST] = -take, [AN_IDLE_SYNC] = take};
	take = room < disp[g] ? room : disp[g];
	disp[g] -= take;
	a->idle.dispatch_ns -= take;
	a->idle.sync_ns += take;
	room -= take;
	moved[AN_IDLE_DISPATCH] = -take;
	moved[AN_IDLE_SYNC] += take;
	int64_t g0, g1;
	an_series_gap_bounds(a, g, &g0, &g1);
	an_series_gap(a, g0, g1, moved, 0);
	/* two waits in a row (float(loss), then device_get(norm)): the first's
	 * gap was short, so the overlap it did not use is the next one's */
	if (room > room0 / 2)
		*carry = room;
}

/*
 * A read-back: a device-to-host copy after which the GPU has nothing left
 * to run until the host, which waited for the copy's data, launches more
 * (float(loss) and jax.device_get in JAX wait on a host-side future, not in
 * a CUDA call; a recording sees only the copy and the idle after it). The
 * end of copy k when it is one, else INT64_MIN. A host running ahead
 * would have queued the next work before the copy ended: a gap shorter
 * than TH_LAUNCH_GAP_NS after it is launch latency, not a wait.
 */
/* The end of the last GPU work before idle time ts (the window's start
 * when none). */
static int64_t busy_end_before(const struct analysis *a, int64_t ts)
{
	size_t i = an_busy_index(a, ts);
	return i > 0 ? a->busy[i - 1].end : a->start_ns;
}

static int64_t readback_end(const struct analysis *a, size_t k)
{
	const struct trace_copy *c = &a->t->copies[k];
	if (c->kind != COPY_DTOH || c->end_ns >= a->end_ns || an_is_busy(a, c->end_ns))
		return INT64_MIN;
	/* a gap shorter than launch latency means the next work was queued */
	if (an_next_busy(a, c->end_ns) - c->end_ns < TH_LAUNCH_GAP_NS)
		return INT64_MIN;
	/* an explicit sync (cudaMemcpy, cudaStreamSynchronize) after it is
	 * charged once: the first sync point takes the room (sync_overlap) */
	return c->end_ns;
}

int an_idle_next_raw(struct cursor *c, int64_t *s, int64_t *e)
{
	return next_raw(c, s, e);
}

void an_idle_gap(struct analysis *a, struct idle_acc *acc, struct cursor *cur, int64_t g0,
		 int64_t g1, int64_t *host, int64_t *disp)
{
	gap(a, acc, cur, g0, g1, host, disp);
}

/* 1 when the thread's call before API call i (a sync), past the calls
 * nested in the sync, is a copy call whose copy went host to device. A
 * runtime copy call holds its driver call, which starts later: an
 * unresolved copy call does not end the walk. Other threads' calls in
 * between are skipped, AN_SYNC_LOOKBACK of them at most. */
#define AN_SYNC_LOOKBACK 64
static int sync_after_htod(const struct analysis *a, size_t i)
{
	const struct trace *t = a->t;
	const struct trace_api *s = &t->apis[i];
	for (size_t k = i, n = 0; k-- > 0 && n < AN_SYNC_LOOKBACK; n++) {
		const struct trace_api *p = &t->apis[k];
		if (p->pid != s->pid || p->tid != s->tid || p->end_ns > s->start_ns)
			continue;
		if (p->kind != API_MEMCPY)
			return 0;
		uint32_t ref = an_corr_find(a, p->pid, p->correlation);
		if (ref == AN_OP_NONE)
			continue;
		return AN_OP_KIND(ref) == AN_OP_COPY &&
		       t->copies[AN_OP_INDEX(ref)].kind == COPY_HTOD;
	}
	return 0;
}

int an_idle_breakdown(struct analysis *a, char *err)
{
	struct cursor cur[4];
	memset(cur, 0, sizeof(cur));
	int masks[4] = {C_LAUNCH, C_LAUNCH | C_SYNC, C_LAUNCH | C_SYNC | C_COPY,
			C_LAUNCH | C_SYNC | C_COPY | C_API};
	struct launch_ends *ends = calloc(1, sizeof(*ends));
	for (int i = 0; i < 4; i++) {
		cur[i].a = a;
		cur[i].ends = ends; /* NULL (out of memory): each looks up its own */
		cur[i].mask = masks[i];
	}
	int64_t *host = malloc(2 * (a->n_busy + 1) * sizeof(*host));
	if (!host) {
		free(ends);
		return error_set(err, "out of memory");
	}
	int64_t *disp = host + a->n_busy + 1;
	const struct trace *tt = a->t;
	int cpus = tt->n_apis > 65536 && a->n_busy > 1 ? gs_cpu_count() : 1;
	int split = cpus > 1 ? an_idle_split(a, cpus, host, disp) : 1;
	if (split < 0) {
		free(ends);
		free(host);
		return error_set(err, "out of memory");
	}
	if (split == 1) { /* one part, on this thread */
		struct idle_acc acc = {.d = &a->idle};
		int64_t at = a->start_ns;
		for (size_t i = 0; i < a->n_busy; i++) {
			gap(a, &acc, cur, at, a->busy[i].start, &host[i], &disp[i]);
			if (a->busy[i].end > at)
				at = a->busy[i].end;
		}
		gap(a, &acc, cur, at, a->end_ns, &host[a->n_busy], &disp[a->n_busy]);
	}
	free(ends);
	/* each gap's host and dispatch time before sync_overlap moves some of
	 * it to the sync: the share moved is what hostwait.c charges to it */
	size_t ng = a->n_busy + 1;
	a->gap_sync_frac = malloc(2 * ng * sizeof(*a->gap_sync_frac));
	if (!a->gap_sync_frac) {
		free(host);
		return error_set(err, "out of memory");
	}
	for (size_t i = 0; i < 2 * ng; i++)
		a->gap_sync_frac[i] = (float)host[i]; /* host, then disp: one array */

	const struct trace *t0 = a->t;
	int any_api_sync = 0;
	for (size_t i = 0; i < t0->n_apis && !any_api_sync; i++)
		any_api_sync = t0->apis[i].kind == API_SYNC;
	/* the sync points in time order: the ends of blocking sync calls (or
	 * sync records), merged with the read-backs (readback_end) */
	int64_t prev = a->start_ns;
	size_t ia = 0, j = 0, k = 0;
	uint64_t readbacks = 0, spread = 0;
	int64_t carry = 0;
	size_t kc = 0, kseen = 0; /* kernels started before this point, the last one */
	for (;;) {
		int64_t ts = INT64_MAX, rb = INT64_MAX;
		if (any_api_sync) {
			while (ia < t0->n_apis && t0->apis[ia].kind != API_SYNC)
				ia++;
			if (ia < t0->n_apis)
				ts = t0->apis[ia].end_ns;
		} else if (j < t0->n_syncs) {
			ts = t0->syncs[j].end_ns;
		}
		while (k < t0->n_copies && (rb = readback_end(a, k)) == INT64_MIN)
			k++;
		if (k >= t0->n_copies)
			rb = INT64_MAX;
		if (ts == INT64_MAX && rb == INT64_MAX)
			break;
		int64_t point = ts < rb ? ts : rb;
		while (kc < t0->n_kernels && t0->kernels[kc].start_ns < point)
			kc++;
		spread += spread == 0 || kc > kseen;
		kseen = kc;
		if (ts < rb) {
			any_api_sync ? ia++ : j++;
		} else {
			/* a read-back issued only after the GPU drained (the runtime
			 * waits for the work's completion, then copies): the gap before
			 * it is the same wait */
			const struct trace_copy *c = &t0->copies[k];
			int64_t before = c->start_ns - 1;
			if (before > prev && !an_is_busy(a, before) &&
			    c->start_ns - busy_end_before(a, before) >= TH_LAUNCH_GAP_NS) {
				sync_overlap(a, host, disp, prev, before, &carry);
				prev = before;
			}
			k++, readbacks++;
		}
		sync_overlap(a, host, disp, prev, point, &carry);
		if (point > prev)
			prev = point;
	}
	a->sync.readbacks = readbacks;
	a->sync.spread = spread;
	for (size_t i = 0; i < 2 * ng; i++) {
		double before = a->gap_sync_frac[i];
		a->gap_sync_frac[i] = before > 0 ? (float)(1.0 - (double)host[i] / before) : 0.0f;
	}
	free(host);

	/* synchronization statistics: calls, time, GPU idle they explain */
	const struct trace *t = a->t;
	struct an_sync_stats *y = &a->sync;
	for (size_t i = 0; i < t->n_apis; i++) {
		if (t->apis[i].kind != API_SYNC)
			continue;
		y->count++;
		y->sum_ns += t->apis[i].end_ns - t->apis[i].start_ns;
		y->after_htod += (uint64_t)sync_after_htod(a, i);
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
	return 0;
}
