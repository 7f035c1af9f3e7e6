/*
 * gpm.c - NVML/GPM samples read against the GPU timeline.
 *
 * A GPM value (SM activity, DRAM bandwidth, pipe utilization) is an average
 * over its sample window, the time since the previous sample of the same
 * device. Two things make raw means misleading on real runs:
 *  1. windows straddle idle time (startup, gaps, the end of the run), which
 *     dilutes them: a DRAM-roof kernel that runs for 40% of a window reads
 *     as 36%. Each value is rescaled to the busy part of its window
 *     (v / busy fraction, capped at 100) and only windows that are mostly
 *     busy count, weighted by their busy time.
 *  2. the sample clock is not the CUPTI clock exactly: on the H200 the GPM
 *     windows trailed the kernels by 30-80 ms. The shift is found by
 *     aligning SM activity with the recorded busy fraction (the lag with
 *     the highest correlation, searched in steps of TH_LAG_STEP_NS), and
 *     every window is moved by it before it is read. When the analysis
 *     covers a slice of the recording (the steady state), the shift is
 *     found on the whole recording first (analysis.c: lag_hint).
 * The speed-of-light classes (Nsight Compute SpeedOfLight: the higher of
 * the memory and compute roofs decides, both under 60% is latency) are
 * taken per window, so a run with a GEMM phase and a copy-bound phase gets
 * both, each with its share of the busy time; a window whose kernel time
 * no one family dominates is mixed and gives no class (families.c).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "analyze/analysis_int.h"
#include "diagnose/thresholds.h"
#include "gpu/metrics.h"
#include "util/cpus.h"
#include "util/error.h"

/* threads of the lag search beside the caller's, at most */
#define LAG_THREADS 15

/* The registry metric (src/gpu/metrics.h) behind each analysed metric. */
static const enum gpu_metric metric_ids[AM_COUNT] = {
    [AM_GPU_UTIL] = GPU_M_GPU_UTIL, [AM_SM] = GPU_M_GPM_SM,	    [AM_OCC] = GPU_M_GPM_OCC,
    [AM_DRAM] = GPU_M_GPM_DRAM,	    [AM_TENSOR] = GPU_M_GPM_TENSOR, [AM_FP32] = GPU_M_GPM_FP32,
    [AM_POWER] = GPU_M_POWER,	    [AM_TEMP] = GPU_M_TEMP,	    [AM_SM_CLOCK] = GPU_M_SM_CLOCK,
};
#define metric_name(m) (gpu_metrics[metric_ids[m]].trace_name)

/* GPM metrics are window averages of activity: they rescale by busy share. */
static int is_gpm(int m)
{
	return m == AM_SM || m == AM_OCC || m == AM_DRAM || m == AM_TENSOR || m == AM_FP32;
}

/* One sample time of one device: the metrics read then and its window. */
struct win {
	int64_t from, to;
	unsigned have; /* bit m: metric m present */
	double v[AM_COUNT];
};

#define MAX_DEV 64

/* Groups samples by (device, time) into windows; returns the count, or -1
 * when out of memory. Fills the plain means. */
static long build_windows(struct analysis *a, struct win **out)
{
	const struct trace *t = a->t;
	int cache_id[AM_COUNT];
	double sum[AM_COUNT] = {0};
	int64_t prev[MAX_DEV];
	for (int m = 0; m < AM_COUNT; m++) {
		cache_id[m] = -1;
		a->metrics[m].name = metric_name(m);
	}
	for (int d = 0; d < MAX_DEV; d++)
		prev[d] = INT64_MIN;
	struct win *w = NULL, *cur = NULL;
	size_t n = 0, cap = 0;
	uint32_t cur_dev = UINT32_MAX;
	for (size_t i = 0; i < t->n_samples; i++) {
		const struct trace_sample *s = &t->samples[i];
		int m = -1;
		for (int k = 0; k < AM_COUNT; k++)
			if (cache_id[k] == (int)s->metric_id)
				m = k;
		if (m < 0) {
			const char *nm = trace_str(t, s->metric_id);
			for (int k = 0; k < AM_COUNT; k++)
				if (strcmp(nm, metric_name(k)) == 0) {
					m = k;
					cache_id[k] = (int)s->metric_id;
				}
		}
		if (m < 0 || !isfinite(s->value))
			continue;
		a->metrics[m].valid = 1;
		a->metrics[m].n++;
		sum[m] += s->value;
		if (s->device >= MAX_DEV)
			continue;
		if (!cur || cur_dev != s->device || cur->to != s->ts_ns) {
			cur = VEC_PUSH(w, n, cap);
			if (!cur) {
				free(w);
				return -1;
			}
			cur->from = prev[s->device];
			cur->to = s->ts_ns;
			cur_dev = s->device;
			prev[s->device] = s->ts_ns;
		}
		cur->have |= 1u << m;
		cur->v[m] = s->value;
	}
	for (int m = 0; m < AM_COUNT; m++)
		a->metrics[m].mean = a->metrics[m].n ? sum[m] / (double)a->metrics[m].n : 0;
	*out = w;
	return (long)n;
}

static int usable(const struct win *w)
{
	return w->from > INT64_MIN && w->to > w->from;
}

static double busy_frac(const struct analysis *a, const struct win *w, int64_t lag)
{
	return (double)an_busy_between(a, w->from - lag, w->to - lag) / (double)(w->to - w->from);
}

/* Pearson correlation of SM activity with the busy fraction at lag; -2 when
 * undefined (fewer than 3 windows, or no variation). */
static double lag_corr(const struct analysis *a, const struct win *w, size_t n, int64_t lag)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	size_t k = 0;
	/* a long recording has one window per 100 ms: every step-th is plenty */
	size_t step = n > TH_LAG_MAX_WINDOWS ? n / TH_LAG_MAX_WINDOWS : 1;
	for (size_t i = 0; i < n; i += step) {
		if (!usable(&w[i]) || !(w[i].have & 1u << AM_SM))
			continue;
		double x = busy_frac(a, &w[i], lag), y = w[i].v[AM_SM];
		sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
		k++;
	}
	if (k < 3)
		return -2;
	double vx = sxx - sx * sx / (double)k, vy = syy - sy * sy / (double)k;
	if (vx <= 1e-9 * (double)k || vy <= 1e-9 * (double)k)
		return -2;
	return (sxy - sx * sy / (double)k) / sqrt(vx * vy);
}

/* The lags searched: -TH_LAG_MAX_NS to TH_LAG_MAX_NS in TH_LAG_STEP_NS. */
#define N_LAGS ((size_t)(2 * TH_LAG_MAX_NS / TH_LAG_STEP_NS + 1))

/* Each lag's correlation (issue 38: on a long recording, 101 lags times
 * 2000 windows, two searches of the busy union each, were a tenth of the
 * analysis on one core): lags are taken by the next free thread, each
 * written to its own slot, so the choice below reads the same values in
 * the same order on one CPU or several. */
struct lag_job {
	const struct analysis *a;
	const struct win *w;
	size_t n;
	size_t next; /* atomic */
	double c[N_LAGS];
};

static void *lag_thread(void *arg)
{
	struct lag_job *j = arg;
	size_t k;
	while ((k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < N_LAGS)
		j->c[k] = lag_corr(j->a, j->w, j->n, -TH_LAG_MAX_NS + (int64_t)k * TH_LAG_STEP_NS);
	return NULL;
}

/* The shift of the sample clock onto the GPU timeline. */
static void find_lag(struct analysis *a, const struct win *w, size_t n)
{
	struct lag_job *j = malloc(sizeof(*j));
	double c0 = lag_corr(a, w, n, 0), best = c0;
	int64_t lag = 0;
	if (j) {
		*j = (struct lag_job){.a = a, .w = w, .n = n};
		/* threads when the search is long: windows times the union's size */
		size_t used = n < TH_LAG_MAX_WINDOWS ? n : TH_LAG_MAX_WINDOWS;
		int cpus = used * N_LAGS > 65536 && a->n_busy > 65536 ? gs_cpu_count() : 1;
		pthread_t th[LAG_THREADS];
		int more = 0;
		while (more + 1 < cpus && more < LAG_THREADS &&
		       pthread_create(&th[more], NULL, lag_thread, j) == 0)
			more++;
		lag_thread(j);
		for (int k = 0; k < more; k++)
			pthread_join(th[k], NULL);
	}
	for (size_t k = 0; k < N_LAGS; k++) {
		int64_t l = -TH_LAG_MAX_NS + (int64_t)k * TH_LAG_STEP_NS;
		double c = j ? j->c[k] : lag_corr(a, w, n, l);
		if (c > best + 1e-12) {
			best = c;
			lag = l;
		}
	}
	free(j);
	/* keep the recorded clock unless the shift clearly explains more */
	if (best < TH_LAG_MIN_CORR || best - (c0 > -2 ? c0 : -1) < TH_LAG_MIN_GAIN)
		lag = 0, best = c0;
	a->sol.lag_ns = lag;
	a->sol.lag_corr = best > -2 ? best : 0;
}

int an_sample_stats(struct analysis *a, char *err)
{
	struct win *w = NULL;
	long nw = build_windows(a, &w);
	if (nw < 0)
		return error_set(err, "out of memory");
	size_t n = (size_t)nw;
	if (a->lag_hint_set) {
		a->sol.lag_ns = a->lag_hint_ns;
		a->sol.lag_corr = a->lag_hint_corr;
	} else {
		find_lag(a, w, n);
	}
	int64_t lag = a->sol.lag_ns;
	double wsum[AM_COUNT] = {0}, vsum[AM_COUNT] = {0}, hi[AM_COUNT] = {0}, lo[AM_COUNT] = {0};
	double csum[TH_UTIL_CHUNKS][3] = {{0}};
	uint64_t cn[TH_UTIL_CHUNKS][3] = {{0}};
	double sol_b = 0, sol_mem = 0, sol_cmp = 0, sol_lat = 0, sol_dram = 0, sol_pipe = 0;
	double sol_mix = 0;
	for (size_t i = 0; i < n; i++) {
		const struct win *x = &w[i];
		if (!usable(x))
			continue;
		int64_t at = x->to - lag - a->start_ns;
		if (a->span_ns > 0 && at >= 0 && at <= a->span_ns) {
			int c = (int)((double)at * TH_UTIL_CHUNKS / (double)a->span_ns);
			c = c >= TH_UTIL_CHUNKS ? TH_UTIL_CHUNKS - 1 : c;
			const int ms[3] = {AM_SM, AM_DRAM, AM_TENSOR};
			for (int j = 0; j < 3; j++)
				if (x->have & 1u << ms[j]) {
					csum[c][j] += x->v[ms[j]];
					cn[c][j]++;
				}
		}
		double f = busy_frac(a, x, lag);
		if (f < TH_SAMPLE_BUSY_FRAC)
			continue;
		double b = f * (double)(x->to - x->from);
		double r[AM_COUNT] = {0};
		for (int m = 0; m < AM_COUNT; m++) {
			if (!(x->have & 1u << m))
				continue;
			r[m] = x->v[m];
			if (is_gpm(m)) {
				r[m] /= f;
				r[m] = r[m] > 100 ? 100 : r[m] < 0 ? 0 : r[m];
			}
			struct an_metric *am = &a->metrics[m];
			am->n_busy++;
			wsum[m] += b;
			vsum[m] += b * r[m];
			hi[m] += r[m] >= TH_SOL_HIGH_PCT ? b : 0;
			lo[m] += r[m] < TH_SOL_LOW_PCT ? b : 0;
		}
		int hf = !!(x->have & 1u << AM_FP32), ht = !!(x->have & 1u << AM_TENSOR);
		if (!(x->have & 1u << AM_DRAM))
			continue;
		/* without pipe metrics only a DRAM roof can be named */
		if (!(hf || ht) && r[AM_DRAM] < TH_SOL_LOW_PCT)
			continue;
		double pipe = hf ? r[AM_FP32] : 0;
		if (ht && r[AM_TENSOR] > pipe)
			pipe = r[AM_TENSOR];
		double dram = r[AM_DRAM];
		sol_b += b;
		sol_dram += b * dram;
		sol_pipe += b * pipe;
		int cls = dram < TH_SOL_LOW_PCT && pipe < TH_SOL_LOW_PCT ? 2 : dram >= pipe ? 0 : 1;
		/* a window that mixes kernel families averages their roofs: no
		 * verdict from it (families.c, #16 item 6) */
		if (!an_family_window(a, x->from - lag, x->to - lag, b, cls, dram, pipe)) {
			sol_mix += b;
			continue;
		}
		if (cls == 2)
			sol_lat += b;
		else if (cls == 0)
			sol_mem += b;
		else
			sol_cmp += b;
	}
	for (int m = 0; m < AM_COUNT; m++) {
		struct an_metric *am = &a->metrics[m];
		am->mean_busy = wsum[m] > 0 ? vsum[m] / wsum[m] : 0;
		am->busy_frac_high = wsum[m] > 0 ? hi[m] / wsum[m] : 0;
		am->busy_frac_low = wsum[m] > 0 ? lo[m] / wsum[m] : 0;
	}
	if (sol_b > 0) {
		a->sol.valid = 1;
		a->sol.sampled_ns = (int64_t)sol_b;
		a->sol.mem = sol_mem / sol_b;
		a->sol.compute = sol_cmp / sol_b;
		a->sol.latency = sol_lat / sol_b;
		a->sol.mixed = sol_mix / sol_b;
		a->sol.dram = sol_dram / sol_b;
		a->sol.pipe = sol_pipe / sol_b;
	}
	an_family_finish(a);
	/* Nsight gpu_time_util: busy share per chunk of the span */
	if (a->span_ns >= TH_UTIL_CHUNKS) {
		a->n_chunks = TH_UTIL_CHUNKS;
		for (int c = 0; c < TH_UTIL_CHUNKS; c++) {
			struct an_chunk *k = &a->chunks[c];
			/* in 128 bits: a span of up to 2^63 ns times the chunk count
			 * overflows int64 (probe C2) */
			k->start =
			    a->start_ns + (int64_t)((__int128)a->span_ns * c / TH_UTIL_CHUNKS);
			k->end = a->start_ns +
				 (int64_t)((__int128)a->span_ns * (c + 1) / TH_UTIL_CHUNKS);
			k->busy_pct = k->end > k->start
					  ? 100.0 * (double)an_busy_between(a, k->start, k->end) /
						(double)(k->end - k->start)
					  : 0;
			a->low_chunks += k->busy_pct < TH_UTIL_CHUNK_LOW_PCT;
			k->sm = cn[c][0] ? csum[c][0] / (double)cn[c][0] : -1;
			k->dram = cn[c][1] ? csum[c][1] / (double)cn[c][1] : -1;
			k->tensor = cn[c][2] ? csum[c][2] / (double)cn[c][2] : -1;
		}
	}
	free(w);
	return 0;
}
