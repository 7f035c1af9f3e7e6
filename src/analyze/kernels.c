/*
 * kernels.c - launch statistics and per-kernel-name statistics.
 *
 * Launch statistics follow HTA: launch call time, launch delay (kernel start
 * minus launch end, by correlation id), queue depth at each launch, short
 * kernels. Kernel groups are keyed by name id (an array indexed by string
 * id, no hashing); medians come from one counting-sorted duration array and
 * a quickselect per group. Occupancy (gpu/occupancy.h) is computed once per
 * group from the launch configuration that holds most of its time.
 */
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "analyze/analysis_int.h"
#include "diagnose/thresholds.h"
#include "gpu/occupancy.h"
#include "util/error.h"

/* k-th smallest of v[0..n) (reorders v), for int64_t and uint32_t arrays:
 * durations under 2^32 ns (4.3 s, nearly all) are kept in half the memory
 * (issue #25: these arrays are 80 MB for 10M kernels); the k-th smallest
 * is the same value either way. */
#define SELECT_K(name, type)                                                                       \
	static type name(type *v, size_t n, size_t k)                                              \
	{                                                                                          \
		size_t lo = 0, hi = n - 1;                                                         \
		while (lo < hi) {                                                                  \
			type p = v[lo + (hi - lo) / 2];                                            \
			size_t i = lo, j = hi;                                                     \
			while (i <= j) {                                                           \
				while (v[i] < p)                                                   \
					i++;                                                       \
				while (v[j] > p)                                                   \
					j--;                                                       \
				if (i <= j) {                                                      \
					type x = v[i];                                             \
					v[i] = v[j];                                               \
					v[j] = x;                                                  \
					i++;                                                       \
					if (j == 0)                                                \
						break;                                             \
					j--;                                                       \
				}                                                                  \
			}                                                                          \
			if (k <= j)                                                                \
				hi = j;                                                            \
			else if (k >= i)                                                           \
				lo = i;                                                            \
			else                                                                       \
				return v[k];                                                       \
		}                                                                                  \
		return v[k];                                                                       \
	}
SELECT_K(select_k, int64_t)
SELECT_K(select_k32, uint32_t)

/* Non-negative values, as uint32_t while they fit (wide = 0), else as
 * int64_t: the median of what was put. */
struct vals {
	void *v;
	size_t n;
	int wide;
};

static int vals_init(struct vals *x, size_t cap, int wide)
{
	x->n = 0;
	x->wide = wide;
	x->v = malloc((cap ? cap : 1) * (wide ? sizeof(int64_t) : sizeof(uint32_t)));
	return x->v ? 0 : -1;
}

/* 0, or 1 when v does not fit (the caller starts over wide) */
static int vals_put(struct vals *x, int64_t v)
{
	if (x->wide)
		((int64_t *)x->v)[x->n++] = v;
	else if (v >= 0 && v <= UINT32_MAX)
		((uint32_t *)x->v)[x->n++] = (uint32_t)v;
	else
		return 1;
	return 0;
}

static int64_t vals_median(struct vals *x)
{
	if (!x->n)
		return 0;
	if (x->wide)
		return select_k(x->v, x->n, (x->n - 1) / 2);
	return (int64_t)select_k32(x->v, x->n, (x->n - 1) / 2);
}

/* The launch queue: ops launched but not finished, FIFO in launch order
 * (of the ops' ends, only those not yet passed are kept). */
struct queue {
	int64_t *q;
	size_t head, tail, cap, empty, seen;
	double depth_sum;
};

/* a launch ending at `end` whose op ends at op_end: 0, -1 out of memory */
static int queue_launch(struct queue *u, int64_t end, int64_t op_end)
{
	while (u->head < u->tail && u->q[u->head] <= end)
		u->head++;
	size_t depth = u->tail - u->head;
	u->depth_sum += (double)depth;
	u->empty += depth == 0;
	u->seen++;
	if (u->tail == u->cap && u->head > 0) {
		memmove(u->q, u->q + u->head, (u->tail - u->head) * sizeof(*u->q));
		u->tail -= u->head;
		u->head = 0;
	}
	if (u->tail == u->cap) {
		size_t nc = u->cap ? 2 * u->cap : 1024;
		int64_t *v = realloc(u->q, nc * sizeof(*v));
		if (!v)
			return -1;
		u->q = v;
		u->cap = nc;
	}
	u->q[u->tail++] = op_end;
	return 0;
}

/* The API time of the launch calls, the launch delays (kernel start minus
 * launch end, by correlation id) and the queue depth at each launch: 0, 1
 * when a value did not fit x (nothing is kept then), -1 out of memory. */
static int launch_times(struct analysis *a, struct vals *x)
{
	const struct trace *t = a->t;
	struct an_launch *l = &a->launch;
	l->api_sum_ns = 0;
	l->long_launches = l->long_waited = 0;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *p = &t->apis[i];
		if (p->kind != API_LAUNCH)
			continue;
		if (vals_put(x, p->end_ns - p->start_ns))
			return 1;
		l->api_sum_ns += p->end_ns - p->start_ns;
	}
	l->api_median_ns = vals_median(x);
	x->n = 0;
	double dsum = 0;
	struct queue u = {0};
	int rc = 0;
	for (size_t i = 0; i < t->n_apis && rc == 0; i++) {
		const struct trace_api *p = &t->apis[i];
		if (p->kind != API_LAUNCH)
			continue;
		uint32_t r = an_corr_find(a, p->pid, p->correlation);
		if (r == AN_OP_NONE)
			continue;
		int64_t os, oe;
		an_op_span(a, r, &os, &oe);
		int64_t d = os - p->end_ns;
		if (oe - os >= TH_BLOCKING_KERNEL_NS) {
			l->long_launches++;
			l->long_waited += p->end_ns >= oe;
		}
		if (vals_put(x, d > 0 ? d : 0))
			rc = 1;
		else if (queue_launch(&u, p->end_ns, oe) < 0)
			rc = -1;
		dsum += d > 0 ? (double)d : 0.0;
	}
	free(u.q);
	if (rc)
		return rc;
	l->correlated = x->n;
	l->delay_mean_ns = x->n ? (int64_t)(dsum / (double)x->n) : 0;
	l->delay_median_ns = vals_median(x);
	l->queue_depth_mean = u.seen ? u.depth_sum / (double)u.seen : 0;
	l->queue_empty_share = u.seen ? (double)u.empty / (double)u.seen : 0;
	return 0;
}

int an_launch_stats(struct analysis *a, char *err)
{
	const struct trace *t = a->t;
	struct an_launch *l = &a->launch;
	size_t n = 0;
	for (size_t i = 0; i < t->n_apis; i++)
		n += t->apis[i].kind == API_LAUNCH;
	for (size_t i = 0; i < t->n_kernels; i++) {
		int64_t d = t->kernels[i].end_ns - t->kernels[i].start_ns;
		if (d < TH_SHORT_KERNEL_NS) {
			l->short_kernels++;
			l->short_kernel_sum_ns += d;
		}
	}
	l->launches = n;
	if (n == 0)
		return 0;
	for (int wide = 0;; wide = 1) {
		struct vals x;
		if (vals_init(&x, n, wide) < 0)
			return error_set(err, "out of memory");
		int rc = launch_times(a, &x);
		free(x.v);
		if (rc < 0)
			return error_set(err, "out of memory");
		if (rc == 0)
			return 0;
	}
}

static int cmp_group(const void *x, const void *y)
{
	const struct an_kernel_group *a = x, *b = y;
	if (a->sum_ns != b->sum_ns)
		return a->sum_ns > b->sum_ns ? -1 : 1;
	return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

static const struct trace_device *device_of(const struct trace *t, uint32_t id)
{
	for (size_t i = 0; i < t->n_devices; i++)
		if (t->devices[i].id == id)
			return &t->devices[i];
	return t->n_devices == 1 ? &t->devices[0] : NULL;
}

static void group_occupancy(struct an_kernel_group *g, const struct trace_device *d)
{
	g->occupancy = -1;
	g->limiter = "";
	/* no claim without the inputs: the device, the block, the registers
	 * (trace.h: 0 registers is "not recorded") */
	if (!d || !d->cc_major || g->block_threads <= 0 || g->regs == 0)
		return;
	struct occupancy_input in = {
	    .cc_major = (int)d->cc_major,
	    .cc_minor = (int)d->cc_minor,
	    .block_size = g->block_threads,
	    .regs_per_thread = (int)g->regs,
	    .smem_per_block = (int)g->smem,
	    .grid_blocks = g->grid_blocks,
	    .sm_count = (int)d->sm_count,
	};
	struct occupancy_result r;
	if (occupancy_compute(&r, &in, NULL) < 0)
		return;
	g->occupancy = r.theoretical_occupancy;
	g->limiter = r.limiter ? r.limiter : "";
	g->waves = r.waves;
	g->blocks_per_sm = r.active_blocks_per_sm;
}

/* x*y*z (0 read as 1, except all-zero = 0), clamped so hostile values
 * cannot overflow. */
static uint64_t clamp_dims(const uint32_t d[3], uint64_t max)
{
	if (!d[0] && !d[1] && !d[2])
		return 0;
	uint64_t v = 1;
	for (int i = 0; i < 3; i++) {
		v *= d[i] ? d[i] : 1;
		if (v > max)
			return max;
	}
	return v;
}

/* Library kernels (GEMM, attention, convolution) are tuned for low
 * occupancy on purpose: many registers and big tiles for ILP (docs/method.md §4.3: high
 * occupancy is not a goal for compute-bound kernels). low_occupancy skips
 * them; their time still counts everywhere else. */
static int tuned_library_kernel(const char *name)
{
	static const char *const pat[] = {"gemm",  "cutlass", "cublas", "xmma",	 "nvjet",
					  "flash", "cudnn",   "conv",	"wgmma", "mma_"};
	char low[256];
	size_t n = 0;
	for (; name[n] && n + 1 < sizeof(low); n++)
		low[n] = (char)(name[n] >= 'A' && name[n] <= 'Z' ? name[n] + 32 : name[n]);
	low[n] = 0;
	for (size_t i = 0; i < sizeof(pat) / sizeof(pat[0]); i++)
		if (strstr(low, pat[i]))
			return 1;
	return 0;
}

/* The launch configurations of one kernel name and their time: the first
 * AN_MAX_CONFIGS distinct ones, and whether there were more. */
struct kconfig {
	uint32_t grid[3], block[3], regs, smem;
	int64_t ns;
};
struct kconfigs {
	struct kconfig v[AN_MAX_CONFIGS];
	uint32_t n, more;
};

static void config_add(struct kconfigs *c, const struct trace_kernel *k, int64_t d)
{
	uint32_t smem = k->static_smem + k->dyn_smem;
	for (uint32_t i = 0; i < c->n; i++) {
		struct kconfig *e = &c->v[i];
		if (!memcmp(e->grid, k->grid, sizeof(e->grid)) &&
		    !memcmp(e->block, k->block, sizeof(e->block)) && e->regs == k->regs &&
		    e->smem == smem) {
			e->ns += d;
			return;
		}
	}
	if (c->n == AN_MAX_CONFIGS) {
		c->more = 1;
		return;
	}
	struct kconfig *e = &c->v[c->n++];
	memcpy(e->grid, k->grid, sizeof(e->grid));
	memcpy(e->block, k->block, sizeof(e->block));
	e->regs = k->regs;
	e->smem = smem;
	e->ns = d;
}

/* the group's configuration: the one with the most time (a kernel whose
 * first launch had 2 blocks and whose 392 timed launches had 32768) */
static void config_pick(struct an_kernel_group *g, const struct kconfigs *c)
{
	uint32_t best = 0;
	for (uint32_t i = 1; i < c->n; i++)
		if (c->v[i].ns > c->v[best].ns)
			best = i;
	g->configs = c->n + c->more;
	g->config_share = g->sum_ns > 0 && c->n ? (double)c->v[best].ns / (double)g->sum_ns : 1;
	if (!c->n)
		return;
	const struct kconfig *e = &c->v[best];
	memcpy(g->grid, e->grid, sizeof(g->grid));
	memcpy(g->block, e->block, sizeof(g->block));
	g->regs = e->regs;
	g->smem = e->smem;
	g->grid_blocks = (long long)clamp_dims(e->grid, 1ULL << 40);
	g->block_threads = (int)clamp_dims(e->block, 1ULL << 20);
}

int an_kernel_stats(struct analysis *a, char *err)
{
	const struct trace *t = a->t;
	size_t ns = t->n_strings ? t->n_strings : 1;
	uint32_t *gi = malloc(ns * sizeof(*gi));
	size_t *off = NULL;
	struct vals dur = {0};
	struct kconfigs *cfg = NULL;
	int rc = -1;
	if (!gi)
		return error_set(err, "out of memory");
	memset(gi, 0xff, ns * sizeof(*gi));
	size_t cap = 0;
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		uint32_t id = k->name_id < ns ? k->name_id : 0;
		int64_t d = k->end_ns - k->start_ns;
		if (gi[id] == UINT32_MAX) {
			size_t had = cap;
			struct an_kernel_group *g = VEC_PUSH(a->kgroups, a->n_kgroups, cap);
			if (!g)
				goto oom;
			if (cap != had) { /* cfg keeps kgroups' capacity */
				struct kconfigs *c = realloc(cfg, cap * sizeof(*c));
				if (!c)
					goto oom;
				cfg = c;
			}
			memset(&cfg[a->n_kgroups - 1], 0, sizeof(cfg[0]));
			g->name_id = id;
			g->min_ns = d;
			memcpy(g->grid, k->grid, sizeof(g->grid));
			memcpy(g->block, k->block, sizeof(g->block));
			g->regs = k->regs;
			g->smem = k->static_smem + k->dyn_smem;
			g->grid_blocks = (long long)clamp_dims(k->grid, 1ULL << 40);
			g->block_threads = (int)clamp_dims(k->block, 1ULL << 20);
			g->device = k->device;
			gi[id] = (uint32_t)(a->n_kgroups - 1);
		}
		struct an_kernel_group *g = &a->kgroups[gi[id]];
		config_add(&cfg[gi[id]], k, d);
		g->count++;
		g->sum_ns += d;
		if (d < g->min_ns)
			g->min_ns = d;
		if (d > g->max_ns)
			g->max_ns = d;
	}
	for (size_t i = 0; i < a->n_kgroups; i++) {
		struct an_kernel_group *g = &a->kgroups[i];
		config_pick(g, &cfg[i]);
		group_occupancy(g, device_of(t, g->device));
		g->tuned = tuned_library_kernel(trace_str(t, g->name_id));
		g->share_pct =
		    a->kernel_sum_ns ? 100.0 * (double)g->sum_ns / (double)a->kernel_sum_ns : 0;
	}

	/* per-kernel shape costs (small grid, low occupancy, tail) and medians */
	int wide = 0;
	for (size_t i = 0; i < a->n_kgroups; i++)
		wide |= a->kgroups[i].max_ns > UINT32_MAX || a->kgroups[i].min_ns < 0;
	off = calloc(a->n_kgroups + 1, sizeof(*off));
	if (!off || vals_init(&dur, t->n_kernels, wide) < 0)
		goto oom;
	for (size_t i = 0; i < a->n_kgroups; i++)
		off[i + 1] = off[i] + a->kgroups[i].count;
	const struct trace_device *dev = NULL;
	uint32_t dev_id = UINT32_MAX;
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		uint32_t g_i = gi[k->name_id < ns ? k->name_id : 0];
		const struct an_kernel_group *g = &a->kgroups[g_i];
		double d = (double)(k->end_ns - k->start_ns);
		if (wide)
			((int64_t *)dur.v)[off[g_i]++] = k->end_ns - k->start_ns;
		else
			((uint32_t *)dur.v)[off[g_i]++] = (uint32_t)(k->end_ns - k->start_ns);
		if (k->device != dev_id) {
			dev = device_of(t, k->device);
			dev_id = k->device;
		}
		double sms = dev ? (double)dev->sm_count : 0;
		double blocks = (double)k->grid[0] * (k->grid[1] ? k->grid[1] : 1) *
				(k->grid[2] ? k->grid[2] : 1);
		if (k->end_ns - k->start_ns < TH_SHORT_KERNEL_NS) {
			a->short_floor_ns += k->end_ns - k->start_ns < TH_KERNEL_FLOOR_NS
						 ? k->end_ns - k->start_ns
						 : TH_KERNEL_FLOOR_NS;
			continue;
		}
		if (sms > 0 && blocks > 0 && blocks < sms) {
			a->small_grid_ns += (int64_t)d;
			a->small_grid_waste_ns += d * (1.0 - blocks / sms);
			continue;
		}
		if (g->occupancy >= 0 && g->occupancy < TH_OCCUPANCY && !g->tuned) {
			double gain = (TH_OCCUPANCY - g->occupancy) / TH_OCCUPANCY;
			a->low_occ_ns += (int64_t)d;
			a->low_occ_gain_ns += d * (gain < TH_OCC_GAIN_CAP ? gain : TH_OCC_GAIN_CAP);
			a->low_occ_gain_full_ns += d * gain;
		}
		if (sms > 0 && g->blocks_per_sm > 0) {
			double w = blocks / ((double)g->blocks_per_sm * sms);
			double full = (double)(long long)w;
			if (w >= 1.0 && w <= TH_TAIL_MAX_WAVES && w > full) {
				double waves = full + 1.0;
				a->tail_waste_ns += d * (waves - w) / waves;
			}
		}
	}
	for (size_t i = 0; i < a->n_kgroups; i++) {
		/* the group's durations: a slice of dur */
		size_t base = off[i] - a->kgroups[i].count;
		struct vals g = {(char *)dur.v +
				     base * (dur.wide ? sizeof(int64_t) : sizeof(uint32_t)),
				 a->kgroups[i].count, dur.wide};
		a->kgroups[i].median_ns = vals_median(&g);
	}
	if (a->n_kgroups)
		qsort(a->kgroups, a->n_kgroups, sizeof(*a->kgroups), cmp_group);
	rc = 0;
	goto out;
oom:
	error_set(err, "out of memory");
out:
	free(gi);
	free(off);
	free(cfg);
	free(dur.v);
	return rc;
}
