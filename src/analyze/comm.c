/*
 * comm.c - communication and computation per rank, collectives matched
 * across ranks, the straggler (comm.h says how each is defined).
 *
 * Per rank the GPU work is cut into two interval unions, communication
 * kernels and the rest; their intersection is the overlap. Memory is a few
 * arrays of the rank's intervals (one pass per rank over the trace's
 * sorted arrays), nothing per collective pair beyond one start time.
 */
#include "analyze/comm.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/thresholds.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/vec.h"

int comm_is_kernel(const char *name)
{
	return strstr(name, "nccl") || strstr(name, "rccl") || strstr(name, "NCCL");
}

const char *comm_kind(const char *name, char *buf, size_t n)
{
	/* matched without case or '_': "AllReduce", "all_reduce", "allreduce_" */
	static const char *const kinds[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast",
					    "Reduce",	 "SendRecv",  "AllToAll",      "Barrier",
					    "Send",	 "Recv"};
	char flat[256];
	size_t m = 0;
	for (const char *p = name; *p && m + 1 < sizeof(flat); p++)
		if (*p != '_')
			flat[m++] = (char)tolower((unsigned char)*p);
	flat[m] = '\0';
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char want[16];
		size_t k = 0;
		for (const char *p = kinds[i]; *p; p++)
			want[k++] = (char)tolower((unsigned char)*p);
		want[k] = '\0';
		if (strstr(flat, want)) {
			snprintf(buf, n, "%s", kinds[i]);
			break;
		}
	}
	return buf;
}

int comm_is_host_range(const char *name)
{
	static const char *const prefix[] = {"gloo:", "nccl:", "c10d::", "mpi:", "ucc:"};
	char kind[16];
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
			return comm_kind(name, kind, sizeof(kind))[0] != '\0';
	return 0;
}

struct iv {
	int64_t s, e;
};

struct rank_work {
	struct iv *comp, *comm;
	size_t n_comp, cap_comp, n_comm, cap_comm;
};

static int cmp_iv(const void *x, const void *y)
{
	const struct iv *a = x, *b = y;
	return a->s < b->s ? -1 : a->s > b->s;
}

/* Sorts and merges intervals in place; returns their union's length. */
static int64_t unite(struct iv *v, size_t *n)
{
	if (!*n)
		return 0;
	qsort(v, *n, sizeof(*v), cmp_iv);
	size_t m = 0;
	for (size_t i = 0; i < *n; i++) {
		if (m && v[i].s <= v[m - 1].e) {
			if (v[i].e > v[m - 1].e)
				v[m - 1].e = v[i].e;
		} else {
			v[m++] = v[i];
		}
	}
	*n = m;
	int64_t sum = 0;
	for (size_t i = 0; i < m; i++)
		sum += v[i].e - v[i].s;
	return sum;
}

/* Length of the intersection of two merged, sorted unions. */
static int64_t intersect(const struct iv *a, size_t na, const struct iv *b, size_t nb)
{
	int64_t sum = 0;
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
		int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
		if (e > s)
			sum += e - s;
		if (a[i].e < b[j].e)
			i++;
		else
			j++;
	}
	return sum;
}

static int rank_number(const struct trace *t, uint32_t pid, size_t n_pids)
{
	char key[48];
	snprintf(key, sizeof(key), "rank.%u", pid);
	const char *v = trace_get_meta(t, key);
	if (!v && n_pids == 1)
		v = trace_get_meta(t, "rank");
	if (!v || !*v)
		return -1;
	char *end;
	long r = strtol(v, &end, 10);
	return *end || r < 0 || r > 1000000 ? -1 : (int)r;
}

/* comm_is_kernel or comm_is_host_range of a string id, each name tested
 * once: millions of rows share a few thousand names (on the 1.09 GB trace
 * of bench/README-report-speed.md the row-by-row tests were 4% of the
 * report's CPU time, all of it in the single-threaded analysis). */
struct name_test {
	const struct trace *t;
	int (*test)(const char *name);
	uint8_t *seen; /* per string id: 0 not tested yet, 1 no, 2 yes; NULL: test each time */
};

static void name_test_init(struct name_test *m, const struct trace *t, int (*test)(const char *))
{
	m->t = t;
	m->test = test;
	m->seen = calloc(t->n_strings ? t->n_strings : 1, 1); /* NULL: still right, slower */
}

static int name_test(struct name_test *m, uint32_t id)
{
	if (!m->seen || id >= m->t->n_strings)
		return m->test(trace_str(m->t, id));
	if (!m->seen[id])
		m->seen[id] = m->test(trace_str(m->t, id)) ? 2 : 1;
	return m->seen[id] == 2;
}

struct ctx {
	const struct trace *t;
	struct comm_stats *out;
	struct rank_work *w;
	size_t cap_r;
	struct u64map idx; /* pid << 32 | device -> rank index */
	struct name_test *host_range;
};

/* Orders indexes into the rank array by rank number, then pid, device. */
static int cmp_rank_index(const void *x, const void *y, void *arg)
{
	const struct comm_rank *r = arg, *a = &r[*(const size_t *)x], *b = &r[*(const size_t *)y];
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->device < b->device ? -1 : a->device > b->device;
}

int comm_sort(struct comm_stats *o, int known)
{
	size_t *perm = malloc((o->n + 1) * sizeof(*perm));
	struct comm_rank *r = malloc((o->n + 1) * sizeof(*r));
	struct comm_colls *cs = malloc((o->n + 1) * sizeof(*cs));
	if (!perm || !r || !cs) {
		free(perm);
		free(r);
		free(cs);
		return -1;
	}
	for (size_t i = 0; i < o->n; i++)
		perm[i] = i;
	qsort_r(perm, o->n, sizeof(*perm), cmp_rank_index, o->r);
	for (size_t i = 0; i < o->n; i++) {
		r[i] = o->r[perm[i]];
		cs[i] = o->colls[perm[i]];
		if (!known)
			r[i].rank = (int)i;
	}
	memcpy(o->r, r, o->n * sizeof(*r));
	memcpy(o->colls, cs, o->n * sizeof(*cs));
	o->ranks_known = known;
	free(perm);
	free(r);
	free(cs);
	return 0;
}

static long rank_of(struct ctx *c, uint32_t pid, uint32_t device)
{
	uint64_t key = (uint64_t)pid << 32 | device, v;
	if (u64map_get(&c->idx, key, &v))
		return (long)v;
	size_t cap_w = c->cap_r;
	struct comm_rank *r = VEC_PUSH(c->out->r, c->out->n, c->cap_r);
	if (!r)
		return -1;
	if (c->cap_r != cap_w) {
		struct rank_work *nw = realloc(c->w, c->cap_r * sizeof(*nw));
		if (nw)
			c->w = nw;
		struct comm_colls *nc = realloc(c->out->colls, c->cap_r * sizeof(*nc));
		if (nc)
			c->out->colls = nc;
		if (!nw || !nc) {
			c->out->n--; /* comm_release reads colls for each of r */
			return -1;
		}
		memset(nw + cap_w, 0, (c->cap_r - cap_w) * sizeof(*nw));
		memset(nc + cap_w, 0, (c->cap_r - cap_w) * sizeof(*nc));
	}
	r->pid = pid;
	r->device = device;
	r->start_ns = INT64_MAX;
	r->end_ns = INT64_MIN;
	if (u64map_put(&c->idx, key, c->out->n - 1) < 0)
		return -1;
	return (long)(c->out->n - 1);
}

/* One interval of a rank's work: communication when kind is not NULL (a
 * communication kernel's name or a host collective's), else computation. */
static int add_work(struct ctx *c, uint32_t pid, uint32_t device, int64_t s, int64_t e,
		    const char *comm_name)
{
	long k = rank_of(c, pid, device);
	if (k < 0)
		return -1;
	struct comm_rank *r = &c->out->r[k];
	struct rank_work *w = &c->w[k];
	struct comm_colls *cs = &c->out->colls[k];
	r->start_ns = s < r->start_ns ? s : r->start_ns;
	r->end_ns = e > r->end_ns ? e : r->end_ns;
	if (comm_name) {
		struct iv *v = VEC_PUSH(w->comm, w->n_comm, w->cap_comm);
		struct comm_coll *cl = VEC_PUSH(cs->v, cs->n, cs->cap);
		if (!v || !cl)
			return -1;
		*v = (struct iv){s, e};
		cl->s = s;
		cl->e = e;
		comm_kind(comm_name, cl->kind, sizeof(cl->kind));
		r->collectives++;
		return 0;
	}
	struct iv *v = VEC_PUSH(w->comp, w->n_comp, w->cap_comp);
	if (!v)
		return -1;
	*v = (struct iv){s, e};
	return 0;
}

static int cmp_range_start(const void *x, const void *y)
{
	const struct trace_range *a = x, *b = y;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return a->end_ns > b->end_ns ? -1 : a->end_ns < b->end_ns;
}

/* Collectives that run on the host (gloo, MPI: no kernel on the GPU), for
 * the ranks that have no communication kernel: the process's outermost
 * ranges named like a collective ("gloo:all_reduce", "c10d::allreduce_"),
 * charged to the rank of that process (its first device). */
static int add_host_collectives(struct ctx *c)
{
	const struct trace *t = c->t;
	struct trace_range *v = NULL; /* copies: a view's times are not in its rows (trace.h) */
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < t->n_ranges; i++) {
		if (name_test(c->host_range, trace_range_row(t, i)->name_id)) {
			struct trace_range *p = VEC_PUSH(v, n, cap);
			if (!p) {
				free(v);
				return -1;
			}
			*p = trace_range_at(t, i);
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_range_start);
	size_t n_ranks = c->out->n;
	int rc = 0;
	for (size_t q = 0; q < n_ranks && rc == 0; q++) {
		struct comm_rank *r = &c->out->r[q];
		if (r->collectives)
			continue; /* NCCL kernels say it better */
		int dup = 0;	  /* the process's first device only */
		for (size_t j = 0; j < q && !dup; j++)
			dup = c->out->r[j].pid == r->pid;
		if (dup)
			continue;
		uint32_t pid = r->pid, dev = r->device;
		int64_t kept_end = INT64_MIN;
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (v[i].pid != pid || v[i].end_ns <= kept_end)
				continue; /* another process's, or inside the one kept */
			kept_end = v[i].end_ns;
			rc = add_work(c, pid, dev, v[i].start_ns, v[i].end_ns,
				      trace_str(t, v[i].name_id));
		}
	}
	free(v);
	return rc;
}

/* The next collective of a kind on a rank after *cursor: its index in
 * w->coll (and the cursor moves past it), or -1. */
static long next_of_kind(const struct comm_colls *w, const char *kind, size_t *cursor)
{
	for (size_t i = *cursor; i < w->n; i++)
		if (strcmp(w->v[i].kind, kind) == 0) {
			*cursor = i + 1;
			return (long)i;
		}
	return -1;
}

/* Matches collectives across ranks by order within each kind and charges
 * the waits; sets matched, last_to_arrive and late_ns. */
static int match_collectives(struct comm_stats *o)
{
	size_t n = o->n;
	if (n < 2)
		return 0;
	size_t *cur = calloc(n, sizeof(*cur));
	long *at = calloc(n, sizeof(*at));
	if (!cur || !at) {
		free(cur);
		free(at);
		return -1;
	}
	/* the kinds, in the order rank 0 uses them */
	const struct comm_colls *w0 = &o->colls[0];
	for (size_t q = 0; q < w0->n; q++) {
		const char *kind = w0->v[q].kind;
		/* only the first occurrence of a kind on rank 0 drives its matching */
		int seen = 0;
		for (size_t p = 0; p < q && !seen; p++)
			seen = strcmp(w0->v[p].kind, kind) == 0;
		if (seen)
			continue;
		memset(cur, 0, n * sizeof(*cur));
		for (;;) {
			int all = 1;
			int64_t latest = INT64_MIN;
			size_t last = 0;
			for (size_t i = 0; i < n && all; i++) {
				at[i] = next_of_kind(&o->colls[i], kind, &cur[i]);
				if (at[i] < 0) {
					all = 0;
					break;
				}
				int64_t s = o->colls[i].v[at[i]].s;
				if (s > latest) {
					latest = s;
					last = i;
				}
			}
			if (!all)
				break;
			o->matched++;
			o->r[last].last_to_arrive++;
			for (size_t i = 0; i < n; i++) {
				const struct comm_coll *cl = &o->colls[i].v[at[i]];
				int64_t wait = latest - cl->s, dur = cl->e - cl->s;
				wait = wait < 0 ? 0 : wait > dur ? dur : wait;
				o->r[i].wait_ns += wait;
				if (i != last)
					o->r[last].late_ns += wait;
			}
		}
	}
	free(cur);
	free(at);
	return 0;
}

static void release_work(struct rank_work *w, size_t n)
{
	for (size_t i = 0; i < n && w; i++) {
		free(w[i].comp);
		free(w[i].comm);
	}
	free(w);
}

int comm_cross(struct comm_stats *out)
{
	/* the collective kind with the most time on rank 0 */
	double comm_by_kind_best = 0;
	const struct comm_colls *c0 = out->n ? &out->colls[0] : NULL;
	for (size_t q = 0; c0 && q < c0->n; q++) {
		double sum = 0;
		for (size_t p = 0; p < c0->n; p++)
			if (strcmp(c0->v[p].kind, c0->v[q].kind) == 0)
				sum += (double)(c0->v[p].e - c0->v[p].s);
		if (sum > comm_by_kind_best) {
			comm_by_kind_best = sum;
			snprintf(out->top_kind, sizeof(out->top_kind), "%s", c0->v[q].kind);
		}
	}
	if (match_collectives(out) < 0)
		return -1;
	/* the straggler: the others waited longest for it, and it came last in
	 * at least TH_STRAGGLER_LAST_SHARE of the matched collectives */
	int64_t best = 0;
	for (size_t i = 0; i < out->n; i++)
		if (out->r[i].late_ns > best &&
		    (double)out->r[i].last_to_arrive >=
			TH_STRAGGLER_LAST_SHARE * (double)out->matched) {
			best = out->r[i].late_ns;
			out->straggler = (int)i;
		}
	double lo = 0, hi = 0, sum = 0;
	for (size_t i = 0; i < out->n; i++) {
		double x = (double)out->r[i].compute_ns;
		lo = i == 0 || x < lo ? x : lo;
		hi = i == 0 || x > hi ? x : hi;
		sum += x;
	}
	out->imbalance = out->n && sum > 0 ? (hi - lo) / (sum / (double)out->n) : 0;
	return 0;
}

int comm_analyze(struct comm_stats *out, const struct trace *t, char *err)
{
	memset(out, 0, sizeof(*out));
	out->straggler = -1;
	int any = 0;
	struct name_test kern, host;
	name_test_init(&kern, t, comm_is_kernel);
	name_test_init(&host, t, comm_is_host_range);
	for (size_t i = 0; i < t->n_kernels && !any; i++)
		any = name_test(&kern, t->kernels[i].name_id);
	out->host = !any;
	for (size_t i = 0; i < t->n_ranges && !any; i++)
		any = name_test(&host, trace_range_row(t, i)->name_id);
	struct ctx c = {t, out, NULL, 0, {0}, &host};
	int rc = -1;
	if (!any) {
		rc = 0;
		goto out_tests;
	}
	if (u64map_init(&c.idx, 16) < 0)
		goto out_oom;
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		const char *name = trace_str(t, k->name_id);
		if (add_work(&c, k->pid, k->device, k->start_ns, k->end_ns,
			     name_test(&kern, k->name_id) ? name : NULL) < 0)
			goto out_oom;
	}
	for (size_t i = 0; i < t->n_copies; i++) {
		const struct trace_copy *k = &t->copies[i];
		if (add_work(&c, k->pid, k->device, k->start_ns, k->end_ns, NULL) < 0)
			goto out_oom;
	}
	for (size_t i = 0; i < t->n_memsets; i++) {
		const struct trace_memset *k = &t->memsets[i];
		if (add_work(&c, k->pid, k->device, k->start_ns, k->end_ns, NULL) < 0)
			goto out_oom;
	}
	if (add_host_collectives(&c) < 0)
		goto out_oom;
	/* rank numbers: from the trace, else by pid order */
	size_t n_pids = 0;
	for (size_t i = 0; i < out->n; i++) {
		int dup = 0;
		for (size_t j = 0; j < i && !dup; j++)
			dup = out->r[j].pid == out->r[i].pid;
		n_pids += !dup;
	}
	int known = 1;
	for (size_t i = 0; i < out->n; i++) {
		out->r[i].rank = rank_number(t, out->r[i].pid, n_pids);
		known &= out->r[i].rank >= 0;
	}
	for (size_t i = 0; i < out->n; i++)
		if (!known)
			out->r[i].rank = -1; /* all by pid order, not a mix */
	/* per rank: unions, overlap, exposure */
	for (size_t i = 0; i < out->n; i++) {
		struct comm_rank *r = &out->r[i];
		struct rank_work *w = &c.w[i];
		r->compute_ns = unite(w->comp, &w->n_comp);
		r->comm_ns = unite(w->comm, &w->n_comm);
		r->overlap_ns = intersect(w->comp, w->n_comp, w->comm, w->n_comm);
		r->exposed_ns = r->comm_ns - r->overlap_ns;
	}
	if (comm_sort(out, known) < 0 || comm_cross(out) < 0)
		goto out_oom;
	rc = 0;
	goto out_free;
out_oom:
	error_set(err, "out of memory");
out_free:
	release_work(c.w, out->n);
	u64map_release(&c.idx);
	if (rc < 0)
		comm_release(out);
out_tests:
	free(kern.seen);
	free(host.seen);
	return rc;
}

void comm_release(struct comm_stats *c)
{
	for (size_t i = 0; i < c->n && c->colls; i++)
		free(c->colls[i].v);
	free(c->colls);
	free(c->r);
	memset(c, 0, sizeof(*c));
	c->straggler = -1;
}
