/*
 * timeline_int.h - what the timeline (timeline.c) and its sweep, whole or
 * in parts on several threads (timeline_parts.c), share: running unions,
 * the device and stream slots, the sweep's state.
 */
#ifndef GPUSCOPE_TIMELINE_INT_H
#define GPUSCOPE_TIMELINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/analysis_int.h"

/* A running union: [s, e) is the interval being grown, sum what is closed. */
struct run {
	int64_t s, e, sum;
	int open;
};

struct slot_map {
	uint64_t *keys; /* key + 1, 0 = empty */
	uint32_t *vals;
	size_t cap, n;
};

static inline uint64_t an_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

#define SLOT_HITS 16

struct slot_hit {
	uint32_t dev, stream;
	uint32_t ds, ss;
	int set;
};

struct sweep {
	struct run k, c, m, kc, ck[6];
	struct run *dev, *str;		 /* per device / per stream slot */
	size_t cap_dev, cap_str;	 /* of a->devices and a->streams */
	size_t cap_dev_run, cap_str_run; /* of dev and str */
	struct slot_map dmap, smap;
};

/* The value slot of key in m, `fresh` inserted when new (*inserted 1);
 * NULL when out of memory. */
uint32_t *an_slot_map_get(struct slot_map *m, uint64_t key, uint32_t fresh, int *inserted);
/* The device and stream slots of (dev, stream) in a's devices and streams
 * and w's runs, made on first sight: 0, or -1 when out of memory. */
int an_sweep_slot(struct analysis *a, struct sweep *w, uint32_t dev, uint32_t stream, uint32_t *ds,
		  uint32_t *ss);
/* The sweep of a's GPU ops (timeline_parts.c), whole or in parts on up to
 * cpus threads: a's busy list, sums, devices and streams made, w's runs
 * closed with their totals (sum). 0, or -1 when out of memory. */
int an_sweep(struct analysis *a, struct sweep *w, int cpus);

#endif
