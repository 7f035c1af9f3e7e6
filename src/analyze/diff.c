/*
 * diff.c - the diff engine (diff.h): reads two analyses, matches kernels by
 * name and findings by id, splits the span change into categories, picks
 * the one that explains it, and gives the regression verdict.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff.h"
#include "util/error.h"

double diff_ratio(double base, double new_)
{
	return base > 0 ? new_ / base : NAN;
}

const char *diff_cat_words(const char *name)
{
	static const struct {
		const char *id, *words;
	} w[] = {
	    {"kernels", "kernel time"},
	    {"idle_host", "GPU idle while the host works outside CUDA"},
	    {"idle_dispatch", "GPU idle while the host dispatches call after call"},
	    {"idle_launch", "GPU idle waiting on kernel launches"},
	    {"idle_sync", "GPU idle around blocking synchronizations"},
	    {"idle_copy", "GPU idle during copy calls"},
	    {"idle_cuda_api", "GPU idle inside other CUDA calls"},
	    {"HtoD", "host-to-device copy time"},
	    {"DtoH", "device-to-host copy time"},
	    {"DtoD", "device-to-device copy time"},
	    {"HtoH", "host-to-host copy time"},
	    {"PtoP", "peer-to-peer copy time"},
	};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(w[i].id, name))
			return w[i].words;
	return name;
}

/* ---- what the diff reads of an analysis (the one place that knows it) ---- */

static void side_read(struct diff_side *s, const struct analysis *a, const char *path)
{
	s->path = path;
	s->source = a->source;
	s->span_ns = a->span_ns;
	s->busy_pct = an_pct(a, (double)a->busy_ns);
	s->n_kernels = a->n_kernels;
	s->has_gpu_work = a->n_kernels + a->n_copies + a->n_memsets > 0;
	s->primary = a->primary;
	s->findings = &a->findings;
}

static int cats_read(struct diff_cat *c, const struct analysis *b, const struct analysis *n)
{
	int k = 0;
	c[k++] = (struct diff_cat){"span", b->span_ns, n->span_ns};
	c[k++] = (struct diff_cat){"gpu_busy", b->busy_ns, n->busy_ns};
	c[k++] = (struct diff_cat){"kernels", b->kernel_ns, n->kernel_ns};
	c[k++] = (struct diff_cat){"copies", b->copy_ns, n->copy_ns};
	for (int i = 1; i < 6; i++)
		if (b->copy_kind_ns[i] || n->copy_kind_ns[i])
			c[k++] = (struct diff_cat){copy_kind_name(i), b->copy_kind_ns[i],
						   n->copy_kind_ns[i]};
	c[k++] = (struct diff_cat){"memsets", b->memset_ns, n->memset_ns};
	c[k++] = (struct diff_cat){"idle", b->idle.total_ns, n->idle.total_ns};
	c[k++] = (struct diff_cat){"idle_host", b->idle.host_ns, n->idle.host_ns};
	c[k++] = (struct diff_cat){"idle_dispatch", b->idle.dispatch_ns, n->idle.dispatch_ns};
	c[k++] = (struct diff_cat){"idle_launch", b->idle.launch_ns, n->idle.launch_ns};
	c[k++] = (struct diff_cat){"idle_sync", b->idle.sync_ns, n->idle.sync_ns};
	c[k++] = (struct diff_cat){"idle_copy", b->idle.copy_ns, n->idle.copy_ns};
	c[k++] = (struct diff_cat){"idle_cuda_api", b->idle.api_ns, n->idle.api_ns};
	return k;
}

struct named {
	const char *name;
	struct diff_kstat st;
};

static int cmp_named(const void *x, const void *y)
{
	return strcmp(((const struct named *)x)->name, ((const struct named *)y)->name);
}

/* The kernel groups of a, sorted by name (n_kgroups + 1 entries). */
static struct named *kernels_read(const struct analysis *a)
{
	struct named *v = calloc(a->n_kgroups + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < a->n_kgroups; i++) {
		const struct an_kernel_group *g = &a->kgroups[i];
		v[i].name = trace_str(a->t, g->name_id);
		v[i].st = (struct diff_kstat){1, g->count, g->sum_ns, g->median_ns};
	}
	qsort(v, a->n_kgroups, sizeof(*v), cmp_named);
	return v;
}

/* ---- matching ---- */

static int cmp_kernel(const void *x, const void *y)
{
	const struct diff_kernel *a = x, *b = y;
	int64_t da = llabs(a->delta_ns), db = llabs(b->delta_ns);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Kernel rows matched by name, sorted by |delta| (invariant 1). */
static int match_kernels(struct diff *d, const struct analysis *b, const struct analysis *n)
{
	struct named *vb = kernels_read(b), *vn = kernels_read(n);
	size_t nb = b->n_kgroups, nn = n->n_kgroups, i = 0, j = 0, k = 0;
	d->kernels = calloc(nb + nn + 1, sizeof(*d->kernels));
	if (!vb || !vn || !d->kernels) {
		free(vb);
		free(vn);
		return -1;
	}
	while (i < nb || j < nn) {
		int c = i == nb ? 1 : j == nn ? -1 : strcmp(vb[i].name, vn[j].name);
		struct diff_kernel *r = &d->kernels[k++];
		if (c <= 0) {
			r->name = vb[i].name;
			r->base = vb[i++].st;
		}
		if (c >= 0) {
			r->name = vn[j].name;
			r->new_ = vn[j++].st;
		}
		r->delta_ns = r->new_.total_ns - r->base.total_ns;
	}
	qsort(d->kernels, k, sizeof(*d->kernels), cmp_kernel);
	d->n_kernels = k;
	free(vb);
	free(vn);
	return 0;
}

static int match_findings(struct diff *d)
{
	const struct finding_list *A = d->base.findings, *B = d->new_.findings;
	d->findings = calloc(A->n + B->n + 1, sizeof(*d->findings));
	if (!d->findings)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < A->n; i++) {
		const struct finding *g = finding_find(B, A->v[i].id);
		d->findings[k++] =
		    (struct diff_finding){g ? DIFF_CHANGED : DIFF_DISAPPEARED, &A->v[i], g};
	}
	for (size_t i = 0; i < B->n; i++)
		if (!finding_find(A, B->v[i].id))
			d->findings[k++] = (struct diff_finding){DIFF_APPEARED, NULL, &B->v[i]};
	d->n_findings = k;
	return 0;
}

/* The category whose time changed most (what the span change is made of):
 * kernels, copy directions and the idle classes; -1 when none changed. */
static int why(const struct diff_cat *c, int nc)
{
	int best = -1;
	int64_t most = 0;
	for (int i = 0; i < nc; i++) {
		const char *n = c[i].name;
		if (!strcmp(n, "span") || !strcmp(n, "gpu_busy") || !strcmp(n, "idle") ||
		    !strcmp(n, "copies") || !strcmp(n, "memsets"))
			continue;
		int64_t v = c[i].new_ns - c[i].base_ns;
		v = v < 0 ? -v : v;
		if (v > most) {
			most = v;
			best = i;
		}
	}
	return best;
}

/* span change, verdict, gate (invariants 2 and 3) */
static void verdict(struct diff *d)
{
	const struct diff_side *b = &d->base, *n = &d->new_;
	int work = b->has_gpu_work && n->has_gpu_work;
	d->span_valid = work && b->span_ns > 0;
	d->span_pct =
	    d->span_valid ? 100.0 * (double)(n->span_ns - b->span_ns) / (double)b->span_ns : 0;
	d->span_ratio = diff_ratio((double)b->span_ns, (double)n->span_ns);
	d->verdict = !work	       ? DIFF_NO_WORK
		     : d->span_pct < 0 ? DIFF_FASTER
		     : d->span_pct > 0 ? DIFF_SLOWER
				       : DIFF_SAME;
	d->gate = d->gate_pct < 0	      ? DIFF_GATE_OFF
		  : !work		      ? DIFF_GATE_NO_WORK
		  : d->span_pct > d->gate_pct ? DIFF_GATE_REGRESSED
					      : DIFF_GATE_PASS;
	const struct finding *p = b->primary;
	if (p && (!n->primary || strcmp(p->id, n->primary->id)) && d->verdict == DIFF_FASTER) {
		d->why_primary = p;
		d->why_primary_new = finding_find(n->findings, p->id);
	}
}

int diff_build(struct diff *d, const struct analysis *base, const char *base_path,
	       const struct analysis *new_, const char *new_path, double gate_pct, char *err)
{
	memset(d, 0, sizeof(*d));
	side_read(&d->base, base, base_path);
	side_read(&d->new_, new_, new_path);
	d->n_cats = cats_read(d->cats, base, new_);
	d->why = why(d->cats, d->n_cats);
	d->why_words = d->why >= 0 ? diff_cat_words(d->cats[d->why].name) : NULL;
	d->gate_pct = gate_pct;
	if (match_kernels(d, base, new_) < 0 || match_findings(d) < 0) {
		diff_release(d);
		return error_set(err, "out of memory");
	}
	verdict(d);
	return 0;
}

void diff_release(struct diff *d)
{
	free(d->kernels);
	free(d->findings);
	memset(d, 0, sizeof(*d));
}
