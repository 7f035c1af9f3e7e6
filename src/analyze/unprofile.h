/*
 * unprofile.h - a profiled trace as its program would have run without the
 * profiler's own host cost (issue #36 item 8). torch.profiler records every
 * CPU op, Python function, annotation and CUDA call of the host, and each
 * record costs the host time (diagnose/thresholds.h: TH_PROFILER_EVENT_NS,
 * fitted on the paired fixtures): a profile can be host-bound where the
 * program is not. The view made here is the estimate report picks its
 * primary on (diagnose/unprofiled.c).
 *
 * The model (one sweep over the trace in time order):
 *  1. Each process's host time is one timeline. Every event the profiler
 *     recorded on it adds its cost to a debt, which the host time after it
 *     pays off, except the time inside a blocking call: the host does the
 *     same work, sooner.
 *  2. A GPU op moves earlier by its launch call's shift, and never before
 *     the end of the op before it on its stream (durations are kept): a
 *     queued op stays queued, an op that waited on its launch waits less.
 *  3. A blocking call (a synchronization; a copy or memset that returned
 *     after its GPU op ended) returns when the latest GPU op of its
 *     process that had ended by its return ends in the estimate, plus the
 *     wake-up time it took as recorded; the host goes on from there.
 *  4. Every other host time (ends, allocations, process lives) moves by
 *     its process's timeline, linear between the points the sweep fixed; a
 *     GPU-side annotation moves with the ops of its stream.
 * So a GPU-bound profile stays as it was, and a host-bound one becomes as
 * GPU-bound as the host's own work allows.
 *
 * Invariants:
 *  1. The view shares t's strings, meta, devices, counters, host frames
 *     and stacks (never interns, never frees them); its other event arrays
 *     are its own, sorted by start (trace.h invariant 3), but for the
 *     ranges: t's rows, seen through the view's own order and times
 *     (trace.h: range_order, range_start, range_len; read by
 *     trace_range_at and the like). t may be such a view itself.
 *  2. Each process's mapping is monotone: events keep their order on a
 *     process and on a stream; durations of GPU ops are unchanged.
 */
#ifndef GPUSCOPE_UNPROFILE_H
#define GPUSCOPE_UNPROFILE_H

#include <stdint.h>

#include "trace/trace.h"

struct an_unprofile_stats {
	uint64_t events;    /* the profiler's host records counted */
	int64_t removed_ns; /* host time taken out (debt paid), all processes */
};

/* The view of sorted trace t without per_event_ns of host time for each
 * profiler record. 0, or -1 with err (out of memory; v then released). */
int an_unprofile_view(struct trace *v, const struct trace *t, int64_t per_event_ns,
		      struct an_unprofile_stats *st, char *err);
void an_unprofile_view_release(struct trace *v);
/* an_unprofile_view that stops when *cancel (read atomically, written by
 * another thread) becomes nonzero: 1 then, v released (a few ms late at
 * most: the sweep reads it every 65536 items, the other steps between
 * them) */
int an_unprofile_view_until(struct trace *v, const struct trace *t, int64_t per_event_ns,
			    const int *cancel, struct an_unprofile_stats *st, char *err);
/* an_unprofile_view, or with reference != 0 the plain way it is checked
 * against (tests/analyze/test_unprofile.c): every point of the host
 * timelines kept, the sweep's items sorted all together, every time
 * searched among all the points, on one thread. The same view both ways. */
int an_unprofile_view_opt(struct trace *v, const struct trace *t, int64_t per_event_ns,
			  int reference, struct an_unprofile_stats *st, char *err);

#endif
