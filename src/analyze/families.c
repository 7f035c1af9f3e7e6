/*
 * families.c - busy time and GPM verdicts by kernel family (families.h).
 *
 * Each family's kernels make a union of intervals with prefix sums (built
 * once, in start order), so the kernel time a family has in a GPM window
 * is two binary searches; gpm.c asks for every window, so the cost is
 * O(windows x families x log kernels). A window is a sample's: a trace
 * without samples (a PyTorch profile) keeps each family's union length
 * alone (its intervals were 7 MiB for 300k kernels, in each analysis).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/families.h"
#include "diagnose/thresholds.h"
#include "util/error.h"

static int push(struct an_families *F, int f, size_t *cap, int64_t s, int64_t e)
{
	size_t n = F->u[f].n;
	if (n && s <= F->u[f].e[n - 1]) {
		if (e > F->u[f].e[n - 1])
			F->u[f].e[n - 1] = e;
		return 0;
	}
	if (n == cap[f]) {
		size_t nc = cap[f] ? cap[f] * 2 : 64;
		int64_t *ns = realloc(F->u[f].s, nc * sizeof(int64_t));
		if (!ns)
			return -1;
		F->u[f].s = ns;
		int64_t *ne = realloc(F->u[f].e, nc * sizeof(int64_t));
		if (!ne)
			return -1;
		F->u[f].e = ne;
		cap[f] = nc;
	}
	F->u[f].s[n] = s;
	F->u[f].e[n] = e;
	F->u[f].n = n + 1;
	return 0;
}

/* The union's length without its intervals: the last one open and the
 * sum of those closed, merged as push merges them. */
struct run {
	int64_t s, e, sum;
	int any;
};

static void add_run(struct run *r, int64_t s, int64_t e)
{
	if (r->any && s <= r->e) {
		if (e > r->e)
			r->e = e;
		return;
	}
	if (r->any)
		r->sum += r->e - r->s;
	*r = (struct run){s, e, r->sum, 1};
}

int an_families(struct analysis *a, char *err)
{
	struct an_families *F = &a->fam;
	const struct trace *t = a->t;
	int windows = t->n_samples > 0; /* gpm.c's windows come from a->t's samples */
	struct run run[KF_COUNT] = {{0}};
	uint8_t *fam = malloc(t->n_strings ? t->n_strings : 1);
	if (!fam)
		return error_set(err, "out of memory");
	memset(fam, KF_OTHER, t->n_strings ? t->n_strings : 1);
	for (size_t i = a->n_kgroups; i-- > 0;) {
		const struct an_kernel_group *g = &a->kgroups[i];
		if (g->name_id < t->n_strings) {
			fam[g->name_id] = g->family;
			F->f[g->family].top_name_id = g->name_id; /* by time: the first wins */
		}
	}
	size_t cap[KF_COUNT] = {0};
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		int f = fam[k->name_id < t->n_strings ? k->name_id : 0];
		F->f[f].sum_ns += k->end_ns - k->start_ns;
		F->f[f].kernels++;
		if (!windows)
			add_run(&run[f], k->start_ns, k->end_ns);
		else if (push(F, f, cap, k->start_ns, k->end_ns) < 0) {
			free(fam);
			return error_set(err, "out of memory");
		}
	}
	free(fam);
	for (int f = 0; f < KF_COUNT; f++) {
		F->f[f].counter_bound = -1;
		if (!windows) {
			F->f[f].kernel_ns = run[f].sum + (run[f].any ? run[f].e - run[f].s : 0);
			continue;
		}
		size_t n = F->u[f].n;
		F->u[f].cum = malloc((n + 1) * sizeof(int64_t));
		if (!F->u[f].cum)
			return error_set(err, "out of memory");
		F->u[f].cum[0] = 0;
		for (size_t i = 0; i < n; i++)
			F->u[f].cum[i + 1] = F->u[f].cum[i] + (F->u[f].e[i] - F->u[f].s[i]);
		F->f[f].kernel_ns = F->u[f].cum[n];
	}
	return 0;
}

void an_families_release(struct an_families *F)
{
	for (int f = 0; f < KF_COUNT; f++) {
		free(F->u[f].s);
		free(F->u[f].e);
		free(F->u[f].cum);
	}
	memset(F, 0, sizeof(*F));
}

/* family f's kernel time before ts */
static int64_t before(const struct an_families *F, int f, int64_t ts)
{
	size_t lo = 0, hi = F->u[f].n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (F->u[f].e[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t sum = F->u[f].cum ? F->u[f].cum[lo] : 0;
	if (lo < F->u[f].n && F->u[f].s[lo] < ts)
		sum += ts - F->u[f].s[lo];
	return sum;
}

int64_t an_family_between(const struct an_families *F, int f, int64_t t0, int64_t t1)
{
	if (t1 <= t0 || f < 0 || f >= KF_COUNT || !F->u[f].cum)
		return 0;
	return before(F, f, t1) - before(F, f, t0);
}

int an_family_window(struct analysis *a, int64_t t0, int64_t t1, double b, int cls, double dram,
		     double pipe)
{
	struct an_families *F = &a->fam;
	int64_t v[KF_COUNT], sum = 0;
	int best = 0;
	for (int f = 0; f < KF_COUNT; f++) {
		v[f] = an_family_between(F, f, t0, t1);
		sum += v[f];
		if (v[f] > v[best])
			best = f;
	}
	F->sampled_ns += (int64_t)b;
	if (sum <= 0 || (double)v[best] < TH_FAMILY_DOMINANT * (double)sum) {
		F->mixed_ns += (int64_t)b;
		return 0;
	}
	struct an_family *x = &F->f[best];
	x->sampled_ns += (int64_t)b;
	/* sums here, shares and means in an_family_finish */
	x->mem += cls == 0 ? b : 0;
	x->compute += cls == 1 ? b : 0;
	x->latency += cls == 2 ? b : 0;
	x->dram += b * dram;
	x->pipe += b * pipe;
	return 1;
}

void an_family_finish(struct analysis *a)
{
	for (int f = 0; f < KF_COUNT; f++) {
		struct an_family *x = &a->fam.f[f];
		double s = (double)x->sampled_ns;
		if (s <= 0) {
			x->mem = x->compute = x->latency = x->dram = x->pipe = 0;
			continue;
		}
		x->mem /= s;
		x->compute /= s;
		x->latency /= s;
		x->dram /= s;
		x->pipe /= s;
	}
}

const char *an_family_verdict(const struct analysis *a, int f)
{
	const struct an_family *x = &a->fam.f[f];
	if (x->sampled_ns <= 0)
		return NULL;
	if (x->mem >= 0.5)
		return "memory";
	if (x->compute >= 0.5)
		return "compute";
	if (x->latency >= 0.5)
		return "latency";
	return "mixed";
}
