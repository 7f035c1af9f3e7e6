/*
 * kineto_ranges.c - torch.profiler's CUPTI range counters into the counter
 * rows `record --metrics kernels` writes (issue 18, item 4).
 *
 * With experimental_config=_ExperimentalConfig(profiler_metrics=[...],
 * profiler_measure_per_kernel=True) kineto's range profiler (auto range,
 * kernel replay) writes one "cuda_profiler_range" event per profiled
 * kernel: name = the kernel's demangled name, pid = the device, args =
 * CUPTI metric name -> value. The names are Nsight Compute's, so they are
 * src/gpu/kernel_metrics.h's as they stand (kineto's aliases such as
 * kineto__cuda_core_flops are expanded into CUPTI metrics before they are
 * written). The event carries no correlation id and its ts/dur are not
 * measured (kineto splits its span evenly among the ranges), so, as HTA
 * does, the n-th range is the n-th kernel launch:
 *
 *  - the trace has kernel rows: per device, ranges and launches (API calls
 *    of kind launch, graph launches left out, whose kernel ran on that
 *    device) are walked in order; a range takes the next launch whose
 *    kernel has its name, looking at most PAIR_WINDOW launches ahead (a
 *    launch the profiler skipped, past its range limit, costs one step); a
 *    range that finds none is left out (meta import.profiler_ranges_unpaired);
 *  - no kernel rows (kineto then wrote only the ranges): the ranges, all
 *    on one device, pair with the launches in order when there are as many
 *    of each (HTA's rule), else with none; a kernel is made of each range,
 *    after its launch and the kernel before it, lasting gpu__time_duration
 *    when it was measured (else kineto's split span: meta
 *    import.profiler_kernel_times says which); unpaired ones get
 *    correlation ids past every id in the trace.
 *
 * Counter rows get the launch's correlation and the process's pid, the key
 * kcounters.c joins kernels on.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/kineto_int.h"
#include "util/hmap.h"

#define PAIR_WINDOW 64
#define NONE SIZE_MAX

struct pairing {
	size_t *launch;	 /* api index, NONE */
	int64_t *gpu_ns; /* gpu__time_duration.sum, -1 unknown */
	size_t *order;	 /* ranges by start */
	size_t *apis;	 /* launch API rows by start */
	size_t n_apis;
	size_t paired;
};

static int cmp_by_start_range(const void *a, const void *b, void *ctx)
{
	const struct kprange *r = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (r[x].start != r[y].start)
		return r[x].start < r[y].start ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_by_start_api(const void *a, const void *b, void *ctx)
{
	const struct trace_api *r = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (r[x].start_ns != r[y].start_ns)
		return r[x].start_ns < r[y].start_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int is_kernel_launch(const struct trace *t, const struct trace_api *a)
{
	return a->kind == API_LAUNCH && !strstr(trace_str(t, a->name_id), "GraphLaunch");
}

/* Per device, ranges to the next launch of a kernel of the same name. */
static int pair_by_name(struct ksink *p, struct pairing *pr)
{
	struct trace *t = p->t;
	struct u64map kmap;
	if (u64map_init(&kmap, t->n_kernels + 1) < 0)
		return -1;
	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].correlation &&
		    u64map_put(&kmap, t->kernels[i].correlation, i) < 0) {
			u64map_release(&kmap);
			return -1;
		}
	/* the kernel of each launch, NONE when it has none in the trace */
	size_t *kof = malloc((pr->n_apis + 1) * sizeof(*kof));
	if (!kof) {
		u64map_release(&kmap);
		return -1;
	}
	for (size_t j = 0; j < pr->n_apis; j++) {
		uint64_t ki;
		const struct trace_api *a = &t->apis[pr->apis[j]];
		kof[j] =
		    a->correlation && u64map_get(&kmap, a->correlation, &ki) ? (size_t)ki : NONE;
	}
	u64map_release(&kmap);
	/* one pass per device that has ranges; a cursor into the launches */
	for (size_t first = 0; first < p->n_pranges; first++) {
		uint32_t dev = p->pranges[pr->order[first]].device;
		int seen = 0;
		for (size_t i = 0; i < first && !seen; i++)
			seen = p->pranges[pr->order[i]].device == dev;
		if (seen)
			continue;
		size_t cur = 0;
		for (size_t i = first; i < p->n_pranges; i++) {
			const struct kprange *r = &p->pranges[pr->order[i]];
			if (r->device != dev)
				continue;
			const char *name = trace_str(t, r->name_id);
			for (size_t j = cur, tried = 0; j < pr->n_apis && tried < PAIR_WINDOW;
			     j++) {
				if (kof[j] == NONE || t->kernels[kof[j]].device != dev)
					continue;
				tried++;
				if (strcmp(trace_str(t, t->kernels[kof[j]].name_id), name) == 0) {
					pr->launch[pr->order[i]] = pr->apis[j];
					pr->paired++;
					cur = j + 1;
					break;
				}
			}
		}
	}
	free(kof);
	return 0;
}

/* No kernel rows: in order when the counts agree and one device ran them. */
static void pair_by_order(struct ksink *p, struct pairing *pr)
{
	if (pr->n_apis != p->n_pranges)
		return;
	for (size_t i = 1; i < p->n_pranges; i++)
		if (p->pranges[i].device != p->pranges[0].device)
			return;
	for (size_t i = 0; i < p->n_pranges; i++)
		pr->launch[pr->order[i]] = pr->apis[i];
	pr->paired = p->n_pranges;
}

/* Kernels made of the ranges; synthetic correlations past every id. */
static int make_kernels(struct ksink *p, struct pairing *pr, uint32_t pid, uint32_t *corr_of,
			int *measured)
{
	struct trace *t = p->t;
	uint64_t next = 0;
	for (size_t i = 0; i < t->n_apis; i++)
		if (t->apis[i].correlation > next)
			next = t->apis[i].correlation;
	int64_t prev_end = INT64_MIN;
	*measured = 1;
	for (size_t o = 0; o < p->n_pranges; o++) {
		size_t i = pr->order[o];
		const struct kprange *r = &p->pranges[i];
		size_t a = pr->launch[i];
		int64_t start = r->start, dur = r->end - r->start, end;
		uint32_t corr = a != NONE ? t->apis[a].correlation : 0;
		if (a != NONE) {
			start = t->apis[a].start_ns > prev_end ? t->apis[a].start_ns : prev_end;
			if (pr->gpu_ns[i] >= 0)
				dur = pr->gpu_ns[i];
		}
		if (a == NONE || pr->gpu_ns[i] < 0)
			*measured = 0;
		if (!corr) {
			if (next >= UINT32_MAX)
				return error_set(p->err, "too many kernels for correlation ids");
			corr = (uint32_t)++next;
		}
		if (trace_span_dur(start, dur, &end) < 0)
			return error_set(p->err, "cuda_profiler_range time out of range");
		struct trace_kernel *k = trace_add_kernel(t);
		if (!k)
			return error_set(p->err, "out of memory");
		(void)trace_fill_gpu(
		    k, (struct trace_gpu_head){start, end, pid, r->device, 0, r->stream, corr});
		k->name_id = r->name_id;
		corr_of[i] = corr;
		prev_end = end;
	}
	return 0;
}

static int set_meta_u64(struct trace *t, const char *key, uint64_t v)
{
	char num[32];
	snprintf(num, sizeof(num), "%" PRIu64, v);
	return trace_set_meta(t, key, num);
}

int kineto_pair_ranges(struct ksink *p, uint32_t pid)
{
	struct trace *t = p->t;
	size_t n = p->n_pranges;
	if (!n)
		return 0;
	struct pairing pr = {0};
	uint32_t *corr_of = malloc(n * sizeof(*corr_of));
	pr.launch = malloc(n * sizeof(*pr.launch));
	pr.gpu_ns = malloc(n * sizeof(*pr.gpu_ns));
	pr.order = malloc(n * sizeof(*pr.order));
	pr.apis = malloc((t->n_apis + 1) * sizeof(*pr.apis));
	int rc = -1;
	if (!corr_of || !pr.launch || !pr.gpu_ns || !pr.order || !pr.apis) {
		error_set(p->err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		pr.launch[i] = NONE;
		pr.gpu_ns[i] = -1;
		pr.order[i] = i;
		corr_of[i] = 0;
	}
	for (size_t i = 0; i < t->n_counters; i++) {
		const struct trace_counter *c = &t->counters[i];
		if (c->correlation < n && c->value >= 0 && c->value < 9.0e18 &&
		    strcmp(trace_str(t, c->metric_id), "gpu__time_duration.sum") == 0)
			pr.gpu_ns[c->correlation] = (int64_t)(c->value + 0.5);
	}
	qsort_r(pr.order, n, sizeof(*pr.order), cmp_by_start_range, p->pranges);
	for (size_t i = 0; i < t->n_apis; i++)
		if (is_kernel_launch(t, &t->apis[i]))
			pr.apis[pr.n_apis++] = i;
	qsort_r(pr.apis, pr.n_apis, sizeof(*pr.apis), cmp_by_start_api, t->apis);

	int have_kernels = t->n_kernels > 0, measured = 0;
	if (have_kernels) {
		if (pair_by_name(p, &pr) < 0) {
			error_set(p->err, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			corr_of[i] = pr.launch[i] != NONE ? t->apis[pr.launch[i]].correlation : 0;
	} else {
		pair_by_order(p, &pr);
		if (make_kernels(p, &pr, pid, corr_of, &measured) < 0)
			goto out;
	}
	/* the rows: paired ones keyed as record writes them, the rest dropped */
	size_t w = 0;
	for (size_t i = 0; i < t->n_counters; i++) {
		struct trace_counter c = t->counters[i];
		if (c.correlation >= n || !corr_of[c.correlation])
			continue;
		c.pid = pid;
		c.correlation = corr_of[c.correlation];
		t->counters[w++] = c;
	}
	t->n_counters = w;
	if (set_meta_u64(t, "import.profiler_ranges", n) < 0 ||
	    set_meta_u64(t, "import.profiler_ranges_paired", pr.paired) < 0 ||
	    (have_kernels &&
	     set_meta_u64(t, "import.profiler_ranges_unpaired", n - pr.paired) < 0) ||
	    (!have_kernels &&
	     trace_set_meta(t, "import.profiler_kernel_times",
			    measured ? "launch+gpu__time_duration" : "kineto_span_split") < 0)) {
		error_set(p->err, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(corr_of);
	free(pr.launch);
	free(pr.gpu_ns);
	free(pr.order);
	free(pr.apis);
	return rc;
}
