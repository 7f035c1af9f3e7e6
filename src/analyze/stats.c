/*
 * stats.c - copy, NVTX-range and process statistics (samples: gpm.c).
 *
 * NVTX projection follows Nsight Systems: a GPU op belongs to every range
 * open on the thread of its launch call when the call starts. Ranges and
 * API calls are both sorted by start, so one merged sweep with a stack per
 * thread attributes every op in O(ops x nesting depth).
 */
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "analyze/analysis_int.h"
#include "diagnose/thresholds.h"
#include "util/hmap.h"
#include "util/vec.h"
#include "util/error.h"

/* Per-lane PCIe bandwidth in GB/s by generation (after line coding). */
static double pcie_lane_gbps(uint32_t gen)
{
	static const double g[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.877};
	return gen < sizeof(g) / sizeof(g[0]) ? g[gen] : 0;
}

int an_copy_sync_stats(struct analysis *a, char *err)
{
	const struct trace *t = a->t;
	struct an_copy_stats *c = &a->copy;
	struct an_copy_group tab[6][6][6];
	memset(tab, 0, sizeof(tab));
	uint64_t hb = 0, db = 0;
	int64_t hn = 0, dn = 0;
	for (size_t i = 0; i < t->n_copies; i++) {
		const struct trace_copy *x = &t->copies[i];
		int k = x->kind < 6 ? x->kind : 0, s = x->src_kind < 6 ? x->src_kind : 0,
		    d = x->dst_kind < 6 ? x->dst_kind : 0;
		struct an_copy_group *g = &tab[k][s][d];
		int64_t dur = x->end_ns - x->start_ns;
		g->kind = (uint8_t)k;
		g->src_kind = (uint8_t)s;
		g->dst_kind = (uint8_t)d;
		g->count++;
		g->bytes += x->bytes;
		g->sum_ns += dur;
		c->count++;
		c->bytes += x->bytes;
		c->sum_ns += dur;
		if (s == MEM_PAGEABLE || d == MEM_PAGEABLE) {
			c->pageable_bytes += x->bytes;
			c->pageable_count++;
		}
		if (k == COPY_HTOD) {
			hb += x->bytes;
			hn += dur;
		} else if (k == COPY_DTOH) {
			db += x->bytes;
			dn += dur;
		}
	}
	c->htod_gbps = hn > 0 ? (double)hb / (double)hn : 0;
	c->dtoh_gbps = dn > 0 ? (double)db / (double)dn : 0;
	c->htod_ns = hn;
	c->dtoh_ns = dn;
	c->overlap_pct = c->union_ns > 0 ? 100.0 * (double)(c->union_ns - c->not_overlapped_ns) /
					       (double)c->union_ns
					 : 0;
	c->link_gbps = TH_PCIE_GEN5_X16_GBPS;
	if (t->n_devices && t->devices[0].pcie_gen && t->devices[0].pcie_width)
		c->link_gbps = pcie_lane_gbps(t->devices[0].pcie_gen) * t->devices[0].pcie_width;
	size_t n = 0;
	for (int k = 0; k < 6; k++)
		for (int s = 0; s < 6; s++)
			for (int d = 0; d < 6; d++)
				n += tab[k][s][d].count > 0;
	if (n) {
		a->cgroups = calloc(n, sizeof(*a->cgroups));
		if (!a->cgroups)
			return error_set(err, "out of memory");
	}
	for (int k = 0; k < 6; k++)
		for (int s = 0; s < 6; s++)
			for (int d = 0; d < 6; d++) {
				struct an_copy_group *g = &tab[k][s][d];
				if (!g->count)
					continue;
				g->gbps = g->sum_ns > 0 ? (double)g->bytes / (double)g->sum_ns : 0;
				a->cgroups[a->n_cgroups++] = *g;
			}
	return 0;
}

struct thr {
	uint32_t pid, tid;
	size_t *stk; /* indices into t->ranges */
	size_t n, cap;
};

static int is_projected(const struct trace_range *r)
{
	return r->kind == RANGE_NVTX || r->kind == RANGE_ANNOTATION;
}

static int cmp_range(const void *x, const void *y)
{
	const struct an_range_group *a = x, *b = y;
	if (a->gpu_sum_ns != b->gpu_sum_ns)
		return a->gpu_sum_ns > b->gpu_sum_ns ? -1 : 1;
	if (a->cpu_sum_ns != b->cpu_sum_ns)
		return a->cpu_sum_ns > b->cpu_sum_ns ? -1 : 1;
	return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

static struct thr *thread_of(struct thr **v, size_t *n, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].pid == pid && (*v)[i].tid == tid)
			return &(*v)[i];
	struct thr *nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	*v = nv;
	memset(&nv[*n], 0, sizeof(nv[*n]));
	nv[*n].pid = pid;
	nv[*n].tid = tid;
	return &nv[(*n)++];
}

/* Drops every range that ended before ts (not only the top: start/end
 * ranges need not nest), keeping the order; O(depth). */
static void pop_ended(const struct trace *t, struct thr *h, int64_t ts)
{
	size_t k = 0;
	for (size_t i = 0; i < h->n; i++)
		if (trace_range_span(t, h->stk[i]).end_ns >= ts)
			h->stk[k++] = h->stk[i];
	h->n = k;
}

int an_range_stats(struct analysis *a, char *err)
{
	const struct trace *t = a->t;
	size_t ns = t->n_strings ? t->n_strings : 1, nr = 0;
	for (size_t i = 0; i < t->n_ranges; i++) {
		nr += is_projected(trace_range_row(t, i));
	}
	if (!nr)
		return 0;
	uint32_t *gi = malloc(ns * sizeof(*gi));
	struct thr *thr = NULL, *last = NULL;
	size_t nthr = 0, ia = 0, ir = 0;
	int rc = -1;
	if (!gi)
		return error_set(err, "out of memory");
	memset(gi, 0xff, ns * sizeof(*gi));
	a->ranges = calloc(nr, sizeof(*a->ranges));
	if (!a->ranges)
		goto oom;
	while (ir < t->n_ranges || ia < t->n_apis) {
		int64_t sr = ir < t->n_ranges ? trace_range_start(t, ir) : INT64_MAX;
		int64_t sa = ia < t->n_apis ? t->apis[ia].start_ns : INT64_MAX;
		if (sr <= sa) {
			if (is_projected(trace_range_row(t, ir))) {
				const struct trace_range row = trace_range_at(t, ir), *r = &row;
				uint32_t id = r->name_id < ns ? r->name_id : 0;
				if (gi[id] == UINT32_MAX) {
					gi[id] = (uint32_t)a->n_ranges++;
					a->ranges[gi[id]].name_id = id;
					a->ranges[gi[id]].kind = r->kind;
				}
				a->ranges[gi[id]].count++;
				a->ranges[gi[id]].cpu_sum_ns += r->end_ns - r->start_ns;
				if (!last || last->pid != r->pid || last->tid != r->tid)
					last = thread_of(&thr, &nthr, r->pid, r->tid);
				if (!last)
					goto oom;
				pop_ended(t, last, r->start_ns + 1);
				size_t *s = VEC_PUSH(last->stk, last->n, last->cap);
				if (!s)
					goto oom;
				*s = ir;
			}
			ir++;
			continue;
		}
		const struct trace_api *p = &t->apis[ia++];
		if (p->kind != API_LAUNCH && p->kind != API_MEMCPY && p->kind != API_MEMSET)
			continue;
		uint32_t ref = an_corr_find(a, p->pid, p->correlation);
		if (ref == AN_OP_NONE)
			continue;
		if (!last || last->pid != p->pid || last->tid != p->tid) {
			last = NULL;
			for (size_t i = 0; i < nthr; i++)
				if (thr[i].pid == p->pid && thr[i].tid == p->tid)
					last = &thr[i];
			if (!last)
				continue;
		}
		pop_ended(t, last, p->start_ns);
		int64_t os, oe;
		an_op_span(a, ref, &os, &oe);
		for (size_t i = 0; i < last->n; i++) {
			uint32_t name = trace_range_row(t, last->stk[i])->name_id;
			struct an_range_group *g = &a->ranges[gi[name < ns ? name : 0]];
			g->gpu_ops++;
			g->gpu_sum_ns += oe - os;
		}
	}
	qsort(a->ranges, a->n_ranges, sizeof(*a->ranges), cmp_range);
	rc = 0;
	goto out;
oom:
	error_set(err, "out of memory");
out:
	for (size_t i = 0; i < nthr; i++)
		free(thr[i].stk);
	free(thr);
	free(gi);
	return rc;
}

/* The processes by pid: a map to their index and doubling capacity, so
 * that 200,000 pids cost linear time (probe H1: a linear search and a
 * realloc per new pid took 69 s). */
struct proc_index {
	struct u64map map;
	size_t cap;
};

static struct an_process *proc_of(struct analysis *a, struct proc_index *x, uint32_t pid)
{
	uint64_t at;
	if (u64map_get(&x->map, pid, &at))
		return &a->processes[at];
	struct an_process *v = VEC_PUSH(a->processes, a->n_processes, x->cap);
	if (!v || u64map_put(&x->map, pid, a->n_processes - 1) < 0)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->pid = pid;
	return v;
}

static int process_rows(struct analysis *a, struct proc_index *ix, char *err)
{
	const struct trace *t = a->t;
	struct an_process *p = NULL;
	for (size_t i = 0; i < t->n_processes; i++) {
		const struct trace_process *x = &t->processes[i];
		if (!(p = proc_of(a, ix, x->pid)))
			return error_set(err, "out of memory");
		p->parent_pid = x->parent_pid;
		p->cmdline_id = x->cmdline_id;
		p->status_id = x->status_id;
		p->dropped_records += x->dropped_records;
		p->overhead_ns += (int64_t)x->overhead_ns;
		a->dropped_records += x->dropped_records;
		a->overhead_ns += (int64_t)x->overhead_ns;
		if (x->end_ns > x->start_ns)
			a->process_ns += x->end_ns - x->start_ns;
	}
	p = NULL;
#define COUNT(arr, cnt, field, extra)                                                              \
	for (size_t i = 0; i < (cnt); i++) {                                                       \
		if (!p || p->pid != (arr)[i].pid)                                                  \
			if (!(p = proc_of(a, ix, (arr)[i].pid)))                                   \
				return error_set(err, "out of memory");                            \
		p->field++;                                                                        \
		extra;                                                                             \
	}
	COUNT(t->kernels, t->n_kernels, kernels,
	      p->kernel_sum_ns += t->kernels[i].end_ns - t->kernels[i].start_ns)
	p = NULL;
	COUNT(t->copies, t->n_copies, copies, (void)0)
	p = NULL;
	COUNT(t->apis, t->n_apis, apis, (void)0)
#undef COUNT
	return 0;
}

int an_process_stats(struct analysis *a, char *err)
{
	struct proc_index ix = {.cap = 0};
	if (u64map_init(&ix.map, 0) < 0)
		return error_set(err, "out of memory");
	int rc = process_rows(a, &ix, err);
	u64map_release(&ix.map);
	return rc;
}
