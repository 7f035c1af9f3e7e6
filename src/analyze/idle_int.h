/*
 * idle_int.h - what the idle breakdown (idle.c) and its gaps on several
 * threads (idle_parts.c) share: the cursors over the covering calls and
 * the walk of one gap.
 */
#ifndef GPUSCOPE_IDLE_INT_H
#define GPUSCOPE_IDLE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/analysis_int.h"
#include "analyze/series.h"

enum { C_SYNC = 1, C_COPY = 2, C_LAUNCH = 4, C_API = 8 };

/* The four cursors walk the same calls a short way apart: a launch's end
 * (extended to its op's start, a correlation lookup) is kept here by call
 * index for the others (entry i % LAUNCH_ENDS). */
#define LAUNCH_ENDS 4096

struct launch_ends {
	size_t idx[LAUNCH_ENDS]; /* call index + 1, 0: empty */
	int64_t end[LAUNCH_ENDS];
};

/* A launch's end extended to its op's start, as an offset from the call's
 * end (0: the op started before the call ended, or has none); EXT_FAR: too
 * far for 31 bits, looked up again. */
#define EXT_FAR INT32_MIN

/* Streams the union of the covering intervals whose class is in `mask`. */
struct cursor {
	const struct analysis *a;
	struct launch_ends *ends;
	const int32_t *ext; /* launches' ends by call index (ext_of), or NULL */
	int mask;
	size_t ia, is;	/* next api, next sync record */
	int64_t ps, pe; /* one raw interval of lookahead */
	int have_pending, done;
	int64_t us, ue; /* current union interval */
	int valid;
	int64_t last_end; /* end of the last union interval passed */
	int has_last;
	/* a part's cursor (idle_parts.c): its gaps end by horizon, so a union
	 * reaching past it is not built further (the rest is another part's) */
	int64_t horizon;
	int has_horizon;
};
/* Where a run of gaps adds up: the analysis's own idle breakdown and
 * series, or a part's (split_gaps). */
struct idle_acc {
	struct an_idle *d;
	struct an_gap_sink *sink; /* NULL: a->series */
};

/* The cursor's next covering interval in start order (idle.c's next_raw). */
int an_idle_next_raw(struct cursor *c, int64_t *s, int64_t *e);
/* Gap [g0, g1) through the four cursors into acc, its host and dispatch
 * time in *host, *disp. */
void an_idle_gap(struct analysis *a, struct idle_acc *acc, struct cursor *cur, int64_t g0,
		 int64_t g1, int64_t *host, int64_t *disp);
/* The gaps in parts on up to cpus threads (idle_parts.c): 0 done (a->idle,
 * the series, host[] and disp[] of every gap), 1 not split (too few
 * parts: the caller walks them), -1 out of memory. */
int an_idle_split(struct analysis *a, int cpus, int64_t *host, int64_t *disp);

#endif
