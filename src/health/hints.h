/*
 * hints.h - the reading hints (docs/method.md §3.1) for one GPU's sample: one-line notes
 * saying what a combination of numbers means and what to do next (docs/method.md §1,
 * §3.1's nvidia-smi reading table, §7.4 and §10).
 * Pure functions of the sample: the same in monitor's live view, table and
 * replayed log, in explain's reading of a pasted nvidia-smi table, and
 * tests. A hint is given only from known values.
 */
#ifndef GPUSCOPE_HEALTH_HINTS_H
#define GPUSCOPE_HEALTH_HINTS_H

#include "gpu/gpu.h"

#define MON_HINT_LEN 200
#define MON_MAX_HINTS 8

/* Writes up to max hints (most important first); returns how many. procs may be NULL. */
int mon_hints(const struct gpu_static *st, const struct gpu_sample *s,
	      const struct gpu_procs *procs, char (*out)[MON_HINT_LEN], int max);

#endif
