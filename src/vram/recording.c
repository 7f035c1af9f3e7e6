/*
 * recording.c - the device memory a recorded run held at its peak, to set
 * beside an estimate (issue #23 item 3; report's memory section can call
 * the same functions).
 *
 * A recording's allocations table holds every device allocation (> 0) and
 * free (< 0) CUPTI saw. For a PyTorch program these are the caching
 * allocator's segments, so the running sum of live bytes peaks at what
 * torch.cuda.max_memory_reserved() reports, not max_memory_allocated(): it
 * is compared with the estimate's allocated peak plus allocator headroom
 * (everything but the CUDA context, which is not cudaMalloc'd).
 */
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "vram/recording.h"

static int by_time(const void *a, const void *b)
{
	const struct trace_alloc *x = *(const struct trace_alloc *const *)a;
	const struct trace_alloc *y = *(const struct trace_alloc *const *)b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return (x->bytes < y->bytes) - (x->bytes > y->bytes); /* allocations first */
}

int vram_recording_peak(struct vram_recording_peak *out, const struct trace *t, char *err)
{
	const struct trace_alloc **v;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	v = malloc((t->n_allocs ? t->n_allocs : 1) * sizeof(*v));
	if (!v)
		return error_set(err, "out of memory");
	for (size_t i = 0; i < t->n_allocs; i++)
		if (t->allocs[i].mem_kind == MEM_DEVICE)
			v[n++] = &t->allocs[i];
	if (n == 0) {
		free(v);
		return error_set(err, "the recording has no device allocations");
	}
	qsort(v, n, sizeof(*v), by_time);
	/* per process: a running sum; processes are few, so a small table */
	struct {
		uint32_t pid;
		double live, peak;
		int64_t at;
		unsigned count;
	} p[64];
	unsigned np = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned k = 0;
		while (k < np && p[k].pid != v[i]->pid)
			k++;
		if (k == np) {
			if (np == sizeof(p) / sizeof(p[0]))
				continue; /* more processes than we follow: keep the first */
			memset(&p[np], 0, sizeof(p[np]));
			p[np++].pid = v[i]->pid;
		}
		p[k].live += (double)v[i]->bytes;
		if (v[i]->bytes > 0)
			p[k].count++;
		if (p[k].live > p[k].peak) {
			p[k].peak = p[k].live;
			p[k].at = v[i]->ts_ns;
		}
	}
	free(v);
	for (unsigned k = 0; k < np; k++)
		if (p[k].peak > out->peak_bytes) {
			out->pid = p[k].pid;
			out->peak_bytes = p[k].peak;
			out->at_ns = p[k].at;
			out->allocations = p[k].count;
		}
	out->processes = np;
	return 0;
}

double vram_estimate_reserved(const struct vram_estimate *e)
{
	return e->allocated_peak + e->part[VRAM_PART_HEADROOM];
}
