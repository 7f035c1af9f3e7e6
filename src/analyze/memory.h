/*
 * memory.h - device memory of a run (issue #16 item 8): the peak of live
 * allocated bytes per process and device (the allocation rows: CUPTI's
 * memory records in a recording, PyTorch's memory events in a profiler
 * trace), the device's used memory as NVML sampled it, the peak as a share
 * of the card and the phase it happened in (startup, warm-up, the steady
 * state, the end), and live bytes over time for a chart.
 *
 * Invariants:
 *  1. Live bytes never go below 0 (a free of memory allocated before the
 *     recording started counts as nothing).
 *  2. Shares are of the device's memory when the trace knows it (else
 *     unknown, never 0).
 */
#ifndef GPUSCOPE_MEMORY_H
#define GPUSCOPE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

struct analysis;
struct trace;

enum mem_phase { MP_STARTUP, MP_WARMUP, MP_STEADY, MP_END };

struct an_mem_proc {
	uint32_t pid, device;
	uint64_t allocs, frees;
	int64_t peak_bytes; /* most live bytes at once */
	int64_t peak_ns;    /* when */
	int64_t end_bytes;  /* live at the end of the trace */
	enum mem_phase phase;
};

#define AN_MEM_POINTS 30

struct an_memory {
	struct an_mem_proc *procs; /* by peak, descending */
	size_t n_procs;
	int have_allocs;    /* the trace has allocation rows */
	int64_t peak_bytes; /* the largest process peak */
	uint32_t peak_pid, peak_device;
	int64_t peak_ns;
	enum mem_phase peak_phase;
	uint64_t card_bytes;	/* of the peak's device; 0 unknown */
	double peak_card_share; /* peak / card; < 0 unknown */
	int have_used;		/* NVML's used memory was sampled */
	double used_peak_bytes; /* its largest sample, any device */
	double used_card_share; /* of that device's memory; < 0 unknown */
	uint32_t used_device;
	int64_t used_peak_ns;
	/* live bytes of the peak process at AN_MEM_POINTS times over the trace */
	int64_t point_ns[AN_MEM_POINTS], point_bytes[AN_MEM_POINTS];
	int n_points;
	uint64_t steady_allocs, steady_frees; /* allocation calls in the analysed window */
};

/* Fills a->mem from the whole trace. 0, or -1 with err (out of memory). */
int an_memory(struct analysis *a, const struct trace *whole, char *err);
void an_memory_release(struct an_memory *m);
/* "startup", "warm-up", "steady state", "final phase" */
const char *mem_phase_name(enum mem_phase p);

#endif
