/*
 * recording.h - a recording's peak device memory beside an estimate.
 */
#ifndef GPUSCOPE_VRAM_RECORDING_H
#define GPUSCOPE_VRAM_RECORDING_H

#include <stdint.h>

#include "trace/trace.h"
#include "vram/estimate.h"

struct vram_recording_peak {
	uint32_t pid;	   /* the process with the largest peak */
	double peak_bytes; /* its most device memory allocated at once */
	int64_t at_ns;	   /* when */
	unsigned allocations, processes;
};

/*
 * The largest running sum of live device allocations of one process in t
 * (allocations > 0, frees < 0, in time order). -1 with err when t holds no
 * device allocation.
 */
int vram_recording_peak(struct vram_recording_peak *out, const struct trace *t, char *err);

/* What the estimate says the allocator reserves: allocated peak + headroom
 * (the figure a recording's cudaMalloc peak measures). */
double vram_estimate_reserved(const struct vram_estimate *e);

#endif
