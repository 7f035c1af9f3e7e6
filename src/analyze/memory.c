/*
 * memory.c - peak device memory per process, over time and against the
 * card (memory.h).
 *
 * Live bytes of a (process, device) are the running sum of its allocation
 * rows in time order (allocations > 0, frees < 0). CUDA's caching
 * allocators (PyTorch's, XLA's preallocation) allocate from the driver
 * rarely, so the peak is what the allocator reserved: what runs out first
 * when the card fills. The phase of the peak is read against the analysed
 * window: before the first GPU work is startup, before the window's start
 * warm-up, inside it the steady state, after it the end.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/memory.h"
#include "gpu/metrics.h"
#include "util/error.h"
#include "util/i18n.h"
#include "util/vec.h"

static struct an_mem_proc *proc_of(struct an_memory *m, uint32_t pid, uint32_t dev, size_t *cap)
{
	for (size_t i = 0; i < m->n_procs; i++)
		if (m->procs[i].pid == pid && m->procs[i].device == dev)
			return &m->procs[i];
	struct an_mem_proc *p = VEC_PUSH(m->procs, m->n_procs, *cap);
	if (p) {
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->device = dev;
	}
	return p;
}

static enum mem_phase phase_at(const struct analysis *a, const struct trace *w, int64_t ts)
{
	int64_t first = INT64_MAX; /* the first GPU work (arrays sorted by start) */
	if (w->n_kernels)
		first = w->kernels[0].start_ns;
	if (w->n_copies && w->copies[0].start_ns < first)
		first = w->copies[0].start_ns;
	if (w->n_memsets && w->memsets[0].start_ns < first)
		first = w->memsets[0].start_ns;
	if (ts < first)
		return MP_STARTUP;
	if (ts < a->start_ns)
		return MP_WARMUP;
	if (ts <= a->end_ns)
		return MP_STEADY;
	return MP_END;
}

static uint64_t card_of(const struct trace *w, uint32_t dev)
{
	for (size_t i = 0; i < w->n_devices; i++)
		if (w->devices[i].id == dev)
			return w->devices[i].mem_bytes;
	return 0;
}

static int cmp_peak(const void *x, const void *y)
{
	const struct an_mem_proc *a = x, *b = y;
	if (a->peak_bytes != b->peak_bytes)
		return a->peak_bytes > b->peak_bytes ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* live bytes of (pid, dev) at AN_MEM_POINTS evenly spaced times */
static void points(struct an_memory *m, const struct trace *w, uint32_t pid, uint32_t dev)
{
	int64_t t0 = trace_first_ns(w), t1 = trace_last_ns(w);
	if (t1 <= t0)
		return;
	int64_t live = 0;
	size_t j = 0;
	for (int k = 0; k < AN_MEM_POINTS; k++) {
		int64_t at = t0 + (t1 - t0) * (k + 1) / AN_MEM_POINTS;
		for (; j < w->n_allocs && w->allocs[j].ts_ns <= at; j++) {
			const struct trace_alloc *x = &w->allocs[j];
			if (x->pid == pid && x->device == dev && x->mem_kind != MEM_PINNED &&
			    x->mem_kind != MEM_PAGEABLE) {
				live += x->bytes;
				live = live < 0 ? 0 : live;
			}
		}
		m->point_ns[k] = at;
		m->point_bytes[k] = live;
	}
	m->n_points = AN_MEM_POINTS;
}

static void nvml_used(struct an_memory *m, const struct trace *w)
{
	const char *name = gpu_metrics[GPU_M_MEM_USED].trace_name;
	uint32_t id = 0;
	for (size_t i = 1; i < w->n_strings && !id; i++)
		if (strcmp(w->strings[i], name) == 0)
			id = (uint32_t)i;
	if (!id)
		return;
	for (size_t i = 0; i < w->n_samples; i++) {
		const struct trace_sample *s = &w->samples[i];
		if (s->metric_id != id || !(s->value >= 0))
			continue;
		if (!m->have_used || s->value > m->used_peak_bytes) {
			m->used_peak_bytes = s->value;
			m->used_device = s->device;
			m->used_peak_ns = s->ts_ns;
		}
		m->have_used = 1;
	}
	uint64_t card = m->have_used ? card_of(w, m->used_device) : 0;
	m->used_card_share = card ? m->used_peak_bytes / (double)card : -1;
}

int an_memory(struct analysis *a, const struct trace *whole, char *err)
{
	const struct trace *w = whole ? whole : a->t;
	struct an_memory *m = &a->mem;
	m->peak_card_share = -1;
	m->used_card_share = -1;
	nvml_used(m, w);
	size_t cap = 0;
	for (size_t i = 0; i < w->n_allocs; i++) {
		const struct trace_alloc *x = &w->allocs[i];
		/* host memory (pinned/pageable allocations) is not the card's */
		if (x->mem_kind == MEM_PINNED || x->mem_kind == MEM_PAGEABLE)
			continue;
		struct an_mem_proc *p = proc_of(m, x->pid, x->device, &cap);
		if (!p) {
			an_memory_release(m);
			return error_set(err, "out of memory");
		}
		m->have_allocs = 1;
		p->end_bytes += x->bytes;
		if (p->end_bytes < 0)
			p->end_bytes = 0;
		if (x->bytes > 0)
			p->allocs++;
		else
			p->frees++;
		if (p->end_bytes > p->peak_bytes) {
			p->peak_bytes = p->end_bytes;
			p->peak_ns = x->ts_ns;
		}
		if (x->ts_ns >= a->start_ns && x->ts_ns <= a->end_ns) {
			m->steady_allocs += x->bytes > 0;
			m->steady_frees += x->bytes < 0;
		}
	}
	if (!m->n_procs)
		return 0;
	for (size_t i = 0; i < m->n_procs; i++)
		m->procs[i].phase = phase_at(a, w, m->procs[i].peak_ns);
	qsort(m->procs, m->n_procs, sizeof(*m->procs), cmp_peak);
	const struct an_mem_proc *top = &m->procs[0];
	m->peak_bytes = top->peak_bytes;
	m->peak_pid = top->pid;
	m->peak_device = top->device;
	m->peak_ns = top->peak_ns;
	m->peak_phase = top->phase;
	m->card_bytes = card_of(w, top->device);
	m->peak_card_share = m->card_bytes ? (double)m->peak_bytes / (double)m->card_bytes : -1;
	points(m, w, top->pid, top->device);
	return 0;
}

void an_memory_release(struct an_memory *m)
{
	free(m->procs);
	memset(m, 0, sizeof(*m));
}

const char *mem_phase_name(enum mem_phase p)
{
	static const char *const n[] = {N_("startup"), N_("warm-up"), N_("steady state"),
					N_("final phase")};
	return p <= MP_END ? n[p] : "?";
}
