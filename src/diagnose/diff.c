/*
 * diff.c - the diff engine (diff.h): reads two analyses, matches kernels by
 * name and findings by id, splits the span change into categories, picks
 * the one that explains it, and gives the regression verdict.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "diagnose/thresholds.h"
#include "diagnose/diff.h"
#include "util/demangle.h"
#include "util/error.h"

/* The words for a category name ("idle_sync" -> "GPU idle around blocking
 * synchronizations"); the name itself when it has none. */
static const char *cat_words(const char *name)
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

static struct diff_cat cat(const char *name, int64_t base_ns, int64_t new_ns)
{
	return (struct diff_cat){name, base_ns, new_ns, cat_words(name)};
}

static int cats_read(struct diff_cat *c, const struct analysis *b, const struct analysis *n)
{
	int k = 0;
	c[k++] = cat("span", b->span_ns, n->span_ns);
	c[k++] = cat("gpu_busy", b->busy_ns, n->busy_ns);
	c[k++] = cat("kernels", b->kernel_ns, n->kernel_ns);
	c[k++] = cat("copies", b->copy_ns, n->copy_ns);
	for (int i = 1; i < 6; i++)
		if (b->copy_kind_ns[i] || n->copy_kind_ns[i])
			c[k++] = cat(copy_kind_name(i), b->copy_kind_ns[i], n->copy_kind_ns[i]);
	c[k++] = cat("memsets", b->memset_ns, n->memset_ns);
	c[k++] = cat("idle", b->idle.total_ns, n->idle.total_ns);
	c[k++] = cat("idle_host", b->idle.host_ns, n->idle.host_ns);
	c[k++] = cat("idle_dispatch", b->idle.dispatch_ns, n->idle.dispatch_ns);
	c[k++] = cat("idle_launch", b->idle.launch_ns, n->idle.launch_ns);
	c[k++] = cat("idle_sync", b->idle.sync_ns, n->idle.sync_ns);
	c[k++] = cat("idle_copy", b->idle.copy_ns, n->idle.copy_ns);
	c[k++] = cat("idle_cuda_api", b->idle.api_ns, n->idle.api_ns);
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

/* The demangled form of s, kept in d->names (invariant 4); NULL when out of
 * memory. */
static const char *demangled(struct diff *d, const char *s, size_t *cap)
{
	char buf[4096];
	const char *dm = gs_demangle(s, buf, sizeof(buf));
	if (dm == s)
		return s; /* not mangled: the trace's own string */
	if (vec_reserve((void **)&d->names, cap, d->n_names + 1, sizeof(*d->names)) < 0)
		return NULL;
	char *c = strdup(dm);
	if (c)
		d->names[d->n_names++] = c;
	return c;
}

/* The kernel groups of a by demangled name, sorted (n_kgroups + 1 entries;
 * groups whose names demangle alike are one entry). */
static struct named *kernels_read(struct diff *d, const struct analysis *a, size_t *n, size_t *cap)
{
	struct named *v = calloc(a->n_kgroups + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < a->n_kgroups; i++) {
		const struct an_kernel_group *g = &a->kgroups[i];
		v[i].name = demangled(d, trace_str(a->t, g->name_id), cap);
		if (!v[i].name) {
			free(v);
			return NULL;
		}
		v[i].st = (struct diff_kstat){1, g->count, g->sum_ns, g->median_ns};
	}
	qsort(v, a->n_kgroups, sizeof(*v), cmp_named);
	size_t k = 0;
	for (size_t i = 0; i < a->n_kgroups; i++) {
		if (k && !strcmp(v[k - 1].name, v[i].name)) {
			struct diff_kstat *x = &v[k - 1].st;
			x->count += v[i].st.count;
			x->total_ns += v[i].st.total_ns;
			continue; /* its median stays the first group's */
		}
		v[k++] = v[i];
	}
	*n = k;
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
	size_t cap = 0, nb = 0, nn = 0, i = 0, j = 0, k = 0;
	struct named *vb = kernels_read(d, b, &nb, &cap), *vn = kernels_read(d, n, &nn, &cap);
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

/* |change| of an evidence number relative to its size; 0 when it did not
 * move (equal, or within rounding of a printed figure: 0.05 absolute) */
static double moved_by(double b, double n)
{
	double d = fabs(n - b);
	if (d <= TH_DIFF_UNMOVED_ABS)
		return 0;
	double m = fabs(b) > fabs(n) ? fabs(b) : fabs(n);
	return m > 0 ? d / m : 0;
}

/* The numeric evidence of x that moved, largest relative change first
 * (values of 5% or less of their size count as unmoved). */
static void moved_evidence(struct diff_finding *x)
{
	double rel[DIFF_MAX_MOVED];
	for (int i = 0; i < x->base->n_ev; i++) {
		const struct evidence *e = &x->base->ev[i];
		const struct evidence *g = finding_get(x->new_, e->key);
		if (!e->is_num || !g || !g->is_num || e->unknown || g->unknown)
			continue;
		double r = moved_by(e->num, g->num);
		if (r <= TH_DIFF_UNMOVED_REL)
			continue;
		/* full: the smallest (last) gives way to a larger move; the
		 * slot that fills the list is taken as is (its rel[] is not set
		 * yet: comparing it left moved[] with a NULL pair) */
		int full = x->n_moved == DIFF_MAX_MOVED;
		int k = full ? DIFF_MAX_MOVED - 1 : x->n_moved++;
		if (full && rel[k] >= r)
			continue;
		x->moved[k] = (struct diff_moved){e, g};
		rel[k] = r;
		for (; k > 0 && rel[k] > rel[k - 1]; k--) {
			struct diff_moved m = x->moved[k];
			double t = rel[k];
			x->moved[k] = x->moved[k - 1];
			rel[k] = rel[k - 1];
			x->moved[k - 1] = m;
			rel[k - 1] = t;
		}
	}
}

/* by the wall time a finding explains on each side */
static enum diff_status status_of(const struct diff *d, const struct diff_finding *x)
{
	double b = x->base->impact_pct / 100.0 * (double)d->base.span_ns;
	double n = x->new_->impact_pct / 100.0 * (double)d->new_.span_ns;
	if (n < (1.0 - DIFF_MOVE_SHARE) * b)
		return DIFF_REDUCED;
	if (n > (1.0 + DIFF_MOVE_SHARE) * b && n - b > 0)
		return DIFF_INCREASED;
	return DIFF_UNCHANGED;
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
		struct diff_finding *x = &d->findings[k++];
		*x = (struct diff_finding){
		    g ? DIFF_CHANGED : DIFF_DISAPPEARED, DIFF_RESOLVED, &A->v[i], g, {{0}}, 0};
		if (g) {
			x->status = status_of(d, x);
			moved_evidence(x);
		}
	}
	for (size_t i = 0; i < B->n; i++)
		if (!finding_find(A, B->v[i].id))
			d->findings[k++] = (struct diff_finding){DIFF_APPEARED, DIFF_NEW, NULL,
								 &B->v[i],	{{0}},	  0};
	d->n_findings = k;
	return 0;
}

/* invariant of `identical`: nothing moved anywhere */
static int identical(const struct diff *d)
{
	for (int i = 0; i < d->n_cats; i++)
		if (d->cats[i].base_ns != d->cats[i].new_ns)
			return 0;
	for (size_t i = 0; i < d->n_kernels; i++)
		if (!d->kernels[i].base.present || !d->kernels[i].new_.present ||
		    d->kernels[i].delta_ns || d->kernels[i].base.count != d->kernels[i].new_.count)
			return 0;
	for (size_t i = 0; i < d->n_findings; i++)
		if (d->findings[i].status != DIFF_UNCHANGED || d->findings[i].n_moved ||
		    d->findings[i].base->impact_pct != d->findings[i].new_->impact_pct)
			return 0;
	return 1;
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
	d->why_words = d->why >= 0 ? d->cats[d->why].words : NULL;
	d->gate_pct = gate_pct;
	if (match_kernels(d, base, new_) < 0 || match_findings(d) < 0) {
		diff_release(d);
		return error_set(err, "out of memory");
	}
	verdict(d);
	d->identical = identical(d);
	return 0;
}

void diff_release(struct diff *d)
{
	for (size_t i = 0; i < d->n_names; i++)
		free(d->names[i]);
	free(d->names);
	free(d->kernels);
	free(d->findings);
	memset(d, 0, sizeof(*d));
}
