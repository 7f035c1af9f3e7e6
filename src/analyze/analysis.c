/*
 * analysis.c - loading and sorting a trace for the analysis, the window it
 * covers (a range, or the steady state: warm-up and compilation left out),
 * the engine's pass table and the runner that schedules it by what each
 * pass reads and writes (analysis_int.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/phases.h"
#include "diagnose/thresholds.h"
#include "trace/trace_db.h"
#include "util/error.h"
#include "util/timing.h"
#include "util/cpus.h"
#include "util/hmap.h"
#include "util/sort.h"
#include "util/timing.h"
#include "import/load.h"

#define SORTED(arr, cnt, ok)                                                                       \
	for (size_t i = 1; (ok) && i < (cnt); i++)                                                 \
		if ((arr)[i].start_ns < (arr)[i - 1].start_ns)                                     \
			(ok) = 0;

static int sorted(const struct trace *t)
{
	int ok = 1;
	SORTED(t->kernels, t->n_kernels, ok)
	SORTED(t->copies, t->n_copies, ok)
	SORTED(t->memsets, t->n_memsets, ok)
	SORTED(t->apis, t->n_apis, ok)
	SORTED(t->syncs, t->n_syncs, ok)
	for (size_t i = 1; ok && i < t->n_ranges; i++)
		ok = trace_range_start(t, i) >= trace_range_start(t, i - 1);
	for (size_t i = 1; ok && i < t->n_samples; i++)
		ok = t->samples[i].ts_ns >= t->samples[i - 1].ts_ns;
	return ok;
}

int analysis_load(struct trace *t, const char *path, char *err)
{
	return analysis_load_opt(t, path, NULL, err);
}

int analysis_load_opt(struct trace *t, const char *path, const struct kineto_options *ko, char *err)
{
	struct timing_mark m;
	timing_now(&m, 0);
	int rc = trace_load_any_opt(t, path, ko, err);
	timing_add("load", &m, 0);
	if (rc == 0) {
		timing_now(&m, 0);
		analysis_sort(t);
		timing_add("sort", &m, 0);
	}
	return rc;
}

/* Same order as trace_sort: start, then end (both lead every event struct). */
static int cmp_span(const void *x, const void *y, void *arg)
{
	(void)arg;
	const int64_t *a = x, *b = y;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

static int cmp_ts(const void *x, const void *y, void *arg)
{
	(void)arg;
	const int64_t *a = x, *b = y;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Sorts only the arrays that need it, stably as glibc's qsort (a merge
 * sort) did, at the cost of the overlaps of their sorted runs (util/sort.h). */
#define SORT_IF(arr, cnt, field, cmp)                                                              \
	for (size_t i = 1; i < (cnt); i++)                                                         \
		if ((arr)[i].field < (arr)[i - 1].field) {                                         \
			(void)sort_stable((arr), (cnt), sizeof(*(arr)), cmp, NULL);                \
			break;                                                                     \
		}

/* The host side (calls, syncs, ranges, allocations) and the GPU side: each
 * array is sorted by the same qsort call either way, so sorting the two
 * halves on two threads changes no result. */
static void *sort_host(void *arg)
{
	struct trace *t = arg;
	SORT_IF(t->apis, t->n_apis, start_ns, cmp_span)
	SORT_IF(t->syncs, t->n_syncs, start_ns, cmp_span)
	SORT_IF(t->ranges, t->n_ranges, start_ns, cmp_span)
	SORT_IF(t->allocs, t->n_allocs, ts_ns, cmp_ts)
	return NULL;
}

static void sort_gpu(struct trace *t)
{
	SORT_IF(t->kernels, t->n_kernels, start_ns, cmp_span)
	SORT_IF(t->copies, t->n_copies, start_ns, cmp_span)
	SORT_IF(t->memsets, t->n_memsets, start_ns, cmp_span)
	SORT_IF(t->samples, t->n_samples, ts_ns, cmp_ts)
}

void analysis_sort(struct trace *t)
{
	pthread_t th;
	int two = t->n_apis + t->n_ranges > 65536 && t->n_kernels > 65536 && gs_cpu_count() > 1 &&
		  pthread_create(&th, NULL, sort_host, t) == 0;
	sort_gpu(t);
	if (two)
		pthread_join(th, NULL);
	else
		sort_host(t);
}

/* The passes whose signature is not (a, err). */
static int pass_phases(struct analysis *a, char *err)
{
	return an_phases(a, a->whole, err);
}
static int pass_program(struct analysis *a, char *err)
{
	return an_program(a, a->whole, err);
}
static int pass_ops(struct analysis *a, char *err)
{
	return an_ops(a, a->whole, err);
}
static int pass_memory(struct analysis *a, char *err)
{
	return an_memory(a, a->whole, err);
}
static int pass_hostidle(struct analysis *a, char *err)
{
	return an_hostidle(a, a->whole, err);
}
static int pass_counters(struct analysis *a, char *err)
{
	return kc_build(&a->kc, a->t, err);
}
static int pass_failures(struct analysis *a, char *err)
{
	return cuda_failures_scan(a->whole ? a->whole : a->t, &a->fail) < 0
		   ? error_set(err, "out of memory")
		   : 0;
}
static int pass_hostside(struct analysis *a, char *err)
{
	(void)err;
	an_hostside(a);
	return 0;
}

#define T AF_TIMELINE
/* Every pass reads the trace (AF_INPUT); reads name what else it needs. */
const struct an_pass an_engine_passes[] = {
    {"timeline", an_timeline, AF_INPUT, T | AF_COPY}, /* and the copies' union */
    {"series_init", an_series_init, AF_INPUT | T, AF_SERIES},
    /* the idle breakdown also fills the gap charts (an_series_gap) and the
     * sync readbacks */
    {"idle", an_idle_breakdown, AF_INPUT | T | AF_SERIES, AF_IDLE | AF_SYNC | AF_SERIES},
    /* JIT time moves into idle.jit_ns */
    {"phases", pass_phases, AF_INPUT | T | AF_IDLE, AF_PHASES | AF_IDLE},
    {"launch", an_launch_stats, AF_INPUT | T, AF_LAUNCH},
    {"kernels", an_kernel_stats, AF_INPUT | T, AF_KERNELS},
    /* the program's kind marks each kernel group's family and owner */
    {"program", pass_program, AF_INPUT | T | AF_KERNELS, AF_PROGRAM | AF_KERNELS},
    {"families", an_families, AF_INPUT | T | AF_KERNELS | AF_PROGRAM, AF_FAMILIES},
    {"copy_sync", an_copy_sync_stats, AF_INPUT | T | AF_IDLE, AF_COPY | AF_SYNC},
    {"ops", pass_ops, AF_INPUT | T | AF_IDLE, AF_OPS},
    {"memory", pass_memory, AF_INPUT | T, AF_MEMORY},
    {"calls", an_calls, AF_INPUT | T | AF_IDLE, AF_CALLS},
    /* compiling that keeps coming moves from idle.host_ns to idle.jit_ns
     * (hostidle.h); hostwait leaves those samples out of the host class */
    {"hostidle", pass_hostidle, AF_INPUT | T | AF_IDLE | AF_OPS | AF_PHASES, AF_HOSTIDLE | AF_IDLE},
    {"hostwait", an_hostwait, AF_INPUT | T | AF_IDLE | AF_OPS | AF_HOSTIDLE, AF_HOSTWAIT},
    {"contention", an_contention, AF_INPUT | T, AF_CONTENTION},
    {"processes", an_process_stats, AF_INPUT | T, AF_PROCESSES},
    {"ranges", an_range_stats, AF_INPUT | T, AF_RANGES},
    {"counters", pass_counters, AF_INPUT, AF_COUNTERS},
    /* the GPM windows also sum each kernel family's share (an_family_window) */
    {"samples", an_sample_stats, AF_INPUT | T | AF_FAMILIES, AF_SAMPLES | AF_FAMILIES},
    {"pm", an_pm_stats, AF_INPUT | T, AF_PM},
    {"failures", pass_failures, AF_INPUT, AF_FAILURES},
    {"series_build", an_series_build, AF_ALL & ~(AF_HOSTSIDE | AF_FINDINGS | AF_WARNINGS),
     AF_SERIES},
    {"hostside", pass_hostside, AF_INPUT | T | AF_IDLE | AF_OPS | AF_HOSTIDLE | AF_HOSTWAIT,
     AF_HOSTSIDE},
};
#undef T
const size_t an_n_engine_passes = sizeof(an_engine_passes) / sizeof(an_engine_passes[0]);

int an_pass_conflict(const struct an_pass *x, const struct an_pass *y)
{
	return (x->reads & y->writes) || (x->writes & (y->reads | y->writes));
}

void an_pass_levels(const struct an_pass *p, size_t n, int *level)
{
	for (size_t i = 0; i < n; i++) {
		level[i] = 0;
		for (size_t j = 0; j < i; j++)
			if (an_pass_conflict(&p[i], &p[j]))
				level[i] = level[j] + 1 > level[i] ? level[j] + 1 : level[i];
	}
}

/*
 * The passes on every core they are given (issue #25: 10M kernels took 4-5
 * s of analysis on one core; issue 38: every core it is given): this thread
 * and up to one more per usable CPU (the affinity mask, gs_cpu_count) each
 * take the first pass in table order whose earlier conflicting passes
 * (an_pass_conflict) are all done, so a pass starts as soon as what it
 * reads is made, not when a whole level is (the idle breakdown beside the
 * kernel statistics, the GPM windows as soon as the families are known). A
 * pass reads only what the passes it waited for made, and no pass runs
 * beside one it conflicts with, so the order they finish in changes no
 * result; test_threads checks the report against one made on one CPU
 * (ThreadSanitizer build too), test_passes that every two passes that may
 * run together write different parts. On one CPU: table order.
 */
#define MAX_PASSES 64

/* the analysis is no longer wanted (an estimate made ahead, cancelled) */
static int cancelled(const struct analysis *a)
{
	return a->unprof.cancel && __atomic_load_n(a->unprof.cancel, __ATOMIC_RELAXED);
}

/* runs pass P; with GPUSCOPE_TIMING=passes notes its start and end (wall
 * seconds since T0) and its thread's CPU seconds in SPAN */
static int run_pass(const struct an_pass *p, struct analysis *a, char *err, double t0,
		    double span[3])
{
	if (!timing_passes())
		return p->fn(a, err);
	struct timing_mark s, e;
	timing_now(&s, 1);
	int rc = p->fn(a, err);
	timing_now(&e, 1);
	span[0] = s.wall - t0;
	span[1] = e.wall - t0;
	span[2] = e.cpu - s.cpu;
	return rc;
}

static void pass_line(const struct an_pass *p, size_t n, const double (*span)[3])
{
	const char *names[MAX_PASSES];
	for (size_t i = 0; i < n; i++)
		names[i] = p[i].name;
	timing_pass_line(names, span, n);
}

struct pass_job {
	struct analysis *a;
	const struct an_pass *p;
	size_t n;
	int latest_first;
	uint64_t deps[MAX_PASSES]; /* the earlier passes each one waits for */
	uint64_t started, done;	   /* under lock */
	int failed, cancelled;
	pthread_mutex_t lock;
	pthread_cond_t change;
	int rc[MAX_PASSES];
	char err[MAX_PASSES][GS_ERR_LEN];
	double t0, span[MAX_PASSES][3];
};

static void *pass_thread(void *arg)
{
	struct pass_job *j = arg;
	uint64_t all = j->n == 64 ? UINT64_MAX : (1ull << j->n) - 1;
	pthread_mutex_lock(&j->lock);
	while (!j->failed && j->started != all) {
		size_t k = j->n;
		for (size_t i = 0; i < j->n && (k == j->n || j->latest_first); i++)
			if (!(j->started >> i & 1) && !(j->deps[i] & ~j->done))
				k = i;
		if (cancelled(j->a)) { /* the others stop at their next look */
			j->failed = j->cancelled = 1;
			pthread_cond_broadcast(&j->change);
			break;
		}
		if (k == j->n) { /* what comes next waits for a pass running */
			pthread_cond_wait(&j->change, &j->lock);
			continue;
		}
		j->started |= 1ull << k;
		pthread_mutex_unlock(&j->lock);
		int rc = run_pass(&j->p[k], j->a, j->err[k], j->t0, j->span[k]);
		pthread_mutex_lock(&j->lock);
		j->rc[k] = rc;
		j->done |= 1ull << k;
		j->failed |= rc < 0;
		pthread_cond_broadcast(&j->change);
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

int an_run_passes(struct analysis *a, const struct an_pass *p, size_t n, char *err)
{
	const struct trace *t = a->t;
	int cpus = t->n_kernels + t->n_apis > 65536 ? gs_cpu_count() : 1;
	return an_run_passes_with(a, p, n, cpus, 0, err);
}

int an_run_passes_with(struct analysis *a, const struct an_pass *p, size_t n, int threads,
		       int latest_first, char *err)
{
	if (n > MAX_PASSES)
		return error_set(err, "too many analysis passes (%zu)", n);
	struct timing_mark t0;
	timing_now(&t0, 0);
	if ((threads <= 1 && !latest_first) || n <= 1) {
		double span[MAX_PASSES][3] = {{0}};
		for (size_t i = 0; i < n; i++) {
			if (cancelled(a))
				return error_set(err, "cancelled");
			if (run_pass(&p[i], a, err, t0.wall, span[i]) < 0)
				return -1;
		}
		pass_line(p, n, (const double(*)[3])span);
		return 0;
	}
	struct pass_job *j = calloc(1, sizeof(*j));
	if (!j)
		return error_set(err, "out of memory");
	j->a = a;
	j->p = p;
	j->n = n;
	j->latest_first = latest_first;
	j->t0 = t0.wall;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < i; k++)
			if (an_pass_conflict(&p[i], &p[k]))
				j->deps[i] |= 1ull << k;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->change, NULL);
	pthread_t th[MAX_PASSES];
	size_t more = 0; /* threads beside this one */
	while (more + 1 < n && (int)more + 1 < threads &&
	       pthread_create(&th[more], NULL, pass_thread, j) == 0)
		more++;
	pass_thread(j);
	for (size_t k = 0; k < more; k++)
		pthread_join(th[k], NULL);
	if (!j->failed)
		pass_line(p, n, (const double(*)[3])j->span);
	int rc = j->cancelled ? error_set(err, "cancelled") : 0;
	for (size_t k = 0; rc == 0 && k < n; k++)
		if ((j->done >> k & 1) && j->rc[k] < 0)
			rc = error_set(err, "%s", j->err[k]);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->change);
	free(j);
	return rc;
}

#define F(name, part)                                                                              \
	{                                                                                          \
#name, part, offsetof(struct analysis, name),                                      \
		    sizeof(((struct analysis *)0)->name), 0, 0                                     \
	}
#define A(name, n, part)                                                                           \
	{                                                                                          \
#name, part, offsetof(struct analysis, name),                                      \
		    sizeof(((struct analysis *)0)->name), offsetof(struct analysis, n),            \
		    sizeof(*((struct analysis *)0)->name)                                          \
	}
/* Every member of struct analysis in declaration order (test_passes checks
 * that none is missing). */
const struct an_field an_fields[] = {
    F(t, AF_INPUT),
    F(source, AF_INPUT),
    F(start_ns, AF_TIMELINE),
    F(end_ns, AF_TIMELINE),
    F(span_ns, AF_TIMELINE),
    F(trace_start_ns, AF_TIMELINE),
    F(trace_end_ns, AF_TIMELINE),
    F(startup_ns, AF_TIMELINE),
    F(teardown_ns, AF_TIMELINE),
    F(uncaptured_ns, AF_TIMELINE),
    F(warmup_ns, AF_INPUT),
    F(cooldown_ns, AF_INPUT),
    F(profiler_steps, AF_INPUT),
    F(recompiling, AF_INPUT),
    F(busy_ns, AF_TIMELINE),
    F(kernel_ns, AF_TIMELINE),
    F(copy_ns, AF_TIMELINE),
    F(memset_ns, AF_TIMELINE),
    F(kernel_sum_ns, AF_TIMELINE),
    F(copy_sum_ns, AF_TIMELINE),
    F(memset_sum_ns, AF_TIMELINE),
    F(copy_kind_ns, AF_TIMELINE),
    F(n_kernels, AF_TIMELINE),
    F(n_copies, AF_TIMELINE),
    F(n_memsets, AF_TIMELINE),
    F(n_apis, AF_TIMELINE),
    A(devices, n_devices, AF_TIMELINE),
    F(n_devices, AF_TIMELINE),
    A(streams, n_streams, AF_TIMELINE),
    F(n_streams, AF_TIMELINE),
    A(busy, n_busy, AF_TIMELINE),
    F(n_busy, AF_TIMELINE),
    A(busy_cum, n_busy, AF_TIMELINE),
    F(idle, AF_IDLE),
    F(launch, AF_LAUNCH),
    A(kgroups, n_kgroups, AF_KERNELS),
    F(n_kgroups, AF_KERNELS),
    A(cgroups, n_cgroups, AF_COPY),
    F(n_cgroups, AF_COPY),
    F(copy, AF_COPY),
    F(sync, AF_SYNC),
    A(ranges, n_ranges, AF_RANGES),
    F(n_ranges, AF_RANGES),
    F(metrics, AF_SAMPLES),
    F(pm, AF_PM),
    F(sol, AF_SAMPLES),
    F(lag_hint_set, AF_INPUT),
    F(lag_hint_ns, AF_INPUT),
    F(lag_hint_corr, AF_INPUT),
    F(chunks, AF_SAMPLES),
    F(n_chunks, AF_SAMPLES),
    F(low_chunks, AF_SAMPLES),
    A(processes, n_processes, AF_PROCESSES),
    F(n_processes, AF_PROCESSES),
    F(dropped_records, AF_PROCESSES),
    F(overhead_ns, AF_PROCESSES),
    F(process_ns, AF_PROCESSES),
    F(small_grid_ns, AF_KERNELS),
    F(small_grid_waste_ns, AF_KERNELS),
    F(low_occ_ns, AF_KERNELS),
    F(low_occ_gain_ns, AF_KERNELS),
    F(low_occ_gain_full_ns, AF_KERNELS),
    F(tail_waste_ns, AF_KERNELS),
    F(short_floor_ns, AF_KERNELS),
    F(kc, AF_COUNTERS),
    F(series, AF_SERIES),
    F(prog, AF_PROGRAM),
    F(ops, AF_OPS),
    F(mem, AF_MEMORY),
    F(calls, AF_CALLS),
    F(phases, AF_PHASES),
    F(hostidle, AF_HOSTIDLE),
    F(hostwait, AF_HOSTWAIT),
    F(contention, AF_CONTENTION),
    F(gap_sync_frac, AF_IDLE),
    F(hostside, AF_HOSTSIDE),
    F(fam, AF_FAMILIES),
    F(fail, AF_FAILURES),
    F(whole, AF_INPUT),
    F(findings, AF_FINDINGS),
    F(primary, AF_FINDINGS),
    F(unprof, AF_FINDINGS),
    F(nowork, AF_FINDINGS),
    F(nowork_accel, AF_FINDINGS),
    F(warnings, AF_WARNINGS),
    F(n_warnings, AF_WARNINGS),
    F(range, AF_INPUT),
    F(view, AF_INPUT),
    F(corr_dir, AF_TIMELINE),
    F(corr_dir_n, AF_TIMELINE),
    F(corr_keys, AF_TIMELINE),
    F(corr_vals, AF_TIMELINE),
    F(corr_cap, AF_TIMELINE),
    F(corr_ix, AF_TIMELINE),
    F(corr_ids, AF_TIMELINE),
    F(corr_ix_n, AF_TIMELINE),
    F(corr_shift, AF_TIMELINE),
    F(corr_pid, AF_TIMELINE),
};
#undef F
#undef A
const size_t an_n_fields = sizeof(an_fields) / sizeof(an_fields[0]);

/* Narrows view's array to the events starting in [t0, t1]: a slice, since
 * the arrays are sorted by start. */
#define SLICE(v, name, field, t0, t1)                                                              \
	do {                                                                                       \
		size_t b_, e_;                                                                     \
		AN_LOWER((v)->name, (v)->n_##name, field, (t0), b_);                               \
		AN_LOWER((v)->name, (v)->n_##name, field, (t1) + 1, e_);                           \
		(v)->name += b_;                                                                   \
		(v)->n_##name = e_ - b_;                                                           \
		(v)->cap_##name = (v)->n_##name;                                                   \
	} while (0)

/* the first of a view's ranges starting at or after ts */
static size_t range_lower(const struct trace *v, int64_t ts)
{
	size_t lo = 0, hi = v->n_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (trace_range_start(v, mid) < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* a->view: t narrowed to the events that start in [t0, t1]. */
static const struct trace *slice_view(struct analysis *a, const struct trace *t, int64_t t0,
				      int64_t t1)
{
	a->view = *t;
	struct trace *v = &a->view;
	SLICE(v, kernels, start_ns, t0, t1);
	SLICE(v, copies, start_ns, t0, t1);
	SLICE(v, memsets, start_ns, t0, t1);
	SLICE(v, apis, start_ns, t0, t1);
	SLICE(v, syncs, start_ns, t0, t1);
	if (v->range_order) { /* a view's own times (trace.h): where they start moves */
		size_t b = range_lower(v, t0), e = range_lower(v, t1 + 1);
		v->range_first += b;
		v->n_ranges = e - b;
	} else {
		SLICE(v, ranges, start_ns, t0, t1);
	}
	SLICE(v, samples, ts_ns, t0, t1);
	return v;
}

/*
 * Warm-up of a recorded process: `gpuscope record` sees the whole program,
 * and its first iteration pays one-time costs (lazy module loading, library
 * handles, autotuning, allocator growth) that say nothing about the steady
 * state. A kernel launch is "cold" when it is the first of its name and
 * launch configuration (grid and block: new shapes are one-time costs too,
 * shape-keyed caches and heuristics). The
 * steady state is the longest run of warm launches (a training loop: from
 * the second step to a final check or evaluation that brings new kernels);
 * the analysis keeps that run (from its first launch to just before the
 * cold launch that ends it) when the prefix it drops is warm-up-like (at
 * least TH_WARM_PREFIX_COLD of its launches cold, and at least
 * TH_WARM_MIN_PREFIX_SHARE of the kernels' time span) and at least
 * TH_WARM_MIN_KEEP of all launches remain. Traces with fewer than
 * TH_WARM_MIN_LAUNCHES launches are analysed whole. A PyTorch profiler
 * trace with ProfilerStep# ranges is windowed by them instead
 * (profiler_steps); one without gets this rule too (#16 item 5: one
 * program, recorded or profiled, gets the same steady state).
 * Returns 1 with [*t0, *t1) the steady window (*t1 = INT64_MAX when the run
 * lasts to the end), or 0 for no cut.
 */
/* A launch's key for warm-up: its kernel and launch configuration, so a
 * first call that runs known kernels on new shapes (a decode loop's growing
 * cache, cuBLAS's heuristics per shape) is still warm-up. */
static uint64_t launch_key(const struct trace_kernel *k)
{
	uint64_t h = hash_u64(k->name_id);
	for (int d = 0; d < 3; d++)
		h = hash_u64(h ^ ((uint64_t)k->grid[d] << 32 | k->block[d]));
	return h;
}

/* Launches seen, in front of the map: a launch whose name and shape match
 * the last one seen in its entry (by a cheap mix of name and first
 * dimensions) is warm without hashing. */
#define WARM_HITS 256

struct warm_hit {
	uint32_t name_id, grid[3], block[3], set;
};

static struct warm_hit *warm_entry(struct warm_hit *h, const struct trace_kernel *k)
{
	uint32_t x =
	    k->name_id * 0x9e3779b1u ^ k->grid[0] * 0x85ebca77u ^ k->block[0] * 0xc2b2ae3du;
	return &h[x >> 24];
}

static int warm_hit(struct warm_hit *h, const struct trace_kernel *k)
{
	const struct warm_hit *e = warm_entry(h, k);
	return e->set && e->name_id == k->name_id && !memcmp(e->grid, k->grid, sizeof(e->grid)) &&
	       !memcmp(e->block, k->block, sizeof(e->block));
}

static void warm_note(struct warm_hit *h, const struct trace_kernel *k)
{
	struct warm_hit *e = warm_entry(h, k);
	e->name_id = k->name_id;
	memcpy(e->grid, k->grid, sizeof(e->grid));
	memcpy(e->block, k->block, sizeof(e->block));
	e->set = 1;
}

/* The steady window among the kernels from index `from` on (the launches
 * before it count as seen): 1 with [*t0, *t1), 0 for no cut. */
static int warm_window_from(const struct trace *t, size_t from, int64_t *t0, int64_t *t1)
{
	size_t n = t->n_kernels;
	if (from >= n || n - from < TH_WARM_MIN_LAUNCHES || t->n_strings == 0)
		return 0;
	struct u64map seen = {0};
	if (u64map_init(&seen, 1024) < 0)
		return 0;
	for (size_t i = 0; i < from; i++)
		if (u64map_put(&seen, launch_key(&t->kernels[i]), 1) < 0) {
			u64map_release(&seen);
			return 0;
		}
	size_t best_start = from, best_len = 0, run_start = from, colds = 0, colds_before = 0;
	struct warm_hit hits[WARM_HITS] = {{0}};
	for (size_t i = from; i <= n; i++) {
		int cold = 0;
		if (i < n && !warm_hit(hits, &t->kernels[i])) {
			uint64_t v, key = launch_key(&t->kernels[i]);
			cold = !u64map_get(&seen, key, &v);
			if (cold && u64map_put(&seen, key, 1) < 0) {
				u64map_release(&seen);
				return 0;
			}
			warm_note(hits, &t->kernels[i]);
		}
		if (i == n || cold) {
			if (i - run_start > best_len) {
				best_len = i - run_start;
				best_start = run_start;
				colds_before = colds;
			}
			colds++;
			run_start = i + 1;
		}
	}
	u64map_release(&seen);
	if (best_start == from || best_start >= n)
		return 0;
	if ((double)best_len < TH_WARM_MIN_KEEP * (double)(n - from) ||
	    (double)colds_before < TH_WARM_PREFIX_COLD * (double)(best_start - from))
		return 0;
	/* a warm-up worth leaving out takes time: a first launch or two of a
	 * CUDA program is not one */
	int64_t k0 = t->kernels[from].start_ns, kn = k0;
	for (size_t i = from; i < n; i++)
		kn = t->kernels[i].end_ns > kn ? t->kernels[i].end_ns : kn;
	if ((double)(t->kernels[best_start].start_ns - k0) <
	    TH_WARM_MIN_PREFIX_SHARE * (double)(kn - k0))
		return 0;
	*t0 = t->kernels[best_start].start_ns;
	*t1 = best_start + best_len < n ? t->kernels[best_start + best_len].start_ns : INT64_MAX;
	return 1;
}

static int warm_window(const struct trace *t, int64_t *t0, int64_t *t1)
{
	return warm_window_from(t, 0, t0, t1);
}

/*
 * The steady state of a run that compiled (torch.compile, Triton, XLA) but
 * whose warm launches warm_window cannot find (autotuning runs thousands of
 * benchmark launches, and late lazy loads break the runs after it): from
 * the GPU work after the last JIT stretch (phases.c) to the end, when that
 * holds at least TH_JIT_MIN_KEEP of the kernels' GPU time and
 * TH_WARM_MIN_LAUNCHES launches; within it, the warm-launch rule once more. 1 with the window, 0
 * for no cut, -1 when out of memory.
 */
static int jit_window(const struct trace *t, int64_t *t0, int64_t *t1)
{
	int64_t e;
	int rc = phases_last_jit_end(t, &e);
	if (rc <= 0)
		return rc;
	int64_t all = 0, after = 0;
	size_t n_after = 0;
	for (size_t i = 0; i < t->n_kernels; i++) {
		int64_t d = t->kernels[i].end_ns - t->kernels[i].start_ns;
		all += d;
		if (t->kernels[i].start_ns >= e) {
			after += d;
			n_after++;
		}
	}
	if (n_after < TH_WARM_MIN_LAUNCHES || (double)after < TH_JIT_MIN_KEEP * (double)all)
		return 0;
	/* the first steps after the compile still pay one-time costs (an
	 * optimizer's state, pools growing): the warm-launch rule, on what
	 * follows the compilation */
	if (warm_window_from(t, t->n_kernels - n_after, t0, t1))
		return 1;
	*t0 = e;
	*t1 = INT64_MAX;
	return 1;
}

/*
 * The steady state of a PyTorch profiler trace: its ProfilerStep#N ranges
 * (torch.profiler's schedule marks each profiled step), from the first
 * step's start to the end of the GPU work the steps launched (the GPU runs
 * behind the host: the last step's kernels end after its range does).
 * Returns 1 with the window [*t0, *t1) and the number of steps, 0 when the trace has
 * no steps, -1 when out of memory.
 */
static int profiler_steps(const struct trace *t, int64_t *t0, int64_t *t1, uint64_t *steps)
{
	int64_t s0 = INT64_MAX, s1 = INT64_MIN;
	uint64_t n = 0;
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *row = trace_range_row(t, i);
		if (row->kind != RANGE_ANNOTATION ||
		    strncmp(trace_str(t, row->name_id), "ProfilerStep#", 13) != 0)
			continue;
		struct trace_span r = trace_range_span(t, i);
		n++;
		s0 = r.start_ns < s0 ? r.start_ns : s0;
		s1 = r.end_ns > s1 ? r.end_ns : s1;
	}
	if (!n)
		return 0;
	/* the GPU work launched inside the steps: by correlation of the
	 * calls made in them */
	struct u64map corr = {0};
	if (u64map_init(&corr, 1024) < 0)
		return -1;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *p = &t->apis[i];
		if (p->start_ns >= s0 && p->start_ns <= s1 && p->correlation &&
		    u64map_put(&corr, (uint64_t)p->pid << 32 | p->correlation, 1) < 0) {
			u64map_release(&corr);
			return -1;
		}
	}
	int64_t end = s1;
	uint64_t v;
#define LAUNCHED_END(arr, cnt)                                                                     \
	for (size_t i = 0; i < (cnt); i++)                                                         \
		if ((arr)[i].start_ns > s1 && (arr)[i].end_ns > end &&                             \
		    u64map_get(&corr, (uint64_t)(arr)[i].pid << 32 | (arr)[i].correlation, &v))    \
			end = (arr)[i].end_ns;
	LAUNCHED_END(t->kernels, t->n_kernels)
	LAUNCHED_END(t->copies, t->n_copies)
	LAUNCHED_END(t->memsets, t->n_memsets)
#undef LAUNCHED_END
	u64map_release(&corr);
	*t0 = s0;
	*t1 = end + 1; /* exclusive, like warm_window's */
	*steps = n;
	return 1;
}

/* The sample clock shift of the whole recording (gpm.c aligns GPM windows
 * with the busy union; a slice has too few windows to do it), kept in
 * a->lag_hint for the analysis of the slice. */
static int sample_lag(struct analysis *a, const struct trace *t, char *err)
{
	struct analysis *w = calloc(1, sizeof(*w));
	if (!w)
		return error_set(err, "out of memory");
	w->t = t;
	int rc = an_timeline(w, err) < 0 || an_sample_stats(w, err) < 0 ? -1 : 0;
	if (rc == 0) {
		a->lag_hint_set = 1;
		a->lag_hint_ns = w->sol.lag_ns;
		a->lag_hint_corr = w->sol.lag_corr;
	}
	an_engine_release(w);
	free(w);
	return rc;
}

struct range_name {
	uint32_t id;
	int ops; /* a PyTorch op or Python function, listed after NVTX and annotations */
};

static int cmp_range_name(const void *x, const void *y, void *t)
{
	const struct range_name *a = x, *b = y;
	if (a->ops != b->ops)
		return a->ops - b->ops;
	return strcmp(trace_str(t, a->id), trace_str(t, b->id));
}

/* "no range named X": with the names the trace does have, NVTX ranges and
 * annotations first (#21 item 13) */
static int range_miss(const struct trace *t, const char *range, char *err)
{
	if (!t->n_ranges)
		return error_set(
		    err, "no range named '%s': the trace has no NVTX ranges or annotations", range);
	struct range_name *v = malloc(t->n_ranges * sizeof(*v));
	if (!v)
		return error_set(err, "no range named '%s' in the trace", range);
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *r = trace_range_row(t, i);
		v[i] = (struct range_name){r->name_id,
					   r->kind == RANGE_CPU_OP || r->kind == RANGE_PYTHON};
	}
	qsort_r(v, t->n_ranges, sizeof(*v), cmp_range_name, (void *)t);
	size_t n = 0;
	for (size_t i = 0; i < t->n_ranges; i++)
		if (!n || v[i].ops != v[n - 1].ops ||
		    strcmp(trace_str(t, v[i].id), trace_str(t, v[n - 1].id)) != 0)
			v[n++] = v[i];
	char list[320] = "";
	size_t used = 0, shown = 0;
	for (; shown < n && shown < 8; shown++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s'%.40s'", shown ? ", " : "",
				 trace_str(t, v[shown].id));
		if (w < 0 || (size_t)w >= sizeof(list) - used)
			break;
		used += (size_t)w;
	}
	free(v);
	if (shown < n)
		return error_set(err, "no range named '%s' in the trace; it has %s and %zu more",
				 range, list, n - shown);
	return error_set(err, "no range named '%s' in the trace; it has %s", range, list);
}

/* The steady window of t: its profiler steps, else the warm launches, else
 * what follows the compilation; 1 with [*c0, *c1), 0 for none, -1 when out
 * of memory. */
static int steady_window(const struct trace *t, int64_t *c0, int64_t *c1, uint64_t *steps)
{
	int cut = profiler_steps(t, c0, c1, steps);
	if (cut == 0)
		cut = warm_window(t, c0, c1);
	if (cut == 0)
		cut = jit_window(t, c0, c1);
	return cut;
}

struct sorted_job {
	const struct trace *t;
	int ok;
};

static void *sorted_thread(void *arg)
{
	struct sorted_job *j = arg;
	j->ok = sorted(j->t);
	return NULL;
}

const struct trace *an_window(struct analysis *a, const struct trace *t, const char *range,
			      int whole, char *err)
{
	if (!range || !*range) {
		int64_t c0, c1;
		uint64_t steps = 0;
		int cut = 0;
		/* the check that t is sorted beside the search for its window
		 * (which reads t only, sorted or not) */
		struct sorted_job sj = {.t = t, .ok = 1};
		pthread_t th;
		int two = !whole && t->n_kernels > 65536 && gs_cpu_count() > 1 &&
			  pthread_create(&th, NULL, sorted_thread, &sj) == 0;
		if (!two)
			sorted_thread(&sj);
		if (!whole && (two || sj.ok))
			cut = steady_window(t, &c0, &c1, &steps);
		if (two)
			pthread_join(th, NULL);
		if (!sj.ok) {
			error_set(err, "trace is not sorted by start time (call trace_sort)");
			return NULL;
		}
		if (cut < 0) {
			error_set(err, "out of memory");
			return NULL;
		}
		/* #36 item 2: a program that compiles the same kernels again
		 * inside the window found has no steady state; analysing the
		 * last quiet stretch would hide it */
		long again = cut > 0 && !steps ? phases_recompiles_from(t, c0) : 0;
		if (again < 0) {
			error_set(err, "out of memory");
			return NULL;
		}
		if (again >= TH_RECOMPILE_MIN) {
			a->recompiling = 1;
			return t;
		}
		if (!cut)
			return t;
		a->profiler_steps = steps;
		int64_t last = c1 == INT64_MAX ? INT64_MAX - 1 : c1 - 1;
		if (t->n_samples && sample_lag(a, t, err) < 0)
			return NULL;
		a->whole = t;
		a->warmup_ns = c0 - trace_first_ns(t);
		a->cooldown_ns = c1 == INT64_MAX ? 0 : trace_last_ns(t) - c1;
		return slice_view(a, t, c0, last);
	}
	if (!sorted(t)) {
		error_set(err, "trace is not sorted by start time (call trace_sort)");
		return NULL;
	}
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < t->n_ranges; i++) {
		if (strcmp(trace_str(t, trace_range_row(t, i)->name_id), range) != 0)
			continue;
		struct trace_span r = trace_range_span(t, i);
		t0 = r.start_ns < t0 ? r.start_ns : t0;
		t1 = r.end_ns > t1 ? r.end_ns : t1;
	}
	if (t0 == INT64_MAX) {
		range_miss(t, range, err);
		return NULL;
	}
	const struct trace *v = slice_view(a, t, t0, t1);
	a->whole = t;
	snprintf(a->range, sizeof(a->range), "%s", range);
	return v;
}

void an_engine_release(struct analysis *a)
{
	free(a->devices);
	free(a->streams);
	free(a->busy);
	free(a->busy_cum);
	free(a->gap_sync_frac);
	free(a->kgroups);
	free(a->cgroups);
	free(a->ranges);
	free(a->processes);
	free(a->corr_dir);
	free(a->corr_keys);
	free(a->corr_vals);
	free(a->corr_ix);
	free(a->corr_ids);
	kc_release(&a->kc);
	an_program_release(&a->prog);
	an_ops_release(&a->ops);
	an_memory_release(&a->mem);
	an_calls_release(&a->calls);
	an_families_release(&a->fam);
	an_series_release(&a->series);
}
