/*
 * verdict.h - what makes the verdict coherent beyond each rule (issue #36
 * item 9): host work done once (setup, data made before the loop: one long
 * stretch) told apart from per-step host work, and the refinement of the
 * primary that puts feeding the GPU first without putting a smaller
 * host-side finding above a critical GPU-side one that explains several
 * times more.
 */
#ifndef GPUSCOPE_VERDICT_H
#define GPUSCOPE_VERDICT_H

#include <stdint.h>

struct analysis;

/* One host stretch (a GPU gap of TH_HOST_WORK_NS or more) holds at least
 * TH_ONE_TIME_SHARE of the host idle and TH_MIN_IMPACT_PCT of the span by
 * itself, and the rest of the host idle is under TH_MIN_IMPACT_PCT of the
 * span: work done once, not per step. Fills
 * the stretch's length and its share of the host idle (0..1) when given;
 * returns 1 when it is one-time work. */
int an_one_time_host(const struct analysis *a, int64_t *stretch_ns, double *share);

/* Host work done every so often (a checkpoint, an evaluation, logging, a
 * garbage collection): at least TH_PERIODIC_MIN GPU gaps of
 * TH_PERIODIC_STALL_NS or more, and TH_PERIODIC_RATIO times the median gap
 * or more, that are at most a third of the gaps, come at a regular pace
 * (two thirds of the intervals between them within TH_PERIODIC_JITTER of
 * their median), hold TH_MIN_IMPACT_PCT of the span together, and are not
 * every step's wait: at most a third of the host's waits (gaps of
 * TH_HOST_WORK_NS or more), or TH_PERIODIC_SPACING times their length
 * apart. */
struct an_periodic {
	uint64_t stalls;   /* how many */
	int64_t median_ns; /* their median length */
	int64_t every_ns;  /* the median interval from one to the next */
	int64_t total_ns;  /* their summed length */
};
/* Fills p and returns 1 when the window has such stalls (0 otherwise, or
 * when out of memory: the finding is then not named). */
int an_periodic_stall(const struct analysis *a, struct an_periodic *p);

/* The primary after the rules ran (an_rules): while the GPU is busy under
 * TH_GPU_BUSY_PCT, the first host-side finding explaining TH_WARN_IMPACT_PCT
 * or more is primary, unless the primary is a GPU-side finding explaining
 * TH_CRIT_IMPACT_PCT or more and TH_REFINE_RATIO times as much, or the host finding is one-time
 * work (feeding the GPU faster does not apply to it). */
void an_refine_primary(struct analysis *a);

/* The run from the first to the last GPU work of the whole trace (the
 * analysed window's span when it has none). */
int64_t an_gpu_run_ns(const struct analysis *a);

#endif
