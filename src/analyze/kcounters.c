/*
 * kcounters.c - per-kernel counter rows to per-kernel numbers and verdicts
 * (kcounters.h). The verdict follows Nsight Compute's SpeedOfLight rule:
 * the higher of SM and memory throughput names the bound when it reaches
 * TH_SOL_LOW_PCT, both under it is latency; which memory unit or pipe is
 * the busiest says where. Roofs: DRAM bandwidth from the device row, the
 * pipe's peak from its FLOP per SM per cycle (table below) at the SM clock
 * measured during the kernel.
 */
#include "analyze/kcounters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/thresholds.h"
#include "util/error.h"

static const struct {
	const char *name, *unit, *what;
} metrics[KM_COUNT] = {
#define KC_ROW(id, name, unit, what) [id] = {name, unit, what},
    GS_KERNEL_METRICS(KC_ROW)
#undef KC_ROW
};

int kc_metric_id(const char *name)
{
	for (int i = 0; i < KM_COUNT; i++)
		if (strcmp(metrics[i].name, name) == 0)
			return i;
	return -1;
}

const char *kc_metric_name(int id)
{
	return id >= 0 && id < KM_COUNT ? metrics[id].name : "";
}

const char *kc_metric_unit(int id)
{
	return id >= 0 && id < KM_COUNT ? metrics[id].unit : "";
}

const char *kc_metric_what(int id)
{
	return id >= 0 && id < KM_COUNT ? metrics[id].what : "";
}

const char *kc_bound_name(enum kc_bound b)
{
	switch (b) {
	case KC_BOUND_MEMORY:
		return "memory";
	case KC_BOUND_COMPUTE:
		return "compute";
	case KC_BOUND_LATENCY:
		return "latency";
	default:
		return "unknown";
	}
}

/*
 * Peak FLOP per SM per cycle, dense, by compute capability: NVIDIA's
 * architecture whitepapers (V100, A100, H100) give FP32 cores, FP64 units
 * per SM and the tensor rates; the tensor figure is the datasheet's dense
 * FP16/BF16 rate over SMs x boost clock (H100 SXM: 989.4 TFLOP/s / (132 x
 * 1.83 GHz) = 4096; A100: 312 / (108 x 1.41) = 2048; V100: 125 / (80 x
 * 1.53) = 1024). 0 = not known for that part.
 */
static const struct {
	int major, minor;
	double fp32, fp64, tensor;
} peaks[] = {
    {7, 0, 128, 64, 1024}, {8, 0, 128, 64, 2048},  {8, 6, 256, 4, 0},
    {8, 9, 256, 4, 0},	   {9, 0, 256, 128, 4096},
};

/* A tensor "math op" of sm__ops_path_tensor_* is one FLOP: measured on the
 * H200 with workloads/counters/signatures.cu's tensor_mma, whose count is
 * known (132 SMs x 16 warps x 16384 wmma 16x16x16 = 2.8347e11 FLOP; the
 * counter read 283467841536 ops, docs/counters.md). */
#define KC_FLOP_PER_TENSOR_OP 1.0

static const struct trace_device *device_of(const struct trace *t, uint32_t id)
{
	for (size_t i = 0; i < t->n_devices; i++)
		if (t->devices[i].id == id)
			return &t->devices[i];
	return t->n_devices ? &t->devices[0] : NULL;
}

static double peak_per_sm_cycle(const struct trace_device *d, int which)
{
	if (!d)
		return 0;
	for (size_t i = 0; i < sizeof(peaks) / sizeof(peaks[0]); i++)
		if (peaks[i].major == (int)d->cc_major && peaks[i].minor == (int)d->cc_minor)
			return which == 0   ? peaks[i].fp32
			       : which == 1 ? peaks[i].fp64
					    : peaks[i].tensor;
	return 0;
}

/* (pid, correlation) -> kernel index, open addressing. */
struct corr_map {
	uint64_t *keys; /* pid << 32 | correlation, + 1 so that 0 is empty */
	uint32_t *vals;
	size_t cap;
};

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static int corr_map_build(struct corr_map *m, const struct trace *t)
{
	m->cap = 16;
	while (m->cap < 2 * t->n_kernels + 16)
		m->cap *= 2;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	if (!m->keys || !m->vals)
		return -1;
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		if (!k->correlation)
			continue;
		uint64_t key = ((uint64_t)k->pid << 32 | k->correlation) + 1;
		size_t j = mix(key) & (m->cap - 1);
		while (m->keys[j] && m->keys[j] != key)
			j = (j + 1) & (m->cap - 1);
		if (!m->keys[j]) {
			m->keys[j] = key;
			m->vals[j] = (uint32_t)i;
		}
	}
	return 0;
}

static long corr_map_find(const struct corr_map *m, uint32_t pid, uint32_t corr)
{
	uint64_t key = ((uint64_t)pid << 32 | corr) + 1;
	size_t j = mix(key) & (m->cap - 1);
	while (m->keys[j]) {
		if (m->keys[j] == key)
			return m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return -1;
}

static int cmp_sum(const void *x, const void *y)
{
	const struct kc_group *a = x, *b = y;
	if (a->sum_ns != b->sum_ns)
		return a->sum_ns > b->sum_ns ? -1 : 1;
	return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

static double get(const struct kc_group *g, int id)
{
	return g->has[id] ? g->v[id] : NAN;
}

static double ratio(double a, double b)
{
	return isnan(a) || isnan(b) || b <= 0 ? NAN : a / b;
}

/* NAN counts as 0 in a sum of parts, unless every part is NAN. */
static double sum_parts(const double *v, int n)
{
	double s = 0;
	int any = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i])) {
			s += v[i];
			any = 1;
		}
	return any ? s : NAN;
}

static void top_stalls(struct kc_group *g)
{
	static const int ids[] = {KM_STALL_LONG_SB, KM_STALL_SHORT_SB,	  KM_STALL_BARRIER,
				  KM_STALL_MIO,	    KM_STALL_LG,	  KM_STALL_MATH,
				  KM_STALL_WAIT,    KM_STALL_NOT_SELECTED};
	const int n = (int)(sizeof(ids) / sizeof(ids[0]));
	double total = 0;
	for (int i = 0; i < n; i++)
		total += g->has[ids[i]] ? g->v[ids[i]] : 0;
	for (int k = 0; k < KC_TOP_STALLS; k++) {
		g->stall[k] = -1;
		g->stall_share[k] = NAN;
		double best = 0;
		for (int i = 0; i < n; i++) {
			int id = ids[i], taken = 0;
			for (int j = 0; j < k; j++)
				taken |= g->stall[j] == id;
			if (!taken && g->has[id] && g->v[id] > best) {
				best = g->v[id];
				g->stall[k] = id;
			}
		}
		if (g->stall[k] >= 0 && total > 0)
			g->stall_share[k] = best / total;
	}
}

/* The busiest unit among ids (NAN values skipped); NULL when none. */
static const char *busiest(const struct kc_group *g, const int *ids, const char *const *names,
			   int n, double *pct)
{
	const char *best = NULL;
	*pct = NAN;
	for (int i = 0; i < n; i++) {
		double v = get(g, ids[i]);
		if (!isnan(v) && (!best || v > *pct)) {
			best = names[i];
			*pct = v;
		}
	}
	return best;
}

static void derive(struct kc_group *g, const struct trace_device *d)
{
	g->sectors_per_request = ratio(get(g, KM_GLD_SECTORS), get(g, KM_GLD_REQUESTS));
	/* thread accesses: requests x active threads per instruction */
	g->sectors_per_thread =
	    ratio(get(g, KM_GLD_SECTORS), get(g, KM_GLD_REQUESTS) * get(g, KM_THREADS_PER_INST));
	double wf[2] = {get(g, KM_SHARED_LD_WAVEFRONTS), get(g, KM_SHARED_ST_WAVEFRONTS)};
	double in[2] = {get(g, KM_SHARED_LD_INST), get(g, KM_SHARED_ST_INST)};
	double cf[2] = {get(g, KM_SHARED_LD_CONFLICTS), get(g, KM_SHARED_ST_CONFLICTS)};
	g->shared_ways = ratio(sum_parts(wf, 2), sum_parts(in, 2));
	g->bank_conflict_share = ratio(sum_parts(cf, 2), sum_parts(wf, 2));
	double fl[7] = {2 * get(g, KM_FFMA), get(g, KM_FADD), get(g, KM_FMUL),
			2 * get(g, KM_DFMA), get(g, KM_DADD), get(g, KM_DMUL),
			2 * get(g, KM_HFMA)};
	double tn[2] = {KC_FLOP_PER_TENSOR_OP * get(g, KM_TENSOR_HMMA_F16),
			KC_FLOP_PER_TENSOR_OP * get(g, KM_TENSOR_HGMMA_BF16)};
	g->tensor_flop = sum_parts(tn, 2);
	double all[2] = {sum_parts(fl, 7), g->tensor_flop};
	g->flop = sum_parts(all, 2);
	double by[2] = {get(g, KM_DRAM_READ), get(g, KM_DRAM_WRITE)};
	g->dram_bytes = sum_parts(by, 2);
	g->intensity = ratio(g->flop, g->dram_bytes);
	double sec = get(g, KM_DURATION) / 1e9;
	g->flop_per_s = ratio(g->flop, sec);
	g->dram_bytes_per_s = ratio(g->dram_bytes, sec);
	g->roof_bytes_per_s = d && d->mem_bandwidth_bps ? (double)d->mem_bandwidth_bps : NAN;
	/* the roof of the kind of arithmetic that dominates */
	double clock = get(g, KM_SM_CLOCK), sms = d ? (double)d->sm_count : 0;
	double fp64 = sum_parts(fl + 3, 3);
	int which = !isnan(g->tensor_flop) && g->tensor_flop > 0.5 * (isnan(g->flop) ? 0 : g->flop)
			? 2
		    : !isnan(fp64) && fp64 > 0.5 * (isnan(g->flop) ? 0 : g->flop) ? 1
										  : 0;
	double per = peak_per_sm_cycle(d, which);
	g->roof_flop_per_s = per > 0 && sms > 0 && !isnan(clock) ? per * sms * clock : NAN;

	top_stalls(g);
	double sm = get(g, KM_SM_SOL), mem = get(g, KM_MEM_SOL);
	g->bound = KC_BOUND_UNKNOWN;
	g->unit = NULL;
	if (isnan(sm) || isnan(mem))
		return;
	double pct;
	if (sm < TH_SOL_LOW_PCT && mem < TH_SOL_LOW_PCT) {
		g->bound = KC_BOUND_LATENCY;
	} else if (mem >= sm) {
		static const int ids[] = {KM_DRAM_PCT, KM_L2_PCT, KM_L1_PCT};
		static const char *const names[] = {"DRAM", "L2", "L1/shared"};
		g->bound = KC_BOUND_MEMORY;
		g->unit = busiest(g, ids, names, 3, &pct);
	} else {
		static const int ids[] = {KM_PIPE_TENSOR, KM_PIPE_FMA, KM_PIPE_FP64, KM_PIPE_ALU,
					  KM_PIPE_LSU};
		static const char *const names[] = {"tensor pipe", "FMA pipe", "FP64 pipe",
						    "ALU pipe", "load/store unit"};
		g->bound = KC_BOUND_COMPUTE;
		g->unit = busiest(g, ids, names, 5, &pct);
	}
}

int kc_build(struct kc_table *out, const struct trace *t, char *err)
{
	memset(out, 0, sizeof(*out));
	if (!t->n_counters)
		return 0;
	/* metric string id -> metric id */
	int *mid = malloc(t->n_strings * sizeof(*mid));
	/* kernel name id -> group index + 1 */
	uint32_t *gidx = calloc(t->n_strings, sizeof(*gidx));
	struct corr_map m = {0};
	int rc = -1;
	if (!mid || !gidx || corr_map_build(&m, t) < 0) {
		error_set(err, "out of memory");
		goto out_free;
	}
	for (size_t i = 0; i < t->n_strings; i++)
		mid[i] = -2; /* not looked up yet */
	out->g = calloc(t->n_counters + 1, sizeof(*out->g));
	if (!out->g) {
		error_set(err, "out of memory");
		goto out_free;
	}
	/* sum per (group, metric), and count profiled launches by the duration row */
	double *sum = calloc((t->n_counters + 1) * (size_t)KM_COUNT, sizeof(*sum));
	uint32_t *cnt = calloc((t->n_counters + 1) * (size_t)KM_COUNT, sizeof(*cnt));
	if (!sum || !cnt) {
		free(sum);
		free(cnt);
		error_set(err, "out of memory");
		goto out_free;
	}
	for (size_t i = 0; i < t->n_counters; i++) {
		const struct trace_counter *c = &t->counters[i];
		out->rows++;
		if (c->metric_id >= t->n_strings)
			continue;
		if (mid[c->metric_id] == -2)
			mid[c->metric_id] = kc_metric_id(trace_str(t, c->metric_id));
		int id = mid[c->metric_id];
		const char *mname = trace_str(t, c->metric_id);
		if (id < 0 && strncmp(mname, "gpuscope__", 10) == 0) {
			/* the recorder's own rows: what it profiled, not a kernel's */
			if (strcmp(mname, "gpuscope__counter_passes") == 0)
				out->passes = c->value;
			else if (strcmp(mname, "gpuscope__graph_launches_not_profiled") == 0)
				out->graph_launches += c->value;
			continue;
		}
		long k = corr_map_find(&m, c->pid, c->correlation);
		if (k < 0) {
			out->unmatched++;
			continue;
		}
		if (id < 0 || !isfinite(c->value))
			continue;
		const struct trace_kernel *kr = &t->kernels[k];
		uint32_t nid = kr->name_id < t->n_strings ? kr->name_id : 0;
		if (!gidx[nid]) {
			struct kc_group *g = &out->g[out->n];
			g->name_id = nid;
			g->device = kr->device;
			gidx[nid] = (uint32_t)++out->n;
		}
		size_t gi = gidx[nid] - 1;
		sum[gi * KM_COUNT + (size_t)id] += c->value;
		cnt[gi * KM_COUNT + (size_t)id]++;
	}
	for (size_t gi = 0; gi < out->n; gi++) {
		struct kc_group *g = &out->g[gi];
		for (int id = 0; id < KM_COUNT; id++) {
			uint32_t n = cnt[gi * KM_COUNT + (size_t)id];
			g->has[id] = n > 0;
			g->v[id] = n ? sum[gi * KM_COUNT + (size_t)id] / n : NAN;
			g->profiled = n > g->profiled ? n : g->profiled;
		}
	}
	free(sum);
	free(cnt);
	for (size_t i = 0; i < t->n_kernels; i++) {
		uint32_t nid = t->kernels[i].name_id < t->n_strings ? t->kernels[i].name_id : 0;
		if (!gidx[nid])
			continue;
		struct kc_group *g = &out->g[gidx[nid] - 1];
		g->launches++;
		g->sum_ns += t->kernels[i].end_ns - t->kernels[i].start_ns;
	}
	for (size_t gi = 0; gi < out->n; gi++)
		derive(&out->g[gi], device_of(t, out->g[gi].device));
	qsort(out->g, out->n, sizeof(*out->g), cmp_sum);
	rc = 0;
out_free:
	free(mid);
	free(gidx);
	free(m.keys);
	free(m.vals);
	if (rc < 0)
		kc_release(out);
	return rc;
}

void kc_release(struct kc_table *k)
{
	free(k->g);
	memset(k, 0, sizeof(*k));
}
