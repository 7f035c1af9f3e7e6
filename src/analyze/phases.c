/*
 * phases.c - JIT compilation stretches and the phases of a run (phases.h).
 *
 * A compiler (Triton, inductor, XLA, NVRTC) works on the host, outside any
 * CUDA call, while the GPU has nothing new to run; it ends by loading what
 * it built (cuModuleLoadData, cuLibraryLoadData) and the program launches
 * the new kernels. So a JIT stretch is a GPU-idle gap of the whole trace,
 * after the first GPU work, with at least TH_JIT_HOST_NS of host time
 * outside CUDA calls, a module load in its second half, and a first-ever
 * kernel name among the TH_JIT_NEW_WITHIN kernels launched after it (the
 * compiled kernels need not come first: torch.compile's autotuning zeroes
 * its buffers with a known fill kernel before it benchmarks the new ones).
 * Context creation and lazy loading of a prebuilt module take time inside
 * CUDA calls and are not compilation.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/hostidle.h"
#include "analyze/phases.h"
#include "diagnose/thresholds.h"
#include "util/error.h"

/* What a JIT loads is a module from memory (Triton, NVRTC users such as
 * CuPy and cuDNN's runtime kernels, XLA: cuModuleLoadData[Ex]) or linked
 * code (cuLinkComplete). cuLibraryLoadData is how CUDA 12's runtime loads
 * a library's prebuilt fatbinaries (PyTorch's, cuBLAS's): no compile. */
int phases_is_module_load(const char *n)
{
	return strstr(n, "cuModuleLoad") != NULL || strstr(n, "LinkComplete") != NULL;
}

/* How many API calls load a module (at most one when first_only), each
 * name tested once: calls share a few hundred names (the row-by-row strstr
 * was 1.7% of the report's CPU on the 1.09 GB trace of
 * bench/README-report-speed.md, in the single-threaded analysis). */
static size_t module_loads(const struct trace *t, int first_only)
{
	uint8_t *seen = calloc(t->n_strings ? t->n_strings : 1, 1); /* NULL: test each */
	size_t n = 0;
	for (size_t i = 0; i < t->n_apis && !(first_only && n); i++) {
		uint32_t id = t->apis[i].name_id;
		if (!seen || id >= t->n_strings) {
			n += phases_is_module_load(trace_str(t, id));
			continue;
		}
		if (!seen[id])
			seen[id] = phases_is_module_load(trace_str(t, id)) ? 2 : 1;
		n += seen[id] == 2;
	}
	free(seen);
	return n;
}

/* The next GPU op (kernel, copy, memset) in start order across the three
 * arrays; 0 when none is left. */
struct gpu_cursor {
	const struct trace *t;
	size_t k, c, m;
};

static int next_op(struct gpu_cursor *g, int64_t *s, int64_t *e, int *is_kernel, uint32_t *name)
{
	const struct trace *t = g->t;
	int64_t sk = g->k < t->n_kernels ? t->kernels[g->k].start_ns : INT64_MAX;
	int64_t sc = g->c < t->n_copies ? t->copies[g->c].start_ns : INT64_MAX;
	int64_t sm = g->m < t->n_memsets ? t->memsets[g->m].start_ns : INT64_MAX;
	if (sk == INT64_MAX && sc == INT64_MAX && sm == INT64_MAX)
		return 0;
	*is_kernel = 0;
	if (sk <= sc && sk <= sm) {
		*s = sk;
		*e = t->kernels[g->k].end_ns;
		*name = t->kernels[g->k++].name_id;
		*is_kernel = 1;
	} else if (sc <= sm) {
		*s = sc;
		*e = t->copies[g->c++].end_ns;
	} else {
		*s = sm;
		*e = t->memsets[g->m++].end_ns;
	}
	return 1;
}

/* Host time of [g0, g1) outside CUDA calls, and the module loads in its
 * second half (*libs: library loads there, cuLibraryLoadData); *api is
 * advanced (the calls are sorted by start). */
static int64_t host_outside(const struct trace *t, size_t *api, int64_t g0, int64_t g1,
			    uint64_t *loads, uint64_t *libs)
{
	while (*api < t->n_apis && t->apis[*api].end_ns <= g0)
		(*api)++;
	int64_t covered = 0, frontier = g0;
	int64_t half = g0 + (g1 - g0) / 2;
	*loads = *libs = 0;
	for (size_t i = *api; i < t->n_apis && t->apis[i].start_ns < g1; i++) {
		const struct trace_api *p = &t->apis[i];
		int64_t s = p->start_ns > frontier ? p->start_ns : frontier;
		int64_t e = p->end_ns < g1 ? p->end_ns : g1;
		if (e > s) {
			covered += e - s;
			frontier = e;
		}
		if (p->end_ns >= half && phases_is_module_load(trace_str(t, p->name_id)))
			(*loads)++;
		else if (p->end_ns >= half && strstr(trace_str(t, p->name_id), "cuLibraryLoad"))
			(*libs)++;
	}
	return (g1 - g0) - covered;
}

static void keep(struct an_phases *ph, const struct an_jit *j)
{
	ph->jit_total++;
	if (ph->n_jit < AN_MAX_JIT) {
		ph->jit[ph->n_jit++] = *j;
		return;
	}
	/* full: replace the shortest if this one is longer (time order is
	 * restored at the end) */
	size_t lo = 0;
	for (size_t i = 1; i < ph->n_jit; i++)
		if (ph->jit[i].end_ns - ph->jit[i].start_ns <
		    ph->jit[lo].end_ns - ph->jit[lo].start_ns)
			lo = i;
	if (j->end_ns - j->start_ns > ph->jit[lo].end_ns - ph->jit[lo].start_ns)
		ph->jit[lo] = *j;
}

static int cmp_jit(const void *x, const void *y)
{
	const struct an_jit *a = x, *b = y;
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* first[i]: kernel i is the first of its name; NULL when out of memory */
static unsigned char *first_of_name(const struct trace *w)
{
	unsigned char *seen = calloc(w->n_strings ? w->n_strings : 1, 1);
	unsigned char *first = calloc(w->n_kernels ? w->n_kernels : 1, 1);
	if (!seen || !first) {
		free(seen);
		free(first);
		return NULL;
	}
	for (size_t i = 0; i < w->n_kernels; i++) {
		uint32_t id = w->kernels[i].name_id < w->n_strings ? w->kernels[i].name_id : 0;
		first[i] = !seen[id];
		seen[id] = 1;
	}
	free(seen);
	return first;
}

/* trace_first_ns of a trace the analysis runs on: its event arrays are
 * sorted by start (analysis_run checks), so each one's first element is its
 * earliest; allocations are not checked, so all of them are read. */
static int64_t sorted_first_ns(const struct trace *t)
{
	int64_t b = INT64_MAX;
#define FIRST(arr, field)                                                                          \
	if (t->n_##arr && t->arr[0].field < b)                                                     \
		b = t->arr[0].field;
	FIRST(kernels, start_ns)
	FIRST(copies, start_ns)
	FIRST(memsets, start_ns)
	FIRST(apis, start_ns)
	FIRST(syncs, start_ns)
	if (t->n_ranges && trace_range_start(t, 0) < b)
		b = trace_range_start(t, 0);
	FIRST(samples, ts_ns)
#undef FIRST
	for (size_t i = 0; i < t->n_allocs; i++)
		if (t->allocs[i].ts_ns < b)
			b = t->allocs[i].ts_ns;
	return b == INT64_MAX ? 0 : b;
}

/*
 * The JIT stretches of the whole trace w, each handed to fn (in time
 * order). Returns the number found, or -1 when out of memory.
 */
static long scan_jit(const struct trace *w, void (*fn)(void *, const struct an_jit *, int64_t),
		     void *arg)
{
	unsigned char *first = first_of_name(w);
	if (!first)
		return -1;
	struct gpu_cursor g = {w, 0, 0, 0};
	int64_t s, e, end = INT64_MIN;
	int is_kernel;
	uint32_t name = 0;
	size_t api = 0;
	long found = 0;
	/* which host stacks compile, each node looked at once (hostidle.h);
	 * without memory, each sample's stack is walked */
	uint8_t *memo = w->n_host_samples ? calloc(w->n_host_stacks + 1, 1) : NULL;
	while (next_op(&g, &s, &e, &is_kernel, &name)) {
		if (end != INT64_MIN && s - end >= TH_JIT_HOST_NS) {
			/* g.k: the next kernel (this op's index + 1 when it is one) */
			size_t k0 = is_kernel ? g.k - 1 : g.k, newk = SIZE_MAX;
			for (size_t k = k0; k < w->n_kernels && k < k0 + TH_JIT_NEW_WITHIN; k++)
				if (first[k]) {
					newk = k;
					break;
				}
			uint64_t loads = 0, libs = 0;
			int64_t host = host_outside(w, &api, end, s, &loads, &libs);
			int jit = newk != SIZE_MAX && host >= TH_JIT_HOST_NS && loads;
			/* or the host samples show the compiler at work before a load:
			 * cuDNN's runtime-compiled kernels (NVRTC, then cuLibraryLoadData)
			 * rebuilt for a new shape under a name launched before */
			int64_t sampled = 0;
			if (!jit && host >= TH_JIT_HOST_NS && (loads || libs) &&
			    an_host_compile_share(w, end, s, &sampled, memo) >=
				TH_JIT_SAMPLED_SHARE &&
			    sampled >= host / 4) {
				jit = 1;
				if (newk == SIZE_MAX)
					newk = g.k > 0 && is_kernel ? g.k - 1 : g.k;
			}
			if (jit && newk < w->n_kernels) {
				struct an_jit j = {end, s, loads + libs, w->kernels[newk].name_id,
						   0};
				fn(arg, &j, host);
				found++;
			}
		}
		end = e > end ? e : end;
	}
	free(first);
	free(memo);
	return found;
}

struct phases_acc {
	struct analysis *a;
	int64_t host_moved;
};

static void account(void *arg, const struct an_jit *j0, int64_t host)
{
	struct phases_acc *acc = arg;
	struct analysis *a = acc->a;
	struct an_phases *ph = &a->phases;
	struct an_jit j = *j0;
	j.in_window = j.start_ns >= a->start_ns && j.end_ns <= a->end_ns + 1;
	ph->jit_ns += j.end_ns - j.start_ns;
	if (j.start_ns < a->start_ns)
		ph->jit_warmup_ns += j.end_ns - j.start_ns;
	if (j.in_window) {
		ph->jit_window_ns += j.end_ns - j.start_ns;
		acc->host_moved += host;
	}
	keep(ph, &j);
}

int an_phases(struct analysis *a, const struct trace *whole, char *err)
{
	const struct trace *w = whole ? whole : a->t;
	struct an_phases *ph = &a->phases;
	ph->module_loads += module_loads(w, 0);
	/* the phases of the whole trace around the analysed window */
	int64_t first = trace_first_gpu_ns(w);
	int64_t t0 = sorted_first_ns(w), t1 = trace_last_ns(w);
	if (first != INT64_MAX && a->span_ns > 0) {
		ph->startup_ns = first - t0;
		ph->warmup_ns = a->start_ns > first ? a->start_ns - first : 0;
		ph->final_ns = t1 > a->end_ns ? t1 - a->end_ns : 0;
	}
	if (!ph->module_loads)
		return 0;
	struct phases_acc acc = {a, 0};
	if (scan_jit(w, account, &acc) < 0)
		return error_set(err, "out of memory");
	qsort(ph->jit, ph->n_jit, sizeof(ph->jit[0]), cmp_jit);
	/* a compilation in the window is neither input nor per-step overhead */
	int64_t mv = acc.host_moved < a->idle.host_ns ? acc.host_moved : a->idle.host_ns;
	a->idle.host_ns -= mv;
	a->idle.jit_ns += mv;
	return 0;
}

static void last_end(void *arg, const struct an_jit *j, int64_t host)
{
	(void)host;
	int64_t *e = arg;
	if (j->end_ns > *e)
		*e = j->end_ns;
}

int phases_last_jit_end(const struct trace *t, int64_t *end)
{
	size_t loads = module_loads(t, 1);
	*end = INT64_MIN;
	if (!loads)
		return 0;
	long n = scan_jit(t, last_end, end);
	return n < 0 ? -1 : n > 0;
}

/* what phases_recompiles_from counts: the first kernels of the stretches
 * seen so far (a kernel's name compiled again is a recompilation) */
struct recompile_acc {
	int64_t from;
	uint32_t seen[AN_MAX_JIT];
	size_t n_seen;
	long n;
};

static void count_recompile(void *arg, const struct an_jit *j, int64_t host)
{
	(void)host;
	struct recompile_acc *acc = arg;
	int again = 0;
	for (size_t i = 0; i < acc->n_seen && !again; i++)
		again = acc->seen[i] == j->first_kernel_id;
	if (!again && acc->n_seen < AN_MAX_JIT)
		acc->seen[acc->n_seen++] = j->first_kernel_id;
	if (again && j->start_ns >= acc->from)
		acc->n++;
}

long phases_recompiles_from(const struct trace *t, int64_t from)
{
	if (!module_loads(t, 1))
		return 0;
	struct recompile_acc acc = {.from = from};
	return scan_jit(t, count_recompile, &acc) < 0 ? -1 : acc.n;
}
