/*
 * timeline_parts.c - the timeline's sweep, whole or on several threads (issue 38: the timeline is
 * the first pass, alone on the critical path). One three-way merge visits the GPU ops of a part in
 * start order into running unions, slots and a busy list of the part's own; the whole trace is one
 * part. On several CPUs the ops are cut by start time into parts, two per CPU. A running union's
 * length is the sum over its intervals, in start order, of max(0, e - max(s, M)) with M the latest
 * end before it (run_add's when no interval ends before it starts: checked first, else the trace
 * is one part). An interval of part j starting at or after G_j (the latest end of all ops in the
 * parts before) does not depend on them: its part adds it. One starting before G_j (a head, the few
 * at the part's start) is kept and added when the parts are merged in time order, with M carried
 * from the parts before; the part's run only takes its end (a run of no length). Slots take their
 * first-seen order part by part, and the busy lists join where the last one reaches. So the result
 * is the one part's, integer for integer.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/timeline_int.h"
#include "util/vec.h"

#define TL_CATS 10 /* kernels, copies, memsets, kernels + copies, copies by kind (6) */
#define TL_MAX_PARTS 64

struct tl_head {
	uint32_t key; /* < TL_CATS a category, else TL_CATS + 2 x device slot (+ 1: stream) */
	int64_t s, e;
};

struct tl_dev {
	uint32_t id;
	struct run k;
	int64_t kernel_ns;
};

struct tl_str {
	uint32_t dev, stream, ldev;
	struct run k;
	uint64_t ops;
};

struct tl_part {
	size_t k0, k1, c0, c1, m0, m1;
	int64_t top_all, g; /* the latest end of its ops; of the ops before it */
	int bad, oom;	    /* bad: an op ending before it starts */
	struct run cat[TL_CATS];
	struct tl_dev *dev;
	struct tl_str *str;
	size_t n_dev, cap_dev, n_str, cap_str;
	struct slot_map dmap, smap;
	struct slot_hit hits[SLOT_HITS];
	struct tl_head *head;
	size_t n_head, cap_head;
	struct an_interval *busy; /* in the analysis's array, at the part's first op */
	size_t n_busy,
	    cap_busy; /* cap_busy: its ops (never reached), but for the one part of
			 a sweep on one CPU, whose list grows as the serial sweep's did */
	int64_t ksum, csum, msum;
};

struct tl_job {
	const struct trace *t;
	struct tl_part *p;
	size_t n, next; /* next: atomic */
	int phase;
};

static void run_add(struct run *r, int64_t s, int64_t e)
{
	if (r->open && s <= r->e) {
		if (e > r->e)
			r->e = e;
		return;
	}
	if (r->open)
		r->sum += r->e - r->s;
	r->s = s;
	r->e = e;
	r->open = 1;
}

static int64_t run_total(const struct run *r)
{
	return r->sum + (r->open ? r->e - r->s : 0);
}

/* [s, e) of run r starts before the parts before it end (g): kept as a
 * head of the part for the merge (heads come first: ops are in start
 * order), and r takes only its end */
static void tl_head(struct tl_part *p, struct run *r, uint32_t key, int64_t s, int64_t e)
{
	struct tl_head *h = VEC_PUSH(p->head, p->n_head, p->cap_head);
	if (!h)
		p->oom = 1;
	else
		*h = (struct tl_head){key, s, e};
	if (!r->open || e > r->e) {
		r->s = r->e = e;
		r->open = 1;
	}
}

/* The part's local slots of (dev, stream); 0, or -1 when out of memory. */
static int tl_slot(struct tl_part *p, uint32_t dev, uint32_t stream, uint32_t *ls)
{
	struct slot_hit *hit = &p->hits[(stream ^ dev * 7u) & (SLOT_HITS - 1)];
	if (hit->set && hit->dev == dev && hit->stream == stream) {
		*ls = hit->ss;
		return 0;
	}
	int ins;
	uint32_t *d = an_slot_map_get(&p->dmap, dev, (uint32_t)p->n_dev, &ins);
	if (!d)
		return -1;
	if (ins) {
		struct tl_dev *x = VEC_PUSH(p->dev, p->n_dev, p->cap_dev);
		if (!x)
			return -1;
		*x = (struct tl_dev){.id = dev};
	}
	uint32_t *sl =
	    an_slot_map_get(&p->smap, (uint64_t)dev << 32 | stream, (uint32_t)p->n_str, &ins);
	if (!sl)
		return -1;
	if (ins) {
		struct tl_str *x = VEC_PUSH(p->str, p->n_str, p->cap_str);
		if (!x)
			return -1;
		*x = (struct tl_str){.dev = dev, .stream = stream, .ldev = *d};
	}
	*hit = (struct slot_hit){dev, stream, *d, *sl, 1};
	*ls = *sl;
	return 0;
}

#define TL_TOP(arr, from, to)                                                                      \
	for (size_t i = (from); i < (to); i++) {                                                   \
		p->top_all = (arr)[i].end_ns > p->top_all ? (arr)[i].end_ns : p->top_all;          \
		p->bad |= (arr)[i].end_ns < (arr)[i].start_ns;                                     \
	}

/* [s, e) into run r, or a head */
#define TL_ADD(r, key)                                                                             \
	do {                                                                                       \
		if (!heads || s >= g)                                                              \
			run_add((r), s, e);                                                        \
		else                                                                               \
			tl_head(p, (r), (key), s, e);                                              \
	} while (0)

/* heads: 0 for a part with nothing before it (g = INT64_MIN), whose ops all
 * go to its runs: the test is then compiled out */
static inline __attribute__((always_inline)) void tl_sweep_as(const struct trace *t,
							      struct tl_part *p, const int heads)
{
	size_t ik = p->k0, ic = p->c0, im = p->m0, nb = 0;
	const int64_t g = p->g;
	int64_t ksum = 0, csum = 0, msum = 0;
	uint32_t last_dev = UINT32_MAX, last_stream = UINT32_MAX, ls = 0;
	struct an_interval *busy = p->busy;
	struct tl_str *x = NULL; /* the last op's stream and device */
	struct tl_dev *d = NULL;
	while (!p->oom && (ik < p->k1 || ic < p->c1 || im < p->m1)) {
		int64_t sk = ik < p->k1 ? t->kernels[ik].start_ns : INT64_MAX;
		int64_t sc = ic < p->c1 ? t->copies[ic].start_ns : INT64_MAX;
		int64_t sm = im < p->m1 ? t->memsets[im].start_ns : INT64_MAX;
		int64_t s, e;
		uint32_t dev, stream;
		int cat;
		if (sk <= sc && sk <= sm) {
			const struct trace_kernel *k = &t->kernels[ik++];
			s = k->start_ns, e = k->end_ns, dev = k->device, stream = k->stream,
			cat = 0;
			ksum += e - s;
			TL_ADD(&p->cat[0], 0);
			TL_ADD(&p->cat[3], 3);
		} else if (sc <= sm) {
			const struct trace_copy *c = &t->copies[ic++];
			s = c->start_ns, e = c->end_ns, dev = c->device, stream = c->stream,
			cat = 1;
			csum += e - s;
			TL_ADD(&p->cat[1], 1);
			TL_ADD(&p->cat[3], 3);
			uint32_t kind = c->kind < 6 ? c->kind : 0;
			TL_ADD(&p->cat[4 + kind], 4 + kind);
		} else {
			const struct trace_memset *m = &t->memsets[im++];
			s = m->start_ns, e = m->end_ns, dev = m->device, stream = m->stream,
			cat = 2;
			msum += e - s;
			TL_ADD(&p->cat[2], 2);
		}
		/* ops of a few streams interleave: the last one's slot, then a
		 * small cache in front of the maps */
		if (dev != last_dev || stream != last_stream) {
			if (tl_slot(p, dev, stream, &ls) < 0) {
				p->oom = 1;
				break;
			}
			last_dev = dev;
			last_stream = stream;
			x = &p->str[ls];
			d = &p->dev[x->ldev];
		}
		TL_ADD(&d->k, TL_CATS + 2 * x->ldev);
		if (cat == 0)
			d->kernel_ns += e - s;
		TL_ADD(&x->k, TL_CATS + 2 * ls + 1);
		x->ops++;
		/* the part's busy list: an op overlapping the last interval extends it */
		if (nb && s <= busy[nb - 1].end) {
			if (e > busy[nb - 1].end)
				busy[nb - 1].end = e;
		} else {
			if (nb == p->cap_busy) {
				if (vec_reserve((void **)&p->busy, &p->cap_busy, nb + 1,
						sizeof(*busy)) < 0) {
					p->oom = 1;
					break;
				}
				busy = p->busy;
			}
			busy[nb++] = (struct an_interval){s, e};
		}
	}
	p->n_busy = nb;
	p->ksum = ksum, p->csum = csum, p->msum = msum;
}
#undef TL_ADD

static void tl_sweep(const struct trace *t, struct tl_part *p)
{
	if (p->g == INT64_MIN)
		tl_sweep_as(t, p, 0);
	else
		tl_sweep_as(t, p, 1);
}

static void *tl_thread(void *arg)
{
	struct tl_job *j = arg;
	size_t k;
	while ((k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->n) {
		struct tl_part *p = &j->p[k];
		if (j->phase == 0) {
			p->top_all = INT64_MIN;
			TL_TOP(j->t->kernels, p->k0, p->k1)
			TL_TOP(j->t->copies, p->c0, p->c1)
			TL_TOP(j->t->memsets, p->m0, p->m1)
		} else {
			tl_sweep(j->t, p);
		}
	}
	return NULL;
}

/* A head or a part's own sum into the run r of the merged sweep (its sum,
 * and its latest end in e while open). */
static void tl_merge_head(struct run *r, int64_t s, int64_t e)
{
	int64_t from = r->open && r->e > s ? r->e : s;
	if (e > from)
		r->sum += e - from;
	if (!r->open || e > r->e) {
		r->e = e;
		r->open = 1;
	}
}

static void tl_merge_key(struct run *r, const struct run *k)
{
	r->sum += run_total(k);
	if (k->open && (!r->open || k->e > r->e)) {
		r->e = k->e;
		r->open = 1;
	}
}

/* Merges part p into a and the sweep's runs. 0, or -1 when out of memory. */
static int tl_merge(struct analysis *a, struct sweep *w, struct tl_part *p, uint32_t *gdev,
		    uint32_t *gstr)
{
	for (size_t i = 0; i < p->n_str; i++) {
		uint32_t ds, ss;
		if (an_sweep_slot(a, w, p->str[i].dev, p->str[i].stream, &ds, &ss) < 0)
			return -1;
		gdev[p->str[i].ldev] = ds;
		gstr[i] = ss;
	}
	struct run *cat[TL_CATS] = {&w->k, &w->c, &w->m, &w->kc};
	for (int c = 0; c < 6; c++)
		cat[4 + c] = &w->ck[c];
	for (size_t i = 0; i < p->n_head; i++) {
		const struct tl_head *h = &p->head[i];
		struct run *r = h->key < TL_CATS ? cat[h->key]
				: (h->key - TL_CATS) % 2 == 0
				    ? &w->dev[gdev[(h->key - TL_CATS) / 2]]
				    : &w->str[gstr[(h->key - TL_CATS) / 2]];
		tl_merge_head(r, h->s, h->e);
	}
	for (int c = 0; c < TL_CATS; c++)
		tl_merge_key(cat[c], &p->cat[c]);
	for (size_t i = 0; i < p->n_dev; i++) {
		tl_merge_key(&w->dev[gdev[i]], &p->dev[i].k);
		a->devices[gdev[i]].kernel_ns += p->dev[i].kernel_ns;
	}
	for (size_t i = 0; i < p->n_str; i++) {
		tl_merge_key(&w->str[gstr[i]], &p->str[i].k);
		a->streams[gstr[i]].ops += p->str[i].ops;
	}
	a->kernel_sum_ns += p->ksum;
	a->copy_sum_ns += p->csum;
	a->memset_sum_ns += p->msum;
	/* the part's busy list after the ones before: its first intervals may
	 * join the last one (as the sweep joins them), the rest move down */
	size_t i = 0, n = a->n_busy;
	for (; i < p->n_busy && n && p->busy[i].start <= a->busy[n - 1].end; i++)
		if (p->busy[i].end > a->busy[n - 1].end)
			a->busy[n - 1].end = p->busy[i].end;
	if (p->n_busy > i) /* (a one-CPU sweep of no ops has no list) */
		memmove(&a->busy[n], &p->busy[i], (p->n_busy - i) * sizeof(*a->busy));
	a->n_busy = n + p->n_busy - i;
	return 0;
}

/* The whole trace as part 0, the only one, its busy list a's (cap: its
 * room, 0 when not made yet). */
static void tl_one_part(const struct trace *t, struct tl_job *j, struct analysis *a, size_t cap)
{
	j->n = 1;
	j->p[0] = (struct tl_part){.k1 = t->n_kernels, .c1 = t->n_copies, .m1 = t->n_memsets};
	j->p[0].g = INT64_MIN;
	j->p[0].busy = a->busy;
	j->p[0].cap_busy = cap;
}

int an_sweep(struct analysis *a, struct sweep *w, int cpus)
{
	const struct trace *t = a->t;
	size_t n_ops = t->n_kernels + t->n_copies + t->n_memsets;
	/* two parts per CPU: the slower ones even out */
	size_t want = cpus < 2				? 1
		      : 2 * (size_t)cpus < TL_MAX_PARTS ? 2 * (size_t)cpus
							: TL_MAX_PARTS;
	struct tl_job j = {.t = t};
	j.p = calloc(want, sizeof(*j.p));
	/* parts write their busy lists into one array at their first ops' places */
	a->busy = want > 1 ? malloc((n_ops ? n_ops : 1) * sizeof(*a->busy)) : NULL;
	size_t cap = want > 1 ? n_ops : 0;
	uint32_t *gdev = NULL, *gstr = NULL;
	int rc = -1;
	if (!j.p || (want > 1 && !a->busy))
		goto out;
	/* cuts at the start of every n/want-th op of the largest array */
	int64_t cut[TL_MAX_PARTS + 1];
	size_t nc = 0;
	for (size_t k = 1; k < want; k++) {
		int64_t ts = t->n_kernels >= t->n_copies && t->n_kernels >= t->n_memsets
				 ? t->kernels[t->n_kernels * k / want].start_ns
			     : t->n_copies >= t->n_memsets
				 ? t->copies[t->n_copies * k / want].start_ns
				 : t->memsets[t->n_memsets * k / want].start_ns;
		if (!nc || ts > cut[nc - 1])
			cut[nc++] = ts;
	}
	j.n = nc + 1;
	size_t lo[3] = {0, 0, 0};
	for (size_t k = 0; k < j.n; k++) {
		struct tl_part *p = &j.p[k];
		size_t hi[3] = {t->n_kernels, t->n_copies, t->n_memsets};
		if (k < nc) {
			AN_LOWER_START(t->kernels, t->n_kernels, cut[k], hi[0]);
			AN_LOWER_START(t->copies, t->n_copies, cut[k], hi[1]);
			AN_LOWER_START(t->memsets, t->n_memsets, cut[k], hi[2]);
		}
		p->k0 = lo[0], p->k1 = hi[0], p->c0 = lo[1], p->c1 = hi[1], p->m0 = lo[2],
		p->m1 = hi[2];
		p->busy = a->busy + lo[0] + lo[1] + lo[2];
		p->cap_busy = hi[0] - lo[0] + hi[1] - lo[1] + hi[2] - lo[2];
		memcpy(lo, hi, sizeof(lo));
	}
	if (j.n == 1)
		tl_one_part(t, &j, a, cap);
	/* phase 0 (several parts): where each part's ops end */
	for (j.phase = j.n > 1 ? 0 : 1; j.phase < 2; j.phase++) {
		pthread_t th[TL_MAX_PARTS];
		size_t more = 0;
		j.next = 0;
		while (more + 1 < j.n && (int)more + 1 < cpus &&
		       pthread_create(&th[more], NULL, tl_thread, &j) == 0)
			more++;
		tl_thread(&j);
		for (size_t k = 0; k < more; k++)
			pthread_join(th[k], NULL);
		if (j.phase == 0) {
			int64_t g = INT64_MIN;
			for (size_t k = 0; k < j.n; k++) {
				j.p[k].g = g;
				g = j.p[k].top_all > g ? j.p[k].top_all : g;
			}
			for (size_t k = 0; k < j.n; k++)
				if (j.p[k].bad) { /* the union is run_add's: one part */
					tl_one_part(t, &j, a, cap);
					break;
				}
		}
	}
	if (j.n == 1)
		a->busy = j.p[0].busy; /* grown (or left) by its sweep */
	size_t most = 0;
	for (size_t k = 0; k < j.n; k++) {
		if (j.p[k].oom)
			goto out;
		most = j.p[k].n_str > most ? j.p[k].n_str : most;
	}
	gdev = malloc((most + 1) * sizeof(*gdev));
	gstr = malloc((most + 1) * sizeof(*gstr));
	if (!gdev || !gstr)
		goto out;
	for (size_t k = 0; k < j.n; k++)
		if (tl_merge(a, w, &j.p[k], gdev, gstr) < 0)
			goto out;
	if (!a->n_busy) {
		free(a->busy);
		a->busy = NULL;
	} else {
		struct an_interval *b = realloc(a->busy, a->n_busy * sizeof(*b));
		if (b)
			a->busy = b;
	}
	/* the runs hold their totals */
	struct run *all[TL_CATS] = {&w->k, &w->c, &w->m, &w->kc};
	for (int c = 0; c < 6; c++)
		all[4 + c] = &w->ck[c];
	for (int c = 0; c < TL_CATS; c++)
		all[c]->open = 0;
	for (size_t i = 0; i < a->n_devices; i++)
		w->dev[i].open = 0;
	for (size_t i = 0; i < a->n_streams; i++)
		w->str[i].open = 0;
	rc = 0;
out:
	if (rc != 0) {
		free(a->busy);
		a->busy = NULL;
		a->n_busy = 0;
	}
	for (size_t k = 0; j.p && k < j.n; k++) {
		struct tl_part *p = &j.p[k];
		free(p->dev);
		free(p->str);
		free(p->head);
		free(p->dmap.keys);
		free(p->dmap.vals);
		free(p->smap.keys);
		free(p->smap.vals);
	}
	free(j.p);
	free(gdev);
	free(gstr);
	return rc;
}
