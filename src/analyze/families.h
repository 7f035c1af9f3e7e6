/*
 * families.h - the busy time by kernel family (issue #16 item 6: GEMM and
 * convolution libraries, attention, elementwise/reduction, communication,
 * the program's own kernels; copies apart) and each family's verdict from
 * the GPM windows it dominates. A window that mixes families (GEMMs near
 * the tensor roof with elementwise kernels near the DRAM roof) averages to
 * neither roof: it is counted as mixed and gives no verdict (gpm.c asks
 * an_family_window for each window). Per-kernel counters, where present,
 * give each family its verdict from its own kernels instead (kcounters.h).
 *
 * Invariants:
 *  1. A family's kernel time is the union of its kernels' intervals.
 *  2. mem + compute + latency of a family are shares (0..1) of its sampled
 *     time; sampled_ns is 0 when no window was its own.
 */
#ifndef GPUSCOPE_FAMILIES_H
#define GPUSCOPE_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/program.h"

struct analysis;

struct an_family {
	int64_t kernel_ns; /* union of its kernels (invariant 1) */
	int64_t sum_ns;	   /* summed kernel time */
	uint64_t kernels;
	uint32_t top_name_id; /* its kernel group with the most time */
	/* GPM windows it dominates (>= TH_FAMILY_DOMINANT of their kernel time) */
	int64_t sampled_ns;
	double mem, compute, latency; /* shares of sampled_ns */
	double dram, pipe;	      /* busy-weighted means over those windows, % */
	/* per-kernel counters, when they cover this family's kernels */
	double counter_cover; /* share of its kernel time with counters (0..1) */
	int counter_bound;    /* enum kc bound of most of its counted time; -1 none */
};

struct an_families {
	struct an_family f[KF_COUNT];
	int64_t mixed_ns;   /* sampled busy time in windows no family dominates */
	int64_t sampled_ns; /* all sampled busy time in windows */
	/* private: per-family union intervals for window lookups */
	struct {
		int64_t *s, *e, *cum;
		size_t n;
	} u[KF_COUNT];
};

/* Builds the per-family unions (needs kernel groups' families: program.c).
 * 0, or -1 with err. */
int an_families(struct analysis *a, char *err);
void an_families_release(struct an_families *f);
/* Kernel time of family f inside [t0, t1). */
int64_t an_family_between(const struct an_families *f, int fam, int64_t t0, int64_t t1);
/* Called by gpm.c for each busy window [t0, t1) with weight b (busy ns)
 * and its class (0 memory, 1 compute, 2 latency) and rescaled DRAM/pipe %:
 * charges the dominant family or the mixed time. Returns 1 when a family
 * dominates the window. */
int an_family_window(struct analysis *a, int64_t t0, int64_t t1, double b, int cls, double dram,
		     double pipe);
/* After the last window: turns the sums into shares and means. */
void an_family_finish(struct analysis *a);
/* The verdict word of family f: "memory", "compute", "latency", "mixed" or
 * NULL when the data supports none. */
const char *an_family_verdict(const struct analysis *a, int fam);

#endif
