/*
 * devices.c - a device's part of a trace, the view each device's analysis
 * reads (diagnose/diagnose.c: analysis_result_run runs them and merges
 * their findings).
 *
 * A device's part of a trace is what trace_keep_device keeps, copied into
 * a view so the trace stays as it was: the device's kernels, copies,
 * memsets, samples and allocations, the host side (API calls, syncs,
 * ranges, counters, process rows) of the processes that put work on it,
 * and its properties. Each device is analysed on its own (its warm-up, its
 * idle gaps, its SM count); the run's own analysis (`all`) keeps the
 * devices together for the tables, and its findings are the devices'
 * findings, each marked with its device, so a starving rank is not hidden
 * by a busy one in the union. Job rules (rules.h: stragglers, exposed
 * communication) read the per-device results.
 *
 * Invariants:
 *  1. A view shares the trace's strings and meta (never interns, never
 *     frees them); its event arrays are its own.
 *  2. With one device, or with opts.device, there is no per-device list:
 *     `all` is that device's analysis, findings unmarked (device -1).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "util/error.h"
#include "util/idset.h"

/* v->name: the elements x of t->name for which KEEP holds, in order. */
#define COPY_IF(v, t, name, KEEP)                                                                  \
	do {                                                                                       \
		size_t n_ = 0;                                                                     \
		(v)->name = malloc(((t)->n_##name ? (t)->n_##name : 1) * sizeof(*(t)->name));      \
		if (!(v)->name)                                                                    \
			goto oom;                                                                  \
		for (size_t i_ = 0; i_ < (t)->n_##name; i_++) {                                    \
			const __typeof__((t)->name[0]) *x = &(t)->name[i_];                        \
			if (KEEP)                                                                  \
				(v)->name[n_++] = *x;                                              \
		}                                                                                  \
		(v)->n_##name = (v)->cap_##name = n_;                                              \
	} while (0)

/* what a device's view copies; the rest is shared with the trace or empty */
#define DEVICE_VIEW_OWNS                                                                           \
	(TRACE_OWN(devices) | TRACE_OWN(kernels) | TRACE_OWN(copies) | TRACE_OWN(memsets) |        \
	 TRACE_OWN(apis) | TRACE_OWN(syncs) | TRACE_OWN(ranges) | TRACE_OWN(allocs) |              \
	 TRACE_OWN(uvm) | TRACE_OWN(samples) | TRACE_OWN(counters) | TRACE_OWN(processes) |        \
	 TRACE_OWN(host_sched))

void an_device_view_release(struct trace *v)
{
	trace_view_release(v, DEVICE_VIEW_OWNS);
}

int an_device_view(struct trace *v, const struct trace *t, uint32_t device, char *err)
{
	uint32_t *pids;
	size_t n;
	memset(v, 0, sizeof(*v));
	if (trace_device_pids(t, device, &pids, &n, err) < 0)
		return -1;
	v->strings = t->strings;
	v->n_strings = t->n_strings;
	v->meta = t->meta;
	v->n_meta = t->n_meta;
	v->source = t->source;
	/* shared, like the strings: record's capture windows (not freed) */
	v->capture_windows = t->capture_windows;
	v->n_capture_windows = t->n_capture_windows;
	COPY_IF(v, t, kernels, x->device == device);
	COPY_IF(v, t, copies, x->device == device);
	COPY_IF(v, t, memsets, x->device == device);
	COPY_IF(v, t, samples, x->device == device);
	COPY_IF(v, t, allocs, x->device == device);
	/* unified memory: the device's events, and its processes' CPU faults */
	COPY_IF(v, t, uvm,
		x->device == device || (x->device == UVM_CPU && idset_has(pids, n, x->pid)));
	/* a sync waits on its process's work; the host side of the processes
	 * that put work on the device */
	COPY_IF(v, t, syncs, idset_has(pids, n, x->pid));
	COPY_IF(v, t, apis, idset_has(pids, n, x->pid));
	COPY_IF(v, t, ranges, idset_has(pids, n, x->pid));
	COPY_IF(v, t, counters, idset_has(pids, n, x->pid));
	COPY_IF(v, t, processes, idset_has(pids, n, x->pid));
	COPY_IF(v, t, host_sched, idset_has(pids, n, x->pid));
	COPY_IF(v, t, devices, x->id == device);
	if (!v->n_devices) { /* no properties of it: keep what there is */
		free(v->devices);
		v->devices = NULL;
		COPY_IF(v, t, devices, 1);
	}
	free(pids);
	return 0;
oom:
	free(pids);
	an_device_view_release(v);
	return error_set(err, "out of memory");
}
